import Foundation
import Geodesy
import JSON
import Phrasebook
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing

@Suite struct OSRMImporterTests {
  typealias F = ImportFixtures

  static let files = F.files("osrm") + F.scenarioOSRMFiles

  /// The maneuver location of every OSRM step that becomes a native step, in route order (an
  /// `exit roundabout` / `exit rotary` right after entering one is folded into it).
  static func maneuverPoints(_ value: JSONValue, route: Int = 0) -> [Coordinate] {
    let legs = value["routes"]?[route]?["legs"]?.arrayValue ?? []
    var out: [Coordinate] = []
    for leg in legs {
      let all = leg["steps"]?.arrayValue ?? []
      let kinds = all.map {
        RouteManeuver.Kind(osrmType: $0["maneuver"]?["type"]?.stringValue ?? "")
      }
      let kept = all.indices.filter {
        !(kinds[$0].exitsRoundabout && $0 > 0 && kinds[$0 - 1].entersRoundabout)
      }
      for step in kept.map({ all[$0] }).dropFirst() {
        let loc = step["maneuver"]?["location"]?.arrayValue ?? []
        out.append(
          Coordinate(latitude: loc[1].doubleValue ?? 0, longitude: loc[0].doubleValue ?? 0))
      }
    }
    return out
  }

  @Test(arguments: files)
  func everyResponseImportsInBothLanguagesWithConsistentSteps(_ file: String) throws {
    let value = try F.json(file)
    for language in [Language.en, .ko] {
      let doc = try F.document(file, language: language)
      try F.checkShape(doc, file)
      for r in doc.routes.indices {
        F.checkManeuverPoints(doc.routes[r], Self.maneuverPoints(value, route: r), file)
      }
    }
  }

  @Test(arguments: files)
  func aCleanDriveAnnouncesEveryManeuver(_ file: String) throws {
    try F.checkReplay(try F.document(file))
  }

  @Test func formatIsDetectedFromTheContent() throws {
    for file in Self.files {
      #expect(try RouteImport.detect(F.bytes(file)) == .osrm, "\(file)")
    }
  }

  // MARK: Text

  @Test func englishTextOfMapboxIsKeptAndKoreanIsWritten() throws {
    let file = "osrm/mapbox_tollAndFerryDirectionsRoute.json"
    let en = try #require(try F.document(file).routes.first)
    #expect(en.steps[1].instructions == "Turn right to stay on Rosendalevej.")
    let ko = try #require(try F.document(file, language: .ko).routes.first)
    #expect(ko.steps[1].instructions == "우회전하고 Rosendalevej로 직진해 주세요.")
    #expect(ko.steps.map(\.polyline) == en.steps.map(\.polyline))
  }

