public import Geodesy
import RouteShape
import Routes

import func Glibc.atan2
import func Glibc.sqrt

/// A place on the route that a fix may correspond to.
public struct MatchCandidate: Sendable, Equatable {
  /// Distance along the route, metres.
  public var s: Double
  /// Segment index of `s`.
  public var segment: Int
  /// Metres between the fix and the route at `s`.
  public var lateral: Double
  /// Difference between the course over ground and the route's bearing at `s`, degrees, when
  /// the course is trusted.
  public var headingError: Double?
  /// The matching cost (lower is better).
  public var cost: Double

  public init(s: Double, segment: Int, lateral: Double, headingError: Double?, cost: Double) {
    self.s = s
    self.segment = segment
    self.lateral = lateral
    self.headingError = headingError
    self.cost = cost
  }
}

/// What the matcher should weigh for one fix.
public struct MatchQuery {
  public var point: Coordinate
  /// Course in degrees, only when it can be trusted (enough speed).
  public var course: Double?
  /// Window of distances along the route to search, metres.
  public var window: ClosedRange<Double>
  /// Where dead reckoning from the last match puts the vehicle, metres along the route.
  public var predicted: Double
  /// Lateral standard deviation, metres.
  public var sigmaLateral: Double
  /// Along-route standard deviation of the prediction, metres.
  public var sigmaAlong: Double

  public init(
    point: Coordinate, course: Double?, window: ClosedRange<Double>, predicted: Double,
    sigmaLateral: Double, sigmaAlong: Double
  ) {
    self.point = point
    self.course = course
    self.window = window
    self.predicted = predicted
    self.sigmaLateral = sigmaLateral
    self.sigmaAlong = sigmaAlong
  }
}

/// How much work one match did, for tests of the matcher's cost (never read by guidance).
public struct MatchStatistics: Sendable, Equatable {
  /// Segments whose candidate was computed.
  public var segments = 0
  /// Blocks whose lower bound was computed.
  public var blocks = 0

  public init() {}
}

/// Snaps fixes to the route by progress along it, searching only a window of the route.
///
/// A match can never jump to another part of the route that happens to pass close by (loops,
/// out-and-back, figure of eight): those parts are outside the window, or ruled out by their
/// direction.
///
/// The best candidate is the segment with the lowest cost in the window (the first one on a tie),
/// exactly as a walk over every segment of the window would find it, but the segments are
/// searched through a tree of blocks (``SegmentBlocks``): four segments to a block, four blocks to
/// a block of the next level. A block's lower bound on the cost of all its segments comes from its
/// chord and how far its points stray from it, its distances along the route and the two arcs
/// its bearings lie in; blocks whose bound exceeds the best cost found so far are never opened.
/// The search starts from the segment at the predicted position, whose cost also limits how far
/// along the route the best candidate can be. A match therefore examines the few segments near
/// the fix, whatever the density of the route's points and whatever the length of the window (an
/// off-route search window can be 20 km long); the blocks whose bounds it computes grow only with
/// the logarithm of the number of segments in the window. Nothing is allocated per match.
///
/// A class, immutable: a guidance session passes it to every match, and as a 200-byte struct
/// it was copied there each fix (a `memcpy` call, 5–7 % of the CPU time of a fix in
/// `StepwiseBench perfix`).
public final class RouteMatcher: Sendable {
  public let geometry: RouteGeometry
  private let blocks: SegmentBlocks

  public init(geometry: RouteGeometry) {
    self.geometry = geometry
    self.blocks = SegmentBlocks(geometry)
  }

  /// The best candidate inside `query.window`; `hint` is a segment near the window (the last
  /// match), where the search for the window's ends starts.
  @inlinable
  public func match(_ query: MatchQuery, hint: Int) -> MatchCandidate? {
    var statistics = MatchStatistics()
    return match(query, hint: hint, statistics: &statistics)
  }

  /// ``match(_:hint:)``, then for a fix placed by distance alone whose own `course` is known.
  ///
  /// A place that course does not run along (more than `along` degrees from its bearing: the
  /// vehicle crosses it or goes against it) gives way to the best place in the window that it
  /// does run along, if any. After an outage at an out-and-back or a loop two legs lie in the
  /// window and the estimate's distance may favour the one the vehicle is not on; its course,
  /// not trusted enough to weigh every place, still tells.
  @inlinable
  public func match(_ query: MatchQuery, hint: Int, course: Double?, along: Double)
    -> MatchCandidate?
  {
    let best = match(query, hint: hint)
    guard query.course == nil, let course, let b = best,
      bearingDifference(course, geometry.bearings[b.segment]) > along
    else { return best }
    return match(query, hint: hint, runningAlong: course, within: along) ?? b
  }

