import Geodesy
import GuidanceSettings
import Matching
import Returning
import RouteShape
import Routes

/// Matching: where each fix puts the vehicle on its route, by phase (departing, joining, on
/// the route, off it), and the moves between phases that matching decides.
extension NavigationSession {
  mutating func depart(
    _ fix: Fix, start: SessionState.Start, point: Coordinate, course: Double?, threshold: Double,
    into events: inout [NavigationEvent]
  ) {
    state = .onRoute(.init())
    position.matchTime = fix.time
    if let c = matcher.initialMatch(point: point, course: course, acceptLateral: threshold) {
      position.lateral = c.lateral
      if c.lateral > threshold * configuration.onRouteHysteresis
        || laterPass(c, point: point, threshold: threshold)
      {
        // Beside the route (a car park, a driveway): heading to it, not off it.
        state = .joining(reacquiring: false)
      } else {
        distanceAlong = c.s
        position.segment = c.segment
      }
    }
    currentStep = geometry.step(containing: distanceAlong, from: 1)
    // Everything before the starting step is behind us: never an announcement for it.
    scheduler.markPassed(0..<currentStep)
    var advisories = route.advisoryNotices
    advisories.removeAll { $0.isEmpty }
    if case .departure = start,
      distanceAlong < geometry.stepEnd[min(1, lastStep)] || currentStep == 1
    {
      announce(
        .depart(source: document.source.name, tolls: route.hasTolls, advisories: advisories),
        kind: .depart, step: 0, id: "depart", time: fix.time, into: &events)
    }
    events.append(NavigationEvent(time: fix.time, kind: .step(currentStep)))
    if case .newRoute(announced: true) = start { announceNewRoute(time: fix.time, into: &events) }
    stepStarted(currentStep, time: fix.time, into: &events)
  }

  /// Heading to the route from beside it: the vehicle joins where it first comes close, by
  /// distance first (or at a steady offset along it, in a canyon); the steps before are behind.
  ///
  /// A steady offset counts only beside the route: a fix whose nearest point is the route's
  /// start lies before it (a car park, a vehicle circling in it), where a course that happens
  /// to follow the route's first bearing for two fixes says nothing.
  mutating func join(
    _ fix: Fix, point: Coordinate, course: Double?, threshold: Double, reacquiring: Bool,
    into events: inout [NavigationEvent]
  ) {
    let best = matcher.initialMatch(point: point, course: nil, acceptLateral: threshold)
    position.lateral = best?.lateral ?? .infinity
    let close =
      best.map {
        ($0.lateral <= threshold * configuration.onRouteHysteresis
          || ($0.s > 0
            && deviation.isBias(
              lateral: $0.lateral, point: point, course: course, match: $0, time: fix.time,
              accuracy: fixes.accuracy, speed: speed)))
          && !laterPass($0, point: point, threshold: threshold)
      } ?? false
    guard detector.observeReturn(close: close), let c = best else { return }
    rejoin(at: c, time: fix.time, reacquiring: reacquiring)
    skipTo(
      step: geometry.step(containing: distanceAlong, from: currentStep), time: fix.time,
      into: &events)
  }

  /// Whether `c` is a later pass of the route for a vehicle yet to leave its start.
  ///
  /// Within the largest bias of the start, `c` farther along than the start's distance allows
  /// (a route that loops back past the car park it starts from): the vehicle is beside the
  /// start, heading to it, and joins where it comes close. Its course says nothing there (a way
  /// out of a car park may run along the later pass before it turns to the start); a vehicle
  /// that takes the later pass joins it once it is farther from the start than that.
  private func laterPass(_ c: MatchCandidate, point: Coordinate, threshold: Double) -> Bool {
    guard distanceAlong == 0, currentStep <= 1 else { return false }
    let toStart = point.distance(to: geometry.points[0])
    return toStart <= configuration.maximumBias && c.s > toStart + c.lateral + threshold
  }

