public import Geodesy
public import Routes

/// A guidance session: one route, fed one fix at a time, returning events.
///
/// Deterministic and pure: time comes from fix timestamps only, so replaying the same fixes gives
/// the same events. The edge calls ``ingest(_:)`` for every receiver epoch (with or without a
/// position) and ``silence(at:)`` when nothing at all arrives for a while.
public struct NavigationSession: Sendable {
  public let document: RouteDocument
  public let routeIndex: Int
  public let route: Route
  public let geometry: RouteGeometry
  public let configuration: GuidanceConfiguration
  private let phrasing: any Phrasing
  private let matcher: RouteMatcher

  // Position state.
  private(set) public var started = false
  private(set) public var departed = false
  private(set) public var arrived = false
  /// Metres travelled along the route (the matched position).
  private(set) public var distanceAlong = 0.0
  /// The step being travelled (≥ 1 once departed).
  private(set) public var currentStep = 1
  private var segmentHint = 0
  /// Time of the last fix that moved the matched position (or confirmed it).
  private var lastMatchTime: Double?
  /// Maneuvers passed by dead reckoning since the last matched fix (at most one).
  private var reckonedSteps = 0
  /// Consecutive fixes within the arrival radius.
  private var arrivalEvidence = 0
  /// Set when resuming from a snapshot: the first fix may be far ahead of the saved position.
  private var reacquiring = false
  /// When resuming: the time of the last input handled before the restart. Inputs up to it,
  /// that one included, were handled already.
  private var resumedThrough: Double?
  private var lastValidFix: Fix?
  private var lastInputTime: Double?
  private var speed = 0.0
  private var fixInterval = 1.0

  // GPS state.
  private(set) public var gpsLost = false
  private var gpsLossCount = 0

  // Off-route state.
  private(set) public var offRoute = false
  private var offEvidence = 0
  private var offSince: Double?
  private var wrongWay = 0
  private var onEvidence = 0
  private var offAnchor = 0.0
  private var offTravel = 0.0
  private var lastOffRouteAnnouncement: Double?
  /// Time of the last maneuver prompt and the step it was for.
  private var lastPrompt: (time: Double, step: Int)?
  private var offRouteCount = 0
  private var lastLateral = 0.0

  /// Number of announcements made so far (state is saved when it changes).
  private(set) public var announcementCount = 0

  // Prompt bookkeeping: bit flags per step.
  private var said: [UInt8]

  private static let prepareBit: UInt8 = 1
  private static let approachBit: UInt8 = 2
  private static let nowBit: UInt8 = 4
  private static let stepBits: UInt8 = 8  // notice, mode and continue of the step were handled
  private static let mergedBit: UInt8 = 16  // said as the "then" part of the previous prompt

  /// Starts a session on alternative `routeIndex` of `document`.
  public init(
    document: RouteDocument, routeIndex: Int = 0, phrasing: any Phrasing,
    configuration: GuidanceConfiguration = GuidanceConfiguration()
  ) throws(RouteDocumentError) {
    self.document = document
    self.routeIndex = routeIndex
    self.route = try document.route(at: routeIndex)
    self.geometry = RouteGeometry(route: route)
    self.matcher = RouteMatcher(geometry: geometry)
    self.configuration = configuration
    self.phrasing = phrasing
    self.said = [UInt8](repeating: 0, count: route.steps.count)
  }

  /// The route's summary, as sent in the `ROUTE` event.
  public var summary: RouteSummary {
    RouteSummary(
      name: route.name, routeIndex: routeIndex, distance: route.distance,
      expectedTravelTime: route.expectedTravelTime, transportType: route.transportType,
      hasTolls: route.hasTolls, hasHighways: route.hasHighways, steps: route.steps.count,
      source: document.source.name, destination: document.destination.name)
  }

  private var lastStep: Int { route.steps.count - 1 }

  /// The route's average planned speed in m/s (0 when the route has no travel time), a floor
  /// for prompt timing: a vehicle that just turned will speed up again.
  private var plannedSpeed: Double {
    route.expectedTravelTime > 0 ? min(40, route.distance / route.expectedTravelTime) : 0
  }