  /// The best place in `query`'s window weighing `course` too, if `course` runs along it (within
  /// `along` degrees of its bearing); `nil` when it does not. (Not inlined: asked rarely.)
  public func match(
    _ query: MatchQuery, hint: Int, runningAlong course: Double, within along: Double
  ) -> MatchCandidate? {
    var q = query
    q.course = course
    guard let c = match(q, hint: hint), (c.headingError ?? 0) <= along else { return nil }
    return c
  }

  /// ``match(_:hint:)``, counting the work done into `statistics`.
  public func match(_ query: MatchQuery, hint: Int, statistics: inout MatchStatistics)
    -> MatchCandidate?
  {
    let g = geometry
    let lo = max(0, query.window.lowerBound)
    let hi = min(g.length, query.window.upperBound)
    guard hi >= lo else { return nil }
    let first = g.segment(containing: lo, from: hint)
    guard !(g.cumulative[first] > hi) else { return nil }
    // The segment at the predicted position usually is the best or close to it: its cost,
    // known first, rules out most blocks at once. It starts at or before `hi`, so it is in the
    // window.
    let seed = max(first, g.segment(containing: min(hi, max(lo, query.predicted)), from: hint))
    var scope = Scope(query: Query(query, lo: lo, hi: hi), first: first, last: first, seed: seed)
    var outcome = Outcome(statistics: statistics)
    defer { statistics = outcome.statistics }
    consider(seed, scope, &outcome)
    // A candidate farther along the route from the prediction than `reach` costs more than the
    // seed for its distance along alone: only segments within reach need looking at.
    var (from, to) = (lo, hi)
    if query.sigmaAlong.isFinite, let best = outcome.best {
      let reach = abs(query.sigmaAlong) * sqrt(best.cost) * (1 + 1e-9) + 1e-6
      if reach.isFinite {
        from = query.predicted - reach
        to = min(hi, query.predicted + reach)
      }
    }
    scope.first = g.firstSegment(endingAtOrAfter: from, from: seed, notBefore: first)
    scope.last = g.lastSegment(startingAtOrBefore: to, from: seed)
    // Often (sparse points, or a tight reach) the seed is all there is.
    if scope.first == scope.last { return outcome.best }
    var level = 0
    while (scope.last &>> (2 * level)) - (scope.first &>> (2 * level)) > 3 { level += 1 }
    open(level: level, scope.first &>> (2 * level), scope.last &>> (2 * level), scope, &outcome)
    return outcome.best
  }

  /// A first match without history: the earliest place along the route that fits the fix.
  ///
  /// Among candidates within `acceptLateral` metres of the fix and not contradicted by its
  /// course, the one with the smallest distance along the route wins, so a fix at the start of
  /// an out-and-back route is placed on the way out; without such a candidate, the nearest one
  /// not contradicted by the course. Searches the whole route once (at the start of guidance
  /// only), through the same blocks as ``match(_:hint:)``.
  public func initialMatch(point: Coordinate, course: Double?, acceptLateral: Double)
    -> MatchCandidate?
  {
    var statistics = MatchStatistics()
    return initialMatch(
      point: point, course: course, acceptLateral: acceptLateral, statistics: &statistics)
  }