  private func window(dt: Double, speed: Double, accuracy: Double) -> (
    back: Double, ahead: Double
  ) {
    let c = configuration
    let v = max(speed, c.windowMinimumSpeed)
    let ahead =
      v * max(dt, 1) * c.windowAheadFactor + c.windowAheadMargin + c.windowAccuracyAhead * accuracy
    // After a restart the vehicle may have gone on at up to motorway speed meanwhile. (Asked on
    // the route only: a test of that case alone, not of every state's payload.)
    if case .onRoute(let on) = state, on.reacquiring {
      return (
        c.reacquireBehind + c.windowAccuracyBehind * accuracy,
        max(ahead, c.reacquireSpeed * dt + c.reacquireMargin)
      )
    }
    return (c.windowBehind + c.windowAccuracyBehind * accuracy, ahead)
  }

  /// Where a vehicle found again where it stood is on the route: where it stood.
  ///
  /// A fix between two passes of the route (the way back of an out-and-back, a loop) may lie
  /// nearer the later one; nothing says the vehicle went round meanwhile, and it must pass the
  /// earlier one first. Asked when it stood as the fixes stopped. `nil` when the fix is not
  /// where the vehicle stood (within `threshold` of its match), or not beside the route there.
  private func stoodWhereItWas(_ query: MatchQuery, point: Coordinate, threshold: Double)
    -> MatchCandidate?
  {
    let stood = geometry.coordinate(at: distanceAlong, hint: position.segment)
    guard !point.distance(to: stood, exceeds: threshold) else { return nil }
    var here = query
    here.window = query.window.lowerBound...max(query.window.lowerBound, distanceAlong + threshold)
    return matcher.match(here, hint: position.segment).flatMap {
      $0.lateral <= threshold ? $0 : nil
    }
  }

  /// Takes the match of an echo of the receiver's last new fix, which carries it `distance`
  /// metres on: once an echo lies farther from the route than that fix did, beyond what rounding
  /// leaves (a straight line the road curves away from), the receiver coasts without sky.
  ///
  /// The echo was matched like any fix (no second look-up): the first to leave is at most a
  /// second's drift beyond the fix it repeats, well inside the off-route distance.
  mutating func noteEcho(carrying distance: Double) {
    guard phase == .onRoute, fixes.origin != nil else { return }
    let reach =
      fixes.originLateral + configuration.echoTolerance
      + configuration.echoToleranceShare * distance
    if position.lateral > reach { fixes.coasting = true }
  }

