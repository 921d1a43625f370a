import Foundation
import Geodesy
import JSON
import Phrasebook
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing

/// Real router responses a new user brings: a start far from any road, and a route asked for
/// in Korean, loaded without `--locale`.
@Suite struct RouteOwnLanguageTests {
  typealias F = ImportFixtures
  static let harbour = "valhalla-scenarios/mc_harbour_start"

  static func hasHangul(_ text: String) -> Bool {
    text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
  }

  /// Valhalla snapped the requested start (in the harbour) onto a quay 1475 m away: the route
  /// is valid and loads, in both of Valhalla's formats.
  @Test(arguments: ["valhalla.en-US.km.json", "osrm.en-US.km.json", "valhalla.ko-KR.km.json"])
  func aStartSnappedFarFromTheRequestLoads(_ file: String) throws {
    let document = try F.document("\(Self.harbour)/\(file)")
    let route = try #require(document.routes.first)
    #expect(route.steps.count > 3)
    let raw = try F.json("\(Self.harbour)/valhalla.en-US.km.json")
    let requested = try #require(raw["trip"]?["locations"]?[0])
    let start = try #require(route.steps.first?.polyline.first)
    let gap = start.distance(
      to: .init(
        latitude: try #require(requested["lat"]?.doubleValue),
        longitude: try #require(requested["lon"]?.doubleValue)))
    #expect(gap > 1000, "the fixture's start is \(gap) m from the request")
  }

  /// A shape of the wrong precision is still refused: its length does not fit the leg's.
  @Test func aShapeOfAnotherPrecisionIsRefusedByItsLength() throws {
    let original = try F.json("\(Self.harbour)/valhalla.en-US.km.json")
    let points = try ValhallaFixtures.shapes(original)[0]
    let value = ValhallaFixtures.setting(
      original, ["trip", "legs", 0, "shape"], to: .string(Polyline.encode(points, precision: 5)))
    let error = try #require(ValhallaFixtures.importError(value))
    #expect(error.code == .invalidPolyline)
    #expect(error.message.contains("precision 6 does not fit"), "\(error.message)")
  }

  /// Without a language, the router's Korean is kept (Valhalla's and Valhalla's OSRM flavour).
  @Test(arguments: ["valhalla.ko-KR.km.json", "osrm.ko-KR.km.json"])
  func koreanRouterTextIsKeptWithoutALocale(_ file: String) throws {
    for scenario in ["mc_harbour_start", "par_car_marais", "li_car_long_roundabouts"] {
      let path = "valhalla-scenarios/\(scenario)/\(file)"
      let document = try RouteFiles.decode(F.bytes(path), name: path, language: nil)
      for step in document.routes[0].steps.dropFirst() {
        #expect(Self.hasHangul(step.instructions), "\(path): \(step.instructions)")
      }
      #expect(RouteFiles.language(of: document) == .ko)
      // --locale still wins.
      let english = try RouteFiles.decode(F.bytes(path), name: path, language: .en)
      for step in english.routes[0].steps.dropFirst() {
        #expect(!Self.hasHangul(step.instructions), "\(path): \(step.instructions)")
      }
    }
  }

  /// The OSRM flavour keeps Valhalla's own words, not text Stepwise writes.
  @Test func theRouterWordingIsKept() throws {
    let path = "\(Self.harbour)/osrm.ko-KR.km.json"
    let raw = try F.json(path)
    let step = try #require(raw["routes"]?[0]?["legs"]?[0]?["steps"]?[1])
    let text = try #require(step["maneuver"]?["instruction"]?.stringValue)
    let document = try RouteFiles.decode(F.bytes(path), name: path, language: nil)
    #expect(document.routes[0].steps[1].instructions == text.trimmingCharacters(in: .whitespaces))
  }

  /// `stepwise route convert` and `stepwised` without `--locale`: Korean instructions and
  /// Korean announcements for a Korean route; `--locale en` gives English.
  @Test func theCommandsFollowTheRoutesLanguage() throws {
    let file = "Tests/Fixtures/routes/\(Self.harbour)/valhalla.ko-KR.km.json"
    let converted = try runTool("stepwise", ["route", "convert", file])
    #expect(converted.status == 0, "\(converted.stderr)")
    let document = try NativeRouteFormat.decode(JSONParser.parse(Array(converted.stdout.utf8)))
    #expect(Self.hasHangul(document.routes[0].steps[1].instructions))
    let english = try runTool("stepwise", ["route", "show", "--locale", "en", file])
    #expect(english.status == 0, "\(english.stderr)")
    #expect(!Self.hasHangul(english.stdout.split(separator: "\n").dropFirst(2).joined()))

    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let track = scratch.file("drive.nmea")
    let simulated = try runTool("stepwise", ["simulate", file])
    #expect(simulated.status == 0, "\(simulated.stderr)")
    try Data(simulated.stdout.utf8).write(to: URL(fileURLWithPath: track))
    let daemon = try runTool("stepwised", ["--route", file, "--fast", track])
    #expect(daemon.status == 0, "\(daemon.stderr)")
    let said = daemon.stdout.split(separator: "\n").filter { $0.contains(" ANNOUNCE ") }
    #expect(!said.isEmpty)
    #expect(said.allSatisfy { Self.hasHangul(String($0)) }, "\(said.prefix(3))")
  }
}
