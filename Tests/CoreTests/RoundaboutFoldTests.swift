import Foundation
import Geodesy
import Guidance
import JSON
import Phrasebook
import RouteFiles
import Simulation
import TestSupport
import Testing

@testable import Routes

/// A roundabout is one step that names its exit: the exit maneuver routers give after it is
/// folded into it at import, and nothing says "exit the roundabout" after it.
@Suite struct RoundaboutFoldTests {
  typealias F = ImportFixtures

  static func valhalla(_ file: String) throws -> (JSONValue, RouteDocument) {
    let path = repositoryFile("Tests/Fixtures/valhalla/\(file)")
    let bytes = readBytes(path)
    return (try JSONParser.parse(bytes), try RouteFiles.decode(bytes, name: file, language: .en))
  }

  /// Valhalla's maneuvers of leg `leg`: type, length in metres, exit count.
  static func maneuvers(_ value: JSONValue, leg: Int = 0) -> [(
    type: Int, metres: Double, exit: Int?
  )] {
    let trip = value["trip"]
    let perUnit = trip?["units"]?.stringValue == "miles" ? 1609.344 : 1000
    return (trip?["legs"]?[leg]?["maneuvers"]?.arrayValue ?? []).map {
      (
        Int($0["type"]?.doubleValue ?? 0), ($0["length"]?.doubleValue ?? 0) * perUnit,
        $0["roundabout_exit_count"]?.doubleValue.map { Int($0) }
      )
    }
  }