  /// ``initialMatch(point:course:acceptLateral:)``, counting the work done into `statistics`.
  public func initialMatch(
    point: Coordinate, course: Double?, acceptLateral: Double,
    statistics: inout MatchStatistics
  ) -> MatchCandidate? {
    let g = geometry
    let query = MatchQuery(
      point: point, course: course, window: 0...g.length, predicted: 0, sigmaLateral: 1,
      sigmaAlong: .infinity)
    let last = g.segmentCount - 1
    var level = 0
    while (last &>> (2 * level)) > 3 { level += 1 }
    var scope = Scope(query: Query(query, lo: 0, hi: g.length), first: 0, last: last)
    scope.acceptLateral = acceptLateral
    var outcome = Outcome(statistics: statistics)
    defer { statistics = outcome.statistics }
    // The first segment, in route order, with a candidate close enough.
    if let c = earliest(level: level, 0, last &>> (2 * level), scope, &outcome) {
      // Its distance along the route is the smallest, up to rounding: a later segment can only
      // be nearer the start if it starts before `c.s` (the reference keeps the first minimum).
      var best = c
      var j = c.segment + 1
      while j <= last && !(g.cumulative[j] > best.s) {
        outcome.statistics.segments += 1
        if let d = candidate(scope.query, segment: j), fits(d, scope), d.s < best.s { best = d }
        j += 1
      }
      return best
    }
    // None close enough: the nearest, by lateral distance alone.
    scope.nearestOnly = true
    open(level: level, 0, last &>> (2 * level), scope, &outcome)
    return outcome.best
  }

  // MARK: - Reference searches

  /// ``match(_:hint:)`` by walking every segment of the window: the definition that the
  /// block search must reproduce exactly (tests compare the two).
  public func exhaustiveMatch(_ query: MatchQuery, hint: Int) -> MatchCandidate? {
    let g = geometry
    let lo = max(0, query.window.lowerBound)
    let hi = min(g.length, query.window.upperBound)
    guard hi >= lo else { return nil }
    let q = Query(query, lo: lo, hi: hi)
    var j = g.segment(containing: lo, from: hint)
    var best: MatchCandidate?
    while j < g.segmentCount {
      let c0 = g.cumulative[j]
      if c0 > hi { break }
      if let c = candidate(q, segment: j), c.cost < (best?.cost ?? .infinity) {
        best = c
      }
      j += 1
    }
    return best
  }

  /// ``initialMatch(point:course:acceptLateral:)`` by walking every segment of the route: the
  /// definition that the block search must reproduce exactly (tests compare the two).
  public func exhaustiveInitialMatch(point: Coordinate, course: Double?, acceptLateral: Double)
    -> MatchCandidate?
  {
    let query = MatchQuery(
      point: point, course: course, window: 0...geometry.length, predicted: 0,
      sigmaLateral: 1, sigmaAlong: .infinity)
    let q = Query(query, lo: 0, hi: geometry.length)
    var nearest: MatchCandidate?
    var candidates: [MatchCandidate] = []
    for j in 0..<geometry.segmentCount {
      guard let c = candidate(q, segment: j) else { continue }
      if let h = c.headingError, h > 90 { continue }
      if c.lateral < (nearest?.lateral ?? .infinity) { nearest = c }
      if c.lateral <= acceptLateral { candidates.append(c) }
    }
    guard let nearest else { return nil }
    let limit = max(acceptLateral, nearest.lateral + 10)
    return candidates.filter { $0.lateral <= limit }.min { $0.s < $1.s } ?? nearest
  }

  // MARK: - Block search

  /// A query with what every candidate needs worked out once.
  private struct Query {
    var point: Coordinate
    /// The course normalised to 0 ..< 360 degrees, when trusted.
    var course: Double?
    var lo: Double
    var hi: Double
    var predicted: Double
    var sigmaLateral: Double
    var sigmaAlong: Double

    init(_ q: MatchQuery, lo: Double, hi: Double) {
      point = q.point
      // `normalizedBearing` returns a course already in 0 ..< 360 unchanged (and costs a
      // remainder operation).
      course = q.course.map { $0 >= 0 && $0 < 360 ? $0 : normalizedBearing($0) }
      self.lo = lo
      self.hi = hi
      predicted = q.predicted
      sigmaLateral = q.sigmaLateral
      sigmaAlong = q.sigmaAlong
    }
  }

  /// What one search looks at and for: the segments it may examine and what it minimises.
  private struct Scope {
    var query: Query
    /// First and last segment of the window.
    var first: Int
    var last: Int
    /// The segment examined before the block search (skipped when met again).
    var seed = -1
    /// For the initial match: the largest lateral distance (metres) accepted.
    var acceptLateral = 0.0
    /// For the initial match: minimise the lateral distance, among candidates whose heading
    /// error is at most 90 degrees, instead of the cost.
    var nearestOnly = false
  }

  /// What one search has found so far.
  private struct Outcome {
    var best: MatchCandidate?
    var statistics: MatchStatistics
  }

