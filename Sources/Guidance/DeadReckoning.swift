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
