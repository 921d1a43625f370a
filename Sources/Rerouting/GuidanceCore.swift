public import Geodesy
public import Guidance
import GuidanceSettings
public import Routes

/// What the guidance core is told: a fix, silence, the router's answer, or a command about
/// rerouting.
public enum GuidanceInput: Sendable {
  /// A receiver epoch, with or without a position.
  case fix(Fix)
  /// Nothing arrived up to this fix time.
  case silence(at: Double)
  /// The router answered request `id` (``GuidanceEffect/requestRoute(_:)``); `time` is the fix
  /// clock when the answer arrived.
  case routerAnswered(id: String, result: Result<RouteDocument, RouterFailure>, time: Double)
}

/// What the guidance core asks the edge to carry out.
public enum GuidanceEffect: Sendable, Equatable {
  /// Ask the router for this route; its answer comes back as
  /// ``GuidanceInput/routerAnswered(id:result:time:)``.
  case requestRoute(RouteRequest)
  /// A route from the router replaced the session's (its `ROUTE` is among the events).
  case routeReplaced
  /// The router failed; `first` when the failure is of another kind than the last (worth
  /// saying once, not once per retry).
  case routerFailed(RouterFailure, first: Bool)
  /// The router answers again after failing.
  case routerRecovered
  /// The router's route could not be used; why.
  case routeUnusable(String)
}

/// The pure core of guidance with rerouting: the session, and when to ask a router for a new
/// route and what to do with its answer.
///
/// `update(_:)` turns one input into the events to publish and the effects for the edge to carry
/// out; the edge never reaches into the session to reroute. A replay that answers each
/// ``GuidanceEffect/requestRoute(_:)`` from a script gives the same events as the live daemon
/// did with a real router.
public struct GuidanceCore: Sendable {
  /// What the core needs to know of its router; `nil` in ``GuidanceCore/router``: no router.
  public struct Router: Sendable, Equatable {
    /// The answer's language (`en-US`, `ko-KR`) and units.
    public var language: String
    public var imperial: Bool
    /// Seconds a request may take: a vehicle off its route longer than that has no route
    /// coming, and is guided back to the old one.
    public var timeout: Double

    public init(language: String, imperial: Bool, timeout: Double) {
      self.language = language
      self.imperial = imperial
      self.timeout = timeout
    }
  }

  /// The session being guided; `nil` after a `cancel`.
  public private(set) var session: NavigationSession?
  public let router: Router?
  private var controller = RerouteController(idPrefix: "stepwise")
  /// Whether the router's last answer was a failure (said once, not once per retry).
  private var failing = false
  /// Upcoming waypoints left out of the requests (`skip`), until a route without them is
  /// applied or guidance moves to another route.
  private var skipped = 0

  public init(session: NavigationSession?, router: Router?) {
    self.router = router
    self.session = session
    adopt()
  }

  /// Where rerouting stands.
  public var rerouteStatus: RerouteStatus { controller.status }
  /// Where rerouting stood at the last ``rerouteStatusChange()``.
  private var statusSaid = RerouteStatus.idle

  /// Where rerouting stands when that changed since the last call (a `REROUTE` to publish
  /// after an input's events), else `nil`.
  public mutating func rerouteStatusChange() -> RerouteStatus? {
    guard controller.status != statusSaid else { return nil }
    statusSaid = controller.status
    return statusSaid
  }

  /// The events and effects of one input.
  public mutating func update(_ input: GuidanceInput) -> (
    events: [NavigationEvent], effects: [GuidanceEffect]
  ) {
    var events: [NavigationEvent] = []
    var effects: [GuidanceEffect] = []
    update(input, events: &events, effects: &effects)
    return (events, effects)
  }

  /// ``update(_:)`` appending to `events` and `effects` (a batch of fixes reuses one list).
  public mutating func update(
    _ input: GuidanceInput, events: inout [NavigationEvent], effects: inout [GuidanceEffect]
  ) {
    // Without a session nothing happens. It is read in place (`session?.…`): binding it, or
    // even asking whether it is `nil`, copied the whole session and its references every fix.
    switch input {
    case .fix(let fix):
      session?.ingest(fix, into: &events)
      guard router != nil, let observed = session?.rerouteObservation(fix) else { return }
      let decisions = controller.observe(observed)
      let replaced = decide(decisions, time: fix.time, events: &events, effects: &effects)
      if !replaced { guideBackIfNoRouteComes(time: fix.time, events: &events) }
    case .silence(let time):
      events += session?.silence(at: time) ?? []
    case .routerAnswered(let id, let result, let time):
      guard let remaining = session?.remainingManeuvers else { return }
      let decisions = controller.received(id: id, result: result, remainingManeuvers: remaining)
      guard !decisions.isEmpty else { return }
      let replaced = decide(decisions, time: time, events: &events, effects: &effects)
      if !replaced { guideBackIfNoRouteComes(time: time, events: &events) }
    }
  }

