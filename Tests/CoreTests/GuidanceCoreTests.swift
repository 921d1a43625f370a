import Geodesy
import Guidance
import Phrasebook
import Rerouting
import Routes
import TestSupport
import Testing

/// The guidance core reroutes as effects: it asks for a route, the test answers as the router
/// would, and the events follow, with no daemon, no thread and no router.
@Suite struct GuidanceCoreTests {
  static let start = Coordinate(latitude: 47.14, longitude: 9.52)
  /// East 400 m to a left turn, then north 600 m to the goal.
  static let route = makeRoute(
    start: start, legs: [(90, 400, "Turn left onto A Street"), (0, 600, "Arrive at Goal")])
  static let router = GuidanceCore.Router(language: "en-US", imperial: false, timeout: 2)

  /// Straight on east past the turn, at 10 m/s.
  static func fixes(_ count: Int) -> [Fix] {
    (0..<count).map { k in
      Fix(
        time: 1000 + Double(k),
        coordinate: start.destination(distance: 10 * Double(k), bearing: 90),
        speed: 10, course: 90, horizontalAccuracy: 3)
    }
  }

  /// Drives east past the turn, answering each route request at once with `answer`; every
  /// event and effect, in order.
  static func drive(
    _ core: inout GuidanceCore,
    answer: (RouteRequest) -> Result<RouteDocument, RouterFailure>
  ) -> (events: [NavigationEvent], effects: [GuidanceEffect], requests: [RouteRequest]) {
    var events: [NavigationEvent] = []
    var all: [GuidanceEffect] = []
    var requests: [RouteRequest] = []
    for fix in fixes(90) {
      var effects: [GuidanceEffect] = []
      core.update(.fix(fix), events: &events, effects: &effects)
      for case .requestRoute(let request) in effects {
        requests.append(request)
        core.update(
          .routerAnswered(id: request.id, result: answer(request), time: fix.time),
          events: &events, effects: &effects)
      }
      all += effects
    }
    return (events, all, requests)
  }

  /// The router's route from where the vehicle is: on east, then north and back west to the goal.
  static func detour(_ request: RouteRequest) -> RouteDocument {
    let here = request.origin.coordinate
    let corner = here.destination(distance: 600, bearing: 90)
    let north = corner.destination(distance: 600, bearing: 0)
    return makeRoute(
      start: here,
      legs: [
        (90, 600, "Turn left onto B Street"), (0, 600, "Turn left onto C Street"),
        (270, north.distance(to: route.destination.coordinate), "Arrive at Goal"),
      ])
  }

  static func isReroute(_ e: NavigationEvent) -> Bool {
    if case .route(let r) = e.kind { r.reason == .reroute } else { false }
  }

  @Test func aMissedTurnAsksForARouteAndTheAnswerReplacesTheRoute() throws {
    let session = try NavigationSession(document: Self.route, phrasing: Phrasebook())
    var core = GuidanceCore(session: session, router: Self.router)
    let (events, effects, requests) = Self.drive(&core) { .success(Self.detour($0)) }
    let request = try #require(requests.first)
    #expect(request.waypoints.last?.coordinate == Self.route.destination.coordinate)
    #expect(effects.filter { $0 == .routeReplaced }.count == 1)
    let k = try #require(events.firstIndex { Self.isReroute($0) })
    guard case .route(let summary) = events[k].kind else { return }
    #expect(summary.reason == .reroute && summary.revision == 1)
    #expect(core.session?.routeRevision == 1)
    // Asked past the turn, answered when the vehicle was off the route, said once.
    #expect(events[..<k].contains { if case .offRoute = $0.kind { true } else { false } })
    let said = events[k...].compactMap(\.announcement)
    #expect(said.filter { $0.kind == .reroute }.count == 1, "\(said.map(\.text))")
    // No direction back to the old route: a new route was coming.
    #expect(!events.contains { $0.announcement?.kind == .return })
    // An answer to a request given up on changes nothing.
    let stale = core.update(
      .routerAnswered(id: request.id, result: .success(Self.detour(request)), time: 2000))
    #expect(stale.events.isEmpty && stale.effects.isEmpty)
  }

  @Test func aRouterThatFailsIsSaidOnceAndTheDriverIsGuidedBack() throws {
    let session = try NavigationSession(document: Self.route, phrasing: Phrasebook())
    var core = GuidanceCore(session: session, router: Self.router)
    let (events, effects, requests) = Self.drive(&core) { _ in .failure(.refused) }
    let failures = effects.compactMap { e -> Bool? in
      if case .routerFailed(.refused, let first) = e { first } else { nil }
    }
    #expect(!requests.isEmpty && failures.count == requests.count)
    #expect(failures.first == true && failures.dropFirst().allSatisfy { !$0 })
    #expect(core.rerouteStatus == .noRouter)
    #expect(!events.contains { Self.isReroute($0) })
    // No route coming: where the route is.
    #expect(events.contains { $0.announcement?.kind == .return }, "\(events.count)")
  }

  @Test func withoutARouterTheSessionGuidesBackByItself() throws {
    let session = try NavigationSession(document: Self.route, phrasing: Phrasebook())
    var core = GuidanceCore(session: session, router: nil)
    let (events, effects, requests) = Self.drive(&core) { _ in .failure(.refused) }
    #expect(effects.isEmpty && requests.isEmpty)
    #expect(events.contains { $0.announcement?.kind == .return })
  }
}
