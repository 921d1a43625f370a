import Geodesy
import GuidanceSettings

/// Where a vehicle without fixes is estimated to be: carried along the route from its last
/// matched position at the speed it had, one estimate per second of the fix clock.
///
/// Two curves go on from the last matched fix, because a prompt late costs more than one early:
/// - the **likely** one places the vehicle, times the early prompts (prepare, approach) and
///   passes maneuvers: it keeps the speed the vehicle had (a vehicle still speeding up when its
///   fixes stopped, pulling away from a stop, goes on speeding up to the speed it drove at
///   before). On real drives cut with outages that placed the vehicle better than speeding it
///   back up after maneuvers, steady or not (README, "GPS loss");
/// - the **soonest** one times the final prompts: after a maneuver (passed in the last seconds
///   of fixes, or by the estimate), or at a changing speed, it speeds up gently to the
///   vehicle's highest speed just before, so a vehicle that did speed up in the dark does not
///   hear its final prompt late; a steady one keeps its speed until it passes a maneuver.
///
/// The estimates fall on a grid of whole `step`s after the last matched fix, never on the times
/// the edge happens to look (an epoch without a fix, a live engine's tick, a replay's silence),
/// so a live run and every replay of the same track make the same estimates at the same times.
struct DeadReckoning: Sendable, Equatable {
  /// The last matched fix: its time and metres along the route.
  let anchorTime: Double
  let anchorAlong: Double
  /// The vehicle's likely speed, and the soonest it may get anywhere.
  let likely: SpeedCurve
  private(set) var soonest: SpeedCurve
  /// Seconds between estimates.
  let step: Double
  /// The first estimate is made this long after the anchor.
  let start: Double
  /// Time of the last estimate made, or before the first the time after which they start.
  private(set) var through: Double
  /// Maneuvers passed on the estimate alone.
  var passed: Int
  /// Never reported behind this (fixes lost again while settling behind the last estimate).
  var floor = -Double.infinity
  /// Whether an estimate was made yet.
  private(set) var started = false
  /// The speed the early prompts are timed at, fed the likely speed at each whole `step`
  /// after the anchor up to `leadSteps` steps, as fixes at that speed would feed it.
  private(set) var lead: LeadSpeed
  private var leadSteps = 0

  init(
    anchorTime: Double, anchorAlong: Double, likely: SpeedCurve, soonest: SpeedCurve,
    step: Double, start: Double, after: Double, passed: Int = 0, lead: LeadSpeed = LeadSpeed()
  ) {
    self.anchorTime = anchorTime
    self.anchorAlong = anchorAlong
    self.likely = likely
    self.soonest = soonest
    self.step = step
    self.start = start
    self.through = max(anchorTime, after)
    self.passed = passed
    self.lead = lead
  }

  /// The estimate passed a maneuver at `time`: the soonest vehicle speeds up from there.
  mutating func passedManeuver(at time: Double) {
    passed += 1
    soonest.speedUp(at: time - anchorTime)
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

  /// The speed the early prompts are timed at for the estimate at `time`, a whole number of
  /// steps after the anchor: the lead speed fed every step's likely speed up to it (those of
  /// steps without an estimate too, so a restart that resumes later feeds the same ones).
  mutating func leadSpeed(at time: Double, _ c: GuidanceConfiguration) -> Double {
    while anchorTime + Double(leadSteps + 1) * step <= time {
      leadSteps += 1
      lead.note(likely.speed(after: Double(leadSteps) * step), dt: step, c)
    }
    return lead.at(speed(at: time))
  }

  /// The likely speed (m/s) at `time`, and where it puts the vehicle (metres along the route).
  func speed(at time: Double) -> Double { likely.speed(after: time - anchorTime) }
  func along(at time: Double) -> Double { anchorAlong + likely.distance(after: time - anchorTime) }

  /// The soonest speed at `time`, and where it puts the vehicle.
  func soonestSpeed(at time: Double) -> Double { soonest.speed(after: time - anchorTime) }
  func soonestAlong(at time: Double) -> Double {
    anchorAlong + soonest.distance(after: time - anchorTime)
  }
}

/// What the session does about a vehicle it has no fixes for.
enum Reckoning: Sendable, Equatable {
  /// Fixes come: nothing is estimated.
  case off
  /// Fixes stopped: the position is carried along the route. Boxed: every fix looks at the
  /// mode, and copying the estimate's 20 numbers each time cost 130 instructions a fix
  /// (callgrind, `StepwiseBench perfix`).
  indirect case carrying(DeadReckoning)
  /// Fixes are back: the position reported stays at `floor` (the last estimate) until the
  /// vehicle passes it, so it never jumps backwards (nor when the fixes stop again meanwhile:
  /// the next estimate keeps the floor); until the time `until` the floor also follows the
  /// match forwards, so a match that steps back while it settles (a slow vehicle among close
  /// maneuvers, noisy first fixes) is not reported back either.
  case settling(floor: Double, until: Double)

