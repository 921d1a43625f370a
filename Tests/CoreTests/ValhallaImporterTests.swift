import Foundation
import Geodesy
import JSON
import RouteImporters
import Routes
import TestSupport
import Testing

/// Reads the Valhalla fixtures in `Fixtures/valhalla/` and builds variants of them.
enum ValhallaFixtures {
  static let directory = URL(fileURLWithPath: repositoryFile("Tests/Fixtures/valhalla"))

  /// Every fixture that holds a route (the error response is left out).
  static let routeFiles = [
    "par_car_marais.en.json", "li_car_mountain_tunnel.en.json",
    "li_car_long_roundabouts.ko.json", "li_car_long_roundabouts.en-mi.json",
    "bal_car_short_3step.en.json", "mc_walk_ferry.en.json", "li_multileg_car.en.json",
    "outback.valhalla.json", "walkdrive-walk.valhalla.json", "walkdrive-drive.valhalla.json",
    "loop.valhalla.json", "alternates.valhalla.json",
  ]

  static func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
  }

  static func json(_ name: String) throws -> JSONValue {
    try JSONParser.parse(bytes(name))
  }

  static func document(_ name: String) throws -> RouteDocument {
    try ValhallaImporter.decode(json(name))
  }

  /// The error `ValhallaImporter.decode` throws for `value`, or `nil` when it succeeds.
  static func importError(_ value: JSONValue) -> RouteDocumentError? {
    do {
      _ = try ValhallaImporter.decode(value)
      return nil
    } catch {
      return error
    }
  }

  /// `value` with the member at `path` replaced (`String` keys, `Int` array indices).
  static func setting(_ value: JSONValue, _ path: [any Sendable], to newValue: JSONValue?)
    -> JSONValue
  {
    guard let head = path.first else { return newValue ?? .null }
    let rest = Array(path.dropFirst())
    switch (value, head) {
    case (.object(var o), let key as String):
      if rest.isEmpty {
        o[key] = newValue
      } else {
        o[key] = setting(o[key] ?? .null, rest, to: newValue)
      }
      return .object(o)
    case (.array(var a), let i as Int):
      a[i] = setting(a[i], rest, to: newValue)
      return .array(a)
    default:
      Issue.record("bad path component \(head) for \(value.typeName)")
      return value
    }
  }

  /// The decoded shape of every leg of the main trip.
  static func shapes(_ value: JSONValue) throws -> [[Coordinate]] {
    try (value["trip"]?["legs"]?.arrayValue ?? []).map {
      try Polyline.decode($0["shape"]?.stringValue ?? "", precision: 6)
    }
  }

  /// Each leg's maneuvers as (type, begin_shape_index, length, instruction).
  static func maneuvers(_ value: JSONValue) -> [[(
    type: Int, begin: Int, length: Double, text: String
  )]] {
    (value["trip"]?["legs"]?.arrayValue ?? []).map { leg in
      (leg["maneuvers"]?.arrayValue ?? []).map {
        (
          Int($0["type"]?.doubleValue ?? -1), Int($0["begin_shape_index"]?.doubleValue ?? -1),
          $0["length"]?.doubleValue ?? -1, $0["instruction"]?.stringValue ?? ""
        )
      }
    }
  }
}

@Suite struct ValhallaImporterTests {
  typealias F = ValhallaFixtures

  // MARK: Polyline

