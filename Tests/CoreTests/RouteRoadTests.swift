import Foundation
import Geodesy
import JSON
import RouteFiles
import RouteImporters
import Routes
import TestSupport
import Testing

/// The road on the route model: lanes and signs per step, speed limits, road objects and lane
/// guidance along the route; in the native document, and kept by the importers.
@Suite struct RouteRoadTests {
  typealias F = ImportFixtures

  /// A two-step route with every road member.
  static func roadDocument() -> RouteDocument {
    let a = Coordinate(latitude: 45.0, longitude: 10.0)
    let b = Coordinate(latitude: 45.0, longitude: 10.01)
    let c = Coordinate(latitude: 44.99, longitude: 10.01)
    let lanes = [
      RouteLane(indications: [.straight], valid: false, active: false),
      RouteLane(
        indications: [.straight, .slightRight], valid: true, active: true,
        validIndication: .slightRight),
      RouteLane(indications: [.mergeToLeft], valid: false),
    ]
    let sign = RouteSign([
      .init(.exitNumber, "52"), .init(.branch, "D 6007", isRouteNumber: true),
      .init(.toward, "Nice"), .init(.toward, "Monaco"), .init(.exitName, "Nice-Est"),
    ])
    let road = RouteRoad(
      speedLimits: [
        .init(start: 0, end: 400.12, limit: .limit(130, .kilometresPerHour)),
        .init(start: 400.12, end: 500, limit: .none),
        .init(start: 500, end: 700, limit: .unknown),
        .init(start: 700, end: 1900, limit: .limit(30, .milesPerHour)),
      ],
      objects: [
        RoadObject(.tollRoad, start: 0, end: 787.4),
        RoadObject(.tollBooth, start: 120.5, name: "Péage de Lacroix"),
        RoadObject(.tunnel, start: 200, end: 700, name: "Tunnel du Mont Gros"),
        RoadObject(.levelCrossing, start: 1000),
        RoadObject(.speedCamera, start: 1200),
      ],
      lanes: [RouteLaneGuidance(at: 300.25, lanes: [RouteLane(indications: [.left], valid: true)])])
    let route = Route(
      name: "A 99", distance: 1900, expectedTravelTime: 100, transportType: .automobile,
      hasTolls: true,
      steps: [
        RouteStep(
          instructions: "", distance: 0, transportType: .automobile, polyline: [a],
          sign: RouteSign([.init(.ref, "A 99")])),
        RouteStep(
          instructions: "Take exit 52.", distance: 787.4, transportType: .automobile,
          polyline: [a, b], maneuver: RouteManeuver(kind: .offRamp, modifier: .slightRight),
          lanes: lanes, sign: sign),
        RouteStep(
          instructions: "Arrive.", distance: 1112, transportType: .automobile, polyline: [b, c],
          maneuver: RouteManeuver(kind: .arrive)),
      ], road: road)
    return RouteDocument(
      source: Place(name: "A", coordinate: a), destination: Place(name: "C", coordinate: c),
      routes: [route])
  }

  @Test func everyRoadMemberRoundTripsThroughTheNativeDocument() throws {
    let document = Self.roadDocument()
    let text = JSONWriter.string(NativeRouteFormat.encode(document))
    #expect(try NativeRouteFormat.decode(Array(text.utf8)) == document)
    // The streaming writer writes the same bytes, and the pull decoder reads them back.
    var out: [UInt8] = []
    var written: [UInt8] = []
    NativeRouteFormat.write(document, into: &out, flushingAt: 64) { (b: inout [UInt8]) in
      written += b
      b.removeAll()
    }
    written += out
    #expect(String(decoding: written, as: UTF8.self) == text)
    // What `stepwise route convert` writes, through format detection and validation.
    let loaded = try RouteFiles.decode(written, name: "road.json")
    #expect(loaded == document)
  }

