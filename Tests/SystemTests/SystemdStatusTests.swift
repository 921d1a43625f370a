import Foundation
import TestSupport
import Testing

/// What `systemctl status stepwised` shows while a drive is replayed: heading to the route from
/// a car park, then the step and the distance to go, and the receiver's jumps once one was
/// discarded.
@Suite(.blocking) struct SystemdStatusTests {
  @Test func theStatusSaysHeadingToTheRouteThenTheStepAndCountsDiscardedJumps() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let route = "Simulations/001-marais-drive/route.json"
    let sim = try runTool(
      "stepwise",
      [
        "simulate", route, "--settle", "1", "--pull-out", "120:10:4", "--glitch-every", "4",
        "--noise", "3", "--seed", "5",
      ])
    try #require(sim.status == 0, "\(sim.stderr)")
    let track = scratch.file("pull-out.nmea")
    try Data(sim.stdout.utf8).write(to: URL(fileURLWithPath: track))
    let listener = try NotifyListener(abstract: true)
    let daemon = try DaemonIntegrationTests.stepwised(
      ["--route", route, "--replay-speed", "2", track], scratch: scratch,
      environment: ["NOTIFY_SOCKET": listener.name])
    defer { daemon.killGroup() }
    var statuses: [String] = []
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline, !statuses.contains(where: { $0.contains("discarded") }) {
      guard let m = listener.receive() else { continue }
      for line in m.split(separator: "\n") where line.hasPrefix("STATUS=") {
        statuses.append(String(line.dropFirst(7)))
      }
    }
    let heading = statuses.firstIndex {
      $0.hasPrefix("heading to the route, ") && $0.hasSuffix(" m away")
    }
    let following = statuses.firstIndex {
      $0.hasPrefix("step 1 of 10, ") && $0.contains(" km to go")
    }
    #expect(heading.map { h in following.map { h < $0 } ?? false } ?? false, "\(statuses)")
    #expect(statuses.contains { $0.hasSuffix(", 1 jump discarded") }, "\(statuses)")
  }
}
