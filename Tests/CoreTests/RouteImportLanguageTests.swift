import Geodesy
import JSON
import Phrasebook
import Routes
import TestSupport
import Testing

/// Valhalla files in both languages, Valhalla text rewritten, geometry-only Valhalla legs.
@Suite struct RouteImportLanguageTests {
  typealias F = ImportFixtures

  @Test(arguments: ImportFixtures.scenarios)
  func koreanAndEnglishValhallaScenariosHaveTheSameSteps(_ scenario: String) throws {
    let en = try F.document("valhalla-scenarios/\(scenario)/valhalla.en-US.km.json")
    let ko = try F.document("valhalla-scenarios/\(scenario)/valhalla.ko-KR.km.json", language: .ko)
    #expect(en.routes.count == ko.routes.count)
    for (e, k) in zip(en.routes, ko.routes) {
      #expect(e.steps.count == k.steps.count)
      #expect(e.steps.map(\.polyline) == k.steps.map(\.polyline))
      #expect(e.steps.map(\.waypoint) == k.steps.map(\.waypoint))
      #expect(e.steps.map(\.transportType) == k.steps.map(\.transportType))
      for (a, b) in zip(e.steps, k.steps) { #expect(abs(a.distance - b.distance) < 0.01) }
    }
    // The OSRM flavour of the same request has the same geometry too.
    let osrmKo = try F.document("valhalla-scenarios/\(scenario)/osrm.ko-KR.km.json", language: .ko)
    #expect(osrmKo.routes[0].steps.count == ko.routes[0].steps.count)
  }

  @Test(arguments: ImportFixtures.scenarios)
  func englishValhallaTextIsRewrittenInKorean(_ scenario: String) throws {
    let text = try F.document(
      "valhalla-scenarios/\(scenario)/valhalla.en-US.km.json", language: .ko)
    let route = text.routes[0]
    for step in route.steps.dropFirst() {
      #expect(
        step.instructions.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) },
        "\(step.instructions)")
    }
    // Valhalla's own Korean is kept when Korean is wanted.
    let kept = try F.document(
      "valhalla-scenarios/\(scenario)/valhalla.ko-KR.km.json", language: .ko)
    let raw = try F.json("valhalla-scenarios/\(scenario)/valhalla.ko-KR.km.json")
    let firstText = raw["trip"]?["legs"]?[0]?["maneuvers"]?[1]?["instruction"]?.stringValue ?? ""
    #expect(kept.routes[0].steps[1].instructions == firstText.trimmingSpaces())
  }

  @Test(arguments: ImportFixtures.files("valhalla"))
  func everyValhallaResponseImports(_ file: String) throws {
    for language in [Language.en, .ko] {
      try F.checkShape(try F.document(file, language: language), file)
    }
    try F.checkReplay(try F.document(file))
  }

  @Test func optimizedRouteLegsWithoutManeuversBecomeARouteLine() throws {
    let route = try #require(
      try F.document("valhalla/valhalla-docs_optimized_route.json").routes.first)
    #expect(route.steps.map(\.waypoint) == [nil, 1, 2, nil])
    #expect(route.steps[1].instructions == "You have arrived at your 1st waypoint")
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    var s = Substring(self)
    while s.last?.isWhitespace == true { s = s.dropLast() }
    return String(s)
  }
}
