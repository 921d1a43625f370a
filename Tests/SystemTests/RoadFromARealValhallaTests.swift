import Foundation
import JSON
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing

/// Lanes, signs, speed limits and road objects from a real Valhalla 3.9.1, built from the small
/// map of `Tests/Valhalla/extracts/stepwise_lanes.osm` (a motorway with a toll booth, a tunnel
/// and a bridge, exit 52 toward Nice and Monaco, a junction with `turn:lanes:forward`, limits in
/// km/h and mph), asked natively and with `format=osrm`: everything the router's JSON says
/// about lanes and signs is in the imported route.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct RoadFromARealValhallaTests {
  /// From the A 99 west of the toll booth to Rue des Lilas south of the junction.
  static func request(osrm: Bool) -> String {
    let locations = #""locations":[{"lat":45.0,"lon":10.003},{"lat":44.988,"lon":10.085}]"#
    let osrmMembers =
      #","format":"osrm","banner_instructions":true,"voice_instructions":true,"#
      + #""filters":{"attributes":["shape_attributes.speed_limit"],"action":"include"}"#
    return "{\(locations),\"costing\":\"auto\",\"units\":\"kilometers\"\(osrm ? osrmMembers : "")}"
  }

  /// POSTs `body` to the service's /route with curl and returns the answer's bytes.
  static func route(_ valhalla: ValhallaService, _ body: String) throws -> Data {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try body.write(toFile: scratch.file("request.json"), atomically: true, encoding: .utf8)
    let curl = try SpawnedProcess(
      [
        "/usr/bin/curl", "-s", "-m", "20", "-X", "POST", "-H", "Content-Type: application/json",
        "--data-binary", "@" + scratch.file("request.json"), valhalla.baseURL + "/route",
      ], environment: [:], stdoutPath: scratch.file("out"), stderrPath: scratch.file("err"))
    guard curl.wait(timeout: 30) == 0 else {
      curl.killGroup()
      throw ValhallaService.ServiceError(description: "curl failed")
    }
    return try Data(contentsOf: URL(fileURLWithPath: scratch.file("out")))
  }

  @Test func everyLaneAndSignElementOfItsAnswersSurvivesImport() throws {
    let valhalla = try ValhallaService(extract: "stepwise_lanes")
    defer { valhalla.stop() }

    // Native: the signs (Valhalla 3.9.1 gives no lanes or limits there).
    let native = try Self.route(valhalla, Self.request(osrm: false))
    let nativeRoute = try ValhallaImporter.decode(Array(native)).routes[0]
    let nativeSigns = try RouterRoadOracle.valhallaSignTexts(native)
    #expect(!nativeSigns.isEmpty)
    #expect(RouterRoadOracle.signTexts(of: nativeRoute) == nativeSigns)
    let exit = try #require(nativeRoute.steps.first { $0.sign?.exitNumbers == ["52"] }?.sign)
    #expect(exit.branches == ["D 6007"])
    #expect(exit.toward == ["Nice", "Monaco"])
    #expect(exit.exitNames == ["Nice-Est"])

    // format=osrm: lanes, signs, limits, objects.
    let osrm = try Self.route(valhalla, Self.request(osrm: true))
    let route = try OSRMImporter.decode(Array(osrm)).routes[0]
    let lanes = try RouterRoadOracle.osrmLaneArrays(osrm)
    #expect(lanes.count == 3)
    #expect(RouterRoadOracle.laneArrays(of: route) == lanes)
    #expect(RouterRoadOracle.osrmSignWords(of: route) == (try RouterRoadOracle.osrmSignWords(osrm)))
    #expect(RouterRoadOracle.speedLimits(of: route) == (try RouterRoadOracle.osrmSpeedLimits(osrm)))

    // The exit's lanes: the two right of four go to Nice (turn:lanes through|through|
    // through;slight_right|slight_right).
    let offRamp = try #require(route.steps.first { $0.maneuver?.kind == .offRamp })
    #expect(offRamp.lanes.map(\.isPreferred) == [false, false, true, true])
    #expect(offRamp.lanes[2].indications == [.straight, .slightRight])
    #expect(offRamp.sign?.exitNumbers == ["52"])
    #expect(offRamp.sign?.toward == ["Nice", "Monaco"])
    // The limits as mapped: 130, 90 in the tunnel, 110 on the bridge, 130, 70 on the ramp and
    // Route de Nice, 50 before the junction, 30 mph (48 km/h) on Rue des Lilas.
    #expect(
      route.road.speedLimits.map(\.limit)
        == [130, 90, 110, 130, 70, 50, 48].map { .limit($0, .kilometresPerHour) })
    // The tunnel of the map is 0.01° of longitude at 45° N long (787 m), after 1.33 km of the
    // A 99 (from 10.003° E to 10.020° E); the toll booth is at 10.015° E.
    let tunnel = try #require(route.road.objects.first { $0.kind == .tunnel })
    #expect(abs(tunnel.start - 1337) < 5 && abs(tunnel.length - 787) < 5)
    let booth = try #require(route.road.objects.first { $0.kind == .tollBooth })
    #expect(booth.isPoint && abs(booth.start - 944) < 5)
    #expect(route.road.objects.contains { $0.kind == .tollRoad && $0.start == 0 })
    // The native document keeps it all.
    let document = try RouteFiles.decode(Array(osrm), name: "osrm.json")
    let written = JSONWriter.string(NativeRouteFormat.encode(document))
    #expect(try NativeRouteFormat.decode(Array(written.utf8)) == document)
  }

  /// The map's `.osm.pbf` is what osmium makes of its `.osm` (so the router tests route on the
  /// map the README describes).
  @Test(.requires(toolsInstalled("/usr/bin/osmium"), "osmium (apt osmium-tool) is not installed"))
  func theMapsPBFIsItsOSMFile() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let made = scratch.file("made.osm.pbf")
    let osmium = try SpawnedProcess(
      [
        "/usr/bin/osmium", "cat", "-f", "pbf", "-o", made, "--overwrite",
        repositoryFile("Tests/Valhalla/extracts/stepwise_lanes.osm"),
      ], environment: [:], stdoutPath: scratch.file("out"), stderrPath: scratch.file("err"))
    guard osmium.wait(timeout: 30) == 0 else {
      osmium.killGroup()
      Issue.record("osmium failed")
      return
    }
    #expect(
      FileManager.default.contents(atPath: made)
        == FileManager.default.contents(atPath: ValhallaService.extract("stepwise_lanes")))
  }
}
