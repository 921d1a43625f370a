import Geodesy
import GuidanceSettings

/// What the receiver's epochs said so far, as guidance uses them: the times of the newest input
/// and fix, the last valid fix with the speed, interval and accuracy it gives, the GPS losses,
/// and the fixes discarded as glitches.
struct FixHistory: Sendable {
  /// The last valid fix used.
  var last: Fix?
  /// The newest valid fix's time among every epoch given, handled or skipped: GPS loss falls
  /// due `gpsLostAfter` after it.
  var newestTime: Double?
  /// Time of the last input handled, a fix or not.
  var lastInputTime: Double?
  /// When resuming: the time of the last input handled before the restart (inputs up to it,
  /// that one included, were handled already).
  var resumedThrough: Double?
  /// Metres per second (the fixes', smoothed), seconds between fixes (smoothed), and the
  /// accuracy (68 %, metres) of the last fix used.
  var speed = 0.0
  /// The speed the early prompts are timed at, and the recent speed it follows.
  var lead = LeadSpeed()
  var interval = 1.0
  var accuracy = 0.0
  /// Whether the GPS is lost (its loss said), and the losses so far (they number `gps` ids).
  var lost = false
  var losses = 0
  /// Fixes discarded as glitches (farther from the last one than the vehicle can go): in all,
  /// and in a row.
  var discarded = 0
  private var discardStreak = 0

  /// Notes an epoch; returns whether it is to be handled (not older than the last handled, not
  /// handled before a restart).
  mutating func take(_ fix: Fix) -> Bool {
    if fix.isValid, fix.coordinate != nil { newestTime = max(newestTime ?? fix.time, fix.time) }
    if let t = lastInputTime, fix.time < t { return false }
    if let r = resumedThrough, fix.time <= r { return false }
    return true
  }

  /// Seconds from the last valid fix to `fix` (at most `longestGap`; 0 for the first).
  func gap(to fix: Fix, _ c: GuidanceConfiguration) -> Double {
    last.map { min(c.longestGap, max(0, fix.time - $0.time)) } ?? 0
  }

  /// The accuracy (68 %, metres) guidance takes for `fix`.
  ///
  /// Inlined: called with a session's configuration, it would copy it (968 bytes) every fix.
  @inline(__always) static func accuracy(of fix: Fix, _ c: GuidanceConfiguration) -> Double {
    if let a = fix.horizontalAccuracy, a.isFinite, a > 0 {
      return max(c.accuracyFloor, c.minimumReportedAccuracy, a)
    }
    if let h = fix.hdop, h.isFinite, h > 0 {
      return max(c.accuracyFloor, c.minimumHDOPAccuracy, h * c.hdopToMetres)
    }
    return max(c.accuracyFloor, c.defaultAccuracy)
  }

  /// The last fix used that repeated no earlier one: echoes are measured from it.
  ///
  /// Made from ``last`` by the first echo of it (``lastIsOrigin``): a fix that no echo follows,
  /// almost every fix of a receiver with sky, costs a few stores.
  private(set) var origin: EchoOrigin?
  /// Whether ``last`` repeated no earlier fix; how far the origin lay from the route; the speed
  /// and course its echoes repeat (the origin's, NaN for none: no echo then).
  private var lastIsOrigin = false
  private(set) var originLateral = 0.0
  private var echoSpeed = Double.nan
  private var echoCourse = Double.nan
  /// Whether an echo of ``origin`` left the route: the receiver coasts without sky, and the
  /// run's echoes are epochs without a position.
  var coasting = false
  /// Since when the moving fixes have lain on the route's very line (within `exactLateral`),
  /// and whether they ever did for `exactSeconds`: the receiver reports exact motion (a
  /// simulator, a test rig, a track drawn along the route), which no receiver measuring a real
  /// vehicle beside a road's drawn line does.
  var onLineSince: Double?
  var exact = false

  /// Takes `lateral`, the distance from the route of a moving fix used on it at `time`, into
  /// ``onLineSince``.
  @inline(__always) mutating func noteLine(
    _ lateral: Double, time: Double, within line: Double, for seconds: Double
  ) {
    guard lateral <= line else {
      onLineSince = nil
      return
    }
    let since = onLineSince ?? time
    onLineSince = since
    if time - since >= seconds { exact = true }
  }

  /// Makes `fix`, just used as ``last`` `lateral` metres from the route, the origin of echoes;
  /// a run of coasting ends.
  @inline(__always) mutating func newOrigin(_ fix: Fix, lateral: Double) {
    coasting = false
    lastIsOrigin = true
    originLateral = lateral
    echoSpeed = fix.speed ?? .nan
    echoCourse = fix.course ?? .nan
  }

