import Foundation
import JSON
import TestSupport
import Testing

/// `stepwised` guides a vehicle off its route back to it whenever no new route can be had:
/// without `--router`, and with a router slower than `--router-timeout`, in the same words at
/// the same fixes.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct ReturnGuidanceDaemonTests {
  @Test func aSlowRouterGuidesBackExactlyAsNoRouterDoes() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let track = try RerouteDaemonTests.deviatingDrive(scratch)
    let common = ["--route", RerouteDaemonTests.route, "--json", "--fast"]
    let without = try runTool("stepwised", common + [track])
    #expect(without.status == 0, "\(without.stderr)")
    let said = try RerouteDaemonTests.objects(without.stdout).filter {
      $0["kind"]?.stringValue == "return"
    }
    #expect(said.first?["text"]?.stringValue?.hasPrefix("The route is ") == true)
    #expect(
      said.contains { $0["text"]?.stringValue?.hasPrefix("Turn around when possible.") == true })
    // It never answers: every request ends at the timeout.
    let silent = try CannedHTTPServer(.silent)
    defer { silent.stop() }
    let slow = try runTool(
      "stepwised",
      common + [
        "--router", "http://127.0.0.1:\(silent.port)", "--router-timeout", "0.5", track,
      ])
    #expect(slow.status == 0, "\(slow.stderr)")
    #expect(silent.receivedRequests.count >= 1)
    #expect(slow.stdout == without.stdout)
  }
}