  /// The value the search minimises; the reference searches compare the same values.
  private func score(_ c: MatchCandidate, _ scope: Scope) -> Double {
    scope.nearestOnly ? c.lateral : c.cost
  }

  /// Whether an initial-match candidate is one the reference would keep in its list.
  private func fits(_ c: MatchCandidate, _ scope: Scope) -> Bool {
    (c.headingError ?? 0) <= 90 && c.lateral <= scope.acceptLateral
  }

  /// Examines segment `j`: it becomes the best when its score is lower, or equal with a lower
  /// index (the reference walk keeps the first of equal candidates).
  private func consider(_ j: Int, _ scope: Scope, _ outcome: inout Outcome) {
    outcome.statistics.segments += 1
    guard let c = candidate(scope.query, segment: j) else { return }
    if scope.nearestOnly, let h = c.headingError, h > 90 { return }
    let value = score(c, scope)
    if let b = outcome.best {
      let bestValue = score(b, scope)
      if value < bestValue || (value == bestValue && j < b.segment) { outcome.best = c }
    } else if value < .infinity {
      outcome.best = c
    }
  }

  /// The score the search still has to beat (or tie).
  private func bound(_ scope: Scope, _ outcome: Outcome) -> Double {
    outcome.best.map { score($0, scope) } ?? .infinity
  }

  /// Examines blocks `a ... b` of `level` (at most four; level 0 means segments), the most
  /// promising first, opening only those whose lower bound does not exceed the best so far.
  private func open(
    level: Int, _ a: Int, _ b: Int, _ scope: Scope, _ outcome: inout Outcome
  ) {
    if level == 0 {
      for j in max(a, scope.first)...min(b, scope.last) where j != scope.seed {
        consider(j, scope, &outcome)
      }
      return
    }
    var lower = SIMD4<Double>(repeating: .infinity)
    let seedBlock = scope.seed >= 0 ? scope.seed &>> (2 * level) : -1
    for i in a...b {
      // The block holding the seed is opened first, without computing its bound (it would
      // almost always be opened anyway; opening a block is never wrong, only work).
      lower[i - a] = i == seedBlock ? -.infinity : lowerBound(level: level, i, scope)
    }
    outcome.statistics.blocks += b - a + 1 - (a...b ~= seedBlock ? 1 : 0)
    while true {
      var k = 0
      for i in 1..<4 where lower[i] < lower[k] { k = i }
      // NaN bounds (bad input) are never below anything: open them in turn all the same.
      if lower[k] == .infinity {
        guard let n = (0..<4).first(where: { lower[$0].isNaN }) else { return }
        k = n
      } else if lower[k] > bound(scope, outcome) {
        return
      }
      lower[k] = .infinity
      let i = a + k
      let below = 2 * (level - 1)
      let childFirst = max(i &<< 2, scope.first &>> below)
      let childLast = min((i &<< 2) + 3, scope.last &>> below)
      open(level: level - 1, childFirst, childLast, scope, &outcome)
    }
  }

  /// The first segment in route order among blocks `a ... b` of `level` whose candidate
  /// ``fits(_:_:)``, skipping blocks that cannot hold one.
  private func earliest(
    level: Int, _ a: Int, _ b: Int, _ scope: Scope, _ outcome: inout Outcome
  ) -> MatchCandidate? {
    for i in a...b {
      if level == 0 {
        outcome.statistics.segments += 1
        if let c = candidate(scope.query, segment: i), fits(c, scope) { return c }
        continue
      }
      outcome.statistics.blocks += 1
      let block = blocks[level, i]
      if lateralBound(block, scope.query) > scope.acceptLateral
        || headingBound(block, scope.query) > 90
      {
        continue
      }
      let childLast = min((i &<< 2) + 3, scope.last &>> (2 * (level - 1)))
      if let c = earliest(level: level - 1, i &<< 2, childLast, scope, &outcome) { return c }
    }
    return nil
  }

