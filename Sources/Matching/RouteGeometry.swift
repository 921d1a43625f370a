public import Geodesy
public import RouteShape
public import Routes

import func Glibc.sqrt

/// One route flattened into a single polyline with distances along it.
///
/// The position of the vehicle is held as `s`, the metres travelled along this polyline from the
/// departure. Step `i ≥ 1` spans `stepStart(i) … stepEnd(i)`; its maneuver is at `stepEnd(i)`.
public struct RouteGeometry: Sendable {
  /// The points of the whole route, duplicates at step joins removed and points that add nothing
  /// to the shape dropped (``ThinnedRoute``), read from the route's own fixed-point array.
  public let points: RoutePoints
  /// Distance along the route of each point, in metres; `cumulative[0] == 0`.
  public let cumulative: [Double]
  /// Bearing of the segment starting at each point, degrees clockwise from true north,
  /// 0 ..< 360 (the last entry repeats the previous one), in single precision (0.00002 degree).
  public let bearings: FloatColumn
  /// Metres per degree of longitude at each point's latitude: the east scale of the local plane
  /// that the matcher measures a segment in, computed once instead of on every match (single
  /// precision: a lateral distance moves by less than a micrometre per 10 m).
  public let metresPerDegreeLongitude: FloatColumn
  /// Distance along the route of each step's maneuver, in metres; `stepEnd[0] == 0`.
  public let stepEnd: [Double]
  /// Index into `points` of each step's maneuver point.
  public let stepEndPoint: [Int]

  /// Total length of the polyline in metres.
  @inlinable public var length: Double { cumulative[cumulative.count - 1] }

  /// Number of segments (points − 1).
  @inlinable public var segmentCount: Int { cumulative.count - 1 }

  /// Flattens `route`.
  ///
  /// Requires a validated route (a departure plus at least one step).
  public init(route: Route) {
    let shared = route.sharingOnePointArray()
    self.init(route: shared.route, points: shared.points)
  }

  /// Flattens `route`, whose steps are consecutive ranges of `all`
  /// (``Routes/Route/sharingOnePointArray()``): the geometry reads its points from `all`.
  public init(route: Route, points all: RoutePolyline) {
    let thinned = ThinnedRoute(route, points: all)
    var pts = thinned.points
    let ends = thinned.stepEnds
    if pts.count == 1 { pts = RoutePoints(all, indices: [thinned.kept[0], thinned.kept[0]]) }
    let n = pts.count
    var cum = [Double](repeating: 0, count: n)
    // `normalizedBearing` can round a bearing just west of north up to 360, and so can single
    // precision, which every use treats as 0; keeping 0 ..< 360 lets the matcher compare
    // bearings without normalising.
    func stored(_ b: Double) -> Float {
      let f = Float(b >= 360 ? b - 360 : b)
      return f >= 360 ? f - 360 : f
    }
    var brg = [Float](repeating: 0, count: n)
    var kx = [Float](repeating: 0, count: n)
    // The cosine of each point's latitude serves its segments' distances and its east scale.
    func eastScale(_ cosine: Double) -> Float { Float(earthRadius * cosine * .pi / 180) }
    var previous = pts[0]
    var previousCosine = previous.latitudeCosine
    kx[0] = eastScale(previousCosine)
    for i in 1..<n {
      let p = pts[i]
      let cosine = p.latitudeCosine
      cum[i] = cum[i - 1] + previous.distance(to: p, cosines: (previousCosine, cosine))
      brg[i - 1] = stored(planarBearing(from: previous, to: p))
      kx[i] = eastScale(cosine)
      previous = p
      previousCosine = cosine
    }
    brg[n - 1] = brg[max(0, n - 2)]
    // Zero-length segments inherit the bearing of the previous real one.
    for i in 1..<n where cum[i] == cum[i - 1] && i >= 2 {
      brg[i - 1] = brg[i - 2]
    }
    points = pts
    cumulative = cum
    bearings = FloatColumn(brg)
    metresPerDegreeLongitude = FloatColumn(kx)
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

  /// The segment that contains distance `s`, searched from segment `start`.
  ///
  /// The result is the segment a walk from `start` would stop at: backwards to the last segment
  /// starting at or before `s` when `start` begins after `s`, otherwise forwards to the first
  /// segment ending at or after `s`. (With zero-length segments at `s`, which one is found
  /// depends on the side the walk comes from.) The search gallops, so its cost grows with the
  /// logarithm of the number of segments between `start` and the result, not with the route's
  /// length or point density.
  public func segment(containing s: Double, from start: Int) -> Int {
    let last = segmentCount - 1
    let j = min(max(0, start), last)
    if j > 0 && cumulative[j] > s {
      // Backwards: the largest i < j with `cumulative[i] > s` false, or 0.
      return gallop(from: j, step: -1) { i in i > 0 && cumulative[i] > s }
    }
    // Forwards: the smallest i ≥ j with `cumulative[i + 1] < s` false, or the last segment.
    return gallop(from: j, step: 1) { i in i < last && cumulative[i + 1] < s }
  }

  /// The last segment that starts at or before `s` metres, searched forwards from segment
  /// `start` (`start` itself when the next one starts after `s`); cost logarithmic in the
  /// segments passed.
  public func lastSegment(startingAtOrBefore s: Double, from start: Int) -> Int {
    let last = segmentCount - 1
    return gallop(from: start, step: 1) { i in i < last && !(cumulative[i + 1] > s) }
  }

  /// The first segment, not before `limit`, of those from there to `start` that end at or
  /// after `s` metres, searched backwards from `start`; cost logarithmic in the segments passed.
  public func firstSegment(endingAtOrAfter s: Double, from start: Int, notBefore limit: Int) -> Int
  {
    gallop(from: start, step: -1) { i in i > limit && !(cumulative[i] < s) }
  }

  /// The first index reached from `start`, moving by `step` (±1), at which `goOn` is false.
  ///
  /// Equivalent to `var i = start; while goOn(i) { i += step }; return i` for a `goOn` that is
  /// true up to some point of the walk and false from there on, but after four steps it probes
  /// 2, 4, 8, … indices ahead and then bisects. `goOn(i)` must be false where `i + step` would
  /// leave the segments.
  private func gallop(from start: Int, step: Int, _ goOn: (Int) -> Bool) -> Int {
    // Short walks, the usual case, are cheapest step by step.
    var passed = start
    for _ in 0..<4 {
      guard goOn(passed) else { return passed }
      passed += step
    }
    guard goOn(passed) else { return passed }
    let end = step > 0 ? segmentCount - 1 : 0
    var jump = 2
    var probe: Int
    while true {
      probe = step > 0 ? min(passed + jump, end) : max(passed - jump, end)
      if !goOn(probe) { break }
      if probe == end { return probe }
      passed = probe
      jump *= 2
    }
    // goOn(passed) is true, goOn(probe) is false: bisect between them.
    while abs(probe - passed) > 1 {
      let mid = (passed + probe) / 2
      if goOn(mid) { passed = mid } else { probe = mid }
    }
    return probe
  }

  /// The step (index ≥ 1) being travelled at distance `s`, searching forward from `from`.
  public func step(containing s: Double, from: Int) -> Int {
    var i = max(1, from)
    while i < stepEnd.count - 1 && s > stepEnd[i] { i += 1 }
    while i > 1 && s <= stepEnd[i - 1] { i -= 1 }
    return i
  }
}