  // MARK: - Snapshots

  /// What a restarted daemon needs to continue where this session was, without announcing
  /// again what was already announced.
  public struct Snapshot: Sendable, Equatable {
    public var routeIndex: Int
    /// Metres along the route.
    public var distanceAlong: Double
    public var currentStep: Int
    /// Per step, which prompts were already made (opaque flags).
    public var said: [UInt8]
    public var offRoute: Bool
    public var arrived: Bool
    /// Time of the last valid fix, seconds since the Unix epoch.
    public var lastFixTime: Double?
    /// Speed at the last valid fix, metres per second.
    public var speed: Double
    /// Time (seconds since the Unix epoch) and step of the last maneuver prompt: an early
    /// prompt right after it is not made, across a restart too.
    public var lastPromptTime: Double?
    public var lastPromptStep: Int?
    /// Whether the GPS was lost (its loss already announced), and the losses and departures
    /// from the route so far, which number the `gps` and `offroute` prompt ids.
    public var gpsLost: Bool
    public var gpsLossCount: Int
    public var offRouteCount: Int
    /// Time of the last input handled, a fix or not, seconds since the Unix epoch: a resumed
    /// session skips inputs up to it (they were handled before the restart).
    public var lastInputTime: Double?
    /// Time of the last fix that moved the matched position, and the maneuvers passed by dead
    /// reckoning since: a restart inside a tunnel keeps timing the prompts ahead.
    public var lastMatchTime: Double?
    public var reckonedSteps: Int

    public init(
      routeIndex: Int, distanceAlong: Double, currentStep: Int, said: [UInt8], offRoute: Bool,
      arrived: Bool, lastFixTime: Double?, speed: Double, lastPromptTime: Double? = nil,
      lastPromptStep: Int? = nil, gpsLost: Bool = false, gpsLossCount: Int = 0,
      offRouteCount: Int = 0, lastInputTime: Double? = nil, lastMatchTime: Double? = nil,
      reckonedSteps: Int = 0
    ) {
      self.routeIndex = routeIndex
      self.distanceAlong = distanceAlong
      self.currentStep = currentStep
      self.said = said
      self.offRoute = offRoute
      self.arrived = arrived
      self.lastFixTime = lastFixTime
      self.speed = speed
      self.lastPromptTime = lastPromptTime
      self.lastPromptStep = lastPromptStep
      self.gpsLost = gpsLost
      self.gpsLossCount = gpsLossCount
      self.offRouteCount = offRouteCount
      self.lastInputTime = lastInputTime
      self.lastMatchTime = lastMatchTime
      self.reckonedSteps = reckonedSteps
    }
  }

  /// The state to save; `nil` before departure (there is nothing to resume yet).
  public var snapshot: Snapshot? {
    guard departed else { return nil }
    return Snapshot(
      routeIndex: routeIndex, distanceAlong: distanceAlong, currentStep: currentStep, said: said,
      offRoute: offRoute, arrived: arrived, lastFixTime: lastValidFix?.time, speed: speed,
      lastPromptTime: lastPrompt?.time, lastPromptStep: lastPrompt?.step, gpsLost: gpsLost,
      gpsLossCount: gpsLossCount, offRouteCount: offRouteCount, lastInputTime: lastInputTime,
      lastMatchTime: lastMatchTime, reckonedSteps: reckonedSteps)
  }