  @Test func polylineDecodesGooglesExampleAtPrecision5() throws {
    let points = try Polyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@", precision: 5)
    #expect(
      points == [
        Coordinate(latitude: 38.5, longitude: -120.2),
        Coordinate(latitude: 40.7, longitude: -120.95),
        Coordinate(latitude: 43.252, longitude: -126.453),
      ])
  }

  @Test func polylineDecodesTheSamePointsAtPrecision6AndEncodesBack() throws {
    let encoded = "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI"
    let points = try Polyline.decode(encoded, precision: 6)
    #expect(points.count == 3)
    #expect(abs(points[2].latitude - 43.252) < 1e-9 && abs(points[2].longitude + 126.453) < 1e-9)
    #expect(Polyline.encode(points, precision: 6) == encoded)
    #expect(Polyline.encode(points, precision: 5) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
  }

  @Test(arguments: ["_p~iF~ps|U_", "_p~iF", "_p~iF ~ps|U", "_p~iF~ps|U\u{7F}"])
  func polylineRefusesMalformedStrings(_ encoded: String) {
    #expect(throws: RouteDocumentError.self) { try Polyline.decode(encoded, precision: 5) }
  }

  // MARK: Every fixture

  @Test(arguments: ValhallaFixtures.routeFiles)
  func fixtureConvertsAndSurvivesTheNativeLoader(_ name: String) throws {
    let value = try F.json(name)
    let doc = try ValhallaImporter.decode(value)
    let reloaded = try NativeRouteFormat.decode(NativeRouteFormat.encode(doc))
    #expect(reloaded.routes.count == doc.routes.count)
    for (r, route) in doc.routes.enumerated() {
      #expect(reloaded.routes[r].steps.count == route.steps.count)
      let first = try #require(route.steps.first)
      #expect(first.isDeparture && first.distance == 0 && first.instructions.isEmpty)
      #expect(first.polyline.count == 1)
      // Σ step distances = route distance within Valhalla's rounding (3 decimals per maneuver).
      let sum = route.steps.reduce(0) { $0 + $1.distance }
      #expect(abs(sum - route.distance) <= Double(route.steps.count) * 1.0, "\(name) route \(r)")
      for step in route.steps.dropFirst() {
        #expect(!step.instructions.isEmpty)
        #expect(step.instructions.last.map { !$0.isWhitespace } ?? false)
      }
    }
  }

  @Test(arguments: ValhallaFixtures.routeFiles)
  func stepsEndWhereValhallaManeuversBegin(_ name: String) throws {
    let value = try F.json(name)
    let route = try #require(try ValhallaImporter.decode(value).routes.first)
    let shapes = try F.shapes(value)
    // An exit-roundabout maneuver (27) is folded into the roundabout (26) before it.
    let legs = F.maneuvers(value).map { leg in
      leg.indices.filter { !(leg[$0].type == 27 && $0 > 0 && leg[$0 - 1].type == 26) }.map {
        leg[$0]
      }
    }
    let maneuverCount = legs.reduce(0) { $0 + $1.count }
    // One step per maneuver, less one depart per leg, plus the departure step.
    #expect(route.steps.count == maneuverCount - legs.count + 1)
    // Single leg: the steps after the departure are one per maneuver after the depart.
    if legs.count == 1 { #expect(route.steps.dropFirst().count == maneuverCount - 1) }
    #expect(route.steps[0].polyline[0] == shapes[0][legs[0][0].begin])
    var stepIndex = 1
    for (l, leg) in legs.enumerated() {
      for k in 1..<leg.count {
        let step = route.steps[stepIndex]
        #expect(step.polyline.last == shapes[l][leg[k].begin], "\(name) step \(stepIndex)")
        #expect(step.polyline.first == shapes[l][leg[k - 1].begin])
        var text = String(leg[k].text.reversed().drop(while: \.isWhitespace).reversed())
        if step.waypoint != nil {
          // Intermediate arrivals speak of the waypoint, not the destination.
          text = text.replacing("destination", with: "waypoint")
        }
        #expect(step.instructions == text)
        stepIndex += 1
      }
    }
  }

  // MARK: Mapping details

  @Test func shortRouteHasTheDepartureATurnAndTheArrival() throws {
    let doc = try F.document("bal_car_short_3step.en.json")
    let route = try #require(doc.routes.first)
    #expect(
      route.steps.map(\.instructions) == [
        "", "Turn right onto South Caroline Street.", "Your destination is on the left.",
      ])
    #expect(abs(route.steps[1].distance - 438) < 0.001)
    #expect(abs(route.steps[2].distance - 557) < 0.001)
    #expect(abs(route.distance - 995) < 0.001)
    #expect(route.name == "Fleet Street, South Caroline Street")
    #expect(route.transportType == .automobile)
    #expect(route.steps.allSatisfy { $0.transportType == .automobile && $0.notice == nil })
    // Unnamed locations are named after the street the trip starts and ends on.
    #expect(doc.source.name == "Fleet Street")
    #expect(doc.source.coordinate == Coordinate(latitude: 39.2846, longitude: -76.5916))
    #expect(doc.destination.name == "South Caroline Street")
  }

  @Test func koreanInstructionsAreKeptWithoutTrailingSpaces() throws {
    let value = try F.json("li_car_long_roundabouts.ko.json")
    let raw = F.maneuvers(value)[0].map(\.text)
    #expect(raw.contains { $0.hasSuffix(" ") })
    let route = try #require(try ValhallaImporter.decode(value).routes.first)
    #expect(
      route.steps[1].instructions.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) })
    #expect(route.steps.contains { $0.instructions == "회전교차로 진입 후 2번째 출구에서 Landstrasse 진입" })
    #expect(route.steps.allSatisfy { !($0.instructions.last?.isWhitespace ?? false) })
    #expect(route.name == "Landstrasse, Ruggeller Strasse")
  }

  @Test func milesAreConvertedToMetres() throws {
    let miles = try #require(try F.document("li_car_long_roundabouts.en-mi.json").routes.first)
    let km = try #require(try F.document("li_car_long_roundabouts.ko.json").routes.first)
    #expect(abs(miles.distance - 13.9738 * 1609.344) < 0.001)
    #expect(abs(miles.distance - km.distance) < 5)
    #expect(miles.steps.count == km.steps.count)
    for (m, k) in zip(miles.steps, km.steps) {
      #expect(abs(m.distance - k.distance) < 2)
    }
  }

  @Test func intermediateArrivalsBecomeNumberedWaypointSteps() throws {
    let doc = try F.document("li_multileg_car.en.json")
    let route = try #require(doc.routes.first)
    // 31 maneuvers in 3 legs, 4 of them a roundabout's exit folded into the roundabout.
    #expect(route.steps.count == 31 - 3 + 1 - 4)
    let waypoints = route.steps.enumerated().filter { $0.element.waypoint != nil }
    #expect(waypoints.map(\.offset) == [5, 15])
    #expect(waypoints.map(\.element.waypoint) == [1, 2])
    #expect(
      waypoints.map(\.element.instructions) == [
        "You have arrived at your waypoint.", "Your waypoint is on the right.",
      ])
    // The second leg's depart maneuver ("Drive south.", 36 m) is the approach of its first turn.
    #expect(route.steps[6].instructions == "Turn right onto Schulgass.")
    #expect(abs(route.steps[6].distance - 36) < 0.001)
    #expect(route.steps.last?.waypoint == nil)
    #expect(route.name == "Landstrasse, Benderer Strasse")
    #expect(doc.destination.coordinate == Coordinate(latitude: 47.225, longitude: 9.545))
  }

  @Test func ferryCrossingIsATransitStepWithANotice() throws {
    let route = try #require(try F.document("mc_walk_ferry.en.json").routes.first)
    #expect(route.transportType == .walking)
    #expect(
      route.steps.map(\.transportType) == [
        .walking, .walking, .walking, .walking, .transit, .walking,
      ])
    #expect(route.steps[3].instructions == "Take the Bateau Bus Ferry.")
    #expect(route.steps[4].instructions == "Walk south.")
    #expect(route.steps[4].notice == "Ferry crossing")
    #expect(abs(route.steps[4].distance - 380) < 0.001)
    // The walkway at the start is flagged rough.
    #expect(route.steps[1].notice == "Rough surface")
    #expect(route.steps.filter { $0.notice != nil }.count == 2)
    #expect(
      route.advisoryNotices == [
        "Routing failed on first pass, retrying with relaxed restrictions",
        "This route includes a ferry crossing.",
      ])
  }

  @Test func flagsBecomeKoreanNoticesOnceARun() throws {
    var value = try F.json("bal_car_short_3step.en.json")
    value = F.setting(value, ["trip", "language"], to: .string("ko-KR"))
    value = F.setting(value, ["trip", "legs", 0, "maneuvers", 0, "toll"], to: .bool(true))
    value = F.setting(value, ["trip", "legs", 0, "maneuvers", 0, "tunnel"], to: .bool(true))
    value = F.setting(value, ["trip", "legs", 0, "maneuvers", 1, "toll"], to: .bool(true))
    value = F.setting(value, ["trip", "legs", 0, "maneuvers", 1, "gate"], to: .bool(true))
    let route = try #require(try ValhallaImporter.decode(value).routes.first)
    #expect(route.steps[1].notice == "유료 도로 구간입니다. 터널 구간입니다")
    #expect(route.steps[2].notice == "차단기가 있는 구간입니다")

    var english = try F.json("bal_car_short_3step.en.json")
    english = F.setting(english, ["trip", "legs", 0, "maneuvers", 0, "toll"], to: .bool(true))
    english = F.setting(english, ["trip", "legs", 0, "maneuvers", 0, "tunnel"], to: .bool(true))
    english = F.setting(
      english, ["trip", "legs", 0, "maneuvers", 1, "portions_unpaved"], to: .bool(true))
    let en = try #require(try ValhallaImporter.decode(english).routes.first)
    #expect(en.steps[1].notice == "Toll road; Tunnel")
    #expect(en.steps[2].notice == "Partly unpaved road")
  }

  @Test func alternatesBecomeExtraRoutes() throws {
    let doc = try F.document("alternates.valhalla.json")
    #expect(doc.routes.count == 3)
    #expect(doc.routes.map { ($0.distance).rounded() } == [3045, 2928, 3565])
    #expect(doc.routes.allSatisfy { $0.transportType == .automobile })
  }

  // MARK: The routes made for the scenario suite

  @Test func outAndBackMakesAUTurnAndReturnsToItsStart() throws {
    let route = try #require(try F.document("outback.valhalla.json").routes.first)
    #expect(route.steps.contains { $0.instructions.contains("U-turn") })
    let start = route.steps[0].polyline[0]
    let end = try #require(route.steps.last?.polyline.last)
    #expect(start.distance(to: end) < 1)
    #expect(route.distance >= 1500 && route.distance <= 4000)
  }

  @Test func loopReturnsToItsStart() throws {
    let route = try #require(try F.document("loop.valhalla.json").routes.first)
    let start = route.steps[0].polyline[0]
    let end = try #require(route.steps.last?.polyline.last)
    #expect(start.distance(to: end) < 1)
    #expect(route.distance >= 2000 && route.distance <= 5000)
  }

  @Test func walkEndsWhereTheDriveStarts() throws {
    let walk = try #require(try F.document("walkdrive-walk.valhalla.json").routes.first)
    let drive = try #require(try F.document("walkdrive-drive.valhalla.json").routes.first)
    #expect(
      walk.transportType == .walking && walk.steps.allSatisfy { $0.transportType == .walking })
    #expect(drive.transportType == .automobile)
    let joint = try #require(walk.steps.last?.polyline.last)
    #expect(joint.distance(to: drive.steps[0].polyline[0]) < 0.5)
  }

  // MARK: Errors

  @Test func valhallaErrorResponseNamesTheCodeAndText() throws {
    let error = try #require(F.importError(try F.json("error.valhalla.json")))
    #expect(error.code == .routerError)
    #expect(error.message.contains("171"))
    #expect(error.message.contains("No suitable edges near location"))
  }

  @Test func truncatedJSONIsASyntaxError() throws {
    let bytes = try F.bytes("bal_car_short_3step.en.json")
    do {
      _ = try ValhallaImporter.decode(bytes.prefix(bytes.count / 2))
      Issue.record("truncated JSON was accepted")
    } catch {
      #expect(error.code == .syntax)
      #expect(error.description.contains("not valid JSON"))
    }
  }

  @Test func responseWithoutTripOrLegsIsRefused() throws {
    let noTrip = try #require(F.importError(.object(JSONObject([("id", .string("x"))]))))
    #expect(noTrip.code == .missingField && noTrip.path == "trip")
    let value = F.setting(
      try F.json("bal_car_short_3step.en.json"), ["trip", "legs"], to: .array([]))
    let noLegs = try #require(F.importError(value))
    #expect(noLegs.path == "trip.legs")
  }

  @Test func undecodableShapeNamesItsPath() throws {
    let value = F.setting(
      try F.json("bal_car_short_3step.en.json"), ["trip", "legs", 0, "shape"], to: .string("_p~iF~")
    )
    let error = try #require(F.importError(value))
    #expect(error.code == .invalidPolyline)
    #expect(error.path == "trip.legs[0].shape")
  }

  @Test func shapeOfTheWrongPrecisionIsRefused() throws {
    let original = try F.json("bal_car_short_3step.en.json")
    let points = try F.shapes(original)[0]
    let value = F.setting(
      original, ["trip", "legs", 0, "shape"], to: .string(Polyline.encode(points, precision: 5)))
    let error = try #require(F.importError(value))
    #expect(error.code == .invalidPolyline)
    #expect(error.path == "trip.legs[0].shape")
    #expect(error.message.contains("precision 6 does not fit"))
  }

  @Test func maneuverShapeIndexOutOfRangeNamesItsPath() throws {
    let value = F.setting(
      try F.json("bal_car_short_3step.en.json"),
      ["trip", "legs", 0, "maneuvers", 1, "end_shape_index"], to: .number(9999))
    let error = try #require(F.importError(value))
    #expect(error.path == "trip.legs[0].maneuvers[1].end_shape_index")
    #expect(error.message.contains("out of range"))
  }
}
