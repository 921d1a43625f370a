import Instructions
import Rerouting
import Routes
import TestSupport
import Testing

/// Router answers told apart without a network: routes, errors, garbage and stale replies.
@Suite(.blocking) struct RouterReplyTests {
  static let writer = InstructionWriter(language: .en)
  static let marais = readBytes(
    repositoryFile("Tests/Fixtures/valhalla/par_car_marais.en.json"))

  static func classify(
    api: RouterAPI = .valhalla, status: Int = 200, _ body: [UInt8], id: String = "r-1"
  ) -> Result<RouteDocument, RouterFailure> {
    RouterReply.classify(api: api, status: status, body: body, id: id, writer: writer)
  }

  static func failure(_ r: Result<RouteDocument, RouterFailure>) -> RouterFailure? {
    if case .failure(let f) = r { return f }
    return nil
  }

  @Test func aValhallaRouteWithItsOwnIdIsImported() throws {
    let document = try Self.classify(Self.marais, id: "par_car_marais.en-US.km").get()
    #expect(document.routes.count == 1)
    #expect(document.routes[0].steps.count == 11)
    #expect(
      document.routes[0].steps[1].instructions.hasPrefix("Turn left onto Rue des Guillemites"))
  }

  @Test func aValhallaRouteWithAnotherIdIsStale() {
    #expect(Self.failure(Self.classify(Self.marais, id: "stepwise-9")) == .stale)
  }

  @Test func error171IsOffTheNetworkAnd442NoRoute() {
    let off = Array(
      #"{"error_code":171,"error":"No suitable edges near location","status_code":400,"status":"Bad Request"}"#
        .utf8)
    #expect(
      Self.failure(Self.classify(status: 400, off))
        == .offNetwork("error 171: No suitable edges near location"))
    let none = Array(
      #"{"error_code":442,"error":"No path could be found for input","status_code":400}"#.utf8)
    #expect(
      Self.failure(Self.classify(status: 400, none))
        == .noRoute("error 442: No path could be found for input"))
    let other = Array(#"{"error_code":154,"error":"Path distance exceeds the max"}"#.utf8)
    #expect(
      Self.failure(Self.classify(status: 400, other))
        == .rejected(status: 400, message: "error 154: Path distance exceeds the max"))
  }

  @Test func valhallaErrorsInOSRMWordsAreToldApart() {
    // Valhalla 3.9.1 asked in format=osrm, a point far off the map, with HTTP 400.
    let off = Array(
      #"{"code":"NoSegment","message":"One of the supplied input coordinates could not snap to street segment."}"#
        .utf8)
    #expect(
      Self.failure(Self.classify(status: 400, off))
        == .offNetwork(
          "NoSegment: One of the supplied input coordinates could not snap to street segment."))
    #expect(
      Self.failure(Self.classify(status: 400, Array(#"{"code":"NoRoute","message":"x"}"#.utf8)))
        == .noRoute("NoRoute: x"))
  }

  @Test func aValhallaAnswerInOSRMFormatIsImportedAsOSRM() throws {
    // Valhalla's own format=osrm answer for the Marais route (no id in it to check).
    let osrm = readBytes(
      repositoryFile(
        "Tests/Fixtures/routes/valhalla-scenarios/par_car_marais/osrm.en-US.km.json"))
    let document = try Self.classify(osrm, id: "stepwise-9").get()
    #expect(document.routes[0].steps.count == 11)
    #expect(
      document.routes[0].steps[1].instructions.hasPrefix("Turn left onto Rue des Guillemites"))
  }

  @Test func http503IsDrainingWhateverTheBody() {
    #expect(Self.failure(Self.classify(status: 503, [])) == .draining)
    #expect(Self.failure(Self.classify(api: .osrm, status: 503, Array("busy".utf8))) == .draining)
  }

  @Test func garbageIsMalformedAndAnErrorPageIsRejected() throws {
    let garbage = Self.failure(Self.classify(Array("\u{1}\u{2}not json".utf8)))
    #expect(garbage == .malformed("not valid JSON"))
    let wrong = try #require(Self.failure(Self.classify(Array(#"{"trip":{"legs":3}}"#.utf8))))
    guard case .malformed = wrong else {
      Issue.record("a reply without a usable trip is \(wrong)")
      return
    }
    let html = Self.failure(
      Self.classify(status: 500, Array("<html>Internal Server Error</html>\n".utf8)))
    #expect(html == .rejected(status: 500, message: "<html>Internal Server Error</html>"))
  }

  @Test func osrmAndGraphHopperErrorsAreToldApart() {
    #expect(
      Self.failure(
        Self.classify(api: .osrm, status: 400, Array(#"{"code":"NoSegment","message":"x"}"#.utf8)))
        == .offNetwork("NoSegment: x"))
    #expect(
      Self.failure(Self.classify(api: .osrm, status: 200, Array(#"{"code":"NoRoute"}"#.utf8)))
        == .noRoute("NoRoute"))
    #expect(
      Self.failure(
        Self.classify(
          api: .graphhopper, status: 400, Array(#"{"message":"Cannot find point 0: 1.0,2.0"}"#.utf8)
        ))
        == .offNetwork("Cannot find point 0: 1.0,2.0"))
  }

  @Test func theOtherImportersReadTheirReplies() throws {
    let osrm = readBytes(
      repositoryFile(
        "Tests/Fixtures/routes/valhalla-scenarios/par_car_marais/osrm.en-US.km.json"))
    #expect(try Self.classify(api: .osrm, osrm).get().routes[0].steps.count == 11)
    let gh = readBytes(
      repositoryFile("Tests/Fixtures/routes/graphhopper/furkot_gh_turnbyturn.json"))
    #expect(try Self.classify(api: .graphhopper, gh).get().routes.count >= 1)
  }
}