  /// A lower bound on the score of every segment of block `i` of `level` inside the window.
  private func lowerBound(level: Int, _ i: Int, _ scope: Scope) -> Double {
    let q = scope.query
    let block = blocks[level, i]
    let heading = headingBound(block, q)
    if scope.nearestOnly { return heading > 90 ? .infinity : lateralBound(block, q) }
    let lateral = lateralBound(block, q)
    var cost = (lateral / q.sigmaLateral) * (lateral / q.sigmaLateral)
    if q.sigmaAlong.isFinite {
      // The window's part of the block spans these distances along the route; a candidate's
      // distance can differ from them only by rounding (well under a micrometre).
      let g = geometry
      let firstSegment = max(i &<< (2 * level), scope.first)
      let lastSegment = min(((i + 1) &<< (2 * level)) - 1, scope.last)
      let from = max(q.lo, g.cumulative[firstSegment])
      let to = min(q.hi, g.cumulative[lastSegment + 1])
      let gap = q.predicted < from ? from - q.predicted : q.predicted > to ? q.predicted - to : 0
      let e = max(0, gap - 1e-6) / q.sigmaAlong
      cost += e * e
    }
    if heading > 0 { cost += (heading / 45) * (heading / 45) }
    return cost
  }

  /// A lower bound, metres, on the lateral distance of every candidate in `block`.
  @inline(__always)
  private func lateralBound(_ block: SegmentBlocks.Block, _ q: Query) -> Double {
    let dLon = wrappedLongitudeDelta(q.point.longitude - block.longitude)
    // A fix nearly half the world away in longitude is left unbounded (see SegmentBlocks).
    guard block.radius.isFinite && abs(dLon) <= 175 else { return 0 }
    let d = planarDistanceToChord(
      px: dLon * block.metresPerDegree,
      py: (q.point.latitude - block.latitude) * metresPerDegreeLatitude,
      bx: block.east, by: block.north)
    return max(0, (d - block.radius) * block.scaleRatio - 1e-6 - 1e-9 * d)
  }

  /// A lower bound, degrees, on the heading error of every candidate in `block` (0 without a
  /// trusted course).
  @inline(__always)
  private func headingBound(_ block: SegmentBlocks.Block, _ q: Query) -> Double {
    guard let course = q.course else { return 0 }
    return min(block.clockwise.distance(from: course), block.anticlockwise.distance(from: course))
  }

  /// The candidate on segment `j` (nil for a zero-length segment or one outside the window).
  private func candidate(_ q: Query, segment j: Int) -> MatchCandidate? {
    let g = geometry
    let a = g.points[j]
    let b = g.points[j + 1]
    let c0 = g.cumulative[j]
    let len = g.cumulative[j + 1] - c0
    if len <= 0 { return nil }
    // Local plane around the segment start (metres east, north).
    let kx = g.metresPerDegreeLongitude[j]
    let ky = metresPerDegreeLatitude
    let bx = wrappedLongitudeDelta(b.longitude - a.longitude) * kx
    let by = (b.latitude - a.latitude) * ky
    let px = wrappedLongitudeDelta(q.point.longitude - a.longitude) * kx
    let py = (q.point.latitude - a.latitude) * ky
    let l2 = bx * bx + by * by
    var t = l2 > 0 ? (px * bx + py * by) / l2 : 0
    let tLo = max(0, (q.lo - c0) / len)
    let tHi = min(1, (q.hi - c0) / len)
    if tLo > tHi { return nil }
    t = min(tHi, max(tLo, t))
    let dx = px - bx * t
    let dy = py - by * t
    let lateral = sqrt(dx * dx + dy * dy)
    let s = c0 + t * len
    var cost = (lateral / q.sigmaLateral) * (lateral / q.sigmaLateral)
    if q.sigmaAlong.isFinite {
      let e = (s - q.predicted) / q.sigmaAlong
      cost += e * e
    }
    var headingError: Double?
    if let course = q.course {
      // `bearingDifference(course, bearing)`, with both already in 0 ..< 360.
      let d = abs(course - g.bearings[j])
      let h = d > 180 ? 360 - d : d
      headingError = h
      cost += (h / 45) * (h / 45)
    }
    return MatchCandidate(
      s: s, segment: j, lateral: lateral, headingError: headingError, cost: cost)
  }
}

/// Metres per degree of latitude on the matcher's local planes.
private let metresPerDegreeLatitude = earthRadius * .pi / 180

/// Distance in a plane (metres) from `(px, py)` to the segment from the origin to `(bx, by)`.
@inline(__always)
private func planarDistanceToChord(px: Double, py: Double, bx: Double, by: Double) -> Double {
  let l2 = bx * bx + by * by
  let t = l2 > 0 ? min(1, max(0, (px * bx + py * by) / l2)) : 0
  let dx = px - bx * t
  let dy = py - by * t
  return sqrt(dx * dx + dy * dy)
}

