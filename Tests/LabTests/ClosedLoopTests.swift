import Foundation
import Geodesy
import Lab
import Routes
import Simulation
import TestSupport
import Testing

/// The closed-loop driver (pure) and the closed-loop score, on made routes and on the recorded
/// runs of `Simulations/closed-loop`.
@Suite struct ClosedLoopTests {
  /// 600 m east, a right turn, 400 m south.
  static let document = makeRoute(legs: [
    (90, 600, "Turn right onto South Street."), (180, 400, "Arrive at the goal."),
  ])
  static var points: [Coordinate] { document.routes[0].steps.flatMap(\.polyline) }

  static func options() -> DriveOptions {
    var o = DriveOptions()
    o.profile = .town
    o.settle = 2
    o.dwell = 2
    return o
  }

  static func driveToTheEnd(_ driver: inout ClosedLoopDriver, limit: Int = 1000)
    -> [ClosedLoopDriver.Sample]
  {
    var samples: [ClosedLoopDriver.Sample] = []
    for _ in 0..<limit where !driver.finished { samples.append(driver.step().sample) }
    return samples
  }

  @Test(arguments: ["miss:3", "wrong-exit:2", "u-turn:800", "ignore", "stop:300:20"])
  func mistakesAreSpelledBackAsTheyAreWritten(text: String) throws {
    let m = try #require(DrivingMistake(text))
    #expect(m.description == text)
  }

  @Test(arguments: ["miss", "miss:0", "u-turn:-5", "stop:300", "left:2", "ignore:1"])
  func malformedMistakesAreRefused(text: String) {
    #expect(DrivingMistake(text) == nil)
  }

  @Test func aDriverWithoutMistakesFollowsTheRouteToItsEnd() {
    var driver = ClosedLoopDriver(
      route: Self.points, options: Self.options(), detours: [], mistakes: [])
    let samples = Self.driveToTheEnd(&driver)
    #expect(driver.finished && driver.reachedDestination)
    #expect(samples.allSatisfy { $0.revision == 0 })
    let end = Self.points[Self.points.count - 1]
    #expect(samples.last.map { $0.position.distance(to: end) < 1 } == true)
    // Town speed, and slower through the right angle at 600 m.
    #expect(abs((samples.map(\.speed).max() ?? 0) - 50 / 3.6) < 0.01)
    let corner = samples.first { $0.along >= 600 }
    #expect((corner?.speed ?? 99) < 8)
    #expect(driver.actions.isEmpty)
  }

  @Test func aDetourIsDrivenAndANewRouteIsJoinedWhereItPassesNearest() throws {
    // Straight on at the corner instead of turning right: 500 m more to the east.
    let corner = Polyline(Self.points).point(at: 600)
    let road = [corner, corner.destination(distance: 500, bearing: 90)]
    let detour = Detour(leaveAt: 600, path: road, mistake: .missTurn(step: 1))
    var driver = ClosedLoopDriver(
      route: Self.points, options: Self.options(), detours: [detour], mistakes: [])
    var samples: [ClosedLoopDriver.Sample] = []
    while samples.last?.revision != nil || samples.count < 10 {
      samples.append(driver.step().sample)
      if samples.count > 200 { break }
    }
    #expect(driver.actions.first?.kind == .mistake)
    #expect(driver.actions.first?.mistake == "miss:1")
    let here = try #require(samples.last)
    #expect(Polyline(Self.points).locate(here.position, near: 600, within: 100).offset > 5)
    // A new route from a little behind the vehicle, back west and round: joined at the
    // vehicle, not at its start.
    let back = here.position.destination(distance: 20, bearing: 270)
    let reroute = [back, here.position.destination(distance: 200, bearing: 90)]
    let taken = driver.offered(revision: 1, route: reroute)
    #expect(taken)
    let next = driver.step().sample
    #expect(next.revision == 1)
    #expect(abs(next.along - 20) < 20)
    #expect(driver.actions.last?.kind == .follow)
    _ = Self.driveToTheEnd(&driver)
    #expect(driver.reachedDestination)
  }

  @Test func theFirstNewRouteAfterAMistakeIsIgnoredWhenScripted() {
    let corner = Polyline(Self.points).point(at: 600)
    let detour = Detour(
      leaveAt: 600, path: [corner, corner.destination(distance: 800, bearing: 90)],
      mistake: .missTurn(step: 1))
    var driver = ClosedLoopDriver(
      route: Self.points, options: Self.options(), detours: [detour], mistakes: [.ignoreNewRoute])
    var sample = driver.step().sample
    while sample.along < 100 || sample.revision != nil { sample = driver.step().sample }
    let ahead = [sample.position, sample.position.destination(distance: 300, bearing: 0)]
    let first = driver.offered(revision: 1, route: ahead)
    #expect(!first)
    #expect(driver.step().sample.revision == nil)
    let second = driver.offered(revision: 2, route: ahead)
    #expect(second)
    #expect(driver.step().sample.revision == 2)
    #expect(driver.actions.map(\.kind) == [.mistake, .ignore, .follow])
  }

