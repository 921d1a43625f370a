import Geodesy
import GuidanceSettings
import Matching

/// GPS loss, and dead reckoning along the route through silence (``DeadReckoning``).
extension NavigationSession {
  mutating func checkLoss(at time: Double, into events: inout [NavigationEvent]) {
    guard let lostAt = fixes.lose(at: time, after: configuration.gpsLostAfter) else { return }
    detector.suspend()
    events.append(NavigationEvent(time: lostAt, kind: .gps(.lost)))
    announce(
      .gpsLost, kind: .gps, step: currentStep, id: "gps.\(fixes.losses).lost", time: lostAt,
      into: &events)
    planHeadsUps(at: lostAt)
  }

  /// Plans the heads-ups of a vehicle too slow to be carried past a maneuver, at its loss.
  ///
  /// See ``planHeadsUps(since:along:speed:recap:at:)``. A vehicle still joining the route (a
  /// start in a car park) is placed at the route's nearest point to its last fix, if that is
  /// within the off-route threshold.
  private mutating func planHeadsUps(at time: Double) {
    let c = configuration
    guard speed < c.reckonPassSpeed else { return }
    let since: Double
    let along: Double
    switch phase {
    case .onRoute:
      guard let t = position.matchTime else { return }
      since = t
      along = reckoner.carrying?.anchorAlong ?? distanceAlong
    case .joining:
      let threshold = max(c.offRouteMinimumDistance, c.offRouteAccuracyFactor * fixes.accuracy)
      guard let last = fixes.last, let point = last.coordinate,
        let near = matcher.initialMatch(point: point, course: nil, acceptLateral: threshold),
        near.lateral <= threshold
      else { return }
      since = last.time
      along = near.s
    default:
      return
    }
    planHeadsUps(since: since, along: along, speed: speed, recap: true, at: time)
  }

  /// Plans heads-ups for the next maneuvers whose final prompts were not said (naming at most
  /// `reckonManeuvers` that no prompt named before; with `recap`, the first may name again what
  /// prompts did), each once the vehicle may be near it
  /// (``AnnouncementScheduler/headsUpPoint(from:after:position:speed:recap:)``): had it driven
  /// on at once from `along` at `since`, speeding up from `speed` at the estimates' rate to the
  /// speed it may drive at (the highest of the last ``SpeedPeak/seconds``, at least the route's
  /// planned floor).
  private mutating func planHeadsUps(
    since: Double, along: Double, speed: Double, recap: Bool, at time: Double
  ) {
    let v = max(speed, reckoner.peak.speed(span: Double(SpeedPeak.seconds)))
    let from = max(currentStep, geometry.step(containing: along, from: currentStep))
    let reach = Reckoner.Reach(
      since: since, along: along, speed: speed,
      cruise: scheduler.timing(step: from, speed: v).speed, configuration)
    reckoner.headsUp = Reckoner.HeadsUp(
      reach: reach, from: from, through: 0, recap: recap, at: time)
    scheduleHeadsUp(from: time)
  }

  /// Where a vehicle without fixes is placed for its heads-ups: the estimate, if one carries it,
  /// or where it was last seen; and the step it is in.
  private func headsUpPosition(_ h: Reckoner.HeadsUp) -> (along: Double, step: Int) {
    reckoner.isCarrying
      ? (distanceAlong, max(currentStep, h.from)) : (h.reach.anchorAlong, h.from)
  }

  /// Finds when the next heads-up falls due.
  ///
  /// The first time on the estimates' grid, from `time` on (never: infinity); none later than
  /// `reckonHoldOutageSeconds` after the last match. What was said stays noted until the fixes
  /// return (``endHeadsUps()``).
  private mutating func scheduleHeadsUp(from time: Double) {
    guard let h = reckoner.headsUp else { return }
    reckoner.headsUp?.at = .infinity
    guard h.named < configuration.reckonManeuvers else { return }
    let r = h.reach
    let dt = configuration.reckonStep
    let (along, step) = headsUpPosition(h)
    var t = r.anchorTime + ((time - r.anchorTime) / dt).rounded(.up) * dt
    if h.recap {
      if let point = scheduler.headsUpPoint(
        from: step, after: h.through, position: along, speed: r.cruise, recap: true),
        r.along(at: t) >= point
      {
        reckoner.headsUp?.at = t
        return
      }
      reckoner.headsUp?.recap = false
    }
    guard
      let point = scheduler.headsUpPoint(
        from: step, after: h.through, position: along, speed: r.cruise, recap: false)
    else { return }
    while r.along(at: t) < point {
      t += dt
      if t > r.anchorTime + configuration.reckonHoldOutageSeconds { return }
    }
    reckoner.headsUp?.at = t
  }

