import Geodesy
package import Routes

import func Glibc.cos
import func Glibc.sqrt

/// A route's points as the matcher walks them: the steps joined into one polyline, duplicates
/// at the joins left out, and points that add nothing to the shape dropped, so an over-dense
/// polyline does not make every match walk hundreds of tiny segments.
///
/// A point is dropped when it and every point dropped since the last kept one lie within
/// `tolerance` of the segment from that kept point to the next point, up to `longestRun` in a
/// row. Maneuver points are always kept. Each candidate segment is measured against the points
/// it would replace in one pass over their offsets from the kept point, which stay the same
/// while the run grows (the arithmetic of `project(_:ontoSegmentFrom:to:)`, so the same
/// decisions as measuring each point with it).
package struct ThinnedRoute {
  /// Metres from the replacing segment within which a point adds nothing (5 cm).
  static let tolerance = 0.05
  /// The most points dropped in a row.
  static let longestRun = 64

  /// The kept points.
  package var points: RoutePoints
  /// Index in the route's array of points of each point kept.
  package var kept: [Int32]
  /// Index into `points` of each step's last point (its maneuver).
  package var stepEnds: [Int]

  /// Thins `route` (a departure step plus at least one step).
  package init(_ route: Route) {
    let shared = route.sharingOnePointArray()
    self.init(shared.route, points: shared.points)
  }

  /// Thins `route`, whose steps are consecutive ranges of `all`
  /// (``Routes/Route/sharingOnePointArray()``); the points kept are read from `all`.
  package init(_ route: Route, points all: RoutePolyline) {
    var state = Thinning(capacity: all.count, steps: route.steps.count)
    withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * Self.longestRun) { offsets in
      guard let north = offsets.baseAddress else { return }
      let east = north + Self.longestRun
      var first = 0
      for (i, step) in route.steps.enumerated() {
        let polyline = step.polyline
        if i == 0 {
          state.append(polyline.count - 1, of: polyline, at: first, north, east)
        } else {
          for k in polyline.indices where k > 0 || state.kept.isEmpty {
            state.append(k, of: polyline, at: first, north, east)
          }
        }
        state.endStep()
        first += polyline.count
      }
    }
    kept = state.kept
    points = RoutePoints(all, indices: kept)
    stepEnds = state.ends
  }
}

/// The state of ``ThinnedRoute``'s one pass.
private struct Thinning {
  /// Index in the route's array of points of each point kept (4 bytes: a route's points are
  /// far fewer than 2³¹).
  var kept: [Int32] = []
  var ends: [Int] = []
  /// The last two kept points (`a`, `b`) while there are two.
  var a = Coordinate(latitude: 0, longitude: 0)
  var b = Coordinate(latitude: 0, longitude: 0)
  /// Points dropped since `a`, their offsets from `a` in the caller's buffers.
  var dropped = 0
  var lastIsEnd = false

  init(capacity: Int, steps: Int) {
    kept.reserveCapacity(capacity)
    ends.reserveCapacity(steps)
  }

  /// Adds point `k` of `polyline`, which starts at index `first` of the route's array of
  /// points, dropping the last kept one if it adds nothing.
  mutating func append(
    _ k: Int, of polyline: RoutePolyline, at first: Int, _ north: UnsafeMutablePointer<Double>,
    _ east: UnsafeMutablePointer<Double>
  ) {
    let p = polyline[k]
    if kept.count >= 2, !lastIsEnd, dropped < ThinnedRoute.longestRun {
      let line = SegmentDistance(from: a, to: p)
      if line.distance(b) < ThinnedRoute.tolerance
        && line.allWithin(ThinnedRoute.tolerance, north: north, east: east, count: dropped)
      {
        north[dropped] = b.latitude - a.latitude
        east[dropped] = wrappedLongitudeDelta(b.longitude - a.longitude)
        dropped += 1
        kept.removeLast()
      } else {
        dropped = 0
        a = b
      }
    } else {
      dropped = 0
      a = b
    }
    kept.append(Int32(first + k))
    b = p
    lastIsEnd = false
  }

  /// Ends a step at the last point kept.
  mutating func endStep() {
    ends.append(kept.count - 1)
    lastIsEnd = true
  }
}

/// `project(_:ontoSegmentFrom:to:).distance` for many points and one segment: the same
/// arithmetic in the same order, so the same values, with the segment's plane worked out once.
struct SegmentDistance {
  let a: Coordinate
  let kx: Double
  let ky: Double
  let bx: Double
  let by: Double
  let len2: Double

  init(from a: Coordinate, to b: Coordinate) {
    self.a = a
    let lat0 = (a.latitude + b.latitude) / 2 * .pi / 180
    kx = earthRadius * cos(lat0) * .pi / 180
    ky = earthRadius * .pi / 180
    bx = wrappedLongitudeDelta(b.longitude - a.longitude) * kx
    by = (b.latitude - a.latitude) * ky
    len2 = bx * bx + by * by
  }

  @inline(__always)
  func distance(_ point: Coordinate) -> Double {
    distance(
      north: point.latitude - a.latitude, east: wrappedLongitudeDelta(point.longitude - a.longitude)
    )
  }

  /// The distance of the point `north` degrees of latitude and `east` degrees of longitude
  /// (wrapped) from `a`.
  @inline(__always)
  func distance(north: Double, east: Double) -> Double {
    sqrt(squaredDistance(north: north, east: east))
  }

  @inline(__always)
  private func squaredDistance(north: Double, east: Double) -> Double {
    let px = east * kx
    let py = north * ky
    var t = 0.0
    if len2 > 0 {
      t = (px * bx + py * by) / len2
      t = min(1, max(0, t))
    }
    let dx = px - bx * t
    let dy = py - by * t
    return dx * dx + dy * dy
  }

  /// Whether each of `count` points, given as offsets from `a` (see ``distance(north:east:)``),
  /// is nearer than `limit`.
  ///
  /// The square root is monotonic, so the largest squared distance decides for all of them.
  /// Two points at a time (the same operations on each lane, so the same values); the points
  /// are finite, as a validated route's are.
  func allWithin(
    _ limit: Double, north: UnsafePointer<Double>, east: UnsafePointer<Double>, count: Int
  ) -> Bool {
    guard len2 > 0 else {
      var worst = 0.0
      for i in 0..<count { worst = max(worst, squaredDistance(north: north[i], east: east[i])) }
      return sqrt(worst) < limit
    }
    var worst = SIMD2<Double>(repeating: 0)
    var i = 0
    while i + 2 <= count {
      let px = SIMD2(east[i], east[i + 1]) * kx
      let py = SIMD2(north[i], north[i + 1]) * ky
      var t = (px * bx + py * by) / len2
      t.replace(with: 0, where: t .< 0)
      t.replace(with: 1, where: t .> 1)
      let dx = px - bx * t
      let dy = py - by * t
      let d = dx * dx + dy * dy
      worst.replace(with: d, where: d .> worst)
      i += 2
    }
    var last = max(worst[0], worst[1])
    if i < count { last = max(last, squaredDistance(north: north[i], east: east[i])) }
    return sqrt(last) < limit
  }
}