  mutating func followOnRoute(
    _ fix: Fix, point: Coordinate, course: Double?, matchCourse: Double?, dt: Double,
    carried: Double?, speedBefore: Double, accuracy: Double,
    threshold: Double, standing: Bool, into events: inout [NavigationEvent]
  ) {
    // After a gap, a vehicle slow when the fixes stopped may have driven off at the route's speed
    // any time since: the window reaches that far, and the prediction is that uncertain.
    let gap = dt > configuration.gpsLostAfter
    let reach = gap ? max(carried ?? 0, plannedSpeed) : carried ?? 0
    // The matched position is where the vehicle was at its last match, which fixes put beside
    // the route since (off-route evidence, a glitch as the first fix after a gap) did not
    // move: it has gone on for all that time, not only since the last fix.
    let span =
      position.matchTime.map { min(configuration.longestGap, max(dt, fix.time - $0)) } ?? dt
    var w = window(dt: span, speed: reach, accuracy: accuracy)
    // … but no farther than a car can have got from the speed it had to the one it is back at.
    if gap, !state.reacquiring, let back = fix.speed, back.isFinite, back >= 0 {
      let c = configuration
      let most = farthestDistance(
        from: speedBefore + c.gapSpeedMargin, to: back + c.gapSpeedMargin, in: span,
        accelerating: c.gapAcceleration, braking: c.gapBraking)
      w.ahead = min(w.ahead, most + c.windowAheadMargin + c.windowAccuracyAhead * accuracy)
    }
    // One that comes back slower than it was carried slowed at some moment in the dark: it is
    // anywhere between the distances at the two speeds, expected halfway.
    let slowed = max(0, (carried ?? speed) - speed) / 2
    let query = MatchQuery(
      point: point, course: matchCourse,
      window: (distanceAlong - w.back)...(distanceAlong + w.ahead),
      predicted: distanceAlong + ((carried ?? 0) - slowed) * span,
      sigmaLateral: max(configuration.minimumLateralSigma, accuracy),
      sigmaAlong: carried == nil
        ? .infinity
        : configuration.alongSigma + configuration.alongSigmaTravel * reach * span + accuracy
          + slowed * span)
    var best =
      (carried == nil && gap
        ? stoodWhereItWas(query, point: point, threshold: threshold) : nil)
      ?? matcher.match(
        query, hint: position.segment, course: course, along: configuration.rejoinHeadingDegrees)
    // Back after a gap behind a maneuver the estimate passed, and going another way than that
    // place runs: the first fixes back can be tens of metres off (few satellites yet), their
    // course is not. The best place not behind the maneuver that the course runs along wins.
    if gap, let b = best, let course, currentStep > 1,
      case let passed = stepStart, b.s < passed,
      bearingDifference(course, geometry.bearings[b.segment]) > configuration.rejoinHeadingDegrees
    {
      var ahead = query
      ahead.window = passed...max(passed, query.window.upperBound)
      best =
        matcher.match(
          ahead, hint: position.segment, runningAlong: course,
          within: configuration.rejoinHeadingDegrees) ?? b
    }
    deviation.shortcut.note(point, time: fix.time, span: configuration.movementSeconds)
    // Below the speed its course is trusted at, the way the fixes moved, else the receiver's.
    let found = deviation.shortcut.candidate(
      best: best, from: distanceAlong, hint: position.segment, step: currentStep, point: point,
      course: course
        ?? (standing
          ? nil : deviation.shortcut.movedCourse(configuration: configuration) ?? fix.course),
      accuracy: accuracy, threshold: threshold, matcher: matcher, steps: route.steps,
      configuration: configuration)
    if let cut = deviation.shortcut.confirm(found, needed: configuration.shortcutFixes) {
      best = cut
    }
    let lateral = best?.lateral ?? .infinity
    position.lateral = lateral
    // A vehicle that never yet moved along the route, with a fix before its start and within
    // the largest bias of it, is still in the car park it pulls out of (circling, turning):
    // heading to the route, no evidence of leaving it.
    let beforeStart =
      distanceAlong <= 0
      && best.map { $0.s <= 0 && $0.lateral <= configuration.maximumBias } == true
    let holding = fix.quality == .deadReckoning || standing || beforeStart
    // Around a maneuver a wrong turn must be caught quickly, so the distance is smaller there
    // (as Mapbox halves its radius near intersections); it still scales with the accuracy.
    // Not around the start, though: the departure is no turn to miss, and a vehicle there is
    // often still pulling out of a car park or a drive beside the route.
    let toNext = abs(geometry.stepEnd[currentStep] - distanceAlong)
    let nearest = min(toNext, abs(geometry.stepEnd[currentStep - 1] - distanceAlong))
    let nearestTurn = currentStep > 1 ? nearest : toNext
    // … for a vehicle at speed: one creeping, well below the slowest speed its mode's
    // announcements assume (turning round, in a car park), covers few metres in the time the
    // usual distance takes, and strays farther as it manoeuvres. (Asked only near a maneuver.)
    let limit =
      nearestTurn < configuration.maneuverZone
        && !(speed
          < scheduler.limits(step: currentStep).minimumSpeed / 2)
      ? max(
        configuration.offRouteNearManeuverDistance, configuration.offRouteAccuracyFactor * accuracy)
      : threshold
    deviation.noteLateral(lateral, time: fix.time)
    // A steady offset along the route is the receiver's bias or the route's chord, not a
    // departure: progress goes on, and no evidence counts.
    let biased =
      lateral > limit
      && best.map {
        deviation.isBias(
          lateral: lateral, point: point, course: course, match: $0, time: fix.time,
          accuracy: accuracy,
          speed: speed, nearManeuver: nearest <= configuration.chordZone)
      } == true
    let away = lateral > limit && !biased
    let against =
      !away && !holding && (best?.headingError).map { $0 > configuration.wrongWayDegrees } == true
    if let reason = detector.observe(
      away: away, wrongWay: against, holding: holding, time: fix.time,
      headingError: best?.headingError, speed: speed, travelled: speed * dt)
    {
      enterOffRoute(time: fix.time, lateral: lateral, reason: reason, into: &events)
      return
    }
    guard let c = best, !away else { return }
    if case .onRoute(var on) = state, on.reacquiring {
      on.reacquiring = false
      state = .onRoute(on)
    }
    if standing && abs(c.s - distanceAlong) < 2 * accuracy {
      position.matchTime = fix.time
      return
    }
    position.match(c, time: fix.time)
  }

