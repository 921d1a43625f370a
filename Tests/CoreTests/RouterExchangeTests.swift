import Geodesy
import Guidance
import Rerouting
import Routes
import TestSupport
import Testing

/// A router recording (`stepwised --record-router`) reads back exactly what was written: the
/// request to the last bit of its origin, the route as a native document, every failure kind.
@Suite struct RouterExchangeTests {
  static let request = RouteRequest(
    origin: RouteRequest.Origin(
      coordinate: Coordinate(latitude: 43.737_012_345_678_9, longitude: 7.421_810_987_654_3),
      course: 287.123_456_789, speed: 13.1, accuracy: nil),
    waypoints: [
      .init(coordinate: Coordinate(latitude: 43.73, longitude: 7.42), kind: .through),
      .init(coordinate: Coordinate(latitude: 43.729_941, longitude: 7.418_012)),
    ],
    transportType: .automobile, language: "ko-KR", imperial: true, id: "stepwise-3")

  static func roundTrip(_ e: RouterExchange) throws -> RouterExchange {
    try RouterExchange(line: Array(e.line.utf8))
  }

  @Test func aRequestAndTheRouterReadBackExactly() throws {
    let request = RouterExchange.request(Self.request, time: 1_714_550_424.000_123)
    #expect(try Self.roundTrip(request) == request)
    let router = RouterExchange.router(
      GuidanceCore.Router(language: "en-US", imperial: false, timeout: 2))
    #expect(try Self.roundTrip(router) == router)
  }

  @Test func aRouteAnswerReadsBackAsTheSameDocument() throws {
    let document = makeRoute(
      start: Coordinate(latitude: 47.14, longitude: 9.52),
      legs: [(90, 400, "Turn left onto A Street"), (0, 600, "Arrive at Goal")])
    // The daemon's routes come through the native document (RouterReply.classify).
    let native = try NativeRouteFormat.decode(NativeRouteFormat.encode(document))
    let answer = RouterExchange.answer(
      id: "stepwise-1", result: .success(native), after: 1_714_550_425, time: 1_714_550_425.0143)
    #expect(try Self.roundTrip(answer) == answer)
    let first = RouterExchange.answer(
      id: "stepwise-1", result: .success(native), after: nil, time: 7)
    #expect(try Self.roundTrip(first) == first)
  }

  @Test func everyFailureReadsBack() throws {
    let failures: [RouterFailure] = [
      .refused, .unreachable("no such host"), .timeout, .draining, .offNetwork("error 171"),
      .noRoute("error 442"), .rejected(status: 400, message: "bad"), .malformed("no legs"),
      .stale, .transport("TLS"),
    ]
    for f in failures {
      let e = RouterExchange.answer(id: "x-1", result: .failure(f), after: 3, time: 3.5)
      #expect(try Self.roundTrip(e) == e, "\(f)")
    }
  }

  @Test func aBadLineIsAnErrorNamingItsLine() throws {
    let good = RouterExchange.request(Self.request, time: 1).line
    let bytes = Array((good + "\n{\"class\":\"ANSWER\",\"id\":\"a\",\"time\":1}\n").utf8)
    #expect(throws: RouterExchangeError.self) { try RouterExchange.lines(bytes) }
    do {
      _ = try RouterExchange.lines(bytes)
    } catch {
      #expect(error.description.hasPrefix("line 2: an answer has a route or a failure"))
    }
    #expect(try RouterExchange.lines(Array((good + "\n").utf8)).count == 1)
  }
}
