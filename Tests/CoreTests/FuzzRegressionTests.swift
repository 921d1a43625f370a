import Foundation
import GPSDProtocol
import Geodesy
import JSON
import NMEA
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing
import Wire

/// Inputs found by the fuzz targets (`Scripts/fuzz.sh`, `docs/hardening.md`), kept in
/// `Fixtures/fuzz-regressions/`.
///
/// Every one goes through every parser the fuzz targets cover, whatever target found it; the tests
/// below also pin what each input must give.
@Suite struct FuzzRegressionTests {
  static let directory = repositoryFile("Tests/Fixtures/fuzz-regressions/")

  static var inputs: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
      .filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
  }

  static func bytes(_ name: String) throws -> [UInt8] {
    try #require(FileManager.default.contents(atPath: directory + name).map { [UInt8]($0) })
  }

  @Test func theDirectoryIsNotEmpty() {
    #expect(!Self.inputs.isEmpty)
  }

  @Test(arguments: inputs)
  func everyParserSurvivesEveryInput(name: String) throws {
    let input = try Self.bytes(name)
    var nmea = NMEAReader()
    for fix in nmea.feed(input) + nmea.finish() {
      if let c = fix.coordinate { #expect(c.latitude.isFinite && c.longitude.isFinite) }
    }
    if let value = try? JSONParser.parse(input) {
      _ = try? JSONParser.parse(JSONWriter.string(value))
    }
    _ = try? RouteFiles.decode(input, name: name)
    var gpsd = GPSDCaptureReader()
    for fix in gpsd.feed(input) + gpsd.finish() {
      if let c = fix.coordinate { #expect(c.latitude.isFinite && c.longitude.isFinite) }
    }
    var framer = LineFramer(maximumLength: 4096)
    for case .line(let line) in framer.feed(input) {
      _ = try? CommandRequest.parse(line: line)
    }
  }

  /// JSONFuzz, 2026-11-29: `9999999999999999979 99E99999999999999999` (a number beyond the range
  /// of a Double).
  ///
  /// Not a crash of Stepwise: the parser reads it as infinity, the writer writes non-finite numbers
  /// as `null` (the harness's round-trip check now allows for that), and the route validator
  /// refuses a non-finite value wherever it lands.
  @Test func anOverflowingNumberIsInfinityWrittenAsNullAndRefusedInRoutes() throws {
    let input = try Self.bytes("json-overflowing-number.json")
    #expect(try JSONParser.parse(input) == .number(.infinity))
    #expect(JSONWriter.string(.number(.infinity)) == "null")
    #expect(JSONWriter.string(.number(-.infinity)) == "null")
    let route =
      Array(#"{"source":{"name":"a","latitude":1e999,"longitude":0},"#.utf8)
      + Array(#""destination":{"name":"b","latitude":0,"longitude":0},"routes":[]}"#.utf8)
    #expect(throws: RouteFileError.self) { try RouteFiles.decode(route, name: "r.json") }
  }

  /// NMEAFuzz, 2026-11-29: a decimal field with more than 18 zeros after the point (a VTG speed
  /// `0.00000000000000000000005`) indexed past the powers-of-ten table in
  /// `NMEAField.decimal` and trapped.
  ///
  /// Such values are now divided in steps.
  @Test func decimalsWithManyZerosAfterThePointAreReadNotTrapped() throws {
    let input = try Self.bytes("nmea-decimal-leading-fraction-zeros.nmea")
    var reader = NMEAReader()
    let fixes = reader.feed(input) + reader.finish()
    #expect(reader.statistics.rejected == 0)
    let fix = try #require(fixes.first)
    #expect(fixes.count == 1 && fix.isValid)
    let hdop = try #require(fix.hdop)  // GGA: 0.000000000000000000000000000009
    #expect(abs(hdop / 9e-30 - 1) < 1e-12)
    let speed = try #require(fix.speed)
    #expect(speed.isFinite && speed >= 0)
  }

  /// RouteFuzz, 2026-12-05: a Valhalla error response whose `status_code` is 4.02e24: the
  /// importer's message converted it to `Int` and trapped.
  ///
  /// A code or status that is no integer in range is now left out of the message.
  @Test func aValhallaErrorWithAHugeStatusCodeIsAnErrorNotATrap() throws {
    let error = try #require(
      ImportFixtures.importError(try Self.bytes("valhalla-error-huge-status-code.json")))
    #expect(error.code == .routerError)
    #expect(error.message.contains("Valhalla error 171: No suitable edges near location"))
    #expect(!error.message.contains("HTTP"), "\(error.message)")
  }

  /// CommandFuzz, 2026-12-05: a `watch` whose `id` is `1e5555555555`, beyond a double.
  ///
  /// The parser took it as infinity, and the reply echoed it as `"id":null`, which no client
  /// could match to its command (the harness's round trip failed).
  ///
  /// Such an id is now refused with `badArgument`, and the error carries no id.
  @Test func aCommandWhoseIdIsBeyondADoubleIsRefused() throws {
    var framer = LineFramer(maximumLength: 4096)
    var parsed = 0
    var refused: [WireError] = []
    for case .line(let line) in framer.feed(try Self.bytes("command-id-beyond-a-double.txt")) {
      do {
        let request = try CommandRequest.parse(line: line)
        #expect(try CommandRequest.parse(line: Array(request.line.utf8)) == request)
        parsed += 1
      } catch {
        refused.append(error)
      }
    }
    #expect(parsed == 0)
    let first = try #require(refused.first)
    #expect(first.code == .badArgument && first.message == "id is a number out of range")
    #expect(first.id == nil)
    for id in ["1e999", "-1e999"] {
      #expect(throws: WireError.self) {
        try CommandRequest.parse(line: Array(#"{"cmd":"status","id":\#(id)}"#.utf8))
      }
    }
    let large = try CommandRequest.parse(line: Array(#"{"cmd":"status","id":1e300}"#.utf8))
    #expect(large.id == .number(1e300))
  }

  /// CommandFuzz, 2026-12-05: a `load` whose document holds `5e555`, beyond a double.
  ///
  /// The document goes on to the route reader as JSON text, where such a number is written as
  /// null, and an optional member so made would pass as left out. Such a document is now
  /// refused with `badArgument`, naming where the number is.
  @Test func aLoadWhoseDocumentHoldsANumberBeyondADoubleIsRefused() throws {
    var framer = LineFramer(maximumLength: 4096)
    var refused: [WireError] = []
    let input = try Self.bytes("command-load-document-number-beyond-a-double.txt")
    for case .line(let line) in framer.feed(input) {
      do {
        _ = try CommandRequest.parse(line: line)
      } catch {
        refused.append(error)
      }
    }
    let first = try #require(refused.first)
    #expect(first.code == .badArgument)
    #expect(first.message == "document.d444Orbrrrrrex is a number out of range", "\(first)")
    let nested = Array(
      #"{"cmd":"load","document":{"routes":[{"distance":-1e999}]},"id":3}"#.utf8)
    #expect(throws: WireError.self) { try CommandRequest.parse(line: nested) }
    do {
      _ = try CommandRequest.parse(line: nested)
    } catch {
      #expect(error.message == "document.routes[0].distance is a number out of range")
      #expect(error.id == .number(3))
    }
  }
}
