import GuidanceSettings

/// The evidence for leaving the route and for coming back to it, fix by fix.
///
/// A departure needs `offRouteFixes` consecutive fixes beyond the off-route distance lasting
/// `offRouteSeconds`, or a wrong way (``WrongWayRule``). A return needs `onRouteFixes` consecutive fixes well inside the distance (hysteresis), so
/// the state cannot flap. The detector decides; the session matches and speaks.
struct OffRouteDetector: Sendable {
  let configuration: GuidanceConfiguration
  /// Departures from the route so far; they number the `offroute` announcement ids.
  private(set) var count = 0
  private var evidence = 0
  private var since: Double?
  private var backward: WrongWayRule
  private var returning = Streak()
  private var lastWarning: Double?

  init(configuration: GuidanceConfiguration, count: Int = 0) {
    self.configuration = configuration
    self.count = count
    backward = WrongWayRule(configuration: configuration)
  }

  /// Whether fixes away from the route were seen that are not yet enough to leave it.
  var suspecting: Bool { evidence > 0 || backward.suspecting }

  /// A detector for a route that replaces this one: the departures so far keep numbering the
  /// announcement ids, and "off the route" is not said again right after the new route.
  func carriedOver() -> OffRouteDetector {
    var next = OffRouteDetector(configuration: configuration, count: count)
    next.lastWarning = lastWarning
    return next
  }

  /// While the signal is gone, evidence for leaving the route is put on hold.
  mutating func suspend() {
    evidence = 0
    since = nil
    backward.reset()
  }

  /// Weighs one fix on the route; returns why the vehicle has now left it, `nil` while it has
  /// not.
  ///
  /// - Parameters:
  ///   - away: the fix is beyond the off-route distance.
  ///   - against: the fix is close but its course is against the route.
  ///   - holding: the fix says nothing either way (standing, dead-reckoned position).
  ///   - time: the fix's time, seconds.
  ///   - headingError: degrees between the trusted course and the matched segment's bearing.
  ///   - speed: metres per second.
  ///   - travelled: metres since the previous fix.
  /// - Returns: why the vehicle has now left the route, `nil` while it has not.
  mutating func observe(
    away: Bool, wrongWay against: Bool, holding: Bool, time: Double, headingError: Double?,
    speed: Double, travelled: Double
  ) -> OffRouteReason? {
    let back = backward.observe(
      headingError: headingError, against: against, speed: speed, travelled: travelled,
      holding: holding)
    if away && !holding {
      evidence += 1
      if since == nil { since = time }
    } else if !away {
      evidence = 0
      since = nil
    }
    let enough =
      evidence >= configuration.offRouteFixes
      && time - (since ?? time) >= configuration.offRouteSeconds
    if enough { return .distance }
    return back ? .wrongWay : nil
  }

  /// Records a departure at `time`; returns whether it should be spoken (warnings are spaced by
  /// `offRouteAnnouncementInterval`).
  mutating func leave(time: Double) -> Bool {
    count += 1
    returning.reset()
    suspend()
    if let last = lastWarning, time - last < configuration.offRouteAnnouncementInterval {
      return false
    }
    lastWarning = time
    return true
  }

  /// Weighs one fix off the route; returns whether the vehicle is back on it.
  mutating func observeReturn(close: Bool) -> Bool {
    returning.observe(close, needed: configuration.onRouteFixes)
  }
}

/// Fixes in a row that say the same thing: enough of them decide, one that does not starts
/// the count again.
struct Streak: Sendable, Equatable {
  private(set) var count = 0

  /// Counts one fix; returns true (and starts again) when `needed` in a row said `yes`.
  mutating func observe(_ yes: Bool, needed: Int) -> Bool {
    guard yes else {
      count = 0
      return false
    }
    count += 1
    guard count >= needed else { return false }
    count = 0
    return true
  }

  mutating func reset() { count = 0 }
}
