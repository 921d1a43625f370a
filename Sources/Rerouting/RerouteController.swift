public import Geodesy
public import Routes

/// How sure guidance is that the vehicle has left its route.
public enum OffRouteEvidence: String, Sendable, Hashable {
  /// On the route.
  case none
  /// Some fixes lie away from the route, not yet enough to say so.
  case suspected
  /// Guidance has said the vehicle is off the route.
  case confirmed
}

/// What the rerouting state machine sees of one fix (or one epoch without a position).
public struct RerouteObservation: Sendable, Equatable {
  /// Fix time, seconds since the Unix epoch: the controller's only clock.
  public var time: Double
  /// The position, `nil` for an epoch without one.
  public var coordinate: Coordinate?
  /// Course over ground in degrees clockwise from true north, when trusted.
  public var course: Double?
  /// Speed in metres per second.
  public var speed: Double
  /// Horizontal accuracy in metres (one sigma), when known.
  public var accuracy: Double?
  /// Whether the position was dead-reckoned by the receiver.
  public var deadReckoned: Bool
  /// Whether guidance has declared the GPS lost.
  public var gpsLost: Bool
  public var evidence: OffRouteEvidence
  /// Straight-line metres from the position to the destination.
  public var distanceToDestination: Double
  public var arrived: Bool

  public init(
    time: Double, coordinate: Coordinate?, course: Double? = nil, speed: Double,
    accuracy: Double? = nil, deadReckoned: Bool = false, gpsLost: Bool = false,
    evidence: OffRouteEvidence, distanceToDestination: Double, arrived: Bool = false
  ) {
    self.time = time
    self.coordinate = coordinate
    self.course = course
    self.speed = speed
    self.accuracy = accuracy
    self.deadReckoned = deadReckoned
    self.gpsLost = gpsLost
    self.evidence = evidence
    self.distanceToDestination = distanceToDestination
    self.arrived = arrived
  }
}

/// What the controller asks of the daemon.
public enum RerouteDecision: Sendable, Equatable {
  /// Send a request from `origin` with this `id` (the daemon adds the waypoints not reached).
  case ask(id: String, origin: RouteRequest.Origin)
  /// Switch to `document`'s first route; `announce` is false for a route that only leads back
  /// onto the current one (no "new route" is said).
  case apply(RouteDocument, announce: Bool)
  /// A route arrived but the vehicle rejoined its route meanwhile: it is not used.
  case discard
  /// The router failed; `first` is true when this failure kind follows a success or another
  /// kind (say it once, not once per retry).
  case failed(RouterFailure, first: Bool)
}

/// Where rerouting stands, for subscribers and `stepwise watch`.
public enum RerouteStatus: String, Sendable, Hashable {
  /// Nothing to do, or waiting for the spacing between requests.
  case idle
  /// A request is in flight, or a new route waits for the deviation to be confirmed.
  case rerouting
  /// The router did not answer (down, draining, timed out).
  case noRouter
  /// The router found no road near the vehicle.
  case offNetwork
}

/// The tuning of ``RerouteController``.
public struct RerouteConfiguration: Sendable, Equatable {
  /// No reroute within this many metres (straight line) of the destination.
  public var destinationRadius = 75.0
  /// Below this speed (metres per second) the vehicle is standing: no request.
  public var standingBelow = 1.0
  /// Seconds between two requests while no reroute was applied recently; see
  /// ``recentWindow``.
  public var minimumSpacing = 2.0
  /// The spacing doubles for each reroute applied within this many seconds, up to
  /// ``maximumSpacing``.
  public var recentWindow = 180.0
  /// The longest spacing between two requests, seconds.
  public var maximumSpacing = 60.0
  /// Seconds before asking again after a failure, growing by `failureGrowth` up to
  /// `maximumFailureSpacing` while the failures go on.
  public var failureSpacing = 2.0
  public var failureGrowth = 1.5
  public var maximumFailureSpacing = 30.0
  /// Seconds before asking again a router that refused the connection, without growth: a
  /// refused connection never reached a router (nothing to overload, one SYN answered by the
  /// kernel), and a router that restarts is used again within about a second.
  public var refusedSpacing = 1.0
  /// After "off the network", metres to travel before asking again.
  public var offNetworkRetryDistance = 100.0
  /// Seconds after which a request without an answer counts as lost.
  public var requestLifetime = 10.0
  /// Seconds a route kept for a suspected deviation stays usable.
  public var heldRouteLifetime = 15.0
  /// The origin is the position this many seconds ahead along the course (the router's
  /// latency plus the driver's reaction), so the new route starts where the vehicle will be;
  /// more when the router has been seen to answer more slowly than that, up to
  /// ``maximumPredictionSeconds``.
  public var predictionSeconds = 1.0
  /// The most seconds ahead an origin is predicted for a slow router (further, a straight
  /// line along the course is a guess).
  public var maximumPredictionSeconds = 8.0
  /// A new route whose first maneuver is closer than this many seconds at the current speed
  /// (or behind the vehicle) cannot be said in time: ask again, at once when the vehicle's
  /// course is known, from the first place ahead where a maneuver still can be (the lead plus
  /// ``predictionSeconds``), since the vehicle will drive through the maneuver meanwhile.
  public var minimumLeadSeconds = 4.0
  /// … and never closer than this many metres.
  public var minimumLeadDistance = 15.0
  /// The latest fix must lie within this many metres (or three sigmas) of the new route's
  /// start, else the vehicle went elsewhere meanwhile.
  public var startTolerance = 30.0
  /// A new route whose next maneuver is within this many metres of a maneuver still ahead on
  /// the current route leads straight back onto it.
  public var sameManeuverDistance = 15.0

