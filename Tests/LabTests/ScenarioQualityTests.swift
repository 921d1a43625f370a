import Foundation
import Geodesy
import Guidance
import Lab
import Phrasebook
import Routes
import Simulation
import TestSupport
import Testing

/// The scenario suite meets the quality bar of issue 7, measured by the scorer against the
/// simulator's truth; and the scorer itself counts what it should.
@Suite struct ScenarioQualityTests {
  static let scenarios = SimulationTests.scenarios

  @Test(arguments: scenarios)
  func scenarioMeetsTheQualityBar(directory: String) throws {
    let scenario = try Scenario(directory: directory)
    let score = try scenario.score()
    // A committed real track has no truth: its violations are empty by definition.
    let misses = score.violations()
    let report =
      "\(score.name): \(misses.joined(separator: "; "))\n  "
      + score.notes.joined(separator: "\n  ")
    #expect(misses.isEmpty, "\(report)")
  }

  /// The suite covers every situation the issue lists.
  @Test func suiteCoversEveryRequiredSituation() throws {
    let all = try Self.scenarios.map { try Scenario(directory: $0) }
    #expect(all.count >= 24)
    let recipes = all.compactMap(\.recipe)
    let routes = try all.map { try $0.document.route(at: $0.routeIndex) }
    var missing: [String] = []
    func need(_ what: String, _ ok: Bool) { if !ok { missing.append(what) } }
    let texts = routes.flatMap { $0.steps.map(\.instructions) }.joined(separator: "\n")
    need("town", routes.contains { $0.transportType == .automobile })
    need("highway profile", recipes.contains { $0.profile == .highway })
    need("ramps", texts.contains("ramp") || texts.contains("램프"))
    need("roundabouts", texts.contains("roundabout") || texts.contains("회전교차로"))
    need("tunnel", recipes.contains { !$0.dropouts.isEmpty })
    need(
      "automatic tunnel",
      routes.contains { $0.steps.contains { DriveSimulator.mentionsTunnel($0.notice) } })
    need("toll road", routes.contains(where: \.hasTolls))
    need("ferry", routes.contains { $0.steps.contains { $0.transportType == .transit } })
    need("multi-leg", routes.contains { $0.steps.contains { $0.waypoint != nil } })
    need("walking", routes.contains { $0.transportType == .walking })
    need("cycling", routes.contains { $0.transportType == .cycling })
    for noise in [0.0, 5, 15] { need("noise \(noise)", recipes.contains { $0.noise == noise }) }
    need("1 Hz", recipes.contains { $0.hz == 1 })
    need("10 Hz", recipes.contains { $0.hz == 10 })
    need("deviation with return", recipes.contains { $0.deviation?.rejoin == true })
    need("deviation without return", recipes.contains { $0.deviation?.rejoin == false })
    need("stop-and-go", recipes.contains { $0.stops.count >= 2 })
    need("multipath", recipes.contains { $0.multipath > 0 })
    need("English", all.contains { $0.language == .en })
    need("Korean", all.contains { $0.language == .ko })
    need("imperial", all.contains { $0.units == .imperial })
    need("street canyon", recipes.contains { !$0.canyons.isEmpty })
    need("HDOP only", all.contains { $0.recipe != nil && !$0.sentences.contains(.gst) })
    need("glitches", recipes.contains { $0.glitchEvery > 0 })
    need("gaps outside tunnels", recipes.contains { !$0.gaps.isEmpty })
    need("car-park start", recipes.contains { $0.pullOut != nil })
    need("coarse geometry", recipes.contains { $0.cornerCut > 0 })
    need("a cut across the route", recipes.contains { !$0.shortcuts.isEmpty })
    #expect(missing.isEmpty, "missing: \(missing)")
    // Every scenario has a README line with attribution.
    for s in all {
      let readme = String(decoding: readBytes(s.directory + "/README.md"), as: UTF8.self)
      #expect(readme.contains("OpenStreetMap"), "\(s.directory)/README.md lacks attribution")
    }
  }

  // MARK: - The scorer

  static let route = makeRoute(legs: [
    (90, 500, "Turn left onto A Street"),
    (0, 400, "Turn right onto B Street"),
    (90, 500, "Your destination is on the right"),
  ])

  private func drive(_ options: DriveOptions) throws -> (SimulatedDrive, [NavigationEvent]) {
    let drive = DriveSimulator.drive(Self.route.routes[0], options: options)
    return (drive, try runSession(Self.route, fixes: drive.fixes))
  }

  @Test func aCleanDriveScoresFull() throws {
    var o = DriveOptions()
    o.profile = .town
    let (d, events) = try drive(o)
    let s = QualityScore(
      name: "clean", route: Self.route.routes[0], events: events, truth: d, options: o)
    #expect(s.maneuvers == 2)
    #expect(s.finalBefore == 2)
    #expect(s.leadTimes.count == 2 && s.leadTimes.allSatisfy { $0 > 0 })
    #expect(s.duplicates == 0 && s.falseOffRoute == 0 && s.skippedSteps == 0)
    #expect(s.departures.isEmpty)
    #expect((s.arrivalError ?? 99) <= 25)
    #expect(s.violations().isEmpty, "\(s.violations())")
  }

