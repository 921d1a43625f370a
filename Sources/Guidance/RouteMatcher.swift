import Geodesy

import func Glibc.cos
import func Glibc.sqrt

/// A place on the route that a fix may correspond to.
struct MatchCandidate: Sendable, Equatable {
  /// Distance along the route, metres.
  var s: Double
  /// Segment index of `s`.
  var segment: Int
  /// Metres between the fix and the route at `s`.
  var lateral: Double
  /// Difference between the course over ground and the route's bearing at `s`, degrees, when
  /// the course is trusted.
  var headingError: Double?
  /// The matching cost (lower is better).
  var cost: Double
}

/// What the matcher should weigh for one fix.
struct MatchQuery {
  var point: Coordinate
  /// Course in degrees, only when it can be trusted (enough speed).
  var course: Double?
  /// Window of distances along the route to search, metres.
  var window: ClosedRange<Double>
  /// Where dead reckoning from the last match puts the vehicle, metres along the route.
  var predicted: Double
  /// Lateral standard deviation, metres.
  var sigmaLateral: Double
  /// Along-route standard deviation of the prediction, metres.
  var sigmaAlong: Double
}

/// Snaps fixes to the route by progress along it, searching only a window of the route.
///
/// The cost of one match is proportional to the number of route points inside the window, never
/// to the length of the route, and a match can never jump to another part of the route that
/// happens to pass close by (loops, out-and-back, figure of eight): those parts are outside the
/// window, or ruled out by their direction.
struct RouteMatcher: Sendable {
  let geometry: RouteGeometry

  /// The best candidate inside `query.window`, starting the walk at segment `hint`.
  func match(_ query: MatchQuery, hint: Int) -> MatchCandidate? {
    let g = geometry
    let lo = max(0, query.window.lowerBound)
    let hi = min(g.length, query.window.upperBound)
    guard hi >= lo else { return nil }
    var j = g.segment(containing: lo, from: hint)
    var best: MatchCandidate?
    while j < g.segmentCount {
      let c0 = g.cumulative[j]
      if c0 > hi { break }
      if let c = candidate(query, segment: j, lo: lo, hi: hi), c.cost < (best?.cost ?? .infinity) {
        best = c
      }
      j += 1
    }
    return best
  }

  /// A first match without history: the earliest place along the route that fits the fix.
  ///
  /// Searches the whole route once (at the start of guidance only). Among candidates close to
  /// the line and not contradicted by the course, the one with the smallest distance along the
  /// route wins, so a fix at the start of an out-and-back route is placed on the way out.
  func initialMatch(point: Coordinate, course: Double?, acceptLateral: Double) -> MatchCandidate? {
    let query = MatchQuery(
      point: point, course: course, window: 0...geometry.length, predicted: 0,
      sigmaLateral: 1, sigmaAlong: .infinity)
    var nearest: MatchCandidate?
    var candidates: [MatchCandidate] = []
    for j in 0..<geometry.segmentCount {
      guard let c = candidate(query, segment: j, lo: 0, hi: geometry.length) else { continue }
      if let h = c.headingError, h > 90 { continue }
      if c.lateral < (nearest?.lateral ?? .infinity) { nearest = c }
      if c.lateral <= acceptLateral { candidates.append(c) }
    }
    guard let nearest else { return nil }
    let limit = max(acceptLateral, nearest.lateral + 10)
    return candidates.filter { $0.lateral <= limit }.min { $0.s < $1.s } ?? nearest
  }

  private func candidate(_ q: MatchQuery, segment j: Int, lo: Double, hi: Double)
    -> MatchCandidate?
  {
    let g = geometry
    let a = g.points[j]
    let b = g.points[j + 1]
    let c0 = g.cumulative[j]
    let len = g.cumulative[j + 1] - c0
    if len <= 0 { return nil }
    // Local plane around the segment start (metres east, north).
    let kx = earthRadius * cos(a.latitude * .pi / 180) * .pi / 180
    let ky = earthRadius * .pi / 180
    let bx = wrappedLongitudeDelta(b.longitude - a.longitude) * kx
    let by = (b.latitude - a.latitude) * ky
    let px = wrappedLongitudeDelta(q.point.longitude - a.longitude) * kx
    let py = (q.point.latitude - a.latitude) * ky
    let l2 = bx * bx + by * by
    var t = l2 > 0 ? (px * bx + py * by) / l2 : 0
    let tLo = max(0, (lo - c0) / len)
    let tHi = min(1, (hi - c0) / len)
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
      let h = bearingDifference(course, g.bearings[j])
      headingError = h
      cost += (h / 45) * (h / 45)
    }
    return MatchCandidate(
      s: s, segment: j, lateral: lateral, headingError: headingError, cost: cost)
  }
}