  /// The last estimate of a stretch without fixes: metres along, when its anchor was matched,
  /// and the maneuvers it passed.
  struct Estimate: Sendable, Equatable {
    var along: Double
    var since: Double
    var passed: Int
  }
}

/// The highest and lowest speed of each of the last ``seconds`` seconds of fixes, in a ring
/// written in place, read only when an outage begins or ends (the peak; whether steady).
struct SpeedPeak: Sendable, Equatable {
  static let seconds = SpeedSecond.kept
  private var ring = [Second](repeating: Second(at: .min, high: 0, low: 0), count: seconds)
  private var last: Int?  // the second of the newest speed noted
  private struct Second: Sendable, Equatable { var at: Int, high: Double, low: Double }

  /// The ring's slot for second `at` (negative seconds too).
  private static func slot(_ at: Int) -> Int { ((at % seconds) + seconds) % seconds }

  mutating func note(_ v: Double, time t: Double) {
    let now = Int((t.isFinite ? min(max(t, -1e15), 1e15) : 0).rounded(.down))
    let k = Self.slot(now)
    let same = ring[k].at == now
    ring[k] = Second(
      at: now, high: same ? max(ring[k].high, v) : v, low: same ? min(ring[k].low, v) : v)
    last = max(last ?? now, now)
  }

  /// The highest and lowest speed noted within `span` seconds of the newest (0 and ∞ before any).
  func range(span: Double) -> (high: Double, low: Double) {
    guard let last else { return (0, .infinity) }
    var r = (high: -Double.infinity, low: Double.infinity)
    for at in max(last - Int(span.rounded(.up)), last - Self.seconds + 1)...last {
      let s = ring[Self.slot(at)]
      if s.at == at { r = (max(r.high, s.high), min(r.low, s.low)) }
    }
    return r
  }

  /// The highest speed noted within `span` seconds of the newest, 0 before any.
  func speed(span: Double) -> Double { max(0, range(span: span).high) }

  /// The seconds noted within ``seconds`` of the newest, oldest first: what a snapshot saves.
  var saved: [SpeedSecond] {
    guard let last else { return [] }
    return (last - Self.seconds + 1...last).compactMap { at in
      let s = ring[Self.slot(at)]
      return s.at == at ? SpeedSecond(time: at, high: s.high, low: s.low) : nil
    }
  }

  /// Takes back the seconds a snapshot saved (those with speeds no fix gives are left out).
  mutating func resume(_ saved: [SpeedSecond]) {
    for s in saved where s.low.isFinite && s.high.isFinite && s.low >= 0 && s.high >= s.low {
      note(s.high, time: Double(s.time))
      note(s.low, time: Double(s.time))
    }
  }

  /// Whether every speed noted within `recent` seconds of the newest was within `fraction` of `v`.
  func steady(at v: Double, fraction: Double, recent: Double) -> Bool {
    let r = range(span: recent)
    return last != nil && r.high <= v * (1 + fraction) && r.low >= v * (1 - fraction)
  }
}
