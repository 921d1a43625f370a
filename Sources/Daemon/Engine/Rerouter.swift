import Geodesy
import Guidance
import POSIX
public import Phrasebook
public import Rerouting
public import Router
import Routes

/// Rerouting on the engine's side: turns the session's state after each fix into
/// ``RerouteController`` observations, sends its requests through the ``RouterClient``, and
/// switches the session to a route the controller accepts.
///
/// Live and in paced replays the answer comes back as an engine input (``EngineInput/routed(_:)``)
/// and guidance goes on along the old route meanwhile. In a `--fast` replay (`waits`) the
/// engine waits for the answer (at most the client's timeout) before it takes the next fix, so
/// the same track and router give the same events.
public struct Rerouter: Sendable {
  public let client: RouterClient
  public let waits: Bool
  private var controller = RerouteController(idPrefix: "stepwise")
  private let language: String
  private let imperial: Bool
  private var inputs: EngineInputs?
  /// The router failure last said on standard error (each is said once, not once per retry).
  private var failing = false
  /// Upcoming waypoints left out of the requests (`skip`), until a route without them is
  /// applied or guidance moves to another route.
  private var skipped = 0

  public init(client: RouterClient, waits: Bool, language: Language, units: UnitSystem) {
    self.client = client
    self.waits = waits
    self.language = language == .ko ? "ko-KR" : "en-US"
    self.imperial = units == .imperial
  }

  /// Where rerouting stands.
  public var status: RerouteStatus { controller.status }

  mutating func connect(_ inputs: EngineInputs) { self.inputs = inputs }

  /// Asks for a reroute at the next fix (the `reroute` command).
  public mutating func requestNow() { controller.requestNow() }

  /// Guidance moved to another route by a command or a reload.
  mutating func routeChanged() {
    controller.routeChanged()
    skipped = 0
  }

  /// Leaves the next waypoint of `session` out and asks for a new route at the next fix (the
  /// `skip` command); `false` when no waypoint is left before the destination.
  mutating func skipNextWaypoint(of session: NavigationSession) -> Bool {
    guard Self.waypoints(of: session).count > skipped else { return false }
    skipped += 1
    controller.requestNow()
    return true
  }

  /// The waypoints not yet reached, in order, without the destination.
  private static func waypoints(of s: NavigationSession) -> [Coordinate] {
    let steps = s.route.steps
    let next = max(1, s.currentStep)
    guard next < steps.count else { return [] }
    return (next..<steps.count).compactMap { k in
      steps[k].waypoint == nil ? nil : steps[k].polyline.last
    }
  }

  /// After `session` took `fix`: the events of a reroute and the session that replaces it, if
  /// one was applied; else, for a vehicle off its route that no new route can reach now, the
  /// `return` announcement due (made here rather than by the session, which cannot know whether a
  /// route is coming).
  mutating func after(_ fix: Fix, session: inout NavigationSession) -> (
    [NavigationEvent], NavigationSession?
  ) {
    session.guidesBack = false
    guard session.departed else { return ([], nil) }
    let o = observation(fix, session)
    var (events, next) = decide(controller.observe(o), session: session, time: fix.time)
    if next == nil, session.offRoute, !routeComing(session, time: fix.time) {
      events += session.guideBack()
    }
    return (events, next)
  }

  /// Whether a new route may still come for a vehicle off its route: a request is in flight
  /// to a router that was not failing, and the vehicle left no longer than the client's
  /// timeout ago (a slow router is no router).
  private func routeComing(_ s: NavigationSession, time: Double) -> Bool {
    guard controller.isAsking, !failing else { return false }
    guard let since = s.offRouteSince else { return true }
    return time - since <= client.timeout
  }

  /// A router answer that came back as an engine input.
  mutating func answered(_ answer: RouterAnswer, session: NavigationSession, time: Double) -> (
    [NavigationEvent], NavigationSession?
  ) {
    let decisions = controller.received(
      id: answer.id, result: answer.result, remainingManeuvers: session.remainingManeuvers)
    return decide(decisions, session: session, time: time)
  }

  private mutating func decide(
    _ decisions: [RerouteDecision], session: NavigationSession, time: Double
  ) -> ([NavigationEvent], NavigationSession?) {
    var events: [NavigationEvent] = []
    var current: NavigationSession?
    var queue = decisions
    while !queue.isEmpty {
      let d = queue.removeFirst()
      switch d {
      case .ask(let id, let origin):
        let request = self.request(id: id, origin: origin, session: current ?? session)
        if waits {
          let answer = client.fetch(request)
          queue += controller.received(
            id: answer.id, result: answer.result,
            remainingManeuvers: (current ?? session).remainingManeuvers)
        } else {
          let inputs = self.inputs
          client.send(request) { answer in inputs?.yield(.routed(answer)) }
        }
      case .apply(let document, let announce):
        let base = current ?? session
        do {
          let next = try base.rerouted(
            onto: document, revision: base.routeRevision + 1, announce: announce)
          controller.routeReplaced()
          skipped = 0
          events.append(NavigationEvent(time: time, kind: .route(next.summary)))
          current = next
          if failing {
            failing = false
            logLine(5, "stepwised: the router answers again")
          }
        } catch {
          logLine(4, "stepwised: the router's route is not usable: \(error)")
        }
      case .discard:
        break
      case .failed(let failure, let first):
        if first { logLine(4, "stepwised: router \(client.baseURL): \(failure)") }
        failing = true
      }
    }
    return (events, current)
  }

  private func observation(_ fix: Fix, _ s: NavigationSession) -> RerouteObservation {
    let evidence: OffRouteEvidence =
      s.offRoute ? .confirmed : s.offRouteSuspected ? .suspected : .none
    let speed = fix.speed ?? s.snapshot?.speed ?? 0
    let toGoal = fix.coordinate.map { $0.distance(to: s.document.destination.coordinate) } ?? 0
    return RerouteObservation(
      time: fix.time, coordinate: fix.isValid ? fix.coordinate : nil,
      course: speed >= s.configuration.trustCourseAbove ? fix.course : nil, speed: speed,
      accuracy: fix.horizontalAccuracy, deadReckoned: fix.quality == .deadReckoning,
      gpsLost: s.gpsLost, evidence: evidence, distanceToDestination: toGoal, arrived: s.arrived)
  }

  /// The request: from `origin` to the waypoints not yet reached, then the destination.
  private func request(id: String, origin: RouteRequest.Origin, session s: NavigationSession)
    -> RouteRequest
  {
    var waypoints = Self.waypoints(of: s).dropFirst(skipped).map {
      RouteRequest.Waypoint(coordinate: $0, kind: .stop)
    }
    waypoints.append(.init(coordinate: s.document.destination.coordinate, kind: .stop))
    return RouteRequest(
      origin: origin, waypoints: waypoints, transportType: s.route.transportType,
      language: language, imperial: imperial, id: id)
  }
}