/// Bounds on groups of consecutive segments of a route: the tree that ``RouteMatcher`` searches.
///
/// Block `i` of level `ℓ ≥ 1` holds segments `i·4^ℓ ..< (i+1)·4^ℓ` (the last block of a level
/// may hold fewer). Its chord runs from the first point of its first segment, `A`, to the last
/// point of its last segment. Distances are measured in the local plane of `A` (metres east at
/// `A`'s latitude, metres north), the plane the matcher uses for a segment starting at `A`.
///
/// The bound it gives: every point of every segment of the block lies within `radius` of the
/// chord in that plane, so a fix `d` metres from the chord is at least `d − radius` from the
/// block in `A`'s plane, and at least `scaleRatio · (d − radius)` in the plane of any of the
/// block's segments (their east scales are at least `scaleRatio` times `A`'s). The argument holds
/// while longitudes are compared the short way round: blocks spreading over more than 5 degrees
/// of longitude get an infinite radius (no bound), and so do fixes more than 175 degrees of
/// longitude from `A`. The bearings of the block's segments lie in two arcs: those clockwise
/// of the chord's bearing and those anticlockwise of it, so that a block whose segments
/// alternate either side of its direction (a jittery polyline), turn a corner or come back the
/// way they went still bounds the heading error well. Rounding is covered by small margins (a
/// micrometre, a nanodegree).
///
/// Level 1 is computed from the points, higher levels from the level below (a child's radius,
/// rescaled to the parent's plane, plus the larger distance of its chord's ends from the parent's
/// chord), so building costs time proportional to the number of points. A block stores only its
/// bounds, 16 bytes per four segments and a third more for the levels above (about 5.3 bytes a
/// segment): its chord is worked out from the route's points when it is read, exactly as it was
/// when the bounds were computed, and the bounds are kept in less precision, rounded outwards
/// (radius up, scale ratio down, bearing arcs widened), so they stay bounds. A looser bound only
/// means a block opened that need not have been; the best candidate found is the same.
private struct SegmentBlocks: Sendable {
  struct Block: Sendable {
    /// The chord's start `A`, degrees.
    var latitude: Double
    var longitude: Double
    /// East scale of `A`'s plane, metres per degree of longitude.
    var metresPerDegree: Double
    /// The chord's end in `A`'s plane, metres east and north of `A`.
    var east: Double
    var north: Double
    /// Metres; infinite when the block gives no lateral bound.
    var radius: Double
    /// The smallest east scale of the block's segments over `A`'s, at most 1.
    var scaleRatio: Double
    /// The bearings of the segments at or clockwise of the chord's bearing (up to 180
    /// degrees round), and the others.
    var clockwise: BearingArc
    var anticlockwise: BearingArc
  }

  /// What is kept of a block.
  private struct Bounds: Sendable {
    var radius: Float
    var scaleRatio: Float
    var clockwise: PackedArc
    var anticlockwise: PackedArc
  }

  private let geometry: RouteGeometry
  private var bounds: [Bounds] = []
  /// Index in `bounds` of each level's first block (entry 0 unused).
  private var levelStart: [Int] = [0]
  private let segmentCount: Int

  subscript(level: Int, i: Int) -> Block {
    @inline(__always) get {
      let stored = bounds[levelStart[level] + i]
      let span = segments(level: level, i)
      let g = geometry
      let a = g.points[span.lowerBound]
      let b = g.points[span.upperBound + 1]
      let kxA = g.metresPerDegreeLongitude[span.lowerBound]
      return Block(
        latitude: a.latitude, longitude: a.longitude, metresPerDegree: kxA,
        east: wrappedLongitudeDelta(b.longitude - a.longitude) * kxA,
        north: (b.latitude - a.latitude) * metresPerDegreeLatitude,
        radius: Double(stored.radius), scaleRatio: Double(stored.scaleRatio),
        clockwise: stored.clockwise.arc, anticlockwise: stored.anticlockwise.arc)
    }
  }

