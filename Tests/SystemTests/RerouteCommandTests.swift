import Foundation
import JSON
import TestSupport
import Testing

/// The socket's `reroute` command against a paced replay: with a real Valhalla it asks for a new
/// route at the next fix (published as a `ROUTE`), without a router it is refused.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct RerouteCommandTests {
  static func daemon(
    _ scratch: ScratchDirectory, router: String?, tag: String
  ) throws -> (SpawnedProcess, String) {
    let track = try DaemonIntegrationTests.track(scratch, settle: 2)
    let sock = scratch.file("\(tag).sock")
    let daemon = try DaemonIntegrationTests.stepwised(
      ["--route", DaemonIntegrationTests.route, "--json", "--socket", sock, "--replay-speed", "4"]
        + (router.map { ["--router", $0] } ?? []) + [track], scratch: scratch, tag: tag)
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    return (daemon, sock)
  }

  @Test func rerouteAsksTheRouterAtTheNextFix() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let valhalla = try ValhallaService(extract: "paris_bss")
    defer { valhalla.stop() }
    let (daemon, sock) = try Self.daemon(scratch, router: valhalla.baseURL, tag: "r")
    defer { daemon.killGroup() }
    let client = try SocketTestClient(path: sock)
    // Once guidance runs (its first STEP), ask for a new route.
    _ = client.until("STEP", timeout: 20)
    client.send(#"{"cmd":"reroute","id":7}"#)
    let reply = try #require(client.answer(timeout: 10))
    #expect(reply["class"]?.stringValue == "REPLY")
    #expect(reply["id"]?.doubleValue == 7)
    let events = client.until("ROUTE", timeout: 20)
    let route = try #require(events.last)
    #expect(route["class"]?.stringValue == "ROUTE", "\(daemon.stderr)")
    // `routes` now describes the new route, with each step's polyline for a map.
    client.send(#"{"cmd":"routes","geometry":true}"#)
    let routes = try #require(client.answer(timeout: 10))
    let selected = try #require(routes["routes"]?.arrayValue?.first)
    let steps = try #require(selected["stepList"]?.arrayValue)
    #expect(Double(steps.count) == route["steps"]?.doubleValue)
    #expect(selected["distance"]?.doubleValue == route["distance"]?.doubleValue)
    #expect(steps.dropFirst().allSatisfy { ($0["polyline"]?.arrayValue?.count ?? 0) >= 2 })
    #expect(steps[1]["polyline"]?.arrayValue?.first?["latitude"]?.doubleValue != nil)
  }

  @Test func withoutARouterRerouteIsUnavailable() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (daemon, sock) = try Self.daemon(scratch, router: nil, tag: "n")
    defer { daemon.killGroup() }
    let client = try SocketTestClient(path: sock)
    _ = client.until("STEP", timeout: 20)
    client.send(#"{"cmd":"reroute"}"#)
    let answer = try #require(client.answer(timeout: 10))
    #expect(answer["class"]?.stringValue == "ERROR")
    #expect(answer["code"]?.stringValue == "unavailable")
    // The client says so and exits with the daemon's refusal.
    let tool = try runTool("stepwise", ["reroute", "--socket", sock])
    #expect(tool.status != 0)
    #expect(tool.stderr.contains("no router"), "\(tool.stderr)")
  }
}