  @Test func aDocumentWithoutRoadMembersLoadsAndIsWrittenAsBefore() throws {
    let bytes = readBytes(repositoryFile("Tests/Fixtures/routes/example.json"))
    let document = try NativeRouteFormat.decode(bytes)
    for route in document.routes {
      #expect(route.road.isEmpty)
      #expect(route.steps.allSatisfy { $0.lanes.isEmpty && $0.sign == nil })
    }
    let text = JSONWriter.string(NativeRouteFormat.encode(document))
    for key in ["lanes", "sign", "speedLimits", "roadObjects", "laneGuidance"] {
      #expect(!text.contains("\"\(key)\""))
    }
  }

  /// The document of `roadDocument()` with one member of route 0 replaced.
  static func loadError(_ edit: (inout JSONObject) -> Void) -> RouteDocumentError? {
    guard case .object(var root) = NativeRouteFormat.encode(roadDocument()),
      case .array(var routes)? = root["routes"], case .object(var route) = routes[0]
    else { return nil }
    edit(&route)
    routes[0] = .object(route)
    root["routes"] = .array(routes)
    do {
      _ = try NativeRouteFormat.decode(.object(root))
      return nil
    } catch {
      return error
    }
  }

  @Test func speedLimitsOutOfOrderAreRefusedWithTheirPath() throws {
    let error = try #require(
      Self.loadError { route in
        route["speedLimits"] = .array([
          .object(
            JSONObject([
              ("start", .number(100)), ("end", .number(200)), ("limit", .number(50)),
              ("unit", .string("km/h")),
            ])),
          .object(
            JSONObject([("start", .number(150)), ("end", .number(300)), ("limit", .string("none"))])
          ),
        ])
      })
    #expect(error.path == "routes[0].speedLimits[1].start")
  }

  @Test func unknownWordsAndBadLimitsAreRefused() throws {
    let unit = try #require(
      Self.loadError { route in
        route["speedLimits"] = .array([
          .object(
            JSONObject([("start", .number(0)), ("limit", .number(50)), ("unit", .string("knots"))]))
        ])
      })
    #expect(unit.path == "routes[0].speedLimits[0].unit" && unit.message.contains("knots"))
    let zero = try #require(
      Self.loadError { route in
        route["speedLimits"] = .array([
          .object(
            JSONObject([("start", .number(0)), ("limit", .number(0)), ("unit", .string("mph"))]))
        ])
      })
    #expect(zero.path == "routes[0].speedLimits[0].limit")
    let object = try #require(
      Self.loadError { route in
        route["roadObjects"] = .array([
          .object(JSONObject([("type", .string("volcano")), ("start", .number(0))]))
        ])
      })
    #expect(object.path == "routes[0].roadObjects[0].type")
    let lane = try #require(
      Self.loadError { route in
        route["laneGuidance"] = .array([
          .object(
            JSONObject([
              ("at", .number(5)),
              (
                "lanes",
                .array([
                  .object(
                    JSONObject([
                      ("indications", .array([.string("sideways")])), ("valid", .bool(true)),
                    ]))
                ])
              ),
            ]))
        ])
      })
    #expect(lane.path == "routes[0].laneGuidance[0].lanes[0].indications[0]")
  }

  @Test func theSpeedLimitAtAPointIsTheSpanThatCoversIt() {
    let road = Self.roadDocument().routes[0].road
    #expect(road.speedLimit(at: 0) == .limit(130, .kilometresPerHour))
    #expect(road.speedLimit(at: 400.12) == SpeedLimit.none)
    #expect(road.speedLimit(at: 600) == .unknown)
    #expect(road.speedLimit(at: 1900) == .limit(30, .milesPerHour))
    #expect(road.speedLimit(at: 1900.5) == nil)
    #expect(RouteRoad().speedLimit(at: 0) == nil)
    #expect(abs((SpeedLimit.limit(30, .milesPerHour).metresPerSecond ?? 0) - 13.4112) < 1e-9)
  }

  @Test func theWordsOfOpenStreetMapAndOSRMReadAsOneIndication() {
    #expect(RouteLane.Indication(word: "slight_right") == .slightRight)
    #expect(RouteLane.Indication(word: "slight right") == .slightRight)
    #expect(RouteLane.Indication(word: "through") == .straight)
    #expect(RouteLane.Indication(word: "reverse") == .uturn)
    #expect(RouteLane.Indication(word: "merge_to_left") == .mergeToLeft)
    #expect(RouteLane.Indication(word: "sideways") == nil)
  }

  // MARK: - Importers

  /// The OSRM-shaped router responses among the fixtures (OSRM, Mapbox, Valhalla `format=osrm`).
  static let osrmFiles = F.files("osrm") + F.scenarioOSRMFiles

  @Test(arguments: osrmFiles)
  func everyLaneArrayOfAnOSRMResponseSurvivesImport(_ file: String) throws {
    let data = Data(F.bytes(file))
    let route = try F.document(file).routes[0]
    #expect(RouterRoadOracle.laneArrays(of: route) == (try RouterRoadOracle.osrmLaneArrays(data)))
  }

  @Test(arguments: osrmFiles)
  func everySignWordOfAnOSRMResponseSurvivesImport(_ file: String) throws {
    let data = Data(F.bytes(file))
    let route = try F.document(file).routes[0]
    let theirs = try RouterRoadOracle.osrmSignWords(data).values.flatMap { $0 }.sorted()
    let ours = RouterRoadOracle.osrmSignWords(of: route).values.flatMap { $0 }.sorted()
    #expect(ours == theirs)
  }

  @Test(arguments: osrmFiles)
  func theSpeedLimitsOfAnOSRMResponseSurviveImport(_ file: String) throws {
    let data = Data(F.bytes(file))
    let route = try F.document(file).routes[0]
    #expect(RouterRoadOracle.speedLimits(of: route) == (try RouterRoadOracle.osrmSpeedLimits(data)))
  }

  /// Valhalla's native responses among the fixtures, from the repository's root.
  static var valhallaFiles: [String] {
    let own = repositoryFile("Tests/Fixtures/valhalla")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: own)) ?? []
    return
      (F.files("valhalla")
      + F.scenarios.flatMap {
        [
          "valhalla-scenarios/\($0)/valhalla.en-US.km.json",
          "valhalla-scenarios/\($0)/valhalla.ko-KR.km.json",
        ]
      }).map { "Tests/Fixtures/routes/\($0)" }
      + names.filter { $0.hasSuffix(".json") && !$0.hasPrefix("error") }.sorted().map {
        "Tests/Fixtures/valhalla/\($0)"
      }
  }

  @Test(arguments: valhallaFiles)
  func everySignElementOfAValhallaResponseSurvivesImport(_ file: String) throws {
    let bytes = readBytes(repositoryFile(file))
    let data = Data(bytes)
    let route = try RouteFiles.decode(bytes, name: file).routes[0]
    let theirs = try RouterRoadOracle.valhallaSignTexts(data).values.flatMap { $0 }.sorted()
    let ours = RouterRoadOracle.signTexts(of: route).values.flatMap { $0 }.sorted()
    #expect(ours == theirs)
  }

  /// osrm-text-instructions' `use_lane` steps, each as the middle step of an OSRM route
  /// (depart 150 m before, arrive 150 m after), as its guidance test features shape them.
  @Test(arguments: [
    "o", "ooo", "oooxxo", "oox", "ooxx", "oxo", "xox", "xxooxx",
  ])
  func theLanesOfOSRMUseLaneStepsSurviveImport(_ name: String) throws {
    let path = repositoryFile("Tests/Fixtures/osrm-text-instructions/v5/use_lane/\(name).json")
    guard case .object(let fixture) = try JSONParser.parse(readBytes(path)),
      case .object(let useLane)? = fixture["step"],
      case .array(let intersections)? = useLane["intersections"],
      case .object(let first) = intersections[0],
      case .array(let location)? = first["location"],
      case .number(let lon) = location[0], case .number(let lat) = location[1]
    else {
      Issue.record("\(name): not a step with an intersection")
      return
    }
    let before = [lon, lat - 0.00135]
    let after = [lon, lat + 0.00135]
    func point(_ p: [Double]) -> JSONValue { .array(p.map { .number($0) }) }
    func line(_ a: [Double], _ b: [Double]) -> JSONValue {
      .object(
        JSONObject([
          ("type", .string("LineString")), ("coordinates", .array([point(a), point(b)])),
        ]))
    }
    func step(
      _ type: String, _ at: [Double], _ geometry: JSONValue, _ distance: Double, _ x: [JSONValue]
    )
      -> JSONValue
    {
      .object(
        JSONObject([
          ("maneuver", .object(JSONObject([("type", .string(type)), ("location", point(at))]))),
          ("geometry", geometry), ("distance", .number(distance)),
          ("duration", .number(distance / 10)),
          ("name", .string("")), ("mode", .string("driving")), ("intersections", .array(x)),
        ]))
    }
    var middle = useLane
    middle["geometry"] = line([lon, lat], after)
    middle["distance"] = .number(150)
    middle["duration"] = .number(15)
    middle["mode"] = .string("driving")
    let steps: [JSONValue] = [
      step("depart", before, line(before, [lon, lat]), 150, []), .object(middle),
      step("arrive", after, line(after, after), 0, []),
    ]
    let response = JSONValue.object(
      JSONObject([
        ("code", .string("Ok")),
        (
          "routes",
          .array([
            .object(
              JSONObject([
                ("distance", .number(300)), ("duration", .number(30)),
                ("legs", .array([.object(JSONObject([("steps", .array(steps))]))])),
              ]))
          ])
        ),
      ]))
    let bytes = F.bytes(response)
    let route = try OSRMImporter.decode(bytes).routes[0]
    #expect(route.steps.count == 3)
    #expect(route.steps[1].maneuver?.kind == .useLane)
    #expect(
      RouterRoadOracle.laneArrays(of: route) == (try RouterRoadOracle.osrmLaneArrays(Data(bytes))))
    // The fixture's name spells its lanes' validity, left to right.
    #expect(route.steps[1].lanes.map { $0.valid ? "o" : "x" }.joined() == name)
  }

  /// GraphHopper: every instruction's `street_ref` is a sign ref of the route, and each
  /// `road_environment` ferry or tunnel range is a road object from its first point to its last.
  @Test(arguments: F.files("graphhopper"))
  func theSignsAndDetailsOfAGraphHopperPathSurviveImport(_ file: String) throws {
    // A bare instruction list (GraphHopper's own test resources) has neither.
    guard
      let root = try JSONSerialization.jsonObject(with: Data(F.bytes(file))) as? [String: Any]
    else { return }
    guard let path = (root["paths"] as? [[String: Any]])?.first else { return }
    let route = try F.document(file).routes[0]
    let refs = (path["instructions"] as? [[String: Any]] ?? []).compactMap {
      $0["street_ref"] as? String
    }.filter { !$0.isEmpty }
    #expect(route.steps.flatMap { $0.sign?.refs ?? [] }.sorted() == refs.sorted())
    let details = path["details"] as? [String: Any] ?? [:]
    let environment = (details["road_environment"] as? [[Any]] ?? []).compactMap {
      ($0.count == 3 ? $0[2] as? String : nil).flatMap {
        ["ferry", "tunnel", "bridge"].contains($0) ? $0 : nil
      }
    }
    let objects = route.road.objects.filter { [.ferry, .tunnel, .bridge].contains($0.kind) }
    #expect(objects.map(\.kind.rawValue) == environment)
  }
}