  /// The segments of block `i` of `level`.
  @inline(__always)
  func segments(level: Int, _ i: Int) -> ClosedRange<Int> {
    let first = i &<< (2 * level)
    return first...min(segmentCount - 1, first + (1 &<< (2 * level)) - 1)
  }

  init(_ g: RouteGeometry) {
    geometry = g
    segmentCount = g.segmentCount
    let kx = g.metresPerDegreeLongitude
    let ky = metresPerDegreeLatitude
    // Per block while building: the largest longitude offset (degrees) of its points from its
    // first point, and the smallest east scale of its segments.
    var spread: [Double] = []
    var smallestScale: [Double] = []
    var level = 1
    var count = (segmentCount + 3) / 4
    // n/4 + n/16 + … blocks, plus at most one partial block per level.
    bounds.reserveCapacity(segmentCount / 3 + 32)
    while true {
      levelStart.append(bounds.count)
      var nextSpread: [Double] = []
      var nextScale: [Double] = []
      nextSpread.reserveCapacity(count)
      nextScale.reserveCapacity(count)
      for i in 0..<count {
        let span = segments(level: level, i)
        let a = g.points[span.lowerBound]
        let b = g.points[span.upperBound + 1]
        let kxA = kx[span.lowerBound]
        let bx = wrappedLongitudeDelta(b.longitude - a.longitude) * kxA
        let by = (b.latitude - a.latitude) * ky
        /// Distance of `p` from the chord in `A`'s plane, and its longitude offset from `A`.
        func offset(_ p: Coordinate) -> (distance: Double, longitude: Double) {
          let dLon = wrappedLongitudeDelta(p.longitude - a.longitude)
          let d = planarDistanceToChord(
            px: dLon * kxA, py: (p.latitude - a.latitude) * ky, bx: bx, by: by)
          return (d, dLon)
        }
        var radius = 0.0
        var lonSpread = 0.0
        var scale = Double.infinity
        // Split the bearings at the chord's own bearing in `A`'s plane.
        let chordBearing = atan2(bx, by) * 180 / .pi
        var arcs = BearingSplit(reference: chordBearing.isFinite ? chordBearing : 0)
        if level == 1 {
          for j in span {
            let o = offset(g.points[j + 1])
            radius = max(radius, o.distance)
            lonSpread = max(lonSpread, abs(o.longitude))
            scale = min(scale, kx[j])
            arcs.add(g.bearings[j], halfWidth: 0)
          }
        } else {
          let below = level - 1
          for c in (i &<< 2)...min((i &<< 2) + 3, spread.count - 1) {
            let child = self[below, c]
            let childSpan = segments(level: below, c)
            let start = offset(g.points[childSpan.lowerBound])
            let end = offset(g.points[childSpan.upperBound + 1])
            let kxChild = kx[childSpan.lowerBound]
            let rescale = kxChild < kxA ? kxA / kxChild : 1
            radius = max(radius, child.radius * rescale + max(start.distance, end.distance))
            lonSpread = max(lonSpread, abs(start.longitude) + spread[c])
            scale = min(scale, smallestScale[c])
            arcs.add(child.clockwise)
            arcs.add(child.anticlockwise)
          }
        }
        if !(lonSpread <= 5) { radius = .infinity }
        // Margins for rounding in the distances above and in the matcher's own planes.
        radius = radius * (1 + 1e-9) + 1e-6
        let ratio = kxA > scale ? scale / kxA : 1
        bounds.append(
          Bounds(
            radius: Float(roundingUp: radius),
            scaleRatio: Float(roundingDown: ratio.isNaN ? 0 : ratio * (1 - 1e-12)),
            clockwise: PackedArc(arcs.clockwise), anticlockwise: PackedArc(arcs.anticlockwise)))
        nextSpread.append(lonSpread)
        nextScale.append(scale)
      }
      spread = nextSpread
      smallestScale = nextScale
      if count <= 1 { break }
      level += 1
      count = (count + 3) / 4
    }
  }
}

/// A ``BearingArc`` in 4 bytes: its centre rounded to a 65536th of a turn, its half width
/// rounded up to whole such units and widened by one, so the arc read back covers every bearing
/// of the arc stored.
private struct PackedArc: Sendable {
  /// Degrees per unit.
  static let unit = 360.0 / 65536
  /// The half width of an arc of no bearings.
  static let empty = UInt16.max
  /// Half widths from here cover every bearing (180 degrees).
  static let whole = UInt16(32768)

