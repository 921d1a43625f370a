import Geodesy
public import Guidance
public import GuidanceSettings
import Matching
public import Routes
public import Simulation

/// Guidance through a GPS outage, scored against the same drive without it: the simulator
/// makes one drive twice, once with no fix for `outage` seconds, and both are replayed.
///
/// The measures of issue #35: every maneuver still prompted at least 2 s before it; prompts
/// made from an estimated position within ±2 s of the drive without the outage at steady
/// speed; the position when the fixes return within 5 % of the distance covered blind; no
/// backward jump over 10 m; no false off-route, none in the 10 s after the return.
public struct OutageScore: Sendable {
  /// A prompt made from an estimated position.
  public struct Prompt: Sendable, Equatable {
    public var id: String
    /// Its time with the outage, and the same prompt's time without it (`nil`: not made).
    public var time: Double
    public var withoutOutage: Double?
    /// Seconds from the prompt to the vehicle reaching the maneuver.
    public var lead: Double?
    /// Whether the true speed stayed within 10 % of the last fix's from the outage's start
    /// to the prompt, and to the same prompt without the outage (a vehicle that slows or
    /// speeds up before that moves the schedule it is compared with: not at steady speed).
    public var steady: Bool
    /// Seconds a vehicle carried at the last fix's speed would have been ahead of the truth at
    /// the prompt (negative: behind; `nil`: it stood): a shift beyond 2 s that this shares is one
    /// no estimate from that speed avoids.
    public var carried: Double?
    /// Seconds later than without the outage (negative: earlier).
    public var shift: Double? { withoutOutage.map { time - $0 } }
  }

  public var prompts: [Prompt] = []

  /// A final prompt from an estimate said far out: the vehicle was `away` metres from its
  /// maneuver, where the drive without the outage says it at `withoutOutage` metres.
  public struct FarFinal: Sendable, Equatable {
    public var id: String
    public var away: Double
    public var withoutOutage: Double
    /// Whether a prompt for the maneuver was said again from fixes, ``leadRequired`` seconds
    /// or more before the vehicle reached it: the far one did not stand alone.
    public var saidAgain = false
  }

  /// Final prompts from estimates said far out.
  ///
  /// The vehicle was over twice as far from the maneuver as the same prompt is said without the
  /// outage, and over ``farFinalMargin`` metres farther: the estimate ran ahead of a vehicle
  /// that slowed or stopped in the dark, or was timed for one that may have sped up. Issue #35's
  /// bar times prompts at steady speed only; drivers complain of these ("turn right" with side
  /// streets before the turn), so the lab counts them apart.
  public var farFinals: [FarFinal] = []
  public static let farFinalMargin = 50.0
  /// Final prompts from estimates, far out or not.
  public var finals = 0
  /// The smallest lead of any maneuver's final prompt, seconds (`nil`: no maneuver reached).
  public var leadMinimum: Double?
  /// Maneuvers reached without a prompt at least `leadRequired` seconds before.
  public var unprompted: [Int] = []
  /// Of those, the maneuvers a vehicle carried at the last fix's speed would have reached over
  /// ``carriedLateness`` seconds after the truth did (or never: it stood): a final prompt timed
  /// for that carry comes under 2 s before.
  public var unpromptedCarried: [Int] = []
  /// Metres between the last estimate and the truth when the fixes came back, and the metres
  /// covered without fixes.
  public var returnError: Double?
  public var blindDistance = 0.0
  /// Metres a vehicle carried at the last fix's speed would have been off when the fixes came
  /// back: what no estimate from that speed alone does better than.
  public var carriedReturnError: Double?
  /// Whether the true speed stayed within 10 % of the last fix's through the whole outage.
  public var steady = false
  /// Whether the last estimate waited at a maneuver it may not pass (see `reckonManeuvers`).
  public var held = false
  /// The largest step backwards of the reported position from the outage's start to 30 s
  /// after it, metres.
  public var backwardJump = 0.0
  /// Whether guidance stepped back in the same span: a `STEP` not estimated to a step before
  /// one seen earlier, the fixes back before a maneuver the estimate passed and the vehicle had
  /// not reached.
  public var steppedBack = false
  /// Off-route events (the drive has none), and those in the 10 s after the fixes return.
  public var falseOffRoute = 0
  public var offRouteAfterReturn = 0

