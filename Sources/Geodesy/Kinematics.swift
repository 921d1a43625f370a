// How far and how fast a vehicle can go: the kinematics dead reckoning and matching after a
// gap rest on.

/// The most metres a vehicle covers in `seconds` from speed `start` to speed `end` (m/s).
///
/// It speeds up at `a` m/s², the most it can, then brakes at `b`, the most it can, to `end`.
/// Infinite when `end` cannot be reached from `start` in that time (a speed in error).
public func farthestDistance(
  from start: Double, to end: Double, in seconds: Double, accelerating a: Double,
  braking b: Double
) -> Double {
  // The peak speed of that profile: (peak - start) / a + (peak - end) / b = seconds.
  let peak = (seconds + start / a + end / b) / (1 / a + 1 / b)
  guard a > 0, b > 0, seconds >= 0, peak >= max(start, end) else { return .infinity }
  return (peak * peak - start * start) / (2 * a) + (peak * peak - end * end) / (2 * b)
}

/// A vehicle's speed from its last matched fix on: `speed` until `upAt` seconds after it (never
/// when infinite), then up to `cruise` at `acceleration` m/s².
public struct SpeedCurve: Sendable, Equatable {
  public let speed: Double
  public let cruise: Double
  public let acceleration: Double
  public private(set) var upAt: Double

  public init(speed: Double, cruise: Double, acceleration: Double, upAt: Double) {
    self.speed = speed
    self.cruise = max(speed, cruise)
    self.acceleration = acceleration
    self.upAt = max(0, upAt)
  }

  /// A vehicle that keeps `speed`.
  public static func keeping(_ speed: Double) -> SpeedCurve {
    SpeedCurve(speed: speed, cruise: speed, acceleration: 0, upAt: .infinity)
  }

  /// It speeds up from `t` seconds after the anchor, unless it does earlier.
  public mutating func speedUp(at t: Double) { upAt = min(upAt, max(0, t)) }

  /// Seconds it takes to reach `cruise`.
  private var speedUpTime: Double {
    acceleration > 0 ? (cruise - speed) / acceleration : 0
  }

  /// Metres per second `t` seconds after the anchor.
  public func speed(after t: Double) -> Double {
    let up = t - upAt
    return acceleration > 0 && up > 0 ? min(cruise, speed + acceleration * up) : speed
  }

  /// Metres covered in the `t` seconds after the anchor.
  public func distance(after t: Double) -> Double {
    let held = max(0, min(t, upAt))
    let rising = max(0, t - upAt)
    let up = min(rising, speedUpTime)
    return speed * held + speed * up + acceleration * up * up / 2
      + speed(after: t) * (rising - up)
  }
}
