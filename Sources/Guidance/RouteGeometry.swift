public import Geodesy
public import Routes

/// One route flattened into a single polyline with distances along it.
///
/// The position of the vehicle is held as `s`, the metres travelled along this polyline from the
/// departure. Step `i ≥ 1` spans `stepStart(i) … stepEnd(i)`; its maneuver is at `stepEnd(i)`.
public struct RouteGeometry: Sendable {
  /// The points of the whole route, duplicates at step joins removed.
  public let points: [Coordinate]
  /// Distance along the route of each point, in metres; `cumulative[0] == 0`.
  public let cumulative: [Double]
  /// Bearing of the segment starting at each point, degrees clockwise from true north
  /// (the last entry repeats the previous one).
  public let bearings: [Double]
  /// Distance along the route of each step's maneuver, in metres; `stepEnd[0] == 0`.
  public let stepEnd: [Double]
  /// Index into `points` of each step's maneuver point.
  public let stepEndPoint: [Int]

  /// Total length of the polyline in metres.
  public var length: Double { cumulative[cumulative.count - 1] }

  /// Number of segments (points − 1).
  public var segmentCount: Int { points.count - 1 }

  /// Flattens `route`. Requires a validated route (a departure plus at least one step).
  public init(route: Route) {
    var pts: [Coordinate] = []
    var ends: [Int] = []
    pts.reserveCapacity(route.steps.reduce(0) { $0 + $1.polyline.count })
    // Points that add nothing to the shape (within 5 cm of the line through their neighbours,
    // up to 64 in a row) are dropped, so an over-dense polyline does not make every match walk
    // hundreds of tiny segments. Maneuver points are always kept.
    var dropped: [Coordinate] = []
    var lastIsEnd = false
    func append(_ p: Coordinate) {
      if pts.count >= 2, !lastIsEnd, dropped.count < 64 {
        let a = pts[pts.count - 2]
        let b = pts[pts.count - 1]
        let straight =
          project(b, ontoSegmentFrom: a, to: p).distance < 0.05
          && dropped.allSatisfy { project($0, ontoSegmentFrom: a, to: p).distance < 0.05 }
        if straight {
          dropped.append(b)
          pts.removeLast()
        } else {
          dropped.removeAll(keepingCapacity: true)
        }
      } else {
        dropped.removeAll(keepingCapacity: true)
      }
      pts.append(p)
      lastIsEnd = false
    }
    for (i, step) in route.steps.enumerated() {
      if i == 0 {
        append(step.polyline[step.polyline.count - 1])
      } else {
        for (k, p) in step.polyline.enumerated() where k > 0 || pts.isEmpty {
          append(p)
        }
      }
      ends.append(pts.count - 1)
      lastIsEnd = true
    }
    if pts.count == 1 { pts.append(pts[0]) }
    var cum = [Double](repeating: 0, count: pts.count)
    var brg = [Double](repeating: 0, count: pts.count)
    for i in 1..<pts.count {
      cum[i] = cum[i - 1] + pts[i - 1].distance(to: pts[i])
      brg[i - 1] = planarBearing(from: pts[i - 1], to: pts[i])
    }
    brg[pts.count - 1] = brg[max(0, pts.count - 2)]
    // Zero-length segments inherit the bearing of the previous real one.
    for i in 1..<pts.count where cum[i] == cum[i - 1] && i >= 2 {
      brg[i - 1] = brg[i - 2]
    }
    points = pts
    cumulative = cum
    bearings = brg
    stepEndPoint = ends
    stepEnd = ends.map { cum[$0] }
  }

  /// The coordinate at distance `s` (metres) along the route.
  public func coordinate(at s: Double, hint: Int = 0) -> Coordinate {
    let j = segment(containing: s, from: hint)
    let len = cumulative[j + 1] - cumulative[j]
    guard len > 0 else { return points[j] }
    return points[j].interpolated(
      to: points[j + 1], fraction: min(1, max(0, (s - cumulative[j]) / len)))
  }

  /// The segment that contains distance `s`, found by walking from `start` (cost proportional to
  /// the distance walked, not to the route length).
  public func segment(containing s: Double, from start: Int) -> Int {
    var j = min(max(0, start), segmentCount - 1)
    while j > 0 && cumulative[j] > s { j -= 1 }
    while j < segmentCount - 1 && cumulative[j + 1] < s { j += 1 }
    return j
  }

  /// The step (index ≥ 1) being travelled at distance `s`, searching forward from `from`.
  public func step(containing s: Double, from: Int) -> Int {
    var i = max(1, from)
    while i < stepEnd.count - 1 && s > stepEnd[i] { i += 1 }
    while i > 1 && s <= stepEnd[i - 1] { i -= 1 }
    return i
  }
}