  /// Resumes a session from a saved snapshot of the same route document.
  ///
  /// The `ROUTE` event is sent again with the first input (subscribers need it), but the
  /// departure and every prompt already made are not. An inconsistent snapshot (another
  /// route, a step out of range) is refused, so the caller can start afresh instead.
  public init(
    document: RouteDocument, resuming snapshot: Snapshot, phrasing: any Phrasing,
    configuration: GuidanceConfiguration = GuidanceConfiguration()
  ) throws(RouteDocumentError) {
    try self.init(
      document: document, routeIndex: snapshot.routeIndex, phrasing: phrasing,
      configuration: configuration)
    guard snapshot.said.count == route.steps.count,
      (1...lastStep).contains(snapshot.currentStep),
      snapshot.distanceAlong.isFinite,
      (0...geometry.length + 1).contains(snapshot.distanceAlong)
    else {
      throw RouteDocumentError(
        .invalidValue, path: "", "the saved progress does not fit this route")
    }
    departed = true
    arrived = snapshot.arrived
    distanceAlong = snapshot.distanceAlong
    currentStep = snapshot.currentStep
    said = snapshot.said
    offRoute = snapshot.offRoute
    offAnchor = snapshot.distanceAlong
    speed = snapshot.speed.isFinite ? max(0, snapshot.speed) : 0
    segmentHint = geometry.segment(containing: distanceAlong, from: 0)
    reacquiring = true
    if let t = snapshot.lastPromptTime, let s = snapshot.lastPromptStep { lastPrompt = (t, s) }
    gpsLost = snapshot.gpsLost
    gpsLossCount = max(0, snapshot.gpsLossCount)
    offRouteCount = max(0, snapshot.offRouteCount)
    resumedThrough = snapshot.lastInputTime ?? snapshot.lastFixTime
    lastMatchTime = snapshot.lastMatchTime
    reckonedSteps = max(0, snapshot.reckonedSteps)
    if let t = snapshot.lastFixTime, t.isFinite {
      // Epochs older than the saved state were already handled before the restart.
      lastInputTime = t
      lastValidFix = Fix(
        time: t, coordinate: geometry.coordinate(at: distanceAlong, hint: segmentHint),
        speed: speed)
    }
  }

  // MARK: - Inputs

  /// Takes one receiver epoch and returns what happened.
  public mutating func ingest(_ fix: Fix) -> [NavigationEvent] {
    var events: [NavigationEvent] = []
    if let last = lastInputTime, fix.time < last { return events }
    if let r = resumedThrough, fix.time <= r { return events }
    if !started {
      started = true
      events.append(NavigationEvent(time: fix.time, kind: .route(summary)))
    }
    if arrived {
      lastInputTime = fix.time
      return events
    }
    // A gap with no input at all counts as silence up to the new epoch.
    checkLoss(at: fix.time, into: &events)
    lastInputTime = fix.time
    guard fix.isValid, let point = fix.coordinate else {
      deadReckon(at: fix.time, into: &events)
      return events
    }

    if gpsLost {
      gpsLost = false
      events.append(NavigationEvent(time: fix.time, kind: .gps(.acquired)))
      announce(
        .gpsAcquired, kind: .gps, step: currentStep, id: "gps.\(gpsLossCount).acquired",
        time: fix.time, into: &events)
    }

    let dt = lastValidFix.map { min(900, max(0, fix.time - $0.time)) } ?? 0
    updateSpeed(fix, point: point, dt: dt)
    let accuracy = accuracyOf(fix)
    let threshold = max(
      configuration.offRouteMinimumDistance, configuration.offRouteAccuracyFactor * accuracy)
    let trustedCourse =
      (fix.speed ?? speed) >= configuration.trustCourseAbove ? fix.course : nil
    let standing = speed < configuration.standingBelow

    if !departed {
      depart(fix, point: point, course: trustedCourse, threshold: threshold, into: &events)
    } else if offRoute {
      followOffRoute(
        fix, point: point, course: trustedCourse, dt: dt, accuracy: accuracy,
        threshold: threshold, into: &events)
    } else {
      followOnRoute(
        fix, point: point, course: trustedCourse, dt: dt, accuracy: accuracy,
        threshold: threshold, standing: standing, into: &events)
    }
    lastValidFix = fix

    if !offRoute {
      advanceSteps(time: fix.time, into: &events)
      checkArrival(fix, point: point, into: &events)
      if !arrived { prompts(time: fix.time, position: distanceAlong, into: &events) }
    }
    if !arrived {
      events.append(NavigationEvent(time: fix.time, kind: .progress(progress(point, fix))))
    }
    return events
  }