  /// A usable fix after heads-ups: the maneuvers they named that are still farther than their
  /// prompts' leads (the vehicle stood, or crawled) get those prompts again when due
  /// (``AnnouncementScheduler/reopen(_:distance:speed:)``), with new ids.
  mutating func endHeadsUps() {
    guard let h = reckoner.headsUp else { return }
    reckoner.headsUp = nil
    guard phase == .onRoute, h.through >= max(h.from, currentStep) else { return }
    let along = reckoner.reported(distanceAlong)
    for m in max(h.from, currentStep)...h.through {
      scheduler.reopen(m, distance: geometry.stepEnd[m] - along, speed: speed)
    }
  }

  /// The heads-ups due by `time` (at it too when `inclusive`), marked as estimated: the vehicle
  /// may have moved since its last match, and the distance they say is from there.
  mutating func sayHeadsUps(
    through time: Double, inclusive: Bool, into events: inout [NavigationEvent]
  ) {
    while let h = reckoner.headsUp, inclusive ? h.at <= time : h.at < time {
      let (along, step) = headsUpPosition(h)
      guard phase == .onRoute || phase == .joining,
        let (p, through, new) = scheduler.headsUp(
          from: step, after: h.through, time: h.at, position: along,
          reach: h.reach.along(at: h.at), speed: h.reach.cruise, recap: h.recap,
          loss: fixes.losses)
      else {
        reckoner.headsUp?.recap = false
        scheduleHeadsUp(from: h.at + configuration.reckonStep)
        continue
      }
      reckoner.headsUp?.recap = false
      announce(
        p.message, kind: p.kind, step: p.step, id: p.id, time: h.at, distance: p.distance,
        into: &events)
      events[events.count - 1].estimated = true
      reckoner.headsUp?.named += new
      reckoner.headsUp?.through = through
      scheduleHeadsUp(from: h.at + configuration.reckonStep)
    }
  }

  /// Seconds after its last match a moving vehicle is carried on (the daemon's engine ticks).
  public static let deadReckoningLimit = 300.0

  /// Reports what silence up to `time` means: the estimates due before the loss, the loss, then
  /// those due by `reckonThrough` (at it too when `inclusive`); inlined, as while it was private.
  @inline(__always) mutating func passSilence(
    until time: Double, reckonThrough: Double, inclusive: Bool,
    into events: inout [NavigationEvent]
  ) {
    if !gpsLost, let last = fixes.last, time >= last.time + configuration.gpsLostAfter {
      let lostAt = last.time + configuration.gpsLostAfter
      if reckonThrough < lostAt {
        deadReckon(by: reckonThrough, inclusive: inclusive, into: &events)
      } else {
        deadReckon(by: lostAt, inclusive: false, into: &events)
      }
      checkLoss(at: time, into: &events)
    }
    // Said here when no estimate is made (between estimates otherwise, in time order).
    if reckoner.headsUpDue, !reckoner.isCarrying,
      phase != .onRoute || reckonSpeed == nil
    {
      sayHeadsUps(through: reckonThrough, inclusive: inclusive, into: &events)
    }
    guard reckons(by: reckonThrough) else { return }
    deadReckon(by: reckonThrough, inclusive: inclusive, into: &events)
  }

  /// Whether an estimate can fall due by `time` (asked on every fix, before a reckoner is built).
  @inline(__always) func reckons(by time: Double) -> Bool {
    phase == .onRoute
      && (reckoner.isCarrying
        || position.matchTime.map { time >= $0 + configuration.reckonStart } == true)
  }
  var reckonSpeed: Double? { fixes.carriedSpeed(planned: plannedSpeed, configuration) }