  /// Asks for a reroute at the next fix (the `reroute` command).
  public mutating func rerouteNow() { controller.requestNow() }

  /// Leaves the next waypoint out and asks for a new route at the next fix (the `skip`
  /// command); `false` when no waypoint is left before the destination.
  public mutating func skipNextWaypoint() -> Bool {
    guard let s = session, Self.waypoints(of: s).count > skipped else { return false }
    skipped += 1
    controller.requestNow()
    return true
  }

  /// Guidance moves to `session` by a command or a reload (`nil`: `cancel`): an answer still
  /// on its way is for the old route and is dropped.
  public mutating func replace(_ session: NavigationSession?) {
    self.session = session
    controller.routeChanged()
    skipped = 0
    adopt()
  }

  /// A session guided with a router says no `return` announcement of its own: the core says it
  /// when no new route can come.
  private mutating func adopt() {
    if router != nil { session?.guidesBack = false }
  }

  /// For a vehicle off its route that no new route can reach now, the `return` announcement
  /// due: a request is in flight to a router that was not failing, and the vehicle left no
  /// longer than the router's timeout ago (a slow router is no router).
  private mutating func guideBackIfNoRouteComes(time: Double, events: inout [NavigationEvent]) {
    guard session?.offRoute == true, let router else { return }
    if controller.isAsking, !failing, time - (session?.offRouteSince ?? time) <= router.timeout {
      return
    }
    events += session?.guideBack() ?? []
  }

  /// Carries out the controller's decisions; whether a new route was applied.
  private mutating func decide(
    _ decisions: [RerouteDecision], time: Double, events: inout [NavigationEvent],
    effects: inout [GuidanceEffect]
  ) -> Bool {
    var replaced = false
    for d in decisions {
      switch d {
      case .ask(let id, let origin):
        guard let s = session else { continue }
        effects.append(.requestRoute(request(id: id, origin: origin, session: s)))
      case .apply(let document, let announce):
        guard let base = session else { continue }
        do {
          var next = try base.rerouted(
            onto: document, revision: base.routeRevision + 1, announce: announce)
          next.guidesBack = false
          controller.routeReplaced()
          skipped = 0
          events.append(NavigationEvent(time: time, kind: .route(next.summary)))
          session = next
          replaced = true
          effects.append(.routeReplaced)
          if failing {
            failing = false
            effects.append(.routerRecovered)
          }
        } catch {
          effects.append(.routeUnusable("\(error)"))
        }
      case .discard:
        break
      case .failed(let failure, let first):
        effects.append(.routerFailed(failure, first: first))
        failing = true
      }
    }
    return replaced
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
      language: router?.language ?? "en-US", imperial: router?.imperial ?? false, id: id)
  }
}

extension NavigationSession {
  /// What the reroute controller observes of `fix` once this session departed (`nil` before).
  ///
  /// Mutating only so that `session?.rerouteObservation` borrows the session in place.
  fileprivate mutating func rerouteObservation(_ fix: Fix) -> RerouteObservation? {
    guard departed else { return nil }
    let evidence: OffRouteEvidence =
      offRoute ? .confirmed : offRouteSuspected ? .suspected : .none
    let speed = fix.speed ?? currentSpeed
    let toGoal = fix.coordinate.map { $0.distance(to: document.destination.coordinate) } ?? 0
    return RerouteObservation(
      time: fix.time, coordinate: fix.isValid ? fix.coordinate : nil,
      course: speed >= configuration.trustCourseAbove ? fix.course : nil, speed: speed,
      accuracy: fix.horizontalAccuracy, deadReckoned: fix.quality == .deadReckoning,
      gpsLost: gpsLost, evidence: evidence, distanceToDestination: toGoal, arrived: arrived)
  }
}
