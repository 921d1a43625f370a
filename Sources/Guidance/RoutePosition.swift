import Matching

/// Where the fixes place the vehicle on its route.
struct RoutePosition: Sendable {
  /// Metres travelled along the route (the matched position).
  var along = 0.0
  /// The step being travelled (≥ 1 once departed).
  var step = 1
  /// The segment of the matched position: the next search and interpolation start from it.
  var segment = 0
  /// Time of the last fix that moved the matched position (or confirmed it).
  var matchTime: Double?
  /// Metres from the route at the last fix (∞ when no part of it was near enough to measure).
  var lateral = 0.0

  /// A fix at `time` matched at `c`.
  mutating func match(_ c: MatchCandidate, time: Double) {
    matchTime = time
    along = c.s
    segment = c.segment
  }
}