  /// Tells the session that no epoch at all arrived up to `time` (seconds since the epoch).
  ///
  /// The edge calls this when the source goes quiet, with a timestamp on the same clock as the
  /// fixes (in a replay: from the capture), so GPS loss is reported even without no-fix epochs.
  public mutating func silence(at time: Double) -> [NavigationEvent] {
    var events: [NavigationEvent] = []
    guard started, !arrived else { return events }
    checkLoss(at: time, into: &events)
    deadReckon(at: time, into: &events)
    return events
  }

  // MARK: - GPS loss

  private mutating func checkLoss(at time: Double, into events: inout [NavigationEvent]) {
    guard !gpsLost, let last = lastValidFix else { return }
    let lostAt = last.time + configuration.gpsLostAfter
    guard time >= lostAt else { return }
    gpsLost = true
    gpsLossCount += 1
    // While the signal is gone, evidence for leaving the route is put on hold.
    offEvidence = 0
    offSince = nil
    wrongWay = 0
    events.append(NavigationEvent(time: lostAt, kind: .gps(.lost)))
    announce(
      .gpsLost, kind: .gps, step: currentStep, id: "gps.\(gpsLossCount).lost", time: lostAt,
      into: &events)
  }

  /// Seconds after the last matched fix for which a moving vehicle is carried on by dead
  /// reckoning (the daemon's engine ticks while it lasts).
  public static let deadReckoningLimit = 300.0

  /// Carries the prompts through a stretch without fixes (a tunnel): the position is
  /// estimated from the last matched position and speed, and used only to time the prompt
  /// for the maneuver ahead — never to advance a step or to report progress, so a stale
  /// position cannot move guidance on. The estimate stops at the maneuver point, and only a
  /// vehicle that was moving when the fixes stopped is carried, for at most five minutes.
  private mutating func deadReckon(at time: Double, into events: inout [NavigationEvent]) {
    guard departed, !arrived, !offRoute, let since = lastMatchTime,
      speed >= configuration.trustCourseAbove
    else { return }
    let elapsed = time - since
    guard elapsed > 0, elapsed <= Self.deadReckoningLimit else { return }
    var estimate = distanceAlong + speed * elapsed
    // A tunnel that starts right at a maneuver would hide the next one for its whole length:
    // a vehicle at driving speed whose estimate is well past the maneuver has passed it. One
    // maneuver at most is passed this way, so a jam in the tunnel cannot run guidance ahead.
    if reckonedSteps == 0, currentStep < lastStep, speed >= 8,
      estimate > geometry.stepEnd[currentStep] + 30
    {
      reckonedSteps += 1
      said[currentStep] = 0xFF
      currentStep += 1
      events.append(NavigationEvent(time: time, kind: .step(currentStep)))
      stepStarted(currentStep, time: time, into: &events)
    }
    estimate = min(estimate, geometry.stepEnd[currentStep])
    prompts(time: time, position: estimate, into: &events)
  }

  // MARK: - Matching

  private func accuracyOf(_ fix: Fix) -> Double {
    if let a = fix.horizontalAccuracy, a.isFinite, a > 0 { return max(1, a) }
    if let h = fix.hdop, h.isFinite, h > 0 { return max(2, h * configuration.hdopToMetres) }
    return configuration.defaultAccuracy
  }

  private mutating func updateSpeed(_ fix: Fix, point: Coordinate, dt: Double) {
    if let v = fix.speed, v.isFinite, v >= 0 {
      speed = v
    } else if let last = lastValidFix?.coordinate, dt > 0, dt <= 5 {
      speed = 0.5 * speed + 0.5 * last.distance(to: point) / dt
    }
    if dt > 0 && dt <= 10 { fixInterval = 0.8 * fixInterval + 0.2 * dt }
  }