  public init() {}
}

/// When to ask a router for a new route, and whether to use what it answers.
///
/// Pure and deterministic: time comes from the observations. Ask early, commit late: a request
/// may go out while the deviation is only suspected, but a route is applied only once it is
/// confirmed, and thrown away if the vehicle rejoins first. One request is in flight at a time,
/// requests are spaced further apart the more reroutes were applied recently, and none goes out
/// near or after the arrival, while the GPS is lost, for dead-reckoned fixes, or standing still.
public struct RerouteController: Sendable {
  public let configuration: RerouteConfiguration
  /// Requests are numbered `<prefix>-<n>`.
  public let idPrefix: String

  private(set) public var status = RerouteStatus.idle
  /// The request in flight: its id, when it was sent and how many metres ahead of the vehicle
  /// its origin was predicted.
  private var inFlight: (id: String, time: Double, ahead: Double)?
  private var sequence = 0
  /// A route kept while the deviation is only suspected.
  private var held: (document: RouteDocument, time: Double, straightBack: Bool, ahead: Double)?
  private var lastRequest: Double?
  /// Times of the reroutes applied, the recent ones only.
  private var applied: [Double] = []
  private var failure: RouterFailure?
  private var failureCount = 0
  private var offNetworkAt: Coordinate?
  /// A request asked for from outside (`reroute` command) at the next usable fix.
  private var forced = false
  private var latest: RerouteObservation?
  /// A route that did not fit was answered for the fix of this time: ask again from a later one.
  private var retryAfter: Double?
  /// Seconds of fix time the router took to answer, smoothed over its recent routes; `nil`
  /// before the first.
  private var latency: Double?

  public init(configuration: RerouteConfiguration = RerouteConfiguration(), idPrefix: String) {
    self.configuration = configuration
    self.idPrefix = idPrefix
  }

  /// Whether a request is waiting for its answer.
  public var isAsking: Bool { inFlight != nil }
  /// The number of reroutes applied within the recent window, as of the last observation.
  public var recentReroutes: Int { applied.count }

  /// Asks for a new route at the next fix that allows one, whatever the evidence.
  public mutating func requestNow() { forced = true }

  /// Takes one observation.
  public mutating func observe(_ o: RerouteObservation) -> [RerouteDecision] {
    latest = o
    applied.removeAll { o.time - $0 > configuration.recentWindow }
    if let f = inFlight, o.time - f.time > configuration.requestLifetime { inFlight = nil }
    var decisions: [RerouteDecision] = []
    if o.evidence == .none && !forced {
      if held != nil { decisions.append(.discard) }
      held = nil
      if status == .rerouting && inFlight == nil { status = .idle }
      if status == .offNetwork {
        status = .idle
        offNetworkAt = nil
      }
      return decisions
    }
    if let h = held {
      if o.time - h.time > configuration.heldRouteLifetime {
        held = nil
      } else if o.evidence == .confirmed {
        held = nil
        decisions += use(h.document, at: o, ahead: h.ahead, straightBack: h.straightBack)
        return decisions
      } else {
        return decisions
      }
    }
    if let d = ask(o) { decisions.append(d) }
    return decisions
  }

