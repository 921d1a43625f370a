import Foundation
import Geodesy
import Instructions
import JSON
import Rerouting
import RouteFiles
import Router
import Routes
import TestSupport
import Testing

/// The socket's `skip` command against a paced replay and a real Valhalla: it drops the next
/// waypoint of a route with two legs and reroutes without it; refused clearly without a router
/// or without a waypoint left.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct SkipCommandTests {
  /// A two-leg route through the Marais from the router itself: source, a waypoint in the middle
  /// of `Simulations/001-marais-drive`, destination; written as a native document.
  static func twoLegRoute(_ valhalla: ValhallaService, _ scratch: ScratchDirectory) throws
    -> String
  {
    let marais = try RouteFiles.load(DaemonIntegrationTests.route)
    let steps = try marais.route(at: 0).steps
    let middle = try #require(steps[steps.count / 2].polyline.last)
    let client = try RouterClient(
      baseURL: valhalla.baseURL, api: .valhalla, timeout: 10,
      writer: InstructionWriter(language: .en))
    defer { client.close() }
    let answer = client.fetch(
      RouteRequest(
        origin: .init(
          coordinate: marais.source.coordinate, course: nil, speed: 0, accuracy: nil),
        waypoints: [
          .init(coordinate: middle, kind: .stop),
          .init(coordinate: marais.destination.coordinate, kind: .stop),
        ],
        transportType: .automobile, language: "en-US", imperial: false, id: "two-legs"))
    let document = try answer.result.get()
    #expect(try document.route(at: 0).steps.contains { $0.waypoint != nil })
    let path = scratch.file("two-legs.json")
    try Data(JSONWriter.string(NativeRouteFormat.encode(document)).utf8).write(
      to: URL(fileURLWithPath: path))
    return path
  }

  static func daemon(
    _ scratch: ScratchDirectory, route: String, router: String?, tag: String
  ) throws -> (SpawnedProcess, String) {
    let sim = try runTool(
      "stepwise", ["simulate", route, "--noise", "5", "--seed", "1", "--settle", "2"])
    let track = scratch.file("\(tag).nmea")
    try Data(sim.stdout.utf8).write(to: URL(fileURLWithPath: track))
    let sock = scratch.file("\(tag).sock")
    let daemon = try DaemonIntegrationTests.stepwised(
      ["--route", route, "--json", "--socket", sock, "--replay-speed", "4"]
        + (router.map { ["--router", $0] } ?? []) + [track], scratch: scratch, tag: tag)
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    return (daemon, sock)
  }

  @Test func skipDropsTheNextWaypointAndReroutesThroughTheRouter() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let valhalla = try ValhallaService(extract: "paris_bss")
    defer { valhalla.stop() }
    let route = try Self.twoLegRoute(valhalla, scratch)
    let (daemon, sock) = try Self.daemon(scratch, route: route, router: valhalla.baseURL, tag: "s")
    defer { daemon.killGroup() }
    let client = try SocketTestClient(path: sock)
    let first = client.until("STEP", timeout: 20)
    // The first ROUTE is live, or already in the STATE when the client connected late.
    let start = try #require(
      first.first { $0["class"]?.stringValue == "ROUTE" }
        ?? first.first { $0["class"]?.stringValue == "STATE" }?["route"]?.objectValue)
    #expect(start["reason"]?.stringValue == "start")
    client.send(#"{"cmd":"skip","id":1}"#)
    let reply = try #require(client.answer(timeout: 10))
    #expect(reply["class"]?.stringValue == "REPLY", "\(reply)")
    #expect(reply["id"]?.doubleValue == 1)
    let events = client.until("ROUTE", timeout: 20)
    let rerouted = try #require(events.last)
    #expect(rerouted["class"]?.stringValue == "ROUTE", "\(daemon.stderr)")
    #expect(rerouted["reason"]?.stringValue == "reroute")
    #expect(rerouted["revision"]?.doubleValue == 1)
    // Subscribers were told a reroute was under way (what `stepwise watch` shows).
    #expect(
      events.contains {
        $0["class"]?.stringValue == "REROUTE" && $0["status"]?.stringValue == "rerouting"
      }, "\(events.map { $0["class"]?.stringValue ?? "" })")
    // The new route goes straight to the destination: no waypoint is left to skip.
    client.send(#"{"cmd":"skip","id":2}"#)
    let refused = try #require(client.answer(timeout: 10))
    #expect(refused["class"]?.stringValue == "ERROR")
    #expect(refused["code"]?.stringValue == "noWaypoint", "\(refused)")
    #expect(refused["id"]?.doubleValue == 2)
  }

  @Test func withoutARouterSkipIsUnavailable() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (daemon, sock) = try Self.daemon(
      scratch, route: DaemonIntegrationTests.route, router: nil, tag: "n")
    defer { daemon.killGroup() }
    let client = try SocketTestClient(path: sock)
    _ = client.until("STEP", timeout: 20)
    client.send(#"{"cmd":"skip"}"#)
    let answer = try #require(client.answer(timeout: 10))
    #expect(answer["class"]?.stringValue == "ERROR")
    #expect(answer["code"]?.stringValue == "unavailable")
    #expect(answer["message"]?.stringValue?.contains("no router") == true, "\(answer)")
  }
}
