import GuidanceSettings

/// Why guidance says the vehicle has left its route.
public enum OffRouteReason: String, Sendable, Hashable, CaseIterable {
  /// Its fixes lay beyond the off-route distance.
  case distance
  /// It drives back along the route inside the off-route distance (a U-turn on its road).
  case wrongWay
}

/// Driving back along the route: a course against the matched segment's bearing, kept up.
///
/// A vehicle that turned round on the route's road stays inside the off-route distance, so only
/// its course tells. Either of two clauses is enough.
///
/// *Slow or oblique:* `wrongWayFixes` fixes in a row, close to the route, whose course lies more
/// than `wrongWayDegrees` off it, at any speed; a fix that says nothing (standing, dead reckoning)
/// neither counts nor breaks the row.
///
/// *At speed, sooner:* the rule needs `wrongWayOppositeFixes` fixes whose course, at
/// `wrongWayMinimumSpeed` or more, lies more than `wrongWayOppositeDegrees` off the segment they
/// matched, and `wrongWayDistance` metres driven since the first of them. Fixes in between that
/// say nothing clear (a corner, where the match falls on a segment across the course, or a course
/// too slow to trust) neither count nor break the evidence; one fix moving along the route (within
/// `rejoinHeadingDegrees`) clears it, and so does the signal going. Standing still and
/// dead-reckoned fixes are put aside. A route that doubles back on its own road (out and back) is
/// matched on the leg the vehicle drives, whose bearing agrees with its course, and loops, hairpins
/// and roundabouts are followed segment by segment the same way: none of them gives opposite
/// fixes over a distance without one along the route in between.
struct WrongWayRule: Sendable {
  let configuration: GuidanceConfiguration
  /// Fixes against the route in a row (the slow clause).
  private var inARow = 0
  /// Opposite fixes so far (the clause at speed).
  private var opposite = 0
  /// Metres driven since the first of them.
  private var metres = 0.0

  init(configuration: GuidanceConfiguration) {
    self.configuration = configuration
  }

  /// Whether opposite fixes were seen that are not yet enough.
  var suspecting: Bool { inARow > 0 || opposite > 0 }

  /// Clears the evidence.
  mutating func reset() {
    inARow = 0
    clearAtSpeed()
  }

  private mutating func clearAtSpeed() {
    opposite = 0
    metres = 0
  }

  /// Weighs one fix on the route; returns whether the vehicle now drives the wrong way.
  ///
  /// - Parameters:
  ///   - headingError: degrees between the fix's course and the bearing of the segment it
  ///     matched, `nil` without a trusted course.
  ///   - against: the fix is close to the route but its course is more than `wrongWayDegrees`
  ///     off the segment it matched.
  ///   - speed: metres per second.
  ///   - travelled: metres since the previous fix.
  ///   - holding: the fix says nothing either way (standing, dead-reckoned position).
  /// - Returns: whether the vehicle now drives the wrong way.
  mutating func observe(
    headingError: Double?, against: Bool, speed: Double, travelled: Double, holding: Bool
  ) -> Bool {
    if against {
      inARow += 1
    } else if !holding {
      inARow = 0
    }
    let slow = inARow >= configuration.wrongWayFixes
    return atSpeed(headingError: headingError, speed: speed, travelled: travelled, holding: holding)
      || slow
  }

  private mutating func atSpeed(
    headingError: Double?, speed: Double, travelled: Double, holding: Bool
  ) -> Bool {
    guard !holding else { return false }
    let c = configuration
    if let h = headingError, h < c.rejoinHeadingDegrees {
      clearAtSpeed()
      return false
    }
    if let h = headingError, speed >= c.wrongWayMinimumSpeed, h > c.wrongWayOppositeDegrees {
      opposite += 1
    } else if opposite == 0 {
      return false
    }
    metres += travelled
    return opposite >= c.wrongWayOppositeFixes && metres >= c.wrongWayDistance
  }
}