  @Test func aUTurnStopsAndDrivesBackAlongTheRoute() {
    var driver = ClosedLoopDriver(
      route: Self.points, options: Self.options(), detours: [], mistakes: [.uTurn(at: 400)])
    var samples: [ClosedLoopDriver.Sample] = []
    for _ in 0..<120 { samples.append(driver.step().sample) }
    let turned = samples.firstIndex { $0.revision == nil }
    #expect(turned != nil)
    let before = turned.map { samples[$0 - 1] }
    #expect(before?.speed == 0)
    let later = samples.last
    #expect(later.map { bearingDifference($0.course, 270) < 1 } == true)
    let line = Polyline(Self.points)
    #expect(later.map { line.locate($0.position, near: 200, within: 400).offset < 1 } == true)
  }

  @Test func theLeavingPointOfARoadIsWhereItParts() throws {
    let line = Polyline(Self.points)
    let road = [
      line.point(at: 500), line.point(at: 550), line.point(at: 600),
      line.point(at: 600).destination(distance: 300, bearing: 90),
    ]
    let d = try #require(
      Detour.leaving(
        Self.points, road: road, near: 600, window: 570...630, mistake: .missTurn(step: 1)))
    #expect(abs(d.leaveAt - 600) < 1)
    #expect(d.path.count == 2)
    #expect(
      Detour.leaving(
        Self.points, road: road, near: 600, window: 0...100, mistake: .missTurn(step: 1))
        == nil)
  }

  static let runs: [String] = {
    let root = repositoryFile("Simulations/closed-loop")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return names.filter { $0.hasPrefix("c") }.sorted().map { root + "/" + $0 }
  }()

  @Test func theClosedLoopScenariosAreNumberedApartFromTheOpenLoopOnes() {
    let names = Self.runs.map { $0.split(separator: "/").last.map(String.init) ?? "" }
    #expect(names.count >= 7, "\(names)")
    #expect(
      names.allSatisfy { $0.hasPrefix("c") && $0.dropFirst().prefix(2).allSatisfy(\.isNumber) })
  }

  @Test(arguments: runs)
  func everyRecordedClosedLoopDriveMeetsTheBars(directory: String) throws {
    let s = try ClosedLoopScenario(
      directory: directory, read: { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) })
    let score = try s.score()
    #expect(score.violations().isEmpty, "\(score.name): \(score.violations()) \(score.notes)")
    #expect(score.mistakes == s.recipe.mistakes.filter(\.leavesRoute).count)
    #expect(s.run?.mistakes == s.recipe.mistakes, "run.jsonl is not a drive of this recipe")
  }

  @Test func theClosedLoopSuiteCoversEveryScriptedMistake() throws {
    let all = try Self.runs.map {
      try ClosedLoopScenario(
        directory: $0, read: { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
      ).recipe.mistakes
    }.flatMap { $0 }
    let names = all.map(\.description)
    for kind in ["miss:", "wrong-exit:", "u-turn:", "stop:", "ignore"] {
      #expect(names.contains { $0.hasPrefix(kind) }, "no \(kind) mistake")
    }
    #expect(all.contains(.ignoreNewRoute))
  }

  /// The scorer counts what it should: an announcement said again, and one for a maneuver behind.
  @Test func theScoreCountsARepeatedAnnouncementAndOneForAPassedManeuver() throws {
    let path = repositoryFile("Simulations/closed-loop/c01-monaco-missed-turn/run.jsonl")
    let bytes = readBytes(path)
    let clean = ClosedLoopScore(try ClosedLoopRun(bytes: bytes), name: "c01")
    #expect(clean.duplicates == 0 && clean.passed == 0)
    let lines = bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    let last = try #require(lines.last { $0.contains("\"class\":\"TRUTH\"") })
    let end = String(try #require(last.split(separator: "\"").dropFirst(7).first))
    func said(_ line: String, at time: String, id suffix: String = "") -> String {
      var out = line
      if let r = out.range(of: #""time":"[^"]*""#, options: .regularExpression) {
        out.replaceSubrange(r, with: "\"time\":\"\(time)\"")
      }
      if !suffix.isEmpty, let r = out.range(of: #""id":"[^"]*"#, options: .regularExpression) {
        out.insert(contentsOf: suffix, at: r.upperBound)
      }
      return out
    }
    func score(_ extra: String) throws -> ClosedLoopScore {
      ClosedLoopScore(
        try ClosedLoopRun(bytes: Array((lines + [extra]).joined(separator: "\n").utf8)),
        name: "c01 changed")
    }
    // The first final announcement of the new route, said again at the end of the drive: the same id.
    let now = try #require(
      lines.first { $0.contains("\"id\":\"r0.v1.s") && $0.contains("\"now\"") })
    let repeated = try score(said(now, at: end))
    #expect(repeated.duplicates == 1, "\(repeated.notes)")
    // The same announcement under another id: an announcement for a maneuver the vehicle passed long ago.
    let passed = try score(said(now, at: end, id: ".again"))
    #expect(passed.duplicates == 0, "\(passed.notes)")
    #expect(passed.passed == 1, "\(passed.notes)")
  }
}
