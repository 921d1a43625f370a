import Foundation
import Geodesy
import Guidance
import JSON
import Lab
import Routes
import Simulation
import TestSupport
import Testing

/// Every folder of `Simulations/` replays to its expected transcript, and its drive keeps the
/// guidance promises (checked against the simulator's truth).
@Suite struct SimulationTests {
  static let scenarios: [String] = {
    let root = repositoryFile("Simulations")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return names.filter { $0.first?.isNumber == true }.sorted().map { root + "/" + $0 }
  }()

  /// The situations the suite must always cover: the scenario that shows each, what its golden
  /// must say, and what it must not.
  static let situations: [(situation: String, scenario: String, says: [String], never: [String])] =
    [
      ("a plain drive to arrival", "001-marais-drive", [#""class":"ARRIVED""#], []),
      (
        "a missed turn, off route and back on it", "003-missed-turn-and-return",
        [#""class":"OFFROUTE""#, #""class":"ONROUTE""#, #""class":"ARRIVED""#], []
      ),
      (
        "a tunnel without fix, GPS lost and restored", "004-tunnel-dropout",
        [#""status":"lost""#, #""status":"acquired""#], [#""class":"OFFROUTE""#]
      ),
      ("a change of travel mode", "005-walk-then-drive", [#""kind":"mode""#], []),
      ("Korean", "006-korean-roundabouts", ["출발"], [" meters"]),
      ("imperial units", "008-cycling-imperial", [" feet"], [" meters"]),
      ("intermediate waypoints", "010-multileg-waypoints", [#""kind":"waypoint""#], []),
      (
        "a wrong turn and no return", "015-baltimore-wrong-turn-no-return",
        [#""class":"OFFROUTE""#], [#""class":"ARRIVED""#]
      ),
      (
        "a receiver that falls silent", "045-marais-receiver-silent",
        [#""status":"lost""#, #""status":"acquired""#], []
      ),
    ]

  @Test func thereAreScenariosForEveryRequiredSituation() throws {
    for s in Self.situations {
      let directory = try #require(
        Self.scenarios.first { $0.hasSuffix("/" + s.scenario) },
        "no scenario \(s.scenario) for \(s.situation)")
      let golden = String(decoding: readBytes(directory + "/expected.jsonl"), as: UTF8.self)
      for text in s.says {
        #expect(golden.contains(text), "\(s.scenario) (\(s.situation)) never says \(text)")
      }
      for text in s.never {
        #expect(!golden.contains(text), "\(s.scenario) (\(s.situation)) says \(text)")
      }
    }
  }

  @Test(arguments: scenarios)
  func scenarioReplaysToItsExpectedTranscript(directory: String) throws {
    let scenario = try Scenario(directory: directory)
    let actual = try scenario.transcript()
    let expected = try #require(scenario.expected(), "no expected.jsonl in \(directory)")
    if actual != expected {
      Issue.record(
        "transcript differs in \(directory):\n\(transcriptDiff(expected: expected, actual: actual))"
      )
    }
  }

  @Test(arguments: scenarios)
  func scenarioTrackMatchesItsRecipe(directory: String) throws {
    let scenario = try Scenario(directory: directory)
    guard scenario.recipe != nil else { return }
    let committed = String(decoding: readBytes(scenario.trackPath), as: UTF8.self)
    #expect(try scenario.simulatedTrack() == committed, "drive.nmea is not what its recipe makes")
  }

  @Test(arguments: scenarios)
  func scenarioKeepsTheGuidancePromises(directory: String) throws {
    let scenario = try Scenario(directory: directory)
    guard let recipe = scenario.recipe else { return }
    try Self.checkPromises(scenario, recipe, directory)
  }

  /// The seeds, besides a recipe's own, with which every scenario must keep the promises.
  ///
  /// A rule tuned to one seed's noise would break on another. `STEPWISE_SEED_SWEEP=N` adds N
  /// more, 7,919 apart: a search for what still breaks (the promises are not kept over every
  /// seed; `brokenSeeds` keeps those found and mended).
  static let otherSeeds: [UInt64] =
    [101, 202, 303]
    + (0..<(ProcessInfo.processInfo.environment["STEPWISE_SEED_SWEEP"].flatMap(Int.init) ?? 0))
    .map { UInt64($0 + 1) * 7_919 }

  /// Seeds of that sweep that broke a promise, each kept with the scenario after its fix.
  static let brokenSeeds: [(scenario: String, seed: UInt64)] = [
    // A false off-route at the start: fixes 20 m off while the car pulls out of its car park,
    // held to the tighter distance around a maneuver as if the departure were one.
    ("041-marais-city-everything", 71_312),
    // A false off-route after a gap whose first fix was a glitch: the next fixes were matched
    // around the position before the gap, as if the vehicle had stood since.
    ("041-marais-city-everything", 150_502),
    ("040-liechtenstein-glitches-and-gaps", 71_311),
    // A walker nearing the car park matched onto the way the car will leave it, 105 m on: the
    // car park and the first turn by car skipped, never announced.
    ("005-walk-then-drive", 31_688),
    // A false off-route in a canyon 35 m beside the road: the fixes drifted 15 → 36 m off in
    // 3 s while their course kept to the road, taken for a vehicle leaving it.
    ("036-liechtenstein-canyons-hdop1.5", 261_363),
    // A false off-route after 21 minutes parked: the first fix back, nearer the way back 8 m
    // beside the spot than the way out where the car stood, matched 900 m on; driving off
    // towards the U-turn was then the wrong way.
    ("066-vaduz-parked-beside-the-way-back", 198_041),
    // The turn after a car park's loop never announced: the car crept back onto the lane it
    // came in by, the other way, and the fixes curved too much to say which way they moved.
    ("062-car-park-turn-round-before-u-turn", 221_794),
  ]

  @Test(arguments: brokenSeeds.indices)
  func aSeedThatBrokeAPromiseKeepsIt(index: Int) throws {
    let (name, seed) = Self.brokenSeeds[index]
    let directory = repositoryFile("Simulations/\(name)")
    let scenario = try Scenario(directory: directory)
    var recipe = try #require(scenario.recipe)
    recipe.seed = seed
    try Self.checkPromises(scenario, recipe, "\(directory) (seed \(seed))")
  }

  @Test(arguments: scenarios)
  func scenarioKeepsTheGuidancePromisesWithOtherSeeds(directory: String) throws {
    let scenario = try Scenario(directory: directory)
    guard let recipe = scenario.recipe else { return }
    for offset in Self.otherSeeds {
      var other = recipe
      other.seed = recipe.seed &+ offset
      try Self.checkPromises(scenario, other, "\(directory) (seed \(other.seed))")
    }
  }

  /// Drives `scenario`'s route with `recipe` and checks what the simulator's truth shows:
  /// final announcements before their maneuvers, no duplicate, arrival within 25 m, no false
  /// off-route and every step started in order (an off-route event for a deviation).
  static func checkPromises(_ scenario: Scenario, _ recipe: DriveOptions, _ directory: String)
    throws
  {
    let route = try scenario.document.route(at: scenario.routeIndex)
    let drive = DriveSimulator.drive(route, options: recipe)
    var session = try scenario.session()
    var events: [NavigationEvent] = []
    for f in drive.fixes { events += session.ingest(f) }
    var doc = scenario.document
    doc.routes = [route]
    try GuidanceProperties.checkAnnouncementsBeforeManeuvers(
      doc, drive, events, in: " in \(directory)")
    #expect(GuidanceProperties.duplicateIDs(events).isEmpty, "in \(directory)")
    let arrival = events.first {
      if case .arrived = $0.kind { return true }
      return false
    }
    if recipe.deviation == nil || recipe.deviation?.rejoin == true {
      let a = try #require(arrival, "no arrival in \(directory)")
      let truth = try #require(drive.truth.first { $0.time == a.time })
      let end = try #require(route.steps[route.steps.count - 1].polyline.last)
      let away = truth.position.distance(to: end)
      #expect(away <= 25, "arrival \(Int(away.rounded())) m from the end in \(directory)")
    }
    if recipe.deviation == nil {
      #expect(GuidanceProperties.offRouteCount(events) == 0, "false off-route in \(directory)")
      // Nothing skipped: every step starts, in order. A step back after an outage takes back
      // only steps an estimate started (the fixes came back behind them), which start again.
      var started: [(step: Int, estimated: Bool)] = []
      for e in events {
        guard let s = e.stepIndex else { continue }
        if let i = started.firstIndex(where: { $0.step > s }) {
          #expect(
            !e.estimated && started[i...].allSatisfy(\.estimated),
            "a step back to \(s) over steps not estimated in \(directory)")
          started.removeSubrange(i...)
          if started.last?.step == s { continue }
        }
        started.append((s, e.estimated))
      }
      #expect(started.map(\.step) == Array(1..<route.steps.count), "steps in \(directory)")
    } else {
      #expect(GuidanceProperties.offRouteCount(events) >= 1, "no off-route in \(directory)")
    }
  }
}
