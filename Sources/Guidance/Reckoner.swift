import Geodesy
import GuidanceSettings

/// Dead reckoning's state in a session: what it does about a vehicle without fixes
/// (``Reckoning``), the speeds the fixes gave (``SpeedPeak``), and when the last step began.
struct Reckoner: Sendable {
  var mode = Reckoning.off
  /// The highest recent speed: a vehicle that lost its fixes after a maneuver (or passes one
  /// on the estimate) is taken to speed up to it again.
  var peak = SpeedPeak()
  /// When the last step began (a maneuver passed).
  var stepTime: Double?
  /// A slow vehicle's fixes were lost, or the estimate waits at a maneuver: how far the vehicle
  /// may have got since, and when the next heads-up falls due
  /// (``NavigationSession/sayHeadsUps(through:inclusive:into:)``).
  var headsUp: HeadsUp?

  /// Whether a heads-up is yet to fall due.
  var headsUpDue: Bool { headsUp?.at.isFinite == true }

  /// Whether an estimate carries the vehicle (asked on every fix: no estimate is copied).
  var isCarrying: Bool {
    if case .carrying = mode { true } else { false }
  }

  /// The heads-ups under way, as saved.
  var headsUpProgress: HeadsUpProgress? {
    headsUp.map {
      HeadsUpProgress(
        since: $0.reach.anchorTime, along: $0.reach.anchorAlong, speed: $0.reach.speed,
        cruise: $0.reach.cruise, step: $0.from, through: $0.through, named: $0.named,
        recap: $0.recap, next: $0.at.isFinite ? $0.at : nil)
    }
  }

  /// Takes back the heads-ups of a saved session; refuses values no session makes.
  mutating func resume(_ p: HeadsUpProgress, steps: Int, _ c: GuidanceConfiguration) {
    let numbers = [p.since, p.along, p.speed, p.cruise]
    guard numbers.allSatisfy(\.isFinite), p.speed >= 0, p.cruise >= p.speed,
      (0..<steps).contains(p.step), (0..<steps).contains(p.through), p.named >= 0,
      p.next.map(\.isFinite) ?? true
    else { return }
    headsUp = HeadsUp(
      reach: Reach(since: p.since, along: p.along, speed: p.speed, cruise: p.cruise, c),
      from: p.step, through: p.through, named: p.named, recap: p.recap, at: p.next ?? .infinity)
  }

  /// How far a slow vehicle without fixes may have got: driving off at once from its last
  /// match along `curve`.
  struct Reach: Sendable, Equatable {
    let anchorTime: Double
    let anchorAlong: Double
    let curve: SpeedCurve

    /// From the match at `since` (seconds) and `along` (metres), at `speed` up to `cruise`
    /// (m/s) at the acceleration estimates assume.
    init(since: Double, along: Double, speed: Double, cruise: Double, _ c: GuidanceConfiguration) {
      anchorTime = since
      anchorAlong = along
      curve = SpeedCurve(speed: speed, cruise: cruise, acceleration: c.reckonAcceleration, upAt: 0)
    }

    var speed: Double { curve.speed }
    var cruise: Double { curve.cruise }
    func along(at time: Double) -> Double {
      anchorAlong + curve.distance(after: time - anchorTime)
    }
  }

  struct HeadsUp: Sendable {
    /// The vehicle driving off at once from its last match, at the acceleration estimates
    /// assume, up to the speed it may drive at.
    var reach: Reach
    /// The step it was in when they were planned.
    var from: Int
    /// The last maneuver a heads-up said (0: none yet), and how many they named that no
    /// prompt had named before.
    var through: Int
    var named = 0
    /// Whether the next is the one due at the loss, which may name again what prompts named
    /// before (a recap as guidance goes blind); later ones name only what none did.
    var recap: Bool
    /// When the next falls due (infinity: none will).
    var at: Double
  }

  /// The estimate under way, if any.
  var carrying: DeadReckoning? {
    guard case .carrying(let r) = mode else { return nil }
    return r
  }

  /// Where to report a vehicle matched at `along`: never behind the estimate or the floor it
  /// settles from.
  func reported(_ along: Double) -> Double {
    switch mode {
    case .off: along
    case .carrying(let r): max(along, r.floor)
    case .settling(let floor, _): max(along, floor)
    }
  }