  @Test func germanTextIsReplacedByEnglishFromTheManeuvers() throws {
    let route = try #require(
      try F.document("osrm/mapbox_v5_driving_oldenburg_polyline.json").routes.first)
    #expect(route.steps[1].instructions == "Turn right onto Weinstock Strasse")
    // The Mapbox "name (ref)" hack: the ref is not repeated.
    #expect(route.steps[3].instructions == "Turn left onto Haupt Strasse (SR 229)")
    #expect(route.steps.last?.instructions == "You have arrived at your destination")
  }

  @Test func plainOSRMIsWrittenInKoreanWithRoundaboutExits() throws {
    let doc = try F.document("osrm/portugal_to_korea.json", language: .ko)
    let route = try #require(doc.routes.first)
    #expect(doc.source.name == "금강로")
    // 422 without the 17 exit steps that follow their roundabout or rotary.
    #expect(route.steps.count == 422 - 17)
    #expect(route.steps.contains { $0.instructions.hasPrefix("로터리로 진입해서") })
    #expect(route.steps.last?.instructions == "좌측에 목적지가 있습니다.")
    #expect(route.steps[1].instructions.hasSuffix("가세요."))
  }

  // MARK: Mapping

  @Test func ferriesTollsAndTunnelsBecomeNoticesAndFlags() throws {
    let route = try #require(
      try F.document("osrm/mapbox_tollAndFerryDirectionsRoute.json").routes.first)
    #expect(route.hasTolls && route.hasHighways)
    let ferry = try #require(route.steps.firstIndex { $0.transportType == .transit })
    #expect(route.steps[ferry].notice?.contains("Ferry crossing") == true)
    #expect(route.steps[ferry - 1].instructions == "Take the Ystad - Rønne Ferry.")
    #expect(route.advisoryNotices.contains("This route includes a ferry crossing."))
    #expect(route.steps.contains { $0.notice?.contains("Tunnel") == true })
    #expect(route.steps.contains { $0.notice?.contains("Toll booth ahead") == true })
    let ko = try #require(
      try F.document("osrm/mapbox_tollAndFerryDirectionsRoute.json", language: .ko).routes.first)
    #expect(ko.steps[ferry].notice?.contains("페리 구간입니다") == true)
  }

  @Test func walkingRoutesAreWalking() throws {
    let route = try #require(
      try F.document("osrm/valhalla-osrm_pedestrian_response.json").routes.first)
    #expect(route.transportType == .walking)
    #expect(route.steps.allSatisfy { $0.transportType == .walking })
  }

  @Test func twoLegsGiveOneWaypointStep() throws {
    let route = try #require(
      try F.document("osrm/maplibre-android_directions_two_leg_route.json").routes.first)
    #expect(route.steps.count == 22 + 16 - 2 + 1)
    let waypoints = route.steps.enumerated().filter { $0.element.waypoint != nil }
    #expect(waypoints.map(\.offset) == [21])
    #expect(
      waypoints.first?.element.instructions == "You have arrived at your waypoint, on the right")
    #expect(route.steps.last?.waypoint == nil)
  }

  @Test func silentViaPointsDoNotSplitTheRoute() throws {
    let route = try #require(
      try F.document("osrm/mapbox_v5_driving_oldenburg_polyline.json").routes.first)
    #expect(route.steps.allSatisfy { $0.waypoint == nil })
  }

  @Test func alternativesAreAllKept() throws {
    var value = try F.json("osrm/valhalla-osrm_extended_osrm_response.json")
    let first = try #require(value["routes"]?[0])
    value = F.setting(value, ["routes"], to: .array([first, first]))
    let doc = try RouteFiles.decode(F.bytes(value), name: "alt")
    #expect(doc.routes.count == 2)
  }

  @Test func foreignMembersAreIgnored() throws {
    let doc = try F.document("osrm/mapbox_RouteResponseWithForeignMembers.json")
    #expect(doc.routes[0].steps.count == 3)
    #expect(doc.source.name == "Р65")
  }

  // MARK: Precision and errors

  @Test func polyline6IsRecognisedAndAStatedPrecisionIsChecked() throws {
    let value = try F.json("osrm/valhalla-osrm_extended_osrm_response.json")
    #expect(throws: Never.self) { try OSRMImporter.decode(value, precision: 6) }
    do {
      _ = try OSRMImporter.decode(value, precision: 5)
      Issue.record("precision 5 was accepted for a polyline6 response")
    } catch {
      #expect(error.code == .invalidPolyline)
      #expect(error.path == "routes[0].legs[0].steps[0].geometry")
      #expect(error.message.contains("stated"))
    }
  }

  @Test func aGeometryThatFitsNoPrecisionIsRefusedWithBothTried() throws {
    let value = F.setting(
      try F.json("osrm/valhalla-osrm_extended_osrm_response.json"),
      ["routes", 0, "legs", 0, "steps", 0, "maneuver", "location"],
      to: .array([.number(10), .number(10)]))
    let error = try #require(F.importError(F.bytes(value)))
    #expect(error.code == .invalidPolyline)
    #expect(error.message.contains("precision 5") && error.message.contains("precision 6"))
  }

  @Test func swappedManeuverLocationsAreNamed() throws {
    let value = try F.json("osrm/valhalla-osrm_extended_osrm_response.json")
    let loc = try #require(
      value["routes"]?[0]?["legs"]?[0]?["steps"]?[0]?["maneuver"]?["location"]?.arrayValue)
    let swapped = F.setting(
      value, ["routes", 0, "legs", 0, "steps", 0, "maneuver", "location"],
      to: .array([loc[1], loc[0]]))
    let error = try #require(F.importError(F.bytes(swapped)))
    #expect(error.code == .invalidCoordinate)
    #expect(error.message.contains("swapped"))
  }

  @Test func errorCodeResponsesNameTheCode() throws {
    let value: JSONValue = .object(
      JSONObject([
        ("code", .string("NoRoute")), ("message", .string("Impossible route between points")),
      ]))
    let error = try #require(F.importError(F.bytes(value)))
    #expect(error.code == .routerError)
    #expect(error.description.contains("NoRoute") && error.description.contains("Impossible route"))
  }

  @Test func aResponseWithoutRoutesIsRefused() throws {
    let value = F.setting(
      try F.json("osrm/valhalla-osrm_extended_osrm_response.json"), ["routes"], to: .array([]))
    let error = try #require(F.importError(F.bytes(value)))
    #expect(error.code == .emptyRoutes && error.path == "routes")
  }

  @Test func truncatedJSONIsASyntaxError() throws {
    let bytes = F.bytes("osrm/valhalla-osrm_extended_osrm_response.json")
    let error = try #require(F.importError(Array(bytes.prefix(bytes.count / 2))))
    #expect(error.code == .syntax)
  }

  // MARK: Goldens

  @Test(arguments: [
    ("osrm/mapbox_v5_driving_oldenburg_polyline.json", "osrm-oldenburg.en.json", Language.en),
    ("osrm/valhalla-osrm_extended_osrm_response.json", "osrm-valhalla-extended.ko.json", .ko),
    ("osrm/mapbox_RouteResponseWithForeignMembers.json", "osrm-foreign-members.en.json", .en),
  ])
  func convertedDocumentMatchesItsGolden(_ file: String, _ golden: String, _ language: Language)
    throws
  {
    try F.checkGolden(file, golden: golden, language: language)
  }
}