  /// Takes the router's answer to request `id`, checked against `latest` (the newest
  /// observation, which may be later than the one the request was made for).
  ///
  /// `remainingManeuvers` are the current route's maneuver points not yet passed, to tell a
  /// route that only leads back onto it. Returns what to do, in order.
  public mutating func received(
    id: String, result: Result<RouteDocument, RouterFailure>,
    remainingManeuvers: some Collection<Coordinate>
  ) -> [RerouteDecision] {
    guard let f = inFlight, f.id == id else { return [] }  // stale: a request given up on
    inFlight = nil
    let ahead = f.ahead
    guard let o = latest else { return [] }
    if case .success = result {
      // Failures are left out: a timeout says nothing of how fast routes come.
      let sample = max(0, o.time - f.time)
      latency = latency.map { 0.5 * $0 + 0.5 * sample } ?? sample
    }
    switch result {
    case .failure(let error):
      if error == .stale { return [] }
      let first = failure?.code != error.code
      failure = error
      failureCount += 1
      forced = false
      if case .offNetwork = error {
        status = .offNetwork
        offNetworkAt = o.coordinate
      } else if case .noRoute = error {
        status = .idle
      } else {
        status = .noRouter
      }
      return [.failed(error, first: first)]
    case .success(let document):
      failure = nil
      failureCount = 0
      if status != .offNetwork { status = .rerouting }
      offNetworkAt = nil
      if o.evidence == .none && !forced {
        status = .idle
        return [.discard]
      }
      let straightBack = leadsBack(document, onto: remainingManeuvers)
      if o.evidence == .suspected && !forced {
        held = (document, o.time, straightBack, ahead)
        return []
      }
      return use(document, at: o, ahead: ahead, straightBack: straightBack)
    }
  }

  /// The current route was replaced (by a reroute or otherwise): evidence starts afresh.
  public mutating func routeReplaced() {
    held = nil
    forced = false
  }

  /// Guidance moved to another route that is not a reroute (`select`, `load`, a reload): an
  /// answer still on its way is for the old one and is dropped, and the spacing starts afresh.
  public mutating func routeChanged() {
    routeReplaced()
    inFlight = nil
    lastRequest = nil
    retryAfter = nil
    applied = []
    status = .idle
    offNetworkAt = nil
  }

  // MARK: - Deciding

  private mutating func use(
    _ document: RouteDocument, at o: RerouteObservation, ahead: Double,
    straightBack: Bool = false
  ) -> [RerouteDecision] {
    let fit = self.fit(document, at: o, ahead: ahead)
    guard fit == .fits else {
      lastRequest = nil
      // Its first maneuver cannot be said in time: asked again at once from beyond it (once
      // for a fix, so a replay that waits for answers cannot loop).
      if fit == .tooClose, retryAfter != o.time,
        let again = ask(o, ahead: leadDistance(o) + o.speed * predictionSeconds)
      {
        retryAfter = o.time
        return [again]
      }
      // Elsewhere, or said too late again: a fresh request from the next fix, not this one.
      retryAfter = o.time
      return []
    }
    applied.append(o.time)
    status = .idle
    forced = false
    return [.apply(document, announce: !straightBack)]
  }

  /// A request from `o`, its origin predicted `ahead` metres along the course (by default the
  /// router's latency); `nil` when none may go out now.
  private mutating func ask(_ o: RerouteObservation, ahead: Double? = nil) -> RerouteDecision? {
    guard inFlight == nil, !o.arrived, !o.gpsLost, !o.deadReckoned,
      o.speed >= configuration.standingBelow || forced,
      o.distanceToDestination > configuration.destinationRadius,
      let point = o.coordinate
    else { return nil }
    if ahead == nil {
      if let last = lastRequest, o.time - last < spacing { return nil }
      if let r = retryAfter, o.time <= r { return nil }
    } else if o.course == nil || o.speed < RouteRequest.headingMinimumSpeed {
      return nil
    }
    if status == .offNetwork, let at = offNetworkAt,
      point.distance(to: at) < configuration.offNetworkRetryDistance
    {
      return nil
    }
    sequence += 1
    let id = "\(idPrefix)-\(sequence)"
    var origin = point
    var predicted = 0.0
    if let c = o.course, o.speed >= RouteRequest.headingMinimumSpeed {
      predicted = ahead ?? o.speed * predictionSeconds
      origin = point.destination(distance: predicted, bearing: c)
    }
    inFlight = (id, o.time, predicted)
    lastRequest = o.time
    if status == .idle { status = .rerouting }
    return .ask(
      id: id,
      origin: RouteRequest.Origin(
        coordinate: origin, course: o.course, speed: o.speed, accuracy: o.accuracy))
  }