  /// Carries a vehicle without fixes along the route from its last matched position, one
  /// estimate per `reckonStep` due by `time`: each moves the position, passes steps, makes the
  /// announcements due and reports progress, all marked as estimated.
  ///
  /// Only a departed vehicle on the route is carried, for at most ``deadReckoningLimit``
  /// seconds after its last match. The estimate passes `reckonManeuvers` maneuvers at most, and
  /// only at driving speed, `reckonPastManeuver` metres after it; then it waits at the next
  /// maneuver, whose direction nothing tells, and at the route's end: there it arrives only when
  /// the last fix was matched within the arrival radius, widened by its error (into a garage at
  /// the destination). Waiting at a maneuver, it says the next ones as heads-ups: the vehicle
  /// may have driven on.
  mutating func deadReckon(
    by time: Double, inclusive: Bool, into events: inout [NavigationEvent]
  ) {
    guard reckons(by: time) else { return }
    var r: DeadReckoning
    if let carried = reckoner.carrying {
      r = carried
    } else {
      guard let since = position.matchTime, time >= since + configuration.reckonStart,
        let v = reckonSpeed
      else { return }
      r = reckoner.start(
        since: since, along: distanceAlong, speed: v, newest: fixes.last?.time ?? since,
        after: max(fixes.lastInputTime ?? since, since), lead: fixes.lead,
        fixInterval: fixInterval, configuration)
      if case .settling(let floor, _) = reckoner.mode { r.floor = floor }
    }
    let c = configuration
    let first = events.count
    while let t = r.next(by: time, inclusive: inclusive, limit: Self.deadReckoningLimit) {
      let target = r.along(at: t)
      let v = r.speed(at: t)
      // The last match within the arrival radius of the end, widened by the fix's error.
      if currentStep == lastStep, target >= geometry.length,
        geometry.length - r.anchorAlong
          <= min(
            c.arrivalRadiusLimit,
            scheduler.limits(step: lastStep).arrivalRadius + fixes.accuracy)
      {
        distanceAlong = geometry.length
        arrive(time: t, distance: 0, into: &events)
        break
      }
      let mayPass = r.passed < c.reckonManeuvers && v >= c.reckonPassSpeed
      if currentStep < lastStep, mayPass,
        target > geometry.stepEnd[currentStep] + c.reckonPastManeuver
      {
        r.passedManeuver(at: t)
        distanceAlong = min(target, geometry.stepEnd[currentStep + 1])
        advanceSteps(time: t, into: &events)
      }
      // Waiting at a maneuver it may not pass, the vehicle may well drive on: once GPS is lost
      // (whose heads-ups come first), what comes after it is said as heads-ups, once the vehicle
      // may be near.
      if !mayPass, gpsLost, reckoner.headsUp == nil, currentStep < lastStep,
        target >= geometry.stepEnd[currentStep]
      {
        planHeadsUps(since: t, along: geometry.stepEnd[currentStep], speed: v, recap: false, at: t)
      }
      distanceAlong = max(distanceAlong, min(target, geometry.stepEnd[currentStep]))
      position.segment = geometry.segment(containing: distanceAlong, from: position.segment)
      position.lateral = 0
      // Timed a little early: a vehicle may have sped up in the dark, never slowed for us.
      let early = min(c.reckonEarlySeconds, c.reckonEarlyRate * (t - r.anchorTime))
      let at = min(distanceAlong + v * early, geometry.stepEnd[currentStep])
      // The final prompts are timed for the soonest vehicle, which passes no maneuver the
      // estimate may not pass either.
      let fast = r.soonestSpeed(at: t)
      let passable =
        currentStep < lastStep && r.passed < c.reckonManeuvers
        ? geometry.stepEnd[currentStep + 1] : geometry.stepEnd[currentStep]
      let soonest = min(r.soonestAlong(at: t) + fast * early, passable)
      announcements(
        time: t, position: at, speed: max(v, fast), leadSpeed: r.leadSpeed(at: t, c),
        finalAhead: max(0, soonest - at), interval: c.reckonStep, into: &events)
      watchAhead(time: t, into: &events)
      if reckoner.headsUpDue {
        sayHeadsUps(through: t, inclusive: true, into: &events)
      }
      let point = geometry.coordinate(at: distanceAlong, hint: position.segment)
      let estimate = Fix(time: t, coordinate: point, speed: v, quality: .deadReckoning)
      appendProgress(point, estimate, into: &events)
    }
    for i in first..<events.count { events[i].estimated = true }
    // A reckoning starts with its first estimate (until then, a settling position stays).
    if r.started { reckoner.mode = .carrying(r) }
  }

  /// Where the step being travelled starts along the route, metres.
  var stepStart: Double { currentStep > 0 ? geometry.stepEnd[currentStep - 1] : 0 }

  /// Whether the vehicle, matched behind `along`, gets there within `reckonHoldSeconds`
  /// (``GuidanceConfiguration/holdDistance(speed:)``).
  func reaches(_ along: Double) -> Bool {
    along - distanceAlong <= configuration.holdDistance(speed: speed)
  }

  /// The fixes came back behind maneuvers the estimate passed (`passed` of them), too far to
  /// reach them soon (a car stuck in a queue in a tunnel) or farther than the last one's final
  /// prompt falls due (a car that stopped before it): guidance steps back.
  ///
  /// The step the vehicle is in is the current one again, the position is where it is, and the
  /// prompts of the maneuvers between that are due again are said again. A jump back, where a
  /// position held would be beyond a maneuver not reached, that maneuver said long before it.
  mutating func stepBack(passed: Int, time: Double, into events: inout [NavigationEvent]) {
    let ahead = currentStep
    while currentStep > max(1, ahead - passed), distanceAlong <= stepStart { currentStep -= 1 }
    guard currentStep < ahead else { return }
    reckoner.mode = .off
    events.append(NavigationEvent(time: time, kind: .step(currentStep)))
    for m in currentStep..<ahead { scheduler.unpass(m) }
    for m in currentStep + 1...ahead {
      scheduler.reopen(m, distance: geometry.stepEnd[m] - distanceAlong, speed: speed)
    }
  }

  /// A usable fix after a stretch without: the position goes back to the last match, from which
  /// the fix is matched as after any gap; returns the last estimate (`nil`: there was none).
  mutating func endReckoning() -> Reckoning.Estimate? {
    guard let end = reckoner.end(at: distanceAlong) else { return nil }
    distanceAlong = end.anchor
    position.segment = geometry.segment(containing: distanceAlong, from: position.segment)
    return end.estimate
  }
}
