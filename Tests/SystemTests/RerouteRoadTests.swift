import Foundation
import Geodesy
import Instructions
import JSON
import Rerouting
import RouteImporters
import Router
import Routes
import TestSupport
import Testing

/// A route that stepwised asks Valhalla for on a reroute (`RouterClient`: the request of
/// `RouterRequestBuilder`, the answer read by `RouterReply`) carries the road as a fresh route
/// does: the same lane arrays, signs, speed limits and road objects, on the small map of
/// `Tests/Valhalla/extracts/stepwise_lanes.osm`, and they reach the JSON events.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct RerouteRoadTests {
  /// The A 99 west of the toll booth, heading east, to Rue des Lilas south of the junction (the
  /// origin and destination of `RoadFromARealValhallaTests.request`).
  static let request = RouteRequest(
    origin: .init(
      coordinate: Coordinate(latitude: 45.0, longitude: 10.003), course: 90, speed: 25,
      accuracy: 5),
    waypoints: [.init(coordinate: Coordinate(latitude: 44.988, longitude: 10.085))],
    transportType: .automobile, language: "en-US", imperial: false, id: "stepwise-1")

  /// The first route of a document as the native format holds it (what `RouterReply` hands on).
  static func native(_ document: RouteDocument) throws -> Route {
    try NativeRouteFormat.decode(NativeRouteFormat.encode(document)).routes[0]
  }

  @Test func aRerouteCarriesTheRoadOfAFreshRouteToTheEvents() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let valhalla = try ValhallaService(extract: "stepwise_lanes")
    defer { valhalla.stop() }
    let client = try RouterClient(
      baseURL: valhalla.baseURL + "/", api: .valhalla, timeout: 10,
      writer: InstructionWriter(language: .en))
    defer { client.close() }
    let answer = client.fetch(Self.request)
    let document = try answer.result.get()
    let rerouted = document.routes[0]

    // A fresh route for the same trip, asked with the members of RoadFromARealValhallaTests.
    let fresh = try RoadFromARealValhallaTests.route(
      valhalla, RoadFromARealValhallaTests.request(osrm: true))
    let first = try Self.native(OSRMImporter.decode(Array(fresh)))
    let lanes = try RouterRoadOracle.osrmLaneArrays(fresh)
    #expect(lanes.count == 3)
    #expect(RouterRoadOracle.laneArrays(of: rerouted) == lanes)
    #expect(
      RouterRoadOracle.osrmSignWords(of: rerouted) == (try RouterRoadOracle.osrmSignWords(fresh)))
    #expect(
      RouterRoadOracle.speedLimits(of: rerouted) == (try RouterRoadOracle.osrmSpeedLimits(fresh)))
    #expect(rerouted.steps.map(\.lanes) == first.steps.map(\.lanes))
    #expect(rerouted.steps.map(\.sign) == first.steps.map(\.sign))
    #expect(rerouted.steps.map(\.instructions) == first.steps.map(\.instructions))
    #expect(rerouted.road == first.road)
    #expect(rerouted.road.objects.contains { $0.kind == .tunnel })
    #expect(rerouted.road.objects.contains { $0.kind == .tollBooth })

    // Driven with stepwised, the new route's lanes, signs, limits and objects are published.
    let path = scratch.file("rerouted.json")
    try JSONWriter.string(NativeRouteFormat.encode(document)).write(
      toFile: path, atomically: true, encoding: .utf8)
    let drive = try runTool("stepwise", ["simulate", path, "--seed", "1"])
    #expect(drive.status == 0, "\(drive.stderr)")
    let track = scratch.file("drive.nmea")
    try drive.stdout.write(toFile: track, atomically: true, encoding: .utf8)
    let run = try runTool("stepwised", ["--route", path, "--json", "--fast", track])
    #expect(run.status == 0, "\(run.stderr)")
    let events = try run.stdout.split(separator: "\n").compactMap {
      try JSONParser.parse(Array($0.utf8)).objectValue
    }
    let stepsJSON = try #require(
      NativeRouteFormat.encode(document)["routes"]?.arrayValue?.first?["steps"]?.arrayValue)
    let withLanes = events.filter { $0["class"]?.stringValue == "ANNOUNCE" && $0["lanes"] != nil }
    #expect(!withLanes.isEmpty)
    for e in withLanes {
      let step = Int(try #require((e["lanesStep"] ?? e["step"])?.doubleValue))
      #expect(e["lanes"] == stepsJSON[step]["lanes"], "\(e)")
    }
    let exit = try #require(rerouted.steps.firstIndex { $0.sign?.exitNumbers == ["52"] })
    let signed = events.filter {
      $0["class"]?.stringValue == "ANNOUNCE" && $0["step"]?.doubleValue == Double(exit)
        && $0["sign"] != nil
    }
    #expect(!signed.isEmpty)
    #expect(signed.allSatisfy { $0["sign"] == stepsJSON[exit]["sign"] })
    let limits = events.compactMap { $0["speedLimit"]?.doubleValue }
    var published: [Double] = []
    for l in limits where published.last != l { published.append(l) }
    let expected = rerouted.road.speedLimits.compactMap { span -> Double? in
      if case .limit(let v, _) = span.limit { return v }
      return nil
    }
    #expect(published == expected)
    let ahead = try #require(events.first { $0["ahead"] != nil }?["ahead"]?.arrayValue)
    let types = ahead.compactMap { $0["type"]?.stringValue }
    #expect(types.contains("toll booth") && types.contains("tunnel"))
  }

  /// stepwised asked for a new route (the socket's `reroute`, as soon as a client is
  /// connected) while it follows the native answer for the same trip, which has the signs but
  /// no lanes or limits: after the new `ROUTE`, the maneuver prompts carry lane arrays of a
  /// fresh `format=osrm` route and `PROGRESS` the limits; before it, neither.
  @Test func aRerouteOfTheDaemonBringsTheLanesAndLimitsToItsEvents() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let valhalla = try ValhallaService(extract: "stepwise_lanes")
    defer { valhalla.stop() }
    let native = scratch.file("native.json")
    try RoadFromARealValhallaTests.route(valhalla, RoadFromARealValhallaTests.request(osrm: false))
      .write(to: URL(fileURLWithPath: native))
    let fresh = try RoadFromARealValhallaTests.route(
      valhalla, RoadFromARealValhallaTests.request(osrm: true))
    let freshSteps = try #require(
      NativeRouteFormat.encode(OSRMImporter.decode(Array(fresh)))["routes"]?.arrayValue?.first?[
        "steps"]?.arrayValue)
    let freshLanes = freshSteps.compactMap { $0["lanes"] }
    #expect(freshLanes.count == 3)
    let drive = try runTool(
      "stepwise", ["simulate", native, "--profile", "highway", "--speed", "90", "--seed", "1"])
    #expect(drive.status == 0, "\(drive.stderr)")
    let track = scratch.file("drive.nmea")
    try drive.stdout.write(toFile: track, atomically: true, encoding: .utf8)
    let sock = scratch.file("r.sock")
    let daemon = try DaemonIntegrationTests.stepwised(
      [
        "--route", native, "--json", "--socket", sock, "--replay-speed", "20", "--router",
        valhalla.baseURL, track,
      ], scratch: scratch, tag: "r")
    defer { daemon.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    let client = try SocketTestClient(path: sock)
    var events = client.until("STATE", timeout: 20)
    client.send(#"{"cmd":"reroute","id":1}"#)
    events += client.until("ARRIVED", timeout: 60)
    let routes = events.indices.filter { events[$0]["class"]?.stringValue == "ROUTE" }
    let rerouted = try #require(
      routes.first { events[$0]["reason"]?.stringValue == "reroute" },
      "\(events.compactMap { $0["class"]?.stringValue }) \(daemon.stderr)")
    let before = events[..<rerouted]
    let after = events[rerouted...]
    #expect(!before.contains { $0["lanes"] != nil || $0["speedLimit"] != nil })
    let withLanes = after.compactMap { e in
      e["class"]?.stringValue == "ANNOUNCE" ? e["lanes"] : nil
    }
    #expect(!withLanes.isEmpty)
    #expect(withLanes.allSatisfy { freshLanes.contains($0) }, "\(withLanes)")
    #expect(after.contains { $0["speedLimit"]?.doubleValue != nil })
  }
}