  /// Seconds ahead an origin is predicted: the configured prediction, or the router's observed
  /// latency when that is longer (so that a slow router's route still starts ahead of the
  /// vehicle when it comes, and is not too close to be said again and again).
  private var predictionSeconds: Double {
    min(
      max(configuration.predictionSeconds, latency ?? 0),
      max(configuration.predictionSeconds, configuration.maximumPredictionSeconds))
  }

  /// Seconds to wait after the last request: longer after failures, and the more reroutes were
  /// applied recently (a storm of reroutes means the routes do not fit the driver).
  private var spacing: Double {
    if case .refused? = failure { return configuration.refusedSpacing }
    if failure != nil {
      var s = configuration.failureSpacing
      for _ in 1..<max(1, failureCount) { s *= configuration.failureGrowth }
      return min(s, configuration.maximumFailureSpacing)
    }
    var s = configuration.minimumSpacing
    for _ in 0..<applied.count { s *= 2 }
    return min(s, configuration.maximumSpacing)
  }

  /// How a new route fits the vehicle.
  private enum Fit {
    /// The vehicle is on its start, its first maneuver far enough ahead to be said in time.
    case fits
    /// The vehicle is not near its start.
    case elsewhere
    /// Its first maneuver is behind the vehicle or too close to be said in time.
    case tooClose
  }

  /// The least distance, metres, at which a new route's first maneuver can still be said.
  private func leadDistance(_ o: RerouteObservation) -> Double {
    max(configuration.minimumLeadDistance, o.speed * configuration.minimumLeadSeconds)
  }

  /// Whether the latest position lies on the new route's start, or on the way in to it from
  /// behind when its origin was asked for `ahead` metres along the course, with its first
  /// maneuver far enough ahead to be said in time.
  private func fit(_ document: RouteDocument, at o: RerouteObservation, ahead: Double) -> Fit {
    guard let point = o.coordinate, let route = document.routes.first, route.steps.count >= 2
    else { return .elsewhere }
    // Only the approach to the first maneuver matters: a bounded piece of the route.
    var best = (lateral: Double.infinity, along: 0.0)
    var along = 0.0
    let approach = route.steps[1].polyline
    for (a, b) in zip(approach, approach.dropFirst()) {
      let p = project(point, ontoSegmentFrom: a, to: b)
      let length = a.distance(to: b)
      if p.distance < best.lateral { best = (p.distance, along + p.fraction * length) }
      along += length
    }
    if approach.count == 1 { best = (point.distance(to: approach[0]), 0) }
    let behind = wayIn(to: approach, from: point, ahead: ahead)
    if behind.lateral < best.lateral { best = (behind.lateral, -behind.distance) }
    let tolerance = max(configuration.startTolerance, 3 * (o.accuracy ?? 0))
    guard best.lateral <= tolerance else { return .elsewhere }
    // The arrival needs no lead: near the destination no reroute is made anyway.
    if route.steps.count == 2 { return .fits }
    return along - best.along >= leadDistance(o) ? .fits : .tooClose
  }

  /// Where `point` lies on the way in to a new route that starts with `approach`, its origin
  /// asked for `ahead` metres along the vehicle's course.
  ///
  /// A vehicle that has not reached the new route's start yet lies behind it, not beside it,
  /// and has that much further to go to the first maneuver. The way in is the first segment's
  /// line extended back from the start by `ahead`.
  /// - Returns: the metres from `point` to the way in, and the metres along it still to go to
  ///   the start (infinite and 0 without a way in).
  private func wayIn(
    to approach: some Collection<Coordinate>, from point: Coordinate, ahead: Double
  ) -> (lateral: Double, distance: Double) {
    guard ahead > 0, let start = approach.first,
      let next = approach.dropFirst().first(where: { $0.distance(to: start) > 0 })
    else { return (.infinity, 0) }
    let entry = start.destination(distance: ahead, bearing: next.bearing(to: start))
    let p = project(point, ontoSegmentFrom: entry, to: start)
    return (p.distance, (1 - p.fraction) * ahead)
  }

  /// Whether the new route's first maneuver is one the current route still has ahead.
  private func leadsBack(
    _ document: RouteDocument, onto remaining: some Collection<Coordinate>
  ) -> Bool {
    guard let route = document.routes.first, route.steps.count >= 2,
      let first = route.steps[1].polyline.last
    else { return false }
    return remaining.contains { $0.distance(to: first) <= configuration.sameManeuverDistance }
  }
}
