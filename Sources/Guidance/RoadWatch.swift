import Geodesy
import GuidanceSettings
import Routes

/// The route's speed limit where the vehicle is, followed along the route as it moves.
///
/// It keeps the index of the span it is in and walks from it as the position moves (a few
/// steps a fix at most, forward or back), so a fix costs the same on any length of route. A
/// route without limit data costs one emptiness check per fix.
struct RoadWatch: Sendable {
  /// The route's spans, in order along it and not overlapping.
  let spans: [SpeedLimitSpan]
  /// The span last looked at: the one holding the last position, or the nearest before it.
  private var index = 0

  init(road: RouteRoad) {
    spans = road.speedLimits
  }

  /// The limit to publish at `along` metres along the route: a value or
  /// ``SpeedLimit/none``, `nil` where no span covers it or its limit is unknown.
  ///
  /// Agrees with ``Routes/RouteRoad/speedLimit(at:)``: a point shared by two spans is in the
  /// later one.
  /// Over the limit or not, and what of it was said (`speed` announcements).
  var overspeed = OverspeedWatch()

  /// The warning due once per excursion above the limit at `along` metres plus its tolerance
  /// (``OverspeedWatch``), from `fix`'s own speed only: never from an estimated position or a
  /// doubtful speed (none, implausible, or a jump from the fix `previous`).
  ///
  /// Asked only with warnings on and limits known.
  mutating func overspeedWarning(
    _ fix: Fix, previous: Fix?, along: Double, _ c: GuidanceConfiguration
  ) -> AnnouncementMessage? {
    guard fix.quality != .deadReckoning, let v = fix.speed, v.isFinite, v >= 0,
      v <= c.speedWarningPlausible
    else {
      overspeed.doubt()
      return nil
    }
    if let p = previous, let pv = p.speed, fix.time > p.time,
      abs(v - pv) / (fix.time - p.time) > c.speedWarningAcceleration
    {
      overspeed.doubt()
      return nil
    }
    let limit = limit(at: along)
    guard
      overspeed.observe(
        speed: v, limit: limit?.metresPerSecond, time: fix.time, configuration: c),
      case .limit(let value, let unit)? = limit
    else { return nil }
    return .overspeed(limit: value, unit: unit)
  }

  mutating func limit(at along: Double) -> SpeedLimit? {
    guard !spans.isEmpty, along.isFinite else { return nil }
    while index > 0 && along < spans[index].start { index -= 1 }
    while index + 1 < spans.count && spans[index + 1].start <= along { index += 1 }
    let span = spans[index]
    guard span.start <= along, along <= span.end else { return nil }
    if case .unknown = span.limit { return nil }
    return span.limit
  }
}

/// Whether the vehicle is over the speed limit, and what of it was said: one warning per
/// excursion above the limit plus a tolerance, re-armed only once the speed has stayed below
/// the limit itself for a while.
struct OverspeedWatch: Sendable {
  enum State: Sendable, Equatable {
    /// Nothing said; a warning may come.
    case armed
    /// Above the limit plus the tolerance since `since`, not yet said.
    case over(since: Double)
    /// Said; no more until the speed stays below the limit.
    case warned
    /// Said, and below the limit since `since`.
    case below(since: Double)
  }

  private(set) var state = State.armed
  /// Warnings made so far (they number the announcement ids).
  private(set) var count = 0

  /// Whether a warning is due, given a trusted speed (m/s) at `time`.
  ///
  /// `limit` is in m/s, `nil` where none applies. The caller says it (``said()``) or defers it (a
  /// maneuver prompt is being said or about to be): the excursion stays unsaid until then.
  mutating func observe(
    speed v: Double, limit: Double?, time: Double, configuration c: GuidanceConfiguration
  ) -> Bool {
    guard let limit else {
      // No limit here: nothing is over it; an unsaid excursion ends.
      if case .over = state { state = .armed }
      return false
    }
    let threshold = limit + max(c.speedWarningFraction * limit, c.speedWarningMargin)
    switch state {
    case .armed, .over:
      guard v > threshold else {
        state = .armed
        return false
      }
      var since = time
      if case .over(let t) = state { since = t }
      state = .over(since: since)
      return time - since >= c.speedWarningAfter
    case .warned:
      if v < limit { state = .below(since: time) }
    case .below(let since):
      if v >= limit {
        state = .warned
      } else if time - since >= c.speedWarningRearmSeconds {
        state = .armed
      }
    }
    return false
  }

  /// The warning that was due is said.
  mutating func said() {
    state = .warned
    count += 1
  }

  /// A fix whose speed cannot be trusted: an excursion not yet said starts over.
  mutating func doubt() {
    if case .over = state { state = .armed }
  }
}