  @Test func theCasinoRoundaboutIsOneStepWithItsExitAndTheWayRoundJoinedToTheNext() throws {
    let (value, doc) = try Self.valhalla("mc_car_casino_roundabout.en.json")
    let m = Self.maneuvers(value)
    #expect(m.map(\.type) == [3, 10, 26, 27, 6])
    let steps = doc.routes[0].steps
    // Depart, the right turn, the roundabout, the arrival: no step for the exit.
    #expect(steps.map(\.maneuver?.kind) == [.depart, .turn, .roundabout, .arrive])
    #expect(
      steps[2].instructions
        == "Enter the roundabout and take the 3rd exit onto Boulevard Princesse Charlotte.")
    #expect(!steps.contains { $0.instructions.contains("Exit the roundabout") })
    #expect(steps[2].maneuver?.exit == 3)
    let exitDistance = try #require(steps[2].maneuver?.exitDistance)
    #expect(abs(exitDistance - m[2].metres) < 0.01)
    // The arrival's approach runs round the roundabout and on: both stretches, one polyline.
    #expect(abs(steps[3].distance - (m[2].metres + m[3].metres)) < 0.01)
    let length = Polyline(Array(steps[3].polyline)).length
    #expect(abs(length - steps[3].distance) < 0.05 * steps[3].distance, "\(length)")
    let stepTotal = steps.map(\.distance).reduce(0, +)
    let maneuverTotal = m.map(\.metres).reduce(0, +)
    #expect(abs(stepTotal - maneuverTotal) < 0.01)
  }

  @Test(arguments: [
    "li_car_long_roundabouts.en-mi.json", "li_car_long_roundabouts.ko.json",
    "li_multileg_car.en.json",
  ])
  func everyValhallaRoundaboutNamesItsExitAndNoExitStepIsLeft(_ file: String) throws {
    let (value, doc) = try Self.valhalla(file)
    let legs = value["trip"]?["legs"]?.arrayValue?.count ?? 0
    let all = (0..<legs).flatMap { Self.maneuvers(value, leg: $0) }
    let roundabouts = all.filter { $0.type == 26 }
    let exits = all.filter { $0.type == 27 }
    #expect(!roundabouts.isEmpty && exits.count == roundabouts.count)
    let steps = doc.routes[0].steps
    #expect(steps.count == all.count - legs + 1 - exits.count)
    #expect(!steps.contains { $0.maneuver?.kind.exitsRoundabout == true })
    let entered = steps.filter { $0.maneuver?.kind == .roundabout }
    #expect(entered.map(\.maneuver?.exit) == roundabouts.map(\.exit))
    #expect(entered.allSatisfy { ($0.maneuver?.exitDistance ?? 0) > 0 })
    let stepTotal = steps.map(\.distance).reduce(0, +)
    let maneuverTotal = all.map(\.metres).reduce(0, +)
    #expect(abs(stepTotal - maneuverTotal) < 0.1)
  }

  @Test(arguments: [
    "osrm/portugal_to_korea.json", "valhalla-scenarios/li_car_long_roundabouts/osrm.en-US.km.json",
    "valhalla-scenarios/li_car_long_roundabouts/osrm.ko-KR.km.json",
  ])
  func osrmExitStepsAfterARoundaboutOrRotaryAreFolded(_ file: String) throws {
    let value = try F.json(file)
    let doc = try F.document(file)
    let legs = value["routes"]?[0]?["legs"]?.arrayValue ?? []
    var routerSteps = 0
    var folded = 0
    var unfoldedExits = 0
    var total = 0.0
    for leg in legs {
      let types = (leg["steps"]?.arrayValue ?? []).map {
        RouteManeuver.Kind(osrmType: $0["maneuver"]?["type"]?.stringValue ?? "")
      }
      routerSteps += types.count
      total += (leg["steps"]?.arrayValue ?? []).map { $0["distance"]?.doubleValue ?? 0 }.reduce(
        0, +)
      for k in types.indices.dropFirst() where types[k].exitsRoundabout {
        if types[k - 1].entersRoundabout { folded += 1 } else { unfoldedExits += 1 }
      }
    }
    #expect(folded > 0)
    let steps = doc.routes[0].steps
    #expect(steps.count == routerSteps - legs.count + 1 - folded)
    // An exit step is left only where nothing entered the roundabout before it.
    #expect(steps.filter { $0.maneuver?.kind.exitsRoundabout == true }.count == unfoldedExits)
    for k in steps.indices.dropFirst() where steps[k].maneuver?.kind.exitsRoundabout == true {
      #expect(steps[k - 1].maneuver?.kind.entersRoundabout != true, "\(file) step \(k)")
    }
    let stepTotal = steps.map(\.distance).reduce(0, +)
    #expect(abs(stepTotal - total) < 0.5)
  }

  @Test func graphHopperRoundaboutsKeepTheirSignAndExitNumber() throws {
    let file = "graphhopper/furkot_gh_turnbyturn.json"
    let value = try F.json(file)
    let signs = (value["paths"]?[0]?["instructions"]?.arrayValue ?? []).filter {
      $0["sign"]?.doubleValue == 6
    }
    let steps = try F.document(file).routes[0].steps
    let roundabouts = steps.filter { $0.maneuver?.kind == .roundabout }
    #expect(!signs.isEmpty)
    #expect(
      roundabouts.map(\.maneuver?.exit)
        == signs.map { $0["exit_number"]?.doubleValue.map { Int($0) } })
    #expect(steps[0].maneuver?.kind == .depart)
  }

  @Test func theManeuverSurvivesTheNativeDocumentAndOldDocumentsLoadWithout() throws {
    let (_, doc) = try Self.valhalla("li_car_long_roundabouts.en-mi.json")
    var bytes: [UInt8] = []
    JSONWriter.write(NativeRouteFormat.encode(doc), into: &bytes)
    let again = try NativeRouteFormat.decode(bytes)
    #expect(again.routes[0].steps.map(\.maneuver) == doc.routes[0].steps.map(\.maneuver))
    #expect(again.routes[0].steps.contains { $0.maneuver?.exitDistance != nil })
    // The streaming reader (long routes) reads the same.
    let streamed = bytes.withUnsafeBufferPointer { NativeRouteFormat.decodeStreaming($0) }
    #expect(streamed?.routes[0].steps.map(\.maneuver) == doc.routes[0].steps.map(\.maneuver))
    // A document written before the field existed.
    let old = try NativeRouteFormat.decode(
      Array(
        try String(
          contentsOfFile: repositoryFile("Tests/Fixtures/routes/example.json"), encoding: .utf8
        ).utf8))
    #expect(old.routes[0].steps.allSatisfy { $0.maneuver == nil })
  }

  @Test func anUnknownManeuverTypeIsRefusedWithItsPath() throws {
    let (_, doc) = try Self.valhalla("mc_car_casino_roundabout.en.json")
    let value = F.setting(
      NativeRouteFormat.encode(doc), ["routes", 0, "steps", 2, "maneuver", "type"],
      to: .string("spiral"))
    #expect {
      try NativeRouteFormat.decode(value)
    } throws: {
      ($0 as? RouteDocumentError)?.path == "routes[0].steps[2].maneuver.type"
    }
  }

  /// Drives the length of Liechtenstein (nine roundabouts): each is announced before its entry
  /// naming the exit, and no announcement tells the driver to exit a roundabout.
  @Test(arguments: [Language.en, .ko])
  func noAnnouncementSaysExitTheRoundaboutAfterARoundabout(_ language: Language) throws {
    let file =
      language == .en ? "li_car_long_roundabouts.en-mi.json" : "li_car_long_roundabouts.ko.json"
    let (_, doc) = try Self.valhalla(file)
    var o = Simulation.DriveOptions()
    o.noise = 3
    o.seed = 7
    let drive = DriveSimulator.drive(doc.routes[0], options: o)
    let events = try runSession(doc, fixes: drive.fixes, language: language)
    let said = events.compactMap(\.announcement)
    let exitWords = language == .en ? "xit the roundabout" : "회전교차로 진출"
    #expect(!said.contains { $0.text.contains(exitWords) }, "\(said.map(\.text))")
    let steps = doc.routes[0].steps
    let roundabouts = steps.indices.filter { steps[$0].maneuver?.kind == .roundabout }
    #expect(roundabouts.count == 9)
    for m in roundabouts {
      #expect(said.contains { $0.step == m && $0.kind == .now }, "roundabout step \(m)")
    }
    try GuidanceProperties.checkAnnouncementsBeforeManeuvers(doc, drive, events)
  }
}