  private mutating func depart(
    _ fix: Fix, point: Coordinate, course: Double?, threshold: Double,
    into events: inout [NavigationEvent]
  ) {
    departed = true
    lastMatchTime = fix.time
    if let c = matcher.initialMatch(point: point, course: course, acceptLateral: threshold) {
      distanceAlong = c.s
      segmentHint = c.segment
      lastLateral = c.lateral
      if c.lateral > threshold {
        offEvidence = 1
        offSince = fix.time
      }
    }
    currentStep = geometry.step(containing: distanceAlong, from: 1)
    // Everything before the starting step is behind us: never prompt for it.
    for i in 0..<currentStep { said[i] = 0xFF }
    var advisories = route.advisoryNotices
    advisories.removeAll { $0.isEmpty }
    if distanceAlong < geometry.stepEnd[min(1, lastStep)] || currentStep == 1 {
      announce(
        .depart(source: document.source.name, tolls: route.hasTolls, advisories: advisories),
        kind: .depart, step: 0, id: "depart", time: fix.time, into: &events)
    }
    events.append(NavigationEvent(time: fix.time, kind: .step(currentStep)))
    stepStarted(currentStep, time: fix.time, into: &events)
  }

  private func window(dt: Double, accuracy: Double) -> (back: Double, ahead: Double) {
    let v = max(speed, 2)
    let ahead = v * max(dt, 1) * 1.5 + 20 + 3 * accuracy
    // After a restart the vehicle may have gone on at up to motorway speed meanwhile.
    if reacquiring { return (50 + 2 * accuracy, max(ahead, 40 * dt + 200)) }
    return (15 + 2 * accuracy, ahead)
  }

  private mutating func followOnRoute(
    _ fix: Fix, point: Coordinate, course: Double?, dt: Double, accuracy: Double,
    threshold: Double, standing: Bool, into events: inout [NavigationEvent]
  ) {
    let w = window(dt: dt, accuracy: accuracy)
    let predicted = distanceAlong + speed * dt
    let query = MatchQuery(
      point: point, course: course,
      window: (distanceAlong - w.back)...(distanceAlong + w.ahead), predicted: predicted,
      sigmaLateral: max(4, accuracy), sigmaAlong: 10 + 0.3 * speed * dt + accuracy)
    let best = matcher.match(query, hint: segmentHint)
    let lateral = best?.lateral ?? .infinity
    lastLateral = lateral
    let holding = fix.quality == .deadReckoning || standing
    // Around a maneuver a wrong turn must be caught quickly, so the distance is smaller there
    // (as Mapbox halves its radius near intersections); it still scales with the accuracy.
    let nearest = min(
      abs(geometry.stepEnd[currentStep] - distanceAlong),
      abs(geometry.stepEnd[currentStep - 1] - distanceAlong))
    let limit =
      nearest < 40
      ? max(
        configuration.offRouteNearManeuverDistance, configuration.offRouteAccuracyFactor * accuracy)
      : threshold
    let away = lateral > limit
    if away && !holding {
      offEvidence += 1
      if offSince == nil { offSince = fix.time }
    } else if !away {
      offEvidence = 0
      offSince = nil
    }
    if let c = best, let h = c.headingError, h > 120, !away, !holding {
      wrongWay += 1
    } else if !holding {
      wrongWay = 0
    }
    let enoughEvidence =
      offEvidence >= configuration.offRouteFixes
      && fix.time - (offSince ?? fix.time) >= configuration.offRouteSeconds
    if enoughEvidence || wrongWay >= configuration.wrongWayFixes {
      enterOffRoute(time: fix.time, lateral: lateral, into: &events)
      return
    }
    guard let c = best, !away else { return }
    reacquiring = false
    lastMatchTime = fix.time
    reckonedSteps = 0
    if standing && abs(c.s - distanceAlong) < 2 * accuracy { return }
    distanceAlong = c.s
    segmentHint = c.segment
  }