  @Test func duplicatesFalseOffRouteAndSkippedStepsAreCounted() throws {
    let (d, clean) = try drive(DriveOptions())
    var events = clean
    // An announcement said twice, an off-route event on a clean drive, a missing STEP.
    let finalAnnouncement = try #require(events.first { $0.announcement?.kind == .now })
    events.append(finalAnnouncement)
    let mid = d.truth[d.truth.count / 2].time
    events.append(NavigationEvent(time: mid, kind: .offRoute(distance: 40)))
    events.removeAll { $0.stepIndex == 2 }
    let s = QualityScore(
      name: "bad", route: Self.route.routes[0], events: events, truth: d, options: DriveOptions())
    #expect(s.duplicates == 1)
    #expect(s.falseOffRoute == 1)
    #expect(s.skippedSteps == 1)
    #expect(s.violations().count == 3, "\(s.violations())")
  }

  @Test func aLateAnnouncementAndAMissingOneFailTheFinalAnnouncementFigure() throws {
    let (d, clean) = try drive(DriveOptions())
    // Move maneuver 1's announcements after the maneuver; drop maneuver 2's.
    let reached = try #require(
      d.truth.first { $0.distanceAlong >= 500 }?.time)
    let events = clean.compactMap { e -> NavigationEvent? in
      guard let a = e.announcement, [.prepare, .approach, .now].contains(a.kind) else { return e }
      if a.step == 2 { return nil }
      return NavigationEvent(time: reached + 3, kind: e.kind)
    }
    let s = QualityScore(
      name: "late", route: Self.route.routes[0], events: events, truth: d, options: DriveOptions())
    #expect(s.maneuvers == 2)
    #expect(s.finalBefore == 0)
    #expect(s.leadTimes.allSatisfy { $0 < 0 })
    #expect(s.notes.contains { $0.contains("never announced") })
  }

  @Test func aDeviationIsTimedFromLeavingTheRoute() throws {
    var o = DriveOptions()
    o.deviation = Deviation(at: 700, angle: 90, length: 300, rejoin: false)
    let (d, events) = try drive(o)
    let s = QualityScore(
      name: "dev", route: Self.route.routes[0], events: events, truth: d, options: o)
    let dep = try #require(s.departures.first)
    let seconds = try #require(dep.seconds)
    #expect(seconds > 0 && seconds < 10)
    #expect((dep.metres ?? 0) > 30)
    #expect(!s.arrivalExpected && s.arrivalError == nil)
    #expect(s.falseOffRoute == 0)
    // Without any off-route event, the departure is missed.
    let silent = QualityScore(
      name: "dev", route: Self.route.routes[0], events: events.filter { !$0.isOffRoute },
      truth: d, options: o)
    #expect(silent.departures.first?.reported == nil)
    #expect(silent.violations().contains { $0.contains("never reported") })
  }

  @Test func withoutTruthTheTableSaysWhatCannotBeKnown() throws {
    let (_, events) = try drive(DriveOptions())
    let s = QualityScore(
      name: "real", route: Self.route.routes[0], events: events, truth: nil, options: nil)
    #expect(!s.hasTruth && s.finalBefore == nil && s.falseOffRoute == nil && s.skippedSteps == nil)
    let row = QualityTable.row(s)
    // Every figure that needs the truth: final before %, final < 3 s, both leads, false
    // off-route, both off-route delays, the delay after 50 m, arrival error, skipped steps.
    #expect(row.filter { $0 == "n/a" }.count == 10, "\(row)")
    let text = QualityTable.text([s]).joined(separator: "\n")
    #expect(text.contains("cannot be known"))
    #expect(s.violations().isEmpty)
  }

  @Test func markdownTableHasAHeaderARowPerScenarioAndATotal() throws {
    let scores = try Self.scenarios.prefix(3).map { try Scenario(directory: $0).score() }
    let md = QualityTable.markdown(scores, command: "stepwise scenario score --markdown X")
    let rows = md.filter { $0.hasPrefix("| ") }
    #expect(rows.count == 1 + 3 + 1)
    #expect(rows.last?.hasPrefix("| total |") == true)
    #expect(md.contains { $0.contains("Generated by `stepwise scenario score --markdown X`") })
    #expect(rows.allSatisfy { $0.split(separator: "|").count == QualityTable.headings.count })
  }

  @Test func committedQualityDocumentIsUpToDate() throws {
    let scores = try Self.scenarios.map { try Scenario(directory: $0).score() }
    let expected = QualityTable.markdown(
      scores, command: "stepwise scenario score --markdown Simulations/0* > docs/quality.md")
    let committed = String(decoding: readBytes(repositoryFile("docs/quality.md")), as: UTF8.self)
    #expect(
      committed == expected.joined(separator: "\n") + "\n",
      "docs/quality.md is stale: run stepwise scenario score --markdown Simulations/0* > docs/quality.md"
    )
  }
}
