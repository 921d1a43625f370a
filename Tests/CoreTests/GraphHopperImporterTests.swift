import Geodesy
import Instructions
import JSON
import Phrasebook
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing

@Suite struct GraphHopperImporterTests {
  typealias F = ImportFixtures

  static let files = ["graphhopper/furkot_gh_ferry.json", "graphhopper/furkot_gh_turnbyturn.json"]

  /// The start point of every instruction that becomes a native step.
  static func maneuverPoints(_ value: JSONValue) throws -> [Coordinate] {
    let path = try #require(value["paths"]?[0])
    let points = try Polyline.decode(path["points"]?.stringValue ?? "", precision: 5)
    let instructions = path["instructions"]?.arrayValue ?? []
    var out: [Coordinate] = []
    var k = 1
    while k < instructions.count {
      let first = Int(instructions[k]["interval"]?[0]?.doubleValue ?? 0)
      out.append(points[min(first, points.count - 1)])
      if instructions[k]["sign"]?.doubleValue == 5 && k + 1 < instructions.count - 1
        && instructions[k + 1]["sign"]?.doubleValue == 0
      {
        k += 1
      }
      k += 1
    }
    return out
  }

  @Test(arguments: files)
  func everyPathImportsWithOneStepPerInstruction(_ file: String) throws {
    let value = try F.json(file)
    for language in [Language.en, .ko] {
      let doc = try F.document(file, language: language)
      try F.checkShape(doc, file)
      F.checkManeuverPoints(doc.routes[0], try Self.maneuverPoints(value), file)
    }
  }

  @Test(arguments: files)
  func aCleanDriveAnnouncesEveryManeuver(_ file: String) throws {
    try F.checkReplay(try F.document(file))
  }

  @Test func englishTextIsKeptAndTimesAreSeconds() throws {
    let route = try #require(try F.document("graphhopper/furkot_gh_turnbyturn.json").routes.first)
    #expect(route.steps.count == 151)
    #expect(abs(route.expectedTravelTime - 29740.12) < 0.1)
    #expect(route.steps.last?.instructions == "Arrive at destination")
    #expect(route.steps.contains { $0.instructions.hasPrefix("At roundabout, take exit") })
  }

  @Test func koreanIsWrittenFromTheSigns() throws {
    let route = try #require(
      try F.document("graphhopper/furkot_gh_turnbyturn.json", language: .ko).routes.first)
    #expect(route.steps[2].instructions == "우회전 하시고 K 7931로 가세요.")
    #expect(route.steps.contains { $0.instructions.hasPrefix("로터리로 진입해서") })
    #expect(route.steps.last?.instructions == "목적지에 도착하였습니다.")
  }

  @Test func roundaboutSignBecomesARoundaboutWithItsExit() throws {
    let value = try F.json("graphhopper/graphhopper_roundabout1.json")
    let i = try #require(value[0])
    let step = GraphHopperImporter.instructionStep(
      sign: Int(i["sign"]?.doubleValue ?? 0), streetName: i["street_name"]?.stringValue ?? "",
      exitNumber: i["exit_number"]?.doubleValue.map { Int($0) })
    #expect(
      try InstructionWriter(language: .en).instruction(for: step)
        == "Enter the roundabout and take the 2nd exit onto streetname")
    #expect(
      try InstructionWriter(language: .ko).instruction(for: step)
        == "로터리로 진입해서 두 번째 출구로 나가서 streetname으로 가세요.")
  }

  @Test func aBareInstructionListIsNotARoute() throws {
    let error = try #require(F.importError(F.bytes("graphhopper/graphhopper_roundabout1.json")))
    #expect(error.message.contains("no points"))
  }

  @Test func ferryDetailsMakeANoticeAndAnAdvisory() throws {
    let route = try #require(try F.document("graphhopper/furkot_gh_ferry.json").routes.first)
    #expect(route.steps[1].notice == "Ferry crossing")
    #expect(route.advisoryNotices == ["This route includes a ferry crossing."])
  }

  @Test func statedPrecisionThatDoesNotFitIsRefused() throws {
    let value = F.setting(
      try F.json("graphhopper/furkot_gh_ferry.json"), ["paths", 0, "points_encoded_multiplier"],
      to: .number(1e6))
    let error = try #require(F.importError(F.bytes(value)))
    #expect(error.code == .invalidPolyline)
    #expect(error.message.contains("does not fit"))
  }

  @Test func errorResponsesNameTheMessage() throws {
    let value: JSONValue = .object(
      JSONObject([("message", .string("Cannot find point 0")), ("hints", .array([]))]))
    let error = try #require(F.importError(F.bytes(value)))
    #expect(error.code == .routerError && error.message.contains("Cannot find point 0"))
    let empty = F.setting(try F.json("graphhopper/furkot_gh_ferry.json"), ["paths"], to: .array([]))
    #expect(F.importError(F.bytes(empty))?.code == .emptyRoutes)
  }

  @Test func plainPointsAreReadAsGeoJSON() throws {
    var value = try F.json("graphhopper/furkot_gh_ferry.json")
    let points = try Polyline.decode(value["paths"]?[0]?["points"]?.stringValue ?? "", precision: 5)
    let coordinates: [JSONValue] = points.map { p -> JSONValue in
      JSONValue.array([JSONValue.number(p.longitude), JSONValue.number(p.latitude)])
    }
    let line: JSONValue = .object(
      JSONObject([("type", .string("LineString")), ("coordinates", .array(coordinates))]))
    value = F.setting(value, ["paths", 0, "points"], to: line)
    value = F.setting(value, ["paths", 0, "points_encoded"], to: .bool(false))
    let route = try #require(try RouteFiles.decode(F.bytes(value), name: "plain").routes.first)
    #expect(route.steps.count == 2)
  }

  @Test(arguments: [
    ("graphhopper/furkot_gh_ferry.json", "graphhopper-ferry.en.json", Language.en),
    ("graphhopper/furkot_gh_ferry.json", "graphhopper-ferry.ko.json", .ko),
  ])
  func convertedDocumentMatchesItsGolden(_ file: String, _ golden: String, _ language: Language)
    throws
  {
    try F.checkGolden(file, golden: golden, language: language)
  }
}
