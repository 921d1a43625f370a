import Geodesy
import Phrasebook
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing

@Suite struct GPXImporterTests {
  typealias F = ImportFixtures

  static let files = F.files("gpx")

  static func gpx(_ body: String) -> [UInt8] {
    Array(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">\(body)</gpx>
      """.utf8)
  }

  @Test(arguments: files)
  func everyFileImportsAsAValidRoute(_ file: String) throws {
    for language in [Language.en, .ko] {
      let doc = try F.document(file, language: language)
      try F.checkShape(doc, file)
    }
    #expect(try RouteImport.detect(F.bytes(file)) == .gpx)
  }

  @Test(arguments: files)
  func aCleanDriveAnnouncesEveryManeuver(_ file: String) throws {
    try F.checkReplay(try F.document(file))
  }

  @Test func graphHopperTurnsAndViaPointsBecomeStepsAlongTheTrack() throws {
    let route = try #require(try F.document("gpx/graphhopper_tour4-with-uturn.gpx").routes.first)
    #expect(
      route.steps.map(\.instructions) == [
        "", "You have arrived at your 1st waypoint", "Turn right onto Funkenburgstraße",
        "You have arrived at your 2nd waypoint", "You have arrived at your 3rd waypoint",
        "You have arrived at your destination",
      ])
    #expect(route.steps.map(\.waypoint) == [nil, 1, nil, 2, 3, nil])
    // gh:distance of the five instructions: 176.5, 76.7, 29.7, 102.8, 59.5 m.
    for (step, expected) in zip(route.steps.dropFirst(), [176.5, 76.7, 29.7, 102.8, 59.5]) {
      #expect(abs(step.distance - expected) < expected * 0.05 + 1)
    }
    #expect(abs(route.expectedTravelTime - 64.098) < 0.1)
    // Maneuver points: the rtepts with a sign, each at the end of its step.
    let expectedEnds = [
      (51.343853, 12.361583), (51.344095, 12.362617), (51.34384, 12.362743),
      (51.344721, 12.362293), (51.345236, 12.362071),
    ].map { Coordinate(latitude: $0.0, longitude: $0.1) }
    F.checkManeuverPoints(route, expectedEnds, "tour4")
  }

  @Test func koreanTurnsAreWrittenFromGraphHopperSigns() throws {
    let route = try #require(
      try F.document("gpx/graphhopper_tour4-with-uturn.gpx", language: .ko).routes.first)
    #expect(route.steps[1].instructions == "첫 번째 경유지에 도착하였습니다.")
    #expect(route.steps[2].instructions == "우회전 하세요.")
    #expect(route.steps.last?.instructions == "목적지에 도착하였습니다.")
  }

  @Test func aRouteOfNumberedPointsIsOneArrivalStep() throws {
    let doc = try F.document("gpx/gpxpy_route.gpx")
    let route = try #require(doc.routes.first)
    #expect(route.steps.count == 2)
    #expect(route.steps[1].polyline.count == 55)
    #expect(route.steps[1].instructions == "You have arrived at your destination")
  }

  @Test func aTrackIsARouteLineTimedByItsTimestamps() throws {
    let bytes = Self.gpx(
      """
      <trk><name>Morning</name><trkseg>
      <trkpt lat="47.1" lon="9.5"><time>2024-05-01T08:00:00Z</time></trkpt>
      <trkpt lat="47.101" lon="9.5"><time>2024-05-01T08:00:10Z</time></trkpt>
      </trkseg><trkseg>
      <trkpt lat="47.102" lon="9.5"><time>2024-05-01T08:00:20Z</time></trkpt>
      </trkseg></trk>
      """)
    let doc = try RouteFiles.decode(bytes, name: "t.gpx")
    let route = try #require(doc.routes.first)
    #expect(route.name == "Morning")
    #expect(route.steps.count == 2 && route.steps[1].polyline.count == 3)
    #expect(route.expectedTravelTime == 20)
  }

  @Test func aFileWithoutPointsIsRefused() throws {
    let error = try #require(
      F.importError(Self.gpx("<metadata><name>x</name></metadata><rte></rte>")))
    #expect(error.code == .missingField)
    #expect(error.message.contains("at least 2 points"))
  }

  @Test func swappedLatitudeAndLongitudeAreNamed() throws {
    let error = try #require(
      F.importError(
        Self.gpx(#"<rte><rtept lat="120.5" lon="45.2"/><rtept lat="120.6" lon="45.2"/></rte>"#)))
    #expect(error.code == .invalidCoordinate)
    #expect(error.message.contains("swapped"))
    #expect(error.path == "gpx.rte[0].rtept[0]")
  }

  @Test func malformedXMLNamesTheLine() throws {
    let error = try #require(F.importError(Self.gpx("\n<rte><rtept lat=\"1\" lon=\"2\"></rte>")))
    #expect(error.code == .syntax)
    #expect(error.message.contains("line 3"))
    let truncated = F.bytes("gpx/gpxpy_route.gpx")
    #expect(F.importError(Array(truncated.prefix(truncated.count / 2)))?.code == .syntax)
  }

  @Test func entitiesAndCDATAAreDecoded() throws {
    let bytes = Self.gpx(
      """
      <!-- a comment --><rte><name>Caf&#233; &amp; <![CDATA[<Bar>]]></name>
      <rtept lat='47.1' lon='9.5'/><rtept lat="47.11" lon="9.5"/></rte>
      """)
    let route = try #require(try RouteFiles.decode(bytes, name: "e.gpx").routes.first)
    #expect(route.name == "Café & <Bar>")
  }

  @Test func convertedDocumentMatchesItsGolden() throws {
    try F.checkGolden("gpx/graphhopper_tour4-with-uturn.gpx", golden: "gpx-tour4.en.json")
    try F.checkGolden(
      "gpx/graphhopper_tour4-with-uturn.gpx", golden: "gpx-tour4.ko.json", language: .ko)
  }
}