  /// A reckoning from the match at `since` (seconds) and `along` (metres) at `speed` (m/s);
  /// fixes came up to `newest`, inputs up to `after`, the estimate passed `passed` maneuvers.
  func start(
    since: Double, along: Double, speed v: Double, newest: Double, after: Double,
    passed: Int = 0, lead: LeadSpeed, fixInterval: Double, _ c: GuidanceConfiguration
  ) -> DeadReckoning {
    let start = max(c.reckonStart, 1.5 * fixInterval, newest - since + c.reckonStart)
    // Steady for the last seconds, and no maneuver passed since its peak (it did not slow
    // for one): the soonest vehicle keeps its speed too, until it passes a maneuver.
    let steady =
      stepTime.map { since - $0 > c.reckonPeakSeconds } ?? true
      && peak.steady(at: v, fraction: c.reckonSteadyFraction, recent: c.reckonSteadySeconds)
    let recent = peak.range(span: c.reckonRisingSeconds)
    let speedingUp =
      recent.low < v * (1 - c.reckonSteadyFraction)
      && recent.high <= v * (1 + c.reckonSteadyFraction)
    // A peak within the steady fraction of its speed is noise, not a speed it slowed from.
    let highest = peak.speed(span: speedingUp ? c.reckonResumeSeconds : c.reckonPeakSeconds)
    let soonest = SpeedCurve(
      speed: v, cruise: highest > v * (1 + c.reckonSteadyFraction) ? highest : v,
      acceleration: c.reckonAcceleration, upAt: steady && passed == 0 ? .infinity : 0)
    // The likely vehicle keeps its speed, unless it was speeding up.
    return DeadReckoning(
      anchorTime: since, anchorAlong: along, likely: speedingUp ? soonest : .keeping(v),
      soonest: soonest, step: c.reckonStep, start: start, after: after, passed: passed,
      lead: lead)
  }

  /// A usable fix after a stretch without, the vehicle estimated at `along`: the estimate ends;
  /// returns where it was anchored and the last estimate (``Reckoning/Estimate``), `nil` when
  /// there was no estimate ahead of it.
  mutating func end(at along: Double) -> (anchor: Double, estimate: Reckoning.Estimate)? {
    guard case .carrying(let r) = mode else { return nil }
    mode = .off
    let estimate = max(along, r.floor)
    guard estimate > r.anchorAlong else { return nil }
    return (r.anchorAlong, .init(along: estimate, since: r.anchorTime, passed: r.passed))
  }

  /// The fix at `time` that ended a stretch without fixes (`e`, its last estimate): a vehicle
  /// matched at `along` behind the estimate is reported there until it passes it, and for
  /// `reckonSettleWindow` seconds the position reported never steps back
  /// (``Reckoning/settling(floor:until:)``, followed by ``settle(time:along:onRoute:)``).
  ///
  /// After a long stretch (over `reckonHoldOutageSeconds` since the anchor) the estimate is a
  /// guess: when the vehicle at `speed` (at least `reckonPassSpeed`) would not reach it within
  /// `reckonHoldSeconds` (it stood or crawled in the dark), the fix is reported at once, a step
  /// back rather than a position frozen for minutes. Never behind `stepStart`, though, the last
  /// maneuver passed (on the estimate or not), unless guidance steps back to the vehicle's step
  /// (``NavigationSession/stepBack(passed:time:into:)``, which ends the settling).
  ///
  /// Returns whether the vehicle would not reach the estimate within `reckonHoldSeconds`,
  /// however long the stretch: the prompts the estimate made in the step came that much too
  /// early (a car stuck in a queue in a tunnel heard "turn right" minutes before the turn) and
  /// are due again where the vehicle is.
  mutating func resume(
    after e: Reckoning.Estimate, time: Double, along: Double, stepStart: Double, speed: Double,
    _ c: GuidanceConfiguration
  ) -> Bool {
    let reaches = e.along - along <= c.holdDistance(speed: speed)
    let near = time - e.since <= c.reckonHoldOutageSeconds || reaches
    if near || stepStart > along {
      mode = .settling(
        floor: near ? e.along : min(e.along, stepStart), until: time + c.reckonSettleWindow)
    }
    return !reaches
  }

  /// A fix matched at `along` while settling behind the last estimate: the floor follows it
  /// forwards; settling ends once the vehicle passed the floor and the window is over, or off
  /// the route.
  mutating func settle(time: Double, along: Double, onRoute: Bool) {
    guard case .settling(let floor, let until) = mode else { return }
    if !onRoute || (along >= floor && time >= until) {
      mode = .off
    } else if along > floor {
      mode = .settling(floor: along, until: until)
    }
  }
}