  private mutating func enterOffRoute(
    time: Double, lateral: Double, into events: inout [NavigationEvent]
  ) {
    offRoute = true
    offRouteCount += 1
    offAnchor = distanceAlong
    // The vehicle may already be well ahead of the last match (a long tunnel, a gap).
    let since = lastMatchTime.map { max(0, time - $0) } ?? 0
    offTravel = max(speed, plannedSpeed, 2) * since * 1.5
    onEvidence = 0
    offEvidence = 0
    offSince = nil
    wrongWay = 0
    let d = lateral.isFinite ? lateral : 0
    events.append(NavigationEvent(time: time, kind: .offRoute(distance: d)))
    if let last = lastOffRouteAnnouncement,
      time - last < configuration.offRouteAnnouncementInterval
    {
      return
    }
    lastOffRouteAnnouncement = time
    announce(
      .offRoute(distance: d), kind: .offroute, step: currentStep,
      id: "offroute.\(offRouteCount)", time: time, into: &events)
  }

  private mutating func followOffRoute(
    _ fix: Fix, point: Coordinate, course: Double?, dt: Double, accuracy: Double,
    threshold: Double, into events: inout [NavigationEvent]
  ) {
    offTravel += max(speed, 1) * dt
    // The vehicle can only have rejoined where it could have driven to since leaving.
    let ahead = min(offTravel * 1.2 + 50 + 3 * accuracy, 20_000)
    let query = MatchQuery(
      point: point, course: course, window: (offAnchor - 100 - 2 * accuracy)...(offAnchor + ahead),
      predicted: offAnchor, sigmaLateral: max(4, accuracy), sigmaAlong: .infinity)
    let best = matcher.match(query, hint: segmentHint)
    lastLateral = best?.lateral ?? .infinity
    guard let c = best, c.lateral <= threshold * configuration.onRouteHysteresis,
      (c.headingError ?? 0) < 60
    else {
      onEvidence = 0
      return
    }
    onEvidence += 1
    guard onEvidence >= configuration.onRouteFixes else { return }
    offRoute = false
    onEvidence = 0
    lastMatchTime = fix.time
    distanceAlong = c.s
    segmentHint = c.segment
    events.append(NavigationEvent(time: fix.time, kind: .onRoute))
    announce(
      .backOnRoute, kind: .onroute, step: currentStep, id: "onroute.\(offRouteCount)",
      time: fix.time, into: &events)
    // Rejoining ahead skips maneuvers that were bypassed: they are never announced.
    let step = geometry.step(containing: distanceAlong, from: currentStep)
    if step > currentStep {
      for i in currentStep..<step { said[i] = 0xFF }
      currentStep = step
      events.append(NavigationEvent(time: fix.time, kind: .step(step)))
      stepStarted(step, time: fix.time, into: &events)
    }
  }

  // MARK: - Steps and arrival

  private mutating func advanceSteps(time: Double, into events: inout [NavigationEvent]) {
    while currentStep < lastStep && distanceAlong > geometry.stepEnd[currentStep] {
      let passed = currentStep
      said[passed] = 0xFF
      if let n = route.steps[passed].waypoint {
        announce(
          .waypoint(number: n), kind: .waypoint, step: passed, id: "s\(passed).waypoint",
          time: time, into: &events)
      }
      currentStep += 1
      events.append(NavigationEvent(time: time, kind: .step(currentStep)))
      stepStarted(currentStep, time: time, into: &events)
    }
  }

  /// Announcements that belong to the start of a step: a change of mode, the step's notice, and
  /// for long steps a "continue for …".
  private mutating func stepStarted(_ k: Int, time: Double, into events: inout [NavigationEvent]) {
    guard said[k] & Self.stepBits == 0 else { return }
    said[k] |= Self.stepBits
    let step = route.steps[k]
    if k >= 2, step.transportType != route.steps[k - 1].transportType {
      announce(
        .modeChange(step.transportType), kind: .mode, step: k, id: "s\(k).mode", time: time,
        into: &events)
    }
    if let notice = step.notice, !notice.isEmpty {
      announce(
        .notice(notice), kind: .notice, step: k, id: "s\(k).notice", time: time,
        into: &events)
    }
    let limits = configuration.limits(for: step.transportType)
    let remaining = geometry.stepEnd[k] - distanceAlong
    let v = max(speed, limits.minimumSpeed)
    let prepareLead = min(
      limits.prepareMaximum, max(limits.prepareMinimum, v * configuration.prepareLeadSeconds))
    if remaining >= limits.continueMinimum && remaining > prepareLead + v * 30 {
      announce(
        .continueFor(distance: remaining), kind: .continue, step: k, id: "s\(k).continue",
        time: time, distance: remaining, into: &events)
    }
  }