  private mutating func enterOffRoute(
    time: Double, lateral: Double, reason: OffRouteReason = .distance,
    into events: inout [NavigationEvent]
  ) {
    // The vehicle may already be well ahead of the last match (a long tunnel, a gap).
    let since = position.matchTime.map { max(0, time - $0) } ?? 0
    state = .offRoute(
      SessionState.Box(
        .init(
          anchor: distanceAlong,
          travel: max(speed, plannedSpeed, configuration.windowMinimumSpeed) * since
            * configuration.offTravelFactor,
          guide: ReturnGuide(configuration: configuration.returning),
          reacquiring: state.reacquiring)))
    let spoken = detector.leave(time: time)
    let d = lateral.isFinite ? lateral : 0
    events.append(NavigationEvent(time: time, kind: .offRoute(distance: d, reason: reason)))
    guard spoken else { return }
    announce(
      .offRoute(distance: d), kind: .offRoute, step: currentStep,
      id: "offroute.\(detector.count)", time: time, into: &events)
  }

  mutating func followOffRoute(
    _ fix: Fix, point: Coordinate, course: Double?, dt: Double, accuracy: Double,
    threshold: Double, into events: inout [NavigationEvent]
  ) {
    let cf = configuration
    let moved = max(speed, cf.offRouteMinimumSpeed) * dt
    guard
      let off = state.modifyOffRoute({
        $0.travel += moved
        return (anchor: $0.anchor, travel: $0.travel, reacquiring: $0.reacquiring)
      })
    else { return }
    // The vehicle can only have rejoined where it could have driven to since leaving.
    let ahead = min(
      off.travel * cf.rejoinTravelFactor + cf.rejoinMargin + cf.windowAccuracyAhead * accuracy,
      cf.rejoinReach)
    let anchor = off.anchor
    let query = MatchQuery(
      point: point, course: course,
      window: (anchor - cf.rejoinBehind - cf.windowAccuracyBehind * accuracy)...(anchor + ahead),
      predicted: anchor, sigmaLateral: max(cf.minimumLateralSigma, accuracy),
      sigmaAlong: .infinity)
    let best = matcher.match(query, hint: position.segment)
    position.lateral = best?.lateral ?? .infinity
    deviation.noteLateral(position.lateral, time: fix.time)
    // Back well inside the off-route distance, or inside it at a steady offset along the
    // route (a canyon's bias does not end with the detour).
    let close =
      best.map {
        ($0.lateral <= threshold * cf.onRouteHysteresis
          || ($0.lateral <= threshold
            && deviation.isBias(
              lateral: $0.lateral, point: point, course: course, match: $0, time: fix.time,
              accuracy: accuracy, speed: speed)))
          && ($0.headingError ?? 0) < cf.rejoinHeadingDegrees
      } ?? false
    guard detector.observeReturn(close: close), let c = best else { return }
    rejoin(at: c, time: fix.time, reacquiring: off.reacquiring)
    events.append(NavigationEvent(time: fix.time, kind: .onRoute))
    announce(
      .backOnRoute, kind: .onRoute, step: currentStep, id: "onroute.\(detector.count)",
      time: fix.time, into: &events)
    // Rejoining ahead skips maneuvers that were bypassed: they are never announced.
    skipTo(
      step: geometry.step(containing: distanceAlong, from: currentStep), time: fix.time,
      into: &events)
  }

  /// Back on the route (from beside it or off it), matched at `c`.
  private mutating func rejoin(at c: MatchCandidate, time: Double, reacquiring: Bool) {
    state = .onRoute(.init(reacquiring: reacquiring))
    position.match(c, time: time)
  }

  /// Makes `step` the current one when it is ahead: the steps before it are behind the vehicle,
  /// never announced.
  private mutating func skipTo(step: Int, time: Double, into events: inout [NavigationEvent]) {
    guard step > currentStep else { return }
    scheduler.markPassed(currentStep..<step)
    currentStep = step
    events.append(NavigationEvent(time: time, kind: .step(step)))
    stepStarted(step, time: time, into: &events)
  }
}
