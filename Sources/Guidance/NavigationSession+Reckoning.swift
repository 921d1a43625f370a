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
    guard reckons(by: reckonThrough) else { return }
    deadReckon(by: reckonThrough, inclusive: inclusive, into: &events)
  }

  /// Whether an estimate can fall due by `time` (asked on every fix, before a reckoner is built).
  @inline(__always) func reckons(by time: Double) -> Bool {
    phase == .onRoute
      && (reckoner.carrying != nil
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
  /// maneuver, whose direction nothing tells, and at the route's end (arrival needs a fix).
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
        after: max(fixes.lastInputTime ?? since, since), fixInterval: fixInterval, configuration)
      if case .settling(let floor, _) = reckoner.mode { r.floor = floor }
    }
    let c = configuration
    let first = events.count
    while let t = r.next(by: time, inclusive: inclusive, limit: Self.deadReckoningLimit) {
      let target = r.along(at: t)
      let v = r.speed(at: t)
      if currentStep < lastStep, r.passed < c.reckonManeuvers, v >= c.reckonPassSpeed,
        target > geometry.stepEnd[currentStep] + c.reckonPastManeuver
      {
        r.passedManeuver(at: t)
        distanceAlong = min(target, geometry.stepEnd[currentStep + 1])
        advanceSteps(time: t, into: &events)
      }
      distanceAlong = max(distanceAlong, min(target, geometry.stepEnd[currentStep]))
      position.segment = geometry.segment(containing: distanceAlong, from: position.segment)
      position.lateral = 0
      // Timed a little early: a vehicle may have sped up in the dark, never slowed for us.
      let early = v * min(c.reckonEarlySeconds, c.reckonEarlyRate * (t - r.anchorTime))
      announcements(
        time: t, position: min(distanceAlong + early, geometry.stepEnd[currentStep]), speed: v,
        leadSpeed: fixes.leadSpeed(at: v), into: &events)
      watchAhead(time: t, into: &events)
      let point = geometry.coordinate(at: distanceAlong, hint: position.segment)
      let estimate = Fix(time: t, coordinate: point, speed: v, quality: .deadReckoning)
      events.append(NavigationEvent(time: t, kind: .progress(progress(point, estimate))))
    }
    for i in first..<events.count { events[i].estimated = true }
    // A reckoning starts with its first estimate (until then, a settling position stays).
    if r.started { reckoner.mode = .carrying(r) }
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
