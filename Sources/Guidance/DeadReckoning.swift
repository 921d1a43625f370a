/// Where a vehicle without fixes is estimated to be: carried along the route from its last
/// matched position at the speed it had, one estimate per second of the fix clock.
///
/// A vehicle that was slowing down when the fixes stopped (braking for a maneuver) is taken to
/// speed up again, gently, to the highest speed it had just before; one at a steady speed keeps
/// it.
///
/// The estimates fall on a grid of whole `step`s after the last matched fix, never on the times
/// the edge happens to look (an epoch without a fix, a live engine's tick, a replay's silence),
/// so a live run and every replay of the same track make the same estimates at the same times.
struct DeadReckoning: Sendable, Equatable {
  /// The last matched fix: its time and metres along the route.
  let anchorTime: Double
  let anchorAlong: Double
  /// Metres per second at the anchor, the speed it tends to, and how fast (m/s²).
  let speed: Double
  let cruise: Double
  let acceleration: Double
  /// Seconds between estimates.
  let step: Double
  /// The first estimate is made this long after the anchor.
  let start: Double
  /// Time of the last estimate made, or before the first the time after which they start.
  private(set) var through: Double
  /// Maneuvers passed on the estimate alone.
  var passed: Int
  /// Whether an estimate was made yet.
  private(set) var started = false

  init(
    anchorTime: Double, anchorAlong: Double, speed: Double, cruise: Double,
    acceleration: Double, step: Double, start: Double, after: Double, passed: Int = 0
  ) {
    self.anchorTime = anchorTime
    self.anchorAlong = anchorAlong
    self.speed = speed
    self.cruise = max(speed, cruise)
    self.acceleration = acceleration
    self.step = step
    self.start = start
    self.through = max(anchorTime, after)
    self.passed = passed
  }

  /// The next estimate's time if it is due by `time` (before it, or at it when `inclusive`),
  /// and no later than `limit` seconds after the anchor; marks it made.
  mutating func next(by time: Double, inclusive: Bool, limit: Double) -> Double? {
    let k = max(((through - anchorTime) / step).rounded(.down) + 1, (start / step).rounded(.up))
    let t = anchorTime + k * step
    guard k * step <= limit, inclusive ? t <= time : t < time else { return nil }
    through = t
    started = true
    return t
  }

  /// Seconds it takes to reach `cruise`.
  private var speedUpTime: Double {
    acceleration > 0 ? (cruise - speed) / acceleration : 0
  }

  /// Metres per second at `time`.
  func speed(at time: Double) -> Double {
    acceleration > 0 ? min(cruise, speed + acceleration * max(0, time - anchorTime)) : speed
  }

  /// Metres along the route at `time`.
  func along(at time: Double) -> Double {
    let t = max(0, time - anchorTime)
    let up = min(t, speedUpTime)
    return anchorAlong + speed * up + acceleration * up * up / 2 + speed(at: time) * (t - up)
  }
}

/// What the session does about a vehicle it has no fixes for.
enum Reckoning: Sendable, Equatable {
  /// Fixes come: nothing is estimated.
  case off
  /// Fixes stopped: the position is carried along the route.
  case carrying(DeadReckoning)
  /// Fixes are back and placed the vehicle behind the last estimate: the position reported
  /// stays at `floor` until the vehicle passes it, so it never jumps backwards.
  case settling(floor: Double)
}

/// The highest speed of the last few seconds of fixes (a sliding maximum: the speeds kept
/// only decrease, so the list stays short).
struct SpeedPeak: Sendable, Equatable {
  private var kept: [Sample] = []

  private struct Sample: Sendable, Equatable {
    var time: Double
    var speed: Double
  }

  /// The highest speed noted within the span, 0 before any.
  var speed: Double { kept.first?.speed ?? 0 }

  mutating func note(_ v: Double, time t: Double, span: Double) {
    while let last = kept.last, last.speed <= v || last.time > t { kept.removeLast() }
    kept.append(Sample(time: t, speed: v))
    while let first = kept.first, first.time < t - span { kept.removeFirst() }
  }
}