  /// How far `fix` carries ``origin`` on, metres, when it only does that; else `nil`.
  ///
  /// Such an echo has the origin's speed and course, and lies where they take the origin's
  /// position in the time between. A receiver without sky that coasts (for a "dead reckoning
  /// timeout") reports them, in a straight line; a moving receiver with sky never repeats its
  /// speed and course exactly, so almost every fix is decided by the first comparison.
  ///
  /// Inlined for the reason ``updateSpeed(_:point:dt:_:)`` is.
  @inline(__always) mutating func echoes(_ fix: Fix, _ c: GuidanceConfiguration) -> Double? {
    guard let v = fix.speed, v == echoSpeed, let course = fix.course, course == echoCourse,
      v >= c.trustCourseAbove, let to = fix.coordinate
    else { return nil }
    if lastIsOrigin { originate() }
    guard let o = origin, fix.time > o.time else { return nil }
    let d = v * (fix.time - o.time)
    let tolerance = c.echoTolerance + c.echoToleranceShare * d
    return o.squaredMiss(to, carried: d, unit: o.unit ?? measureOrigin())
      <= tolerance * tolerance ? d : nil
  }

  /// Works out the unit of ``origin`` and keeps it: once a run of echoes.
  @inline(never)
  private mutating func measureOrigin() -> EchoOrigin.Unit {
    origin?.measure() ?? (east: 0, north: 0, latitude: 0, longitude: 0)
  }

  /// Makes ``origin`` of ``last``, which has a speed and course, at its first echo.
  @inline(never)
  private mutating func originate() {
    lastIsOrigin = false
    guard let fix = last, let point = fix.coordinate, let v = fix.speed, let course = fix.course
    else {
      origin = nil
      return
    }
    origin = EchoOrigin(time: fix.time, point: point, speed: v, course: course, after: origin)
  }

  /// Whether `fix` is farther from the last fix than the vehicle can have gone since: a
  /// single-fix glitch, counted and not used.
  ///
  /// Only once `departed`, between fixes close in time (a gap lets the vehicle go anywhere), and
  /// never more than `glitchStreak` fixes in a row.
  mutating func discards(
    _ fix: Fix, point: Coordinate, dt: Double, accuracy: Double, departed: Bool,
    _ c: GuidanceConfiguration
  ) -> Bool {
    guard departed, discardStreak < c.glitchStreak, dt > 0, dt <= c.gpsLostAfter,
      let previous = last?.coordinate
    else {
      discardStreak = 0
      return false
    }
    let v = max(speed, fix.speed ?? 0) + c.glitchAcceleration * dt
    let allowed = v * dt + max(c.glitchMinimum, c.glitchAccuracyFactor * accuracy)
    guard previous.distance(to: point, exceeds: allowed) else {
      discardStreak = 0
      return false
    }
    discardStreak += 1
    discarded += 1
    return true
  }

  /// Takes the speed of `fix` (or the one its distance from the last fix gives) and the
  /// interval since it, `dt` seconds.
  ///
  /// Inlined: a call would copy the session's configuration every fix (StepwiseBench `perfix`
  /// under callgrind: 124 instructions a fix in `memcpy`).
  @inline(__always) mutating func updateSpeed(
    _ fix: Fix, point: Coordinate, dt: Double, _ c: GuidanceConfiguration
  ) {
    if let v = fix.speed, v.isFinite, v >= 0 {
      speed = v
    } else if let previous = last?.coordinate, dt > 0, dt <= c.speedGapLimit {
      let w = c.positionSpeedWeight
      speed = (1 - w) * speed + w * previous.distance(to: point) / dt
    }
    // The first fix (dt 0) and one after a gap start the average afresh.
    lead.note(speed, dt: dt, c)
    if dt > 0 && dt <= c.intervalGapLimit {
      let w = c.fixIntervalWeight
      interval = (1 - w) * interval + w * dt
    }
  }

  /// With silence up to `time`: when the GPS is lost now, `after` seconds after the last fix,
  /// that time (the loss is counted); `nil` when it is not, or was already.
  mutating func lose(at time: Double, after: Double) -> Double? {
    guard !lost, let last, time >= last.time + after else { return nil }
    lost = true
    losses += 1
    return last.time + after
  }

  /// The speed a vehicle without fixes is carried at: the one it had when moving, the route's
  /// `planned` speed when no fix ever said (no speed, none to derive); `nil` for a vehicle that
  /// was standing or creeping, which stays where it was.
  func carriedSpeed(planned: Double, _ c: GuidanceConfiguration) -> Double? {
    if speed >= c.trustCourseAbove { return speed }
    if speed == 0, last?.speed == nil, planned > 0 { return planned }
    return nil
  }
}
