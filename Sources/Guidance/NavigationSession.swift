public import Geodesy
public import GuidanceSettings
import Matching
import Returning
import RouteShape
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
  let phrasing: any Phrasing
  let matcher: RouteMatcher

  /// Where the session stands, with the data valid only there.
  var state = SessionState.acquiring(.departure)
  public var phase: GuidancePhase { state.phase }
  /// Whether the `ROUTE` event went out (with the first input, resumed sessions included).
  public internal(set) var started = false
  /// Whether the departure was made.
  public var departed: Bool { phase.departed }
  public var arrived: Bool { phase == .arrived }
  public var offRoute: Bool { phase == .offRoute }
  /// Metres from the route at the last fix (0 before the first, or when no part of the route
  /// was near enough to measure).
  public var distanceFromRoute: Double { position.lateral.isFinite ? position.lateral : 0 }

  /// Where the fixes place the vehicle on the route.
  var position = RoutePosition()
  /// Metres travelled along the route (the matched position).
  public internal(set) var distanceAlong: Double {
    get { position.along }
    set { position.along = newValue }
  }
  /// The step being travelled (≥ 1 once departed).
  public internal(set) var currentStep: Int {
    get { position.step }
    set { position.step = newValue }
  }
  /// The position of a vehicle without fixes, carried along the route (``DeadReckoning``).
  var reckoner = Reckoner()
  /// What the receiver's epochs said so far: times, speed, accuracy, losses, glitches.
  var fixes = FixHistory()
  var speed: Double { fixes.speed }
  var fixInterval: Double { fixes.interval }

  public var gpsLost: Bool { fixes.lost }

  var detector: OffRouteDetector
  /// Whether ``ingest(_:)`` itself makes the `return` announcements of a vehicle off its route.
  ///
  /// An edge that asks a router for a new route turns it off and calls ``guideBack()`` after each
  /// fix for which no new route can be had.
  public var guidesBack = true
  /// Recent distances from the route and courses: a departure, a receiver's bias, a corner.
  var deviation: DeviationModel
  /// Fixes discarded as glitches (farther from the last one than the vehicle can go).
  public var discardedFixes: Int { fixes.discarded }

  /// Number of announcements made so far (state is saved when it changes).
  public var announcementCount: Int { announcer.count }

  var scheduler: AnnouncementScheduler
  /// The speed limit where the vehicle is (`PROGRESS`'s `speedLimit`).
  var roadWatch: RoadWatch
  /// The road objects ahead: announced (`ahead`) and published (`PROGRESS`'s `ahead`).
  var ahead: AheadWatch
  /// Turns announcements into events.
  var announcer: Announcer
  /// Why this route is followed (the `ROUTE` event's `reason`).
  public var routeReason = RouteReason.start

  /// Starts a session on alternative `routeIndex` of `document`.
  public init(
    document: RouteDocument, routeIndex: Int = 0, phrasing: any Phrasing,
    configuration: GuidanceConfiguration = GuidanceConfiguration()
  ) throws(RouteDocumentError) {
    // The session's route and its geometry share one array of points: a route held once.
    let shared = try document.route(at: routeIndex).sharingOnePointArray()
    var document = document
    document.routes[routeIndex] = shared.route
    self.document = document
    self.routeIndex = routeIndex
    self.route = shared.route
    self.geometry = RouteGeometry(route: shared.route, points: shared.points)
    self.matcher = RouteMatcher(geometry: geometry)
    self.deviation = DeviationModel(configuration: configuration, geometry: geometry)
    self.configuration = configuration
    self.phrasing = phrasing
    self.announcer = Announcer(phrasing: phrasing, routeIndex: routeIndex)
    self.detector = OffRouteDetector(configuration: configuration)
    self.scheduler = AnnouncementScheduler(
      route: route, geometry: geometry, configuration: configuration, phrasing: phrasing)
    self.roadWatch = RoadWatch(road: shared.route.road)
    self.ahead = AheadWatch(road: shared.route.road, configuration: configuration)
  }

  /// The route's summary, as sent in the `ROUTE` event.
  public var summary: RouteSummary {
    RouteSummary(
      name: route.name, routeIndex: routeIndex, distance: route.distance,
      expectedTravelTime: route.expectedTravelTime, transportType: route.transportType,
      hasTolls: route.hasTolls, hasHighways: route.hasHighways, steps: route.steps.count,
      source: document.source.name, destination: document.destination.name,
      reason: routeReason, revision: announcer.revision)
  }

  var lastStep: Int { route.steps.count - 1 }

  /// The route's average planned speed in m/s (0 when the route has no travel time), a floor
  /// for announcement timing: a vehicle that just turned will speed up again.
  var plannedSpeed: Double { scheduler.plannedSpeed }

  // MARK: - Snapshots

  /// What a restarted daemon needs to continue where this session was (``SessionSnapshot``).
  public typealias Snapshot = SessionSnapshot

  /// The state to save; `nil` before departure (there is nothing to resume yet).
  public var snapshot: Snapshot? {
    guard departed else { return nil }
    // Without fixes, the last matched position: a restart carries the vehicle on from there.
    var along = distanceAlong
    var reckonedSteps = 0
    if let r = reckoner.carrying {
      along = r.anchorAlong
      reckonedSteps = r.passed
    }
    return Snapshot(
      routeIndex: routeIndex, distanceAlong: along, currentStep: currentStep,
      said: scheduler.said, phase: phase, lastFixTime: fixes.last?.time, speed: speed,
      lastAnnouncementTime: scheduler.lastAnnouncement?.time,
      lastAnnouncementStep: scheduler.lastAnnouncement?.step,
      gpsLost: gpsLost, gpsLossCount: fixes.losses, offRouteCount: detector.count,
      lastInputTime: fixes.lastInputTime, lastMatchTime: position.matchTime,
      reckonedSteps: reckonedSteps,
      returning: returning, recentSpeed: fixes.lead.recent, leadSpeed: fixes.lead.held,
      headsUp: reckoner.headsUpProgress, headsUpThrough: scheduler.headsUpThrough,
      speeds: reckoner.peak.saved, stepTime: reckoner.stepTime)
  }

  private var returning: ReturnGuide.Progress? {
    guard case .offRoute(let o) = state, o.value.guide.since != nil else { return nil }
    return o.value.guide.progress
  }

  /// Resumes a session from a saved snapshot of the same route document.
  ///
  /// The `ROUTE` event is sent again with the first input (subscribers need it), but the
  /// departure and every announcement already made are not. An inconsistent snapshot (another
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
    state = SessionState(resuming: snapshot, returning: configuration.returning)
    routeReason = .resume
    distanceAlong = snapshot.distanceAlong
    currentStep = snapshot.currentStep
    scheduler.resume(
      said: snapshot.said,
      last: snapshot.lastAnnouncementTime.flatMap { t in
        snapshot.lastAnnouncementStep.map { (t, $0) }
      }, headsUpThrough: snapshot.headsUpThrough)
    reckoner.peak.resume(snapshot.speeds)
    reckoner.stepTime = snapshot.stepTime.flatMap { $0.isFinite ? $0 : nil }
    if let h = snapshot.headsUp {
      reckoner.resume(h, steps: route.steps.count, configuration)
    }
    detector = OffRouteDetector(
      configuration: configuration, count: max(0, snapshot.offRouteCount))
    // A saved speed is taken as a speed: finite and not negative (0 otherwise).
    func saved(_ v: Double) -> Double { v.isFinite ? max(0, v) : 0 }
    fixes.speed = saved(snapshot.speed)
    fixes.lead.recent = snapshot.recentSpeed.map(saved) ?? fixes.speed
    fixes.lead.hold(snapshot.leadSpeed.map(saved) ?? fixes.speed, configuration)
    position.segment = geometry.segment(containing: distanceAlong, from: 0)
    ahead.resume(
      at: distanceAlong, lead: configuration.limits(for: route.transportType).approachMaximum)
    fixes.lost = snapshot.gpsLost
    fixes.losses = max(0, snapshot.gpsLossCount)
    fixes.resumedThrough = snapshot.lastInputTime ?? snapshot.lastFixTime
    position.matchTime = snapshot.lastMatchTime
    if let t = snapshot.lastFixTime, t.isFinite {
      // Epochs older than the saved state were already handled before the restart.
      fixes.lastInputTime = t
      fixes.last = Fix(
        time: t, coordinate: geometry.coordinate(at: distanceAlong, hint: position.segment),
        speed: speed)
    }
    // Restarted without fixes after passing a maneuver on the estimate: it is not passed twice.
    if snapshot.reckonedSteps > 0, let since = position.matchTime, let v = reckonSpeed {
      reckoner.mode = .carrying(
        reckoner.start(
          since: since, along: distanceAlong, speed: v, newest: snapshot.lastFixTime ?? since,
          after: fixes.resumedThrough ?? since, passed: snapshot.reckonedSteps, lead: fixes.lead,
          fixInterval: fixInterval, configuration))
    }
  }

  // MARK: - Inputs

  /// Takes one receiver epoch and returns what happened.
  public mutating func ingest(_ fix: Fix) -> [NavigationEvent] {
    var events: [NavigationEvent] = []
    ingest(fix, into: &events)
    return events
  }

  /// Takes one receiver epoch and appends what happened to `events`, so a caller guiding a
  /// batch of epochs fills one array instead of allocating one per epoch.
  public mutating func ingest(_ fix: Fix, into events: inout [NavigationEvent]) {
    // A receiver carrying its last fix on without sky, away from the route: no position, nor
    // for the rest of that run of echoes (the straight line may cross a winding road again).
    // A source of exact motion repeats itself with sky: its echoes are where the vehicle goes.
    // `echo`: metres the fix carries the last new one on, when it only does that.
    var echo: Double?
    if !fixes.exact, let d = fixes.echoes(fix, configuration), phase == .onRoute {
      if fixes.coasting { return ingest(.noFix(time: fix.time), into: &events) }
      echo = d
    }
    guard fixes.take(fix) else { return }
    if !started {
      started = true
      events.append(NavigationEvent(time: fix.time, kind: .route(summary)))
    }
    if arrived {
      fixes.lastInputTime = fix.time
      return
    }
    // A gap with no input at all counts as silence up to the new epoch; an epoch without a
    // position is one more moment of it.
    let usable = fix.isValid && fix.coordinate != nil
    passSilence(until: fix.time, reckonThrough: fix.time, inclusive: !usable, into: &events)
    fixes.lastInputTime = fix.time
    guard usable, let point = fix.coordinate else { return }

    if fixes.lost { noteAcquired(at: fix.time, into: &events) }

    let dt = fixes.gap(to: fix, configuration)
    let accuracy = FixHistory.accuracy(of: fix, configuration)
    if fixes.discards(
      fix, point: point, dt: dt, accuracy: accuracy, departed: phase.departed, configuration)
    {
      return
    }
    let estimate = endReckoning()
    fixes.accuracy = accuracy
    // After a gap a vehicle that was moving went on at its speed before (its peak, or the mean
    // speed of the estimates, as reckoning has it: the match looks as far as they went); of one
    // not carried and silent longer than a reckoning lasts, nothing says (nil).
    let gap = dt > configuration.gpsLostAfter
    let stood = gap && dt > Self.deadReckoningLimit && reckonSpeed == nil
    let reckoned = estimate.map { ($0.along - distanceAlong) / dt } ?? 0
    let peak = gap ? max(reckoner.peak.speed(span: configuration.reckonPeakSeconds), reckoned) : 0
    let speedBefore = speed
    fixes.updateSpeed(fix, point: point, dt: dt, configuration)
    reckoner.peak.note(speed, time: fix.time)
    let carried = !gap ? speed : stood ? nil : max(speed, peak)
    let threshold = max(
      configuration.offRouteMinimumDistance, configuration.offRouteAccuracyFactor * accuracy)
    let trustedCourse =
      (fix.speed ?? speed) >= configuration.trustCourseAbove ? fix.course : nil
    let standing = speed < configuration.standingBelow
    deviation.noteCourse(trustedCourse, time: fix.time)

    switch state {
    case .acquiring(let start):
      depart(
        fix, start: start, point: point, course: deviation.steadyCourse, threshold: threshold,
        into: &events)
    case .joining(let reacquiring):
      join(
        fix, point: point, course: trustedCourse, threshold: threshold,
        reacquiring: reacquiring, into: &events)
    case .offRoute:
      followOffRoute(
        fix, point: point, course: trustedCourse, dt: dt, accuracy: accuracy,
        threshold: threshold, into: &events)
    case .arrived: break  // returned above
    case .onRoute(let on):
      // A fix re-acquired after a loss is placed by distance first: its course counts only
      // when steady. After a restart the saved position and speed already place it (its
      // course at speed keeps a vehicle past a missed turn on the step it was on).
      let reacquired = !on.reacquiring && dt > configuration.gpsLostAfter
      followOnRoute(
        fix, point: point, course: trustedCourse,
        matchCourse: reacquired ? deviation.steadyCourse : trustedCourse,
        dt: dt, carried: carried, speedBefore: speedBefore, accuracy: accuracy,
        threshold: threshold, standing: standing,
        into: &events)
    }
    let previous = fixes.last
    fixes.last = fix
    if let d = echo {
      noteEcho(carrying: d)
    } else {
      fixes.newOrigin(fix, lateral: position.lateral)
    }
    // Moving only: a receiver standing holds one position, wherever it is.
    if !fixes.exact, phase == .onRoute, speed >= configuration.trustCourseAbove {
      fixes.noteLine(
        position.lateral, time: fix.time, within: configuration.exactLateral,
        for: configuration.exactSeconds)
    }
    if let estimate { resume(after: estimate, time: fix.time, into: &events) }
    if reckoner.headsUp != nil { endHeadsUps() }
    reckoner.settle(time: fix.time, along: distanceAlong, onRoute: phase == .onRoute)
    if phase == .offRoute {
      followReturn(point: point, course: trustedCourse, time: fix.time)
    }

    // Each step is asked only when it can act: a call that returns at once still costs its code.
    if phase == .onRoute {
      if currentStep < lastStep && distanceAlong > geometry.stepEnd[currentStep] {
        advanceSteps(time: fix.time, into: &events)
      }
      if currentStep == lastStep { checkArrival(fix, point: point, into: &events) }
      if !arrived {
        announcements(
          time: fix.time, position: distanceAlong, speed: speed, leadSpeed: fixes.lead.held,
          into: &events)
      }
      if !arrived, configuration.speedWarnings, !roadWatch.spans.isEmpty {
        watchSpeed(fix, previous: previous, into: &events)
      }
      if !arrived, !ahead.objects.isEmpty { watchAhead(time: fix.time, into: &events) }
    }
    if !arrived {
      appendProgress(point, fix, into: &events)
    }
    // After the fix's progress, where an edge with a router says it too.
    if guidesBack, phase == .offRoute { sayReturn(into: &events) }
  }

  /// Fixes are back after a loss reported: says so.
  ///
  /// Out of line: asked on every fix, done after an outage only (inlined, such blocks leave
  /// `ingest` too large for the events' `append` to be inlined in it: 12–34 instructions a fix).
  @inline(never)
  private mutating func noteAcquired(at time: Double, into events: inout [NavigationEvent]) {
    fixes.lost = false
    events.append(NavigationEvent(time: time, kind: .gps(.acquired)))
    announce(
      .gpsAcquired, kind: .gps, step: currentStep, id: "gps.\(fixes.losses).acquired",
      time: time, into: &events)
  }

  /// The first fix after `estimate` placed the vehicle: the estimate ends.
  ///
  /// Guidance steps back to a maneuver the estimate passed that the vehicle is far from. Prompts
  /// the estimate made too early are due again: any made before it, when the vehicle is far
  /// behind the estimate; else those said far out, by where the vehicle is or by its lead when
  /// they were said. Out of line, as ``noteAcquired(at:into:)``.
  @inline(never)
  private mutating func resume(
    after estimate: Reckoning.Estimate, time: Double, into events: inout [NavigationEvent]
  ) {
    let behind = reckoner.resume(
      after: estimate, time: time, along: distanceAlong, stepStart: stepStart, speed: speed,
      configuration)
    guard phase == .onRoute else { return }
    if estimate.passed > 0,
      !reaches(stepStart)
        || stepStart - distanceAlong > scheduler.finalLead(step: currentStep - 1, speed: speed)
    {
      stepBack(passed: estimate.passed, time: time, into: &events)
    }
    let distance = geometry.stepEnd[currentStep] - max(distanceAlong, stepStart)
    let said = scheduler.spokenAt[currentStep]
    scheduler.reopen(
      currentStep, distance: distance, speed: speed,
      factor: behind ? 1 : configuration.reckonRepeatFactor,
      margin: behind ? 0 : configuration.reckonRepeatMargin,
      saidAgo: !behind && said > estimate.since ? max(0, time - said) : nil)
  }

  /// Tells the session that no epoch at all arrived up to `time` (seconds since the epoch).
  ///
  /// The edge calls this when the source goes quiet, with a timestamp on the same clock as the
  /// fixes (in a replay: from the capture), so GPS loss is reported even without no-fix epochs.
  public mutating func silence(at time: Double) -> [NavigationEvent] {
    var events: [NavigationEvent] = []
    guard started, !arrived else { return events }
    passSilence(
      until: time, reckonThrough: time - configuration.reckonSettle, inclusive: true,
      into: &events)
    return events
  }

  /// When the edge must next call ``silence(at:)`` if no epoch comes meanwhile.
  public struct SilenceCheck: Sendable, Equatable {
    /// Fix-clock time (seconds since the Unix epoch) at which the GPS loss falls due; `nil`
    /// once it is reported.
    public var lossDue: Double?
    /// Whether dead reckoning carries a moving vehicle, so silence must be checked between
    /// fixes, at the edge's own tick interval, to keep announcements on time in a tunnel.
    public var periodic: Bool
    /// Fix-clock time by which silence makes the next heads-up of a slow vehicle due (README,
    /// "Heads-ups"); `nil` when none is to come.
    public var headsUpDue: Double?

    public init(lossDue: Double?, periodic: Bool, headsUpDue: Double? = nil) {
      self.lossDue = lossDue
      self.periodic = periodic
      self.headsUpDue = headsUpDue
    }

    /// The earliest deadline of the loss and the next heads-up, `nil` for neither.
    public var due: Double? {
      switch (lossDue, headsUpDue) {
      case (let a?, let b?): min(a, b)
      case (let a, let b): a ?? b
      }
    }
  }

  /// The silence checks due with the fix clock at `now`, or `nil` when no silence can change
  /// anything: before the first fix, after arrival, once the loss is reported of a vehicle that
  /// is not being carried on.
  ///
  /// Dead reckoning lasts ``deadReckoningLimit`` seconds after the newest fix, for a departed
  /// vehicle on the route that was moving at `trustCourseAbove`. A heads-up is due at a known
  /// time (a silence `reckonSettle` after it, as the estimates), so a standing vehicle's engine
  /// wakes once for it, not periodically.
  public func nextSilenceCheck(now: Double) -> SilenceCheck? {
    guard started, !arrived, let last = fixes.newestTime else { return nil }
    let lossDue = gpsLost ? nil : last + configuration.gpsLostAfter
    let carried =
      phase == .onRoute && reckonSpeed != nil && now < last + Self.deadReckoningLimit
    let headsUp = reckoner.headsUp.flatMap {
      $0.at.isFinite ? $0.at + configuration.reckonSettle : nil
    }
    guard carried || lossDue != nil || headsUp != nil else { return nil }
    return SilenceCheck(lossDue: lossDue, periodic: carried, headsUpDue: headsUp)
  }

  // MARK: - Steps and arrival

  mutating func advanceSteps(time: Double, into events: inout [NavigationEvent]) {
    while currentStep < lastStep && distanceAlong > geometry.stepEnd[currentStep] {
      let passed = currentStep
      scheduler.markPassed(passed..<passed + 1)
      if let n = route.steps[passed].waypoint {
        announce(
          .waypoint(number: n), kind: .waypoint, step: passed, id: "s\(passed).waypoint",
          time: time, into: &events)
      }
      currentStep += 1
      reckoner.stepTime = time
      events.append(NavigationEvent(time: time, kind: .step(currentStep)))
      stepStarted(currentStep, time: time, into: &events)
    }
  }

  /// Announcements that belong to the start of a step: a change of mode, the step's notice, and
  /// for long steps a "continue for …".
  mutating func stepStarted(_ k: Int, time: Double, into events: inout [NavigationEvent]) {
    guard scheduler.beginStep(k) else { return }
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
    let limits = scheduler.limits(step: k)
    let remaining = geometry.stepEnd[k] - distanceAlong
    let v = max(speed, limits.minimumSpeed)
    let prepareLead = scheduler.prepareLead(speed: v, limits: limits)
    if remaining >= limits.continueMinimum
      && remaining > prepareLead + v * configuration.continueBeyondPrepareSeconds
    {
      announce(
        .continueFor(distance: remaining), kind: .continue, step: k, id: "s\(k).continue",
        time: time, distance: remaining, into: &events)
    }
  }

  private mutating func checkArrival(
    _ fix: Fix, point: Coordinate, into events: inout [NavigationEvent]
  ) {
    guard currentStep == lastStep, !arrived else { return }
    let limits = scheduler.limits(step: lastStep)
    let end = geometry.points[geometry.points.count - 1]
    let remaining = geometry.length - distanceAlong
    let radius = min(
      configuration.arrivalRadiusLimit,
      max(limits.arrivalRadius, speed * fixInterval * configuration.arrivalIntervalFraction))
    // The end passed, or passed within half an interval at the speed driven: this fix is the
    // nearest that moment, and the next may never come (a garage there, a recording's end).
    let passing = min(configuration.arrivalRadiusLimit, speed * fixInterval / 2)
    let passed = remaining <= max(configuration.arrivalEndTolerance, passing)
    // A vehicle standing near the end is as far from it as its fixes' error may put it.
    let reach =
      speed < configuration.standingBelow
      ? min(configuration.arrivalRadiusLimit, radius + fixes.accuracy) : radius
    guard case .onRoute(var on) = state else { return }
    // The straight distance is measured only at the arrival (the whole last step asks this).
    let within = remaining <= reach || !point.distance(to: end, exceeds: reach)
    on.arrivalSince = within ? on.arrivalSince ?? fix.time : nil
    state = .onRoute(on)
    // One noisy fix near the end is not an arrival; fixes near it for a second (two in a row
    // at 1 Hz, give or take half an interval), or passing the end, are.
    let near = on.arrivalSince.map {
      fix.time - $0 >= configuration.arrivalSeconds - fixInterval / 2 && fix.time > $0
    }
    guard passed || near == true else { return }
    arrive(time: fix.time, distance: point.distance(to: end), into: &events)
  }

  /// The destination reached at `time`, `distance` metres from the route's end.
  mutating func arrive(time: Double, distance: Double, into events: inout [NavigationEvent]) {
    state = .arrived
    scheduler.markPassed(lastStep..<lastStep + 1)
    announce(
      .arrive(destination: document.destination.name), kind: .arrive, step: lastStep,
      id: "arrive", time: time, into: &events)
    events.append(NavigationEvent(time: time, kind: .arrived(distance: distance)))
  }

  // MARK: - Announcements

  /// Makes the announcement for the maneuver ahead that is due with the vehicle at `position`,
  /// at `speed` (the fix's, or an estimate's) with the early prompts timed at `leadSpeed` (the
  /// speed held), and the final prompts for a vehicle `finalAhead` metres further on (the
  /// soonest an estimated vehicle may be there), the next look `interval` seconds on (the
  /// estimates' step without fixes, however often the receiver spoke; else the receiver's).
  mutating func announcements(
    time: Double, position: Double, speed: Double, leadSpeed: Double, finalAhead: Double = 0,
    interval given: Double? = nil, into events: inout [NavigationEvent]
  ) {
    let interval = given ?? fixInterval
    guard
      let p = scheduler.due(
        step: currentStep, time: time, position: position, speed: speed,
        leadSpeed: leadSpeed, fixInterval: interval,
        uncertainty: fixes.accuracy, finalAhead: finalAhead)
        ?? scheduler.dueAhead(
          step: currentStep, time: time, position: position, speed: speed,
          fixInterval: interval, uncertainty: fixes.accuracy, finalAhead: finalAhead)
    else { return }
    // Said again after an estimate made it too early: a new id, which consumers keep.
    let id = scheduler.reopened(p.step) ? "\(p.id).gps\(fixes.losses)" : p.id
    announce(
      p.message, kind: p.kind, step: p.step, id: id, time: time, distance: p.distance,
      into: &events)
  }

  /// Warns once per excursion above the speed limit plus its tolerance when
  /// ``RoadWatch/overspeedWarning(_:previous:along:_:)`` says so, never over a maneuver's final
  /// prompt.
  private mutating func watchSpeed(
    _ fix: Fix, previous: Fix?, into events: inout [NavigationEvent]
  ) {
    guard configuration.speedWarnings, !roadWatch.spans.isEmpty else { return }
    let c = configuration
    guard
      let message = roadWatch.overspeedWarning(
        fix, previous: previous, along: distanceAlong, c)
    else { return }
    // Quiet after a maneuver announcement, and while the warning would not be over before
    // the maneuver's final prompt begins (its lead, the time to say it, and a margin).
    if scheduler.spoke(within: c.speedWarningQuietSeconds, of: fix.time) { return }
    if currentStep < lastStep, !scheduler.saidNow(currentStep) {
      let toManeuver = max(0, geometry.stepEnd[currentStep] - distanceAlong)
      let needed =
        c.nowLeadSeconds + phrasing.speechDuration(for: message) + c.speedWarningQuietSeconds
      if toManeuver < max(fix.speed ?? 0, 1) * needed { return }
    }
    roadWatch.overspeed.said()
    announce(
      message, kind: .speed, step: currentStep,
      id: "speed.\(roadWatch.overspeed.count)", time: fix.time, into: &events)
  }

  // MARK: - Output

  mutating func announce(
    _ message: AnnouncementMessage, kind: AnnouncementKind, step: Int, id: String, time: Double,
    distance: Double? = nil, into events: inout [NavigationEvent]
  ) {
    events.append(
      announcer.event(
        message, kind: kind, step: step, id: id, time: time, distance: distance))
  }

  /// The `PROGRESS` of `fix` (a fix or an estimate) at `point`, appended to `events`.
  ///
  /// Out of line, with ``progress(_:_:)`` inlined in it: `ingest` is 10 instructions a fix
  /// shorter than with the event built in it (callgrind, StepwiseBench `perfix`).
  @inline(never)
  mutating func appendProgress(
    _ point: Coordinate, _ fix: Fix, into events: inout [NavigationEvent]
  ) {
    let ahead = ahead.objects.isEmpty ? nil : aheadList()
    events.append(
      NavigationEvent(time: fix.time, kind: .progress(progress(point, fix), ahead: ahead)))
  }

  @inline(__always)
  mutating func progress(_ point: Coordinate, _ fix: Fix) -> Progress {
    var distanceAlong = distanceAlong
    distanceAlong = reckoner.reported(distanceAlong)
    let remaining = max(0, geometry.length - distanceAlong)
    let fraction = geometry.length > 0 ? remaining / geometry.length : 0
    let matched = geometry.coordinate(at: distanceAlong, hint: position.segment)
    // Routes without limits or objects (most) skip both calls.
    let speedLimit =
      phase == .onRoute && !roadWatch.spans.isEmpty ? roadWatch.limit(at: distanceAlong) : nil
    return Progress(
      step: currentStep,
      distanceToManeuver: max(0, geometry.stepEnd[currentStep] - distanceAlong),
      distanceRemaining: remaining,
      timeRemaining: route.expectedTravelTime * fraction,
      distanceAlong: distanceAlong,
      onRoute: phase == .onRoute,
      raw: point,
      matched: matched,
      distanceFromRoute: distanceFromRoute,
      speed: fix.speed ?? speed,
      course: fix.course,
      discardedFixes: discardedFixes,
      speedLimit: speedLimit)
  }
}
