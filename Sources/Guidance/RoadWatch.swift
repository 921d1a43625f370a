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
