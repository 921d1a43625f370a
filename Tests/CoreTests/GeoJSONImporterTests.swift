import Geodesy
import Phrasebook
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing

@Suite struct GeoJSONImporterTests {
  typealias F = ImportFixtures

  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test func theLineImportsAsOneArrivalStep() throws {
    let file = "geojson/maplibre-ios_dc-line.geojson"
    #expect(try RouteImport.detect(F.bytes(file)) == .geojson)
    for language in [Language.en, .ko] {
      let doc = try F.document(file, language: language)
      try F.checkShape(doc, file)
      #expect(doc.routes[0].steps.count == 2)
    }
    let route = try #require(try F.document(file).routes.first)
    #expect(route.steps[1].instructions == "You have arrived at your destination")
    let start = Coordinate(latitude: 38.878605901789236, longitude: -77.0316696166992)
    #expect((route.steps[1].polyline.first?.distance(to: start) ?? 1) < 0.01)
    try F.checkReplay(try F.document(file))
  }

  @Test func featureCollectionLinesAreLegsWithWaypoints() throws {
    let text = """
      {"type":"FeatureCollection","features":[
       {"type":"Feature","properties":{"name":"Two legs"},"geometry":{"type":"LineString","coordinates":[[9.5,47.1],[9.5,47.105]]}},
       {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[9.5,47.105]}},
       {"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[9.5,47.105],[9.51,47.105]]}}]}
      """
    let doc = try RouteFiles.decode(Self.bytes(text), name: "fc.geojson", language: .ko)
    let route = try #require(doc.routes.first)
    #expect(route.name == "Two legs")
    #expect(route.steps.map(\.waypoint) == [nil, 1, nil])
    #expect(route.steps[1].instructions == "첫 번째 경유지에 도착하였습니다.")
    #expect(route.steps[2].instructions == "목적지에 도착하였습니다.")
  }

  @Test func swappedAxesAreNamed() throws {
    let text = #"{"type":"LineString","coordinates":[[47.1,120.5],[47.2,120.6]]}"#
    let error = try #require(F.importError(Self.bytes(text)))
    #expect(error.code == .invalidCoordinate)
    #expect(error.message.contains("swapped"))
    #expect(error.path == "coordinates[0]")
    let inBox =
      #"{"type":"LineString","bbox":[9.5,47.1,9.6,47.2],"coordinates":[[47.15,9.55],[47.16,9.56]]}"#
    let boxError = try #require(F.importError(Self.bytes(inBox)))
    #expect(boxError.message.contains("[latitude, longitude]"))
  }

  @Test func aLineNeedsTwoPositions() throws {
    let error = try #require(
      F.importError(Self.bytes(#"{"type":"LineString","coordinates":[[9.5,47.1]]}"#)))
    #expect(error.code == .missingField)
    let none = try #require(
      F.importError(Self.bytes(#"{"type":"Point","coordinates":[9.5,47.1]}"#)))
    #expect(none.code == .unsupportedFormat)
  }

  @Test func convertedDocumentMatchesItsGolden() throws {
    try F.checkGolden("geojson/maplibre-ios_dc-line.geojson", golden: "geojson-dc-line.en.json")
  }
}