  var centre: UInt16
  var halfWidth: UInt16

  init(_ arc: BearingArc) {
    if arc.halfWidth == -.infinity {
      (centre, halfWidth) = (0, Self.empty)
      return
    }
    let c = (arc.centre / Self.unit).rounded()
    let w = ((arc.halfWidth + Self.unit / 2) / Self.unit).rounded(.up)
    guard c.isFinite, w.isFinite, w >= 0, w < Double(Self.whole) else {
      (centre, halfWidth) = (0, Self.whole)
      return
    }
    centre = UInt16(truncatingIfNeeded: Int(c))  // 360 degrees is unit 65536, that is 0
    halfWidth = UInt16(w)
  }

  var arc: BearingArc {
    @inline(__always) get {
      halfWidth == Self.empty
        ? BearingArc(centre: 0, halfWidth: -.infinity)
        : BearingArc(centre: Double(centre) * Self.unit, halfWidth: Double(halfWidth) * Self.unit)
    }
  }
}

extension Float {
  /// The smallest `Float` at least `x` (NaN for NaN).
  fileprivate init(roundingUp x: Double) {
    let f = Float(x)
    self = Double(f) < x ? f.nextUp : f
  }

  /// The largest `Float` at most `x` (NaN for NaN).
  fileprivate init(roundingDown x: Double) {
    let f = Float(x)
    self = Double(f) > x ? f.nextDown : f
  }
}

/// An arc of bearings: every bearing within `halfWidth` degrees of `centre`.
private struct BearingArc: Sendable {
  /// Degrees, 0 ..< 360.
  var centre: Double
  /// Degrees; 180 or more covers every bearing, −∞ none.
  var halfWidth: Double

  /// A lower bound on the difference (degrees) between `course` (0 ..< 360) and any bearing of
  /// the arc; infinite for an empty arc.
  @inline(__always)
  func distance(from course: Double) -> Double {
    var d = abs(course - centre)
    if d > 180 { d = 360 - d }
    return max(0, d - halfWidth - 1e-9)
  }
}

/// Bearings gathered into two arcs, split at a reference bearing.
private struct BearingSplit {
  /// Bearings as offsets from the reference, degrees: an interval `low ... high`.
  struct Side {
    var low = Double.infinity
    var high = -Double.infinity

    mutating func add(_ from: Double, _ to: Double) {
      low = min(low, from)
      high = max(high, to)
    }

    /// The arc covering the interval (with a margin for rounding).
    func arc(_ reference: Double) -> BearingArc {
      if !(low <= high) { return BearingArc(centre: 0, halfWidth: -.infinity) }
      if !(high - low < 360) { return BearingArc(centre: 0, halfWidth: 180) }
      // Offsets stay within a few turns: bring the middle into 0 ..< 360 by whole turns.
      var c = reference + (low + high) / 2
      guard c.isFinite else { return BearingArc(centre: 0, halfWidth: 180) }
      while c < 0 { c += 360 }
      while c >= 360 { c -= 360 }
      return BearingArc(centre: c, halfWidth: (high - low) / 2 + 1e-9)
    }
  }

  let reference: Double
  private var clockwiseSide = Side()
  private var anticlockwiseSide = Side()

  init(reference: Double) { self.reference = reference }

  /// The bearings at or clockwise of the reference, up to 180 degrees round.
  var clockwise: BearingArc { clockwiseSide.arc(reference) }
  /// The bearings anticlockwise of the reference.
  var anticlockwise: BearingArc { anticlockwiseSide.arc(reference) }

  /// Adds every bearing within `halfWidth` degrees of `bearing` (0 ..< 360).
  mutating func add(_ bearing: Double, halfWidth: Double) {
    guard halfWidth >= 0 else { return }
    var d = bearing - reference
    if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
    let from = d - halfWidth
    let to = d + halfWidth
    // Offsets are angles: an interval reaching past ±180 degrees still covers its bearings.
    if from >= 0 {
      clockwiseSide.add(from, to)
    } else if to <= 0 {
      anticlockwiseSide.add(from, to)
    } else {
      clockwiseSide.add(0, to)
      anticlockwiseSide.add(from, 0)
    }
  }

  mutating func add(_ arc: BearingArc) { add(arc.centre, halfWidth: arc.halfWidth) }
}