  private mutating func checkArrival(
    _ fix: Fix, point: Coordinate, into events: inout [NavigationEvent]
  ) {
    guard currentStep == lastStep, !arrived else { return }
    let limits = configuration.limits(for: route.steps[lastStep].transportType)
    let end = geometry.points[geometry.points.count - 1]
    let straight = point.distance(to: end)
    let remaining = geometry.length - distanceAlong
    let radius = min(25, max(limits.arrivalRadius, speed * fixInterval * 0.6))
    let passed = distanceAlong >= geometry.length - 0.5
    if remaining <= radius || straight <= radius {
      arrivalEvidence += 1
    } else {
      arrivalEvidence = 0
    }
    // One noisy fix near the end is not an arrival; two in a row, or passing the end, are.
    guard passed || arrivalEvidence >= 2 else { return }
    arrived = true
    said[lastStep] = 0xFF
    announce(
      .arrive(destination: document.destination.name), kind: .arrive, step: lastStep,
      id: "arrive", time: fix.time, into: &events)
    events.append(NavigationEvent(time: fix.time, kind: .arrived(distance: straight)))
  }

  // MARK: - Prompts

  private enum Tier: CaseIterable {
    case prepare, approach, now
    var bit: UInt8 {
      switch self {
      case .prepare: NavigationSession.prepareBit
      case .approach: NavigationSession.approachBit
      case .now: NavigationSession.nowBit
      }
    }
    var kind: AnnouncementKind {
      switch self {
      case .prepare: .prepare
      case .approach: .approach
      case .now: .now
      }
    }
  }

  /// The maneuver prompt schedule, computed on the device from live speed.
  ///
  /// Each maneuver has up to three prompts: "prepare" about a minute ahead, "approach" about
  /// 20 s ahead, and "now" a few seconds ahead plus the time it takes to say it. Distances are
  /// clamped per transport mode. A tier whose successor would follow within
  /// `minimumGapSeconds` is skipped, so short steps get fewer prompts, never a burst. A prompt
  /// is made at most once, and only for the maneuver ahead.
  private mutating func prompts(
    time: Double, position: Double, into events: inout [NavigationEvent]
  ) {
    let m = currentStep
    guard m >= 1, m <= lastStep, said[m] & Self.nowBit == 0 else { return }
    let step = route.steps[m]
    let limits = configuration.limits(for: step.transportType)
    // The planned average only speaks for steps travelled the route's main way (a walk to the
    // car park must not be timed at driving speed).
    let planned = step.transportType == route.transportType ? 0.8 * plannedSpeed : 0
    let v = max(speed, limits.minimumSpeed, planned)
    let d = max(0, geometry.stepEnd[m] - position)
    let margin = v * min(fixInterval, 2) * 0.5
    // Far from the maneuver no tier can be due: skip building the sentences (most fixes).
    if d > limits.prepareMaximum + v * 15 + margin { return }
    // The arrival gets no "now" prompt: its own announcement replaces it.
    let finalTier: Tier = m == lastStep ? .approach : .now
    let then = thenInstructions(after: m, speed: v)

    var tiers: [Tier] = [.prepare, .approach]
    if finalTier == .now { tiers.append(.now) }
    // A maneuver already said as the "then" of the previous prompt and right here (a 0 m
    // step, a double turn) needs no prompt of its own: it would only come too late.
    if said[m] & Self.mergedBit != 0 && d < 5 {
      said[m] |= Self.prepareBit | Self.approachBit | Self.nowBit
      return
    }
    for (n, tier) in tiers.enumerated() where said[m] & tier.bit == 0 {
      let utterance = Utterance.maneuver(
        instructions: step.instructions, distance: tier == .now ? nil : d,
        then: tier == .prepare ? nil : then)
      let lead = leadDistance(tier, speed: v, limits: limits, saying: utterance)
      if d > lead + margin { break }
      // An early prompt right after another one for the same maneuver adds nothing.
      if tier != .now, let last = lastPrompt, last.step == m,
        time - last.time < 1.5 * configuration.minimumGapSeconds
      {
        said[m] |= tier.bit
        continue
      }
      if n + 1 < tiers.count {
        let next = tiers[n + 1]
        let nextLead = leadDistance(
          next, speed: v, limits: limits,
          saying: .maneuver(
            instructions: step.instructions, distance: next == .now ? nil : d, then: then))
        if d <= nextLead + v * configuration.minimumGapSeconds {
          said[m] |= tier.bit
          continue
        }
      }
      for t in tiers[...n] { said[m] |= t.bit }
      if then != nil, m + 1 <= lastStep {
        said[m + 1] |= Self.prepareBit | Self.approachBit | Self.mergedBit
      }
      lastPrompt = (time, m)
      announce(
        utterance, kind: tier.kind, step: m, id: "s\(m).\(tier.kind.rawValue)", time: time,
        distance: d, into: &events)
      break
    }
  }

