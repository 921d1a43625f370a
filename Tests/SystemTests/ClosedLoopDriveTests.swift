import Foundation
import JSON
import Lab
import Rerouting
import Simulation
import TestSupport
import Testing
import Wire

/// `stepwise drive` end to end: the virtual vehicle, stepwised fed through a pipe and a real
/// Valhalla on loopback (Monaco), on an 800 m route with a roundabout.
@Suite(.blocking, .serialized, .timeLimit(.minutes(6))) struct ClosedLoopDriveTests {
  static let route = "Tests/Fixtures/valhalla/mc_car_casino_roundabout.en.json"
  /// Fast enough for a test, slow enough that a loopback Valhalla answers within an epoch
  /// (``lateness(_:)`` checks it).
  static let speedUp = 40.0
  /// Epochs (seconds at 1 Hz) within which the loop must take a route answer after its request,
  /// and the driver a new route after the daemon published it: the next epoch, or the one
  /// after when the answer came at its end.
  static let keepingUp = 2.0

  /// A drive recorded as a scratch closed-loop scenario (`--record`, so its replay without a
  /// router is checked against the daemon's events), at ``speedUp`` and again slower while the
  /// recording shows that the loop did not keep up (``lateness(_:)``), down to live pace.
  ///
  /// The closed loop times the router and the daemon on the wall clock: at 40× an epoch is
  /// 25 ms. Under ThreadSanitizer and a loaded machine, stepwised and its router client take
  /// 0.3–1 s per answer and fall up to 11 epochs behind the driver, so answers come 10–40 fix
  /// seconds after their request (after the request's 10 s lifetime, or after the vehicle drove
  /// past the new route's start), the vehicle takes each new route seconds late, and the drive
  /// makes 1 to 23 requests, 41 to 129 s longer, or never arrives: a slow router, not the one
  /// the test is about. Its figures hold only for a drive that kept up, so a drive that did not
  /// is made again at `speedUp × keepingUp / lateness` (at least 1×, where nothing is sped up).
  static func drive(_ valhalla: ValhallaService, _ recipe: String) throws -> (
    ProcessResult, ClosedLoopRun, ScratchDirectory
  ) {
    var speed = speedUp
    while true {
      let scenario = try ScratchDirectory()
      try FileManager.default.copyItem(
        atPath: repositoryFile(route), toPath: scenario.file("route.json"))
      try Data(#"{"closedLoop":{"extract":"monaco",\#(recipe)}}"#.utf8)
        .write(to: URL(fileURLWithPath: scenario.file("scenario.json")))
      let r = try runTool(
        "stepwise",
        [
          "drive", scenario.path, "--router", valhalla.baseURL, "--speed-up",
          NMEAWriter.fixed(speed, 2), "--record",
        ], timeout: 90 * max(1, speedUp / speed))
      let run = try ClosedLoopRun(bytes: readBytes(scenario.file("run.jsonl")))
      let late = try lateness(scenario)
      if late <= keepingUp || speed <= 1 { return (r, run, scenario) }
      scenario.remove()
      speed = max(1, speed * keepingUp / late)
    }
  }

  /// How many fix seconds the loop fell behind, from a drive's recording: the most from a route
  /// request to the fix after which its answer was taken, and from a new `ROUTE` to the
  /// driver's taking (or ignoring) it.
  static func lateness(_ scenario: ScratchDirectory) throws -> Double {
    var late = 0.0
    var asked: [String: Double] = [:]
    for e in try RouterExchange.lines(readBytes(scenario.file("router.jsonl"))) {
      switch e {
      case .request(let q, let time): asked[q.id] = time
      case .answer(let id, _, let after, _):
        if let t = asked[id], let after { late = max(late, after - t) }
      case .router: break
      }
    }
    let run = try ClosedLoopRun(bytes: readBytes(scenario.file("run.jsonl")))
    let routes = run.events.filter { $0.eventClass == .route }.dropFirst()
    for (k, route) in routes.enumerated() {
      let taken = run.actions.filter { $0.kind != .mistake && $0.revision == k + 1 }.first
      if let t = taken?.time { late = max(late, t - route.time) }
    }
    return late
  }

  @Test func aWrongRoundaboutExitIsReroutedAndADriveWithoutMistakesIsNot() throws {
    let valhalla = try ValhallaService(extract: "monaco")
    defer { valhalla.stop() }
    // Recorded as a closed-loop scenario: its replay without a router must give the daemon's
    // own events (`--record` checks it and exits 1 otherwise), and replays as a golden.
    let (r, run, scenario) = try Self.drive(valhalla, #""noise":5,"mistakes":["wrong-exit:2"]"#)
    defer { scenario.remove() }
    #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
    #expect(r.stdout.contains("replayed without a router: "), "\(r.stdout)")
    let router = try String(contentsOfFile: scenario.file("router.jsonl"), encoding: .utf8)
    #expect(router.contains(#""class":"REQUEST""#) && router.contains(#""class":"ANSWER""#))
    let replay = try runTool("stepwise", ["scenario", "run", scenario.path])
    #expect(replay.status == 0 && replay.stdout.contains(": ok ("), "\(replay.stdout)")
    let score = ClosedLoopScore(run, name: "wrong exit")
    #expect(score.arrived, "\(score.notes)")
    #expect(score.mistakes == 1)
    #expect((1...2).contains(score.reroutes), "\(score.notes)")
    #expect(score.falseReroutes == 0, "\(score.notes)")
    #expect(score.duplicates == 0, "\(score.notes)")
    #expect(score.passed == 0, "\(score.notes)")
    // The driver really left the route, and then followed the new one.
    #expect(run.actions.first?.kind == .mistake)
    #expect(run.actions.dropFirst().allSatisfy { $0.kind == .follow })
    #expect(run.truth.contains { $0.revision == nil })
    #expect(run.truth.last?.revision == run.geometries.last?.revision)
    let reroutes = run.events.filter { $0.object["kind"]?.stringValue == "reroute" }
    #expect(reroutes.count == score.reroutes)
    #expect(score.mistakeDelays.count == 1)
    #expect(r.stdout.contains("total"))

    // The same route followed without a mistake, with 10 m of noise: never rerouted.
    let (plain, straight, second) = try Self.drive(valhalla, #""noise":10,"seed":7"#)
    defer { second.remove() }
    #expect(plain.status == 0, "\(plain.stdout)\n\(plain.stderr)")
    let followed = ClosedLoopScore(straight, name: "no mistake")
    #expect(followed.arrived)
    #expect(followed.reroutes == 0, "\(followed.notes)")
    #expect(straight.truth.allSatisfy { $0.revision == 0 })
    #expect(abs(followed.extraDistance ?? .infinity) < 40)
  }

  @Test func aMistakeAtAManeuverTheRouteDoesNotHaveIsRefused() throws {
    let port = try freeLoopbackPort()
    let r = try runTool(
      "stepwise",
      ["drive", Self.route, "--router", "http://127.0.0.1:\(port)", "--mistakes", "miss:9"])
    #expect(r.status == 1)
    // Depart, a turn, the roundabout (its exit folded into it), the arrival.
    #expect(r.stderr.contains("miss:9: the route has maneuvers 1…2"), "\(r.stderr)")
  }
}

/// `stepwise scenario score` on the recorded closed-loop drives.
@Suite(.blocking) struct ClosedLoopScoreCommandTests {
  @Test func theRecordedDrivesAreScoredAndMeetTheBars() throws {
    let dirs = try FileManager.default.contentsOfDirectory(
      atPath: repositoryFile("Simulations/closed-loop")
    ).filter { $0.hasPrefix("c") }.sorted().map { "Simulations/closed-loop/" + $0 }
    #expect(dirs.count >= 6)
    let r = try runTool("stepwise", ["scenario", "score", "--check"] + dirs)
    #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.count == dirs.count + 2, "\(r.stdout)")
    #expect(lines.last?.hasPrefix("total") == true)
    #expect(lines.last?.contains("median") == true)
    let markdown = try runTool("stepwise", ["scenario", "score", "--markdown"] + dirs)
    #expect(markdown.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("| ") })
  }
}
