import Foundation
import JSON
import Lab
import Simulation
import TestSupport
import Testing

/// `stepwise drive` end to end: the virtual vehicle, stepwised fed through a pipe and a real
/// Valhalla on loopback (Monaco), on an 800 m route with a roundabout.
@Suite(.blocking, .serialized, .timeLimit(.minutes(3))) struct ClosedLoopDriveTests {
  static let route = "Tests/Fixtures/valhalla/mc_car_casino_roundabout.en.json"
  /// Fast enough for a test, slow enough that a loopback Valhalla answers within an epoch.
  static let speedUp = "40"

  static func drive(_ valhalla: ValhallaService, _ options: [String]) throws -> (
    ProcessResult, ClosedLoopRun
  ) {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let output = scratch.file("run.jsonl")
    let r = try runTool(
      "stepwise",
      ["drive", route, "--router", valhalla.baseURL, "--speed-up", speedUp, "--output", output]
        + options, timeout: 90)
    let run = try ClosedLoopRun(bytes: readBytes(output))
    return (r, run)
  }

  @Test func aWrongRoundaboutExitIsReroutedAndADriveWithoutMistakesIsNot() throws {
    let valhalla = try ValhallaService(extract: "monaco")
    defer { valhalla.stop() }
    // Recorded as a closed-loop scenario: its replay without a router must give the daemon's
    // own events (`--record` checks it and exits 1 otherwise), and replays as a golden.
    let scenario = try ScratchDirectory()
    defer { scenario.remove() }
    try FileManager.default.copyItem(
      atPath: repositoryFile(Self.route), toPath: scenario.file("route.json"))
    try Data(
      #"{"closedLoop":{"extract":"monaco","noise":5,"mistakes":["wrong-exit:2"]}}"#.utf8
    ).write(to: URL(fileURLWithPath: scenario.file("scenario.json")))
    let r = try runTool(
      "stepwise",
      [
        "drive", scenario.path, "--router", valhalla.baseURL, "--speed-up", Self.speedUp,
        "--record",
      ],
      timeout: 90)
    #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
    #expect(r.stdout.contains("replayed without a router: "), "\(r.stdout)")
    let router = try String(contentsOfFile: scenario.file("router.jsonl"), encoding: .utf8)
    #expect(router.contains(#""class":"REQUEST""#) && router.contains(#""class":"ANSWER""#))
    let replay = try runTool("stepwise", ["scenario", "run", scenario.path])
    #expect(replay.status == 0 && replay.stdout.contains(": ok ("), "\(replay.stdout)")
    let run = try ClosedLoopRun(bytes: readBytes(scenario.file("run.jsonl")))
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
    let (plain, straight) = try Self.drive(valhalla, ["--noise", "10", "--seed", "7"])
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
