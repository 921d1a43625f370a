import Foundation
import JSON
import Subscribers
import TestSupport
import Testing

/// `stepwise skip` and `stepwise reroute` against a real stepwised and a real Valhalla: what the
/// daemon does is said on standard output, each refusal (no waypoint, no router, not permitted)
/// on standard error with exit status 1.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct RerouteToolTests {
  @Test func skipAndRerouteSayWhatTheDaemonDoes() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let valhalla = try ValhallaService(extract: "paris_bss")
    defer { valhalla.stop() }
    let route = try SkipCommandTests.twoLegRoute(valhalla, scratch)
    let (daemon, sock) = try SkipCommandTests.daemon(
      scratch, route: route, router: valhalla.baseURL, tag: "t")
    defer { daemon.killGroup() }
    let client = try SocketTestClient(path: sock)
    _ = client.until("STEP", timeout: 20)

    let skip = try stepwise(["skip", "--socket", sock])
    #expect(skip.status == 0, "\(skip.stderr)")
    #expect(skip.stdout == "Skipping the next waypoint: the new route comes as a ROUTE event.\n")
    let rerouted = try #require(client.until("ROUTE", timeout: 20).last)
    #expect(rerouted["class"]?.stringValue == "ROUTE", "\(daemon.stderr)")
    #expect(rerouted["reason"]?.stringValue == "reroute")
    // The new route goes straight to the destination: nothing left to skip.
    let again = try stepwise(["skip", "--socket", sock])
    #expect(again.status == 1)
    #expect(again.stdout.isEmpty)
    #expect(
      again.stderr.contains(
        "stepwise skip: the route has no waypoint left before its destination"), "\(again.stderr)")
    let reroute = try stepwise(["reroute", "--socket", sock, "--json"])
    #expect(reroute.status == 0, "\(reroute.stderr)")
    let reply = try #require(try JSONParser.parse(reroute.stdout).objectValue)
    #expect(reply["class"]?.stringValue == "REPLY" && reply["cmd"]?.stringValue == "reroute")
    #expect(reply["ok"]?.boolValue == true)
  }

  @Test func withoutARouterBothSaySoAndAnotherUserMayNotAsk() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (daemon, sock) = try SkipCommandTests.daemon(
      scratch, route: DaemonIntegrationTests.route, router: nil, tag: "n")
    defer { daemon.killGroup() }
    let client = try SocketTestClient(path: sock)
    _ = client.until("STEP", timeout: 20)
    for command in ["skip", "reroute"] {
      let tool = try stepwise([command, "--socket", sock])
      #expect(tool.status == 1)
      #expect(
        tool.stderr.contains("stepwise \(command): this daemon has no router (--router URL)"),
        "\(tool.stderr)")
    }
    // A peer outside root, the daemon's user and its control group (the stand-in daemon's
    // socket is reachable by nobody).
    let (dir, _, server) = try ClientTests.daemon("reroute-tool")
    defer {
      server.shutdown()
      dir.remove()
    }
    for command in ["skip", "reroute"] {
      let tool = try stepwise([command, "--socket", dir.socketPath], asNobody: true)
      #expect(tool.status == 1)
      #expect(
        tool.stderr.contains("stepwise \(command): permission denied (only root"),
        "\(tool.stderr)")
    }
  }
}