  private func leadDistance(
    _ tier: Tier, speed v: Double, limits: GuidanceConfiguration.ModeLimits,
    saying utterance: Utterance
  ) -> Double {
    let speech = v * phrasing.speechDuration(for: utterance)
    switch tier {
    case .prepare:
      return min(
        limits.prepareMaximum, max(limits.prepareMinimum, v * configuration.prepareLeadSeconds))
        + speech
    case .approach:
      return min(
        limits.approachMaximum, max(limits.approachMinimum, v * configuration.approachLeadSeconds))
        + speech
    case .now:
      return max(limits.nowMinimum, v * configuration.nowLeadSeconds) + speech
    }
  }

  /// The next maneuver's instructions when it follows maneuver `m` too closely to get its own
  /// early prompt.
  private func thenInstructions(after m: Int, speed v: Double) -> String? {
    guard m + 1 <= lastStep, route.steps[m].waypoint == nil else { return nil }
    let gap = geometry.stepEnd[m + 1] - geometry.stepEnd[m]
    let limits = configuration.limits(for: route.steps[m + 1].transportType)
    let next = route.steps[m + 1]
    guard !next.instructions.isEmpty,
      gap <= max(v * configuration.thenMergeSeconds, limits.nowMinimum * 2)
    else { return nil }
    return next.instructions
  }

  // MARK: - Output

  private mutating func announce(
    _ utterance: Utterance, kind: AnnouncementKind, step: Int, id: String, time: Double,
    distance: Double? = nil, into events: inout [NavigationEvent]
  ) {
    announcementCount += 1
    let a = Announcement(
      step: step, kind: kind, utterance: utterance, text: phrasing.text(for: utterance),
      distance: distance, id: "r\(routeIndex).\(id)")
    events.append(NavigationEvent(time: time, kind: .announce(a)))
  }

  private func progress(_ point: Coordinate, _ fix: Fix) -> Progress {
    let remaining = max(0, geometry.length - distanceAlong)
    let fraction = geometry.length > 0 ? remaining / geometry.length : 0
    return Progress(
      step: currentStep,
      distanceToManeuver: max(0, geometry.stepEnd[currentStep] - distanceAlong),
      distanceRemaining: remaining,
      timeRemaining: route.expectedTravelTime * fraction,
      distanceAlong: distanceAlong,
      onRoute: !offRoute,
      raw: point,
      matched: geometry.coordinate(at: distanceAlong, hint: segmentHint),
      distanceFromRoute: lastLateral.isFinite ? lastLateral : 0,
      speed: fix.speed ?? speed,
      course: fix.course)
  }
}
