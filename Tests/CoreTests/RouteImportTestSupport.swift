import Foundation
import Geodesy
import Guidance
import JSON
import Phrasebook
import RouteFiles
import Routes
import Simulation
import TestSupport
import Testing

/// The router files under `Fixtures/routes/` and the checks every imported route must pass.
enum ImportFixtures {
  static let directory = repositoryFile("Tests/Fixtures/routes")

  /// The files of one folder (`osrm`, `graphhopper`, `gpx`, `geojson`, `valhalla`), by name.
  static func files(_ folder: String) -> [String] {
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(folder)")) ?? []
    return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(folder)/\($0)" }
  }

  /// The Valhalla `format=osrm` responses of the scenario folders.
  static var scenarioOSRMFiles: [String] {
    scenarios.flatMap {
      [
        "valhalla-scenarios/\($0)/osrm.en-US.km.json",
        "valhalla-scenarios/\($0)/osrm.ko-KR.km.json",
      ]
    }
  }

  static var scenarios: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/valhalla-scenarios")) ?? [])
      .sorted()
  }

  static func bytes(_ file: String) -> [UInt8] { readBytes("\(directory)/\(file)") }

  static func json(_ file: String) throws -> JSONValue { try JSONParser.parse(bytes(file)) }

  /// Imports a file the way `stepwise` does (format detection, validation).
  static func document(_ file: String, language: Language = .en) throws -> RouteDocument {
    try RouteFiles.decode(bytes(file), name: file, language: language)
  }

  /// The error of importing `bytes` with format detection, or `nil` when it loads.
  static func importError(_ bytes: [UInt8], language: Language = .en) -> RouteDocumentError? {
    do {
      _ = try RouteFiles.decode(bytes, name: "test", language: language)
      return nil
    } catch {
      return error.underlying
    }
  }

  /// The JSON path `path` of `value` replaced by `newValue` (String keys, Int indices).
  static func setting(_ value: JSONValue, _ path: [any Sendable], to newValue: JSONValue?)
    -> JSONValue
  {
    ValhallaFixtures.setting(value, path, to: newValue)
  }

  static func bytes(_ value: JSONValue) -> [UInt8] { Array(JSONWriter.string(value).utf8) }

  // MARK: Properties

  /// Σ step distances = route distance within 1 %, step 0 the departure, every step polyline
  /// continuous with the previous one, the document survives the native loader.
  static func checkShape(
    _ doc: RouteDocument, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    _ = try NativeRouteFormat.decode(NativeRouteFormat.encode(doc))
    for (r, route) in doc.routes.enumerated() {
      let sum = route.steps.reduce(0) { $0 + $1.distance }
      #expect(
        abs(sum - route.distance) <= max(0.01 * route.distance, 1),
        "\(name) route \(r): Σ steps \(sum) m vs \(route.distance) m",
        sourceLocation: sourceLocation)
      #expect(route.steps.first?.isDeparture == true, sourceLocation: sourceLocation)
      for (i, step) in route.steps.enumerated().dropFirst() {
        #expect(
          !step.instructions.isEmpty, "\(name) step \(i) has no text",
          sourceLocation: sourceLocation)
        if let end = route.steps[i - 1].polyline.last, let start = step.polyline.first {
          #expect(end.distance(to: start) <= 1, "\(name) step \(i)", sourceLocation: sourceLocation)
        }
      }
    }
  }

  /// Each maneuver point (in route order, after the departure) is the end of its step's polyline.
  static func checkManeuverPoints(
    _ route: Route, _ points: [Coordinate], _ name: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(
      route.steps.count == points.count + 1,
      "\(name): \(route.steps.count) steps for \(points.count) maneuvers",
      sourceLocation: sourceLocation)
    for (i, p) in points.enumerated() where i + 1 < route.steps.count {
      if let end = route.steps[i + 1].polyline.last {
        #expect(
          end.distance(to: p) < 1.0,
          "\(name) step \(i + 1) ends \(end.distance(to: p)) m from its maneuver",
          sourceLocation: sourceLocation)
      }
    }
  }

  /// A clean simulated drive along the first route announces every maneuver before reaching it.
  ///
  /// Long routes are cut after their first `maxSteps` steps to keep the test fast.
  static func checkReplay(
    _ doc: RouteDocument, maxSteps: Int = 30, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    var d = doc
    var route = d.routes[0]
    var kept: [RouteStep] = []
    var total = 0.0
    for step in route.steps {
      if kept.count >= 3 && (kept.count >= maxSteps || total + step.distance > 60_000) { break }
      kept.append(step)
      total += step.distance
    }
    if kept.count < route.steps.count {
      kept[kept.count - 1].waypoint = nil
      route.steps = kept
      route.distance = total
    }
    d.routes = [route]
    if let end = route.steps.last?.polyline.last { d.destination.coordinate = end }
    var options = DriveOptions()
    options.tunnels = false  // a clean track: no fix loss in tunnels
    let drive = DriveSimulator.drive(route, options: options)
    let events = try runSession(d, fixes: drive.fixes)
    try GuidanceProperties.checkAnnouncementsBeforeManeuvers(
      d, drive, events, sourceLocation: sourceLocation)
  }

  // MARK: Goldens

  /// Compares the native document of `file` with `golden/<golden>`; `STEPWISE_UPDATE_GOLDENS=1`
  /// rewrites the golden instead.
  static func checkGolden(
    _ file: String, golden: String, language: Language = .en,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let doc = try document(file, language: language)
    let text = JSONWriter.prettyString(NativeRouteFormat.encode(doc))
    let path = "\(directory)/golden/\(golden)"
    if ProcessInfo.processInfo.environment["STEPWISE_UPDATE_GOLDENS"] == "1" {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
      return
    }
    let expected = String(decoding: readBytes(path, sourceLocation: sourceLocation), as: UTF8.self)
    #expect(
      text == expected,
      "\(file) differs from golden/\(golden); run STEPWISE_UPDATE_GOLDENS=1 swift test --filter Golden and review the diff",
      sourceLocation: sourceLocation)
  }
}

extension JSONValue {
  /// The element at `index` of an array, or `nil`.
  subscript(index: Int) -> JSONValue? {
    guard case .array(let a) = self, a.indices.contains(index) else { return nil }
    return a[index]
  }
}