  public static let leadRequired = 2.0
  /// The final prompt's lead (3.5 s and the time to say it) less ``leadRequired``, seconds: a
  /// carry this much later than the vehicle at a maneuver prompts it too late.
  public static let carriedLateness = 3.0

  /// Scores an outage of the seconds `outage` (after the drive's first epoch) in a drive of
  /// `route` made with `options`.
  public init(
    document: RouteDocument, routeIndex: Int = 0, phrasing: any Phrasing, options: DriveOptions,
    outage: ClosedRange<Double>, configuration: GuidanceConfiguration = GuidanceConfiguration()
  ) throws {
    let route = try document.route(at: routeIndex)
    let plain = DriveSimulator.drive(route, options: options)
    var dark = options
    dark.gaps.append(outage)
    let drive = DriveSimulator.drive(route, options: dark)
    try self.init(
      document: document, routeIndex: routeIndex, phrasing: phrasing, plain: plain.fixes,
      dark: drive.fixes, truth: drive.truth,
      outage: (options.start + outage.lowerBound)...(options.start + outage.upperBound),
      configuration: configuration)
  }

  /// Scores the fixes `dark`, which lack those of `outage` (fix-clock seconds), against the same
  /// drive's fixes `plain` without the outage; `truth` says where the vehicle was (a simulator's,
  /// or one derived from a recorded drive's fixes, ``RecordedDrive/truth()``).
  public init(
    document: RouteDocument, routeIndex: Int = 0, phrasing: any Phrasing, plain: [Fix],
    dark: [Fix], truth: [TruthSample], outage absolute: ClosedRange<Double>,
    configuration: GuidanceConfiguration = GuidanceConfiguration()
  ) throws {
    let route = try document.route(at: routeIndex)
    func replay(_ fixes: [Fix]) throws -> [NavigationEvent] {
      var s = try NavigationSession(
        document: document, routeIndex: routeIndex, phrasing: phrasing,
        configuration: configuration)
      return s.replay(fixes)
    }
    let without = try replay(plain)
    let events = try replay(dark)
    let geometry = RouteGeometry(route: route)
    let start = 0.0
    let outage = absolute
    func truthAt(_ t: Double) -> TruthSample? { truth.last { $0.time <= t + 0.005 } }
    // Metres along at `t`, between the samples either side: a recorded drive's truth has none
    // where its own fixes are missing, and the one before is a second or more behind.
    func alongAt(_ t: Double) -> Double? {
      guard let i = truth.lastIndex(where: { $0.time <= t + 0.005 }) else { return nil }
      let a = truth[i]
      guard a.time < t - 0.005, i + 1 < truth.count else { return a.distanceAlong }
      let b = truth[i + 1]
      return a.distanceAlong + (b.distanceAlong - a.distanceAlong) * (t - a.time)
        / (b.time - a.time)
    }
    func reaching(_ s: Double) -> Double? {
      truth.first { $0.offset == 0 && $0.distanceAlong >= s - 0.01 }?.time
    }
    let lastFix = dark.last { $0.isValid && $0.time < start + outage.lowerBound }
    let before = lastFix.flatMap { truthAt($0.time) }
    // The reference: the vehicle carried on from the last fix at that fix's speed.
    func carry(_ t: Double) -> Double? {
      before.map { $0.distanceAlong + $0.speed * max(0, t - $0.time) }
    }
    let moving = (before?.speed ?? 0) >= 0.5

    // Prompts from estimates, against the same prompts without the outage.
    var plainTimes: [String: Double] = [:]
    var plainDistances: [String: Double] = [:]
    for e in without {
      if let a = e.announcement, plainTimes[a.id] == nil {
        plainTimes[a.id] = e.time
        plainDistances[a.id] = a.distance
      }
    }
    for e in events where e.estimated {
      guard let a = e.announcement, [.prepare, .approach, .now].contains(a.kind) else { continue }
      let until = max(e.time, plainTimes[a.id] ?? e.time)
      let steady =
        before.map { b in
          truth.allSatisfy {
            $0.time < b.time || $0.time > until || abs($0.speed - b.speed) <= 0.1 * b.speed
          }
        } ?? false
      var carried: Double?
      if moving, let b = before, let c = carry(e.time), let t = alongAt(e.time) {
        carried = (c - t) / b.speed
      }
      if a.kind == .now {
        finals += 1
        if let plain = plainDistances[a.id], let t = alongAt(e.time) {
          let away = geometry.stepEnd[a.step] - t
          if away > max(2 * plain, plain + Self.farFinalMargin) {
            let reached = reaching(geometry.stepEnd[a.step]) ?? .infinity
            let again = events.contains { later in
              guard !later.estimated, later.time > e.time,
                later.time <= reached - Self.leadRequired, let b = later.announcement,
                [.approach, .now].contains(b.kind)
              else { return false }
              return b.step == a.step || b.thenSteps.contains(a.step)
            }
            farFinals.append(
              FarFinal(id: a.id, away: away, withoutOutage: plain, saidAgain: again))
          }
        }
      }
      prompts.append(
        Prompt(
          id: a.id, time: e.time, withoutOutage: plainTimes[a.id],
          lead: reaching(geometry.stepEnd[a.step]).map { $0 - e.time }, steady: steady,
          carried: carried))
    }

    // Every maneuver's final prompt (its own, or the "then" part of the one before).
    let last = route.steps.count - 1
    for m in 1..<max(1, last) {
      guard let reached = reaching(geometry.stepEnd[m]) else { continue }
      let finals = events.compactMap { e -> Double? in
        guard let a = e.announcement, e.time <= reached else { return nil }
        if a.step == m && [.prepare, .approach, .now].contains(a.kind) { return e.time }
        guard [.approach, .now].contains(a.kind), a.thenSteps.contains(m) else { return nil }
        return e.time
      }
      let lead = finals.max().map { reached - $0 }
      leadMinimum = min(leadMinimum ?? .infinity, lead ?? -.infinity)
      if (lead ?? -1) < Self.leadRequired {
        unprompted.append(m)
        // Only a maneuver reached in the dark, or as the fixes came back, is the carry's.
        if let b = before, reached > b.time,
          reached <= outage.upperBound + Self.carriedLateness + Self.leadRequired,
          !moving
            || b.time + (geometry.stepEnd[m] - b.distanceAlong) / b.speed - reached
              > Self.carriedLateness
        {
          unpromptedCarried.append(m)
        }
      }
    }

    // The position when the fixes return, and backward steps around the outage.
    let back = events.first {
      !$0.estimated && $0.progressValue != nil && $0.time >= start + outage.upperBound
    }
    // This outage's last estimate (a drive's own short gaps after it are estimated too).
    let estimate = events.last {
      $0.estimated && $0.progressValue != nil && $0.time >= start + outage.lowerBound
        && $0.time < (back?.time ?? -.infinity)
    }
    if let back, let estimate, let at = estimate.progressValue?.distanceAlong,
      let b = before, let t = alongAt(estimate.time)
    {
      returnError = abs(at - t)
      carriedReturnError = carry(estimate.time).map { abs($0 - t) }
      blindDistance = t - b.distanceAlong
      held = geometry.stepEnd.contains { abs($0 - at) < 0.01 }
      steady = truth.allSatisfy {
        $0.time < b.time || $0.time > estimate.time || abs($0.speed - b.speed) <= 0.1 * b.speed
      }
      for e in events where e.time >= back.time && e.time <= back.time + 10 {
        if case .offRoute = e.kind { offRouteAfterReturn += 1 }
      }
    }
    var previous: Double?
    var highest = 0
    for e in events {
      if case .offRoute = e.kind { falseOffRoute += 1 }
      let inside = e.time >= start + outage.lowerBound && e.time <= start + outage.upperBound + 30
      if case .step(let k) = e.kind {
        if inside && !e.estimated && k < highest { steppedBack = true }
        highest = max(highest, k)
      }
      guard inside, let p = e.progressValue?.distanceAlong else { continue }
      if let q = previous { backwardJump = max(backwardJump, q - p) }
      previous = p
    }
  }
}

extension NavigationEvent {
  fileprivate var announcement: Announcement? {
    if case .announce(let a) = kind { return a }
    return nil
  }

  fileprivate var progressValue: Progress? {
    if case .progress(let p, _) = kind { return p }
    return nil
  }
}
