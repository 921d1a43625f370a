import Foundation
import Geodesy
import Matching
import RouteShape
import Routes
import Simulation
import TestSupport
import Testing

@testable import Guidance

// The matcher searches its window through a tree of blocks instead of walking every segment
// (issue 8, benchmark 2). These tests hold it to the walk: the same candidate, bit for bit, on
// random routes of every density, and a count of the segments it examines that does not grow
// with the density of the route's points. Counts, not times: no test here is timed.

/// The simulator's seeded generator (SplitMix64): the same routes and fixes on every run and
/// platform.
extension RandomSource {
  fileprivate mutating func uniform(_ range: ClosedRange<Double>) -> Double {
    Double.random(in: range, using: &self)
  }

  fileprivate mutating func chance(_ p: Double) -> Bool { uniform(0...1) < p }
}

/// A route through `points`, cut into steps of `perStep` points.
private func route(_ points: [Coordinate], perStep: Int = 400) -> Route {
  var steps = [
    RouteStep(instructions: "", distance: 0, transportType: .automobile, polyline: [points[0]])
  ]
  var i = 0
  while i < points.count - 1 {
    let end = min(points.count - 1, i + perStep)
    steps.append(
      RouteStep(
        instructions: "Turn", distance: 0, transportType: .automobile,
        polyline: Array(points[i...end])))
    i = end
  }
  return Route(
    name: "Random", distance: 0, expectedTravelTime: 0, transportType: .automobile,
    hasTolls: false, advisoryNotices: [], steps: steps)
}

/// A random polyline: gentle and sharp bends, U-turns back along itself (out-and-back),
/// jitter, repeated points, spacing from centimetres to kilometres; sometimes across the
/// antimeridian or near a pole.
private func randomRoute(_ rng: inout RandomSource) -> Route {
  let latitude: Double
  let longitude: Double
  switch Int.random(in: 0..<5, using: &rng) {
  case 0: (latitude, longitude) = (rng.uniform(-60...60), 179.99)
  case 1: (latitude, longitude) = (rng.uniform(80...84), rng.uniform(-180...180))
  case 2: (latitude, longitude) = (rng.uniform(89...89.99), rng.uniform(-180...180))
  default: (latitude, longitude) = (rng.uniform(-70...70), rng.uniform(-180...180))
  }
  var here = Coordinate(latitude: latitude, longitude: longitude)
  let spacing = [0.05, 0.3, 1, 3, 30, 300, 3000][Int.random(in: 0..<7, using: &rng)]
  let count = Int.random(in: 20...2500, using: &rng)
  var heading = rng.uniform(0...360)
  var turn = rng.uniform(-2...2)
  let jitter = rng.chance(0.3) ? spacing * rng.uniform(0...0.3) : 0
  var points = [here]
  for _ in 1..<count {
    if rng.chance(0.02) { turn = rng.uniform(-3...3) * min(30, 10 / spacing) }
    if rng.chance(0.003) { heading += 180 }  // back the way it came
    if rng.chance(0.01) { heading += rng.uniform(-120...120) }
    heading += turn * spacing / 10
    here = here.destination(distance: spacing * rng.uniform(0.5...1.5), bearing: heading)
    var p = here
    if jitter > 0 { p = p.destination(distance: rng.uniform(0...jitter), bearing: heading + 90) }
    points.append(p)
    if rng.chance(0.005) { points.append(p) }  // zero-length segment
  }
  return route(points, perStep: Int.random(in: 2...600, using: &rng))
}

/// A fix near (sometimes far from) the route, with a window and weights like the session's.
private func randomQuery(_ g: RouteGeometry, _ rng: inout RandomSource)
  -> (MatchQuery, hint: Int)
{
  let s = rng.uniform(0...g.length)
  let j = g.segment(containing: s, from: 0)
  let off = rng.chance(0.1) ? rng.uniform(0...2000) : rng.uniform(0...30)
  let point = g.coordinate(at: s).destination(distance: off, bearing: rng.uniform(0...360))
  let course = rng.chance(0.3) ? nil : g.bearings[j] + rng.uniform(-40...40) + 360
  let wide = rng.chance(0.2)
  let back = wide ? rng.uniform(0...500) : rng.uniform(0...60)
  let ahead = wide ? rng.uniform(0...20_000) : rng.uniform(0...150)
  let lo = s - back + rng.uniform(-20...20)
  let hi = max(lo, s + ahead + rng.uniform(-20...20))
  let query = MatchQuery(
    point: point, course: course, window: lo...hi,
    predicted: s + rng.uniform(-50...50), sigmaLateral: rng.uniform(4...30),
    // A negative deviation is nonsense, but squared it weighs the same: so must the bounds.
    sigmaAlong: rng.chance(0.25) ? .infinity : rng.uniform(5...60) * (rng.chance(0.05) ? -1 : 1))
  let hint =
    rng.chance(0.1)
    ? Int.random(in: 0..<g.segmentCount, using: &rng)
    : max(0, min(g.segmentCount - 1, j + Int.random(in: -50...50, using: &rng)))
  return (query, hint)
}

/// The route used to compare densities: `length` metres of 250 m bends swinging 10 degrees
/// either side of north-east, a point every `spacing` metres.
///
/// With `jitter`, every other point moves an eighth of the spacing to the right and the others to
/// the left, so that geometry thinning cannot drop them however dense the route.
private func bends(length: Double, spacing: Double, jitter: Bool) -> Route {
  let radius = 250.0
  let swing = 10.0
  let arc = radius * 2 * swing * .pi / 180
  let start = Coordinate(latitude: 48.1, longitude: 11.5)
  var points: [Coordinate] = []
  let count = Int((length / spacing).rounded())
  // Each bend is walked in small straight steps from its start, so every point lies on the
  // bend whatever the spacing.
  var bendStart = start
  var bendIndex = 0
  for k in 0...count {
    let s = Double(k) * spacing
    let bend = Int(s / arc)
    while bendIndex < bend {
      bendStart = bendEnd(bendStart, radius: radius, swing: swing)
      bendIndex += 1
    }
    let u = s - Double(bend) * arc
    let sign = bend % 2 == 0 ? 1.0 : -1.0
    let h0 = 45 - sign * swing
    let phi = u / radius * 180 / .pi
    // The chord from the bend's start to the point at angle phi along it.
    let chord = 2 * radius * sinDegrees(phi / 2)
    var p = bendStart.destination(distance: chord, bearing: h0 + sign * phi / 2)
    if jitter && k > 0 && k < count {
      let h = h0 + sign * phi
      p = p.destination(distance: spacing / 8, bearing: h + (k % 2 == 0 ? 90 : -90))
    }
    points.append(p)
  }
  return route(points, perStep: max(2, points.count / 10))
}

/// The end of a bend starting at `start`: its chord runs north-east.
private func bendEnd(_ start: Coordinate, radius: Double, swing: Double) -> Coordinate {
  start.destination(distance: 2 * radius * sinDegrees(swing), bearing: 45)
}

private func sinDegrees(_ x: Double) -> Double { sin(x * .pi / 180) }

/// The work of the matches of one drive: the most segments and blocks any fix examined, and the
/// mean per fix.
private struct DriveWork: CustomStringConvertible {
  var points = 0
  var segments = 0
  var blocks = 0
  var meanSegments = 0.0
  var meanBlocks = 0.0

  var description: String {
    "\(points) points: at most \(segments) segments and \(blocks) blocks per fix, "
      + "mean \(meanSegments) and \(meanBlocks)"
  }
}

/// A drive along `g` at 25 m/s, one fix a second with up to 2 m of wobble, matched with the
/// session's on-route window (or, `offRoute`, 150 m beside the route with the session's widest
/// off-route window: 20 km ahead, no prediction); each match is checked against the walk.
private func drive(_ g: RouteGeometry, offRoute: Bool = false) -> DriveWork {
  let matcher = RouteMatcher(geometry: g)
  var along = 0.0
  var hint = 0
  var work = DriveWork(points: g.points.count)
  var fixes = 0
  var truth = 0.0
  var e = 0
  while truth < g.length - 30 {
    e += 1
    truth = min(g.length, Double(e) * 25)
    let j = g.segment(containing: truth, from: hint)
    let wobble = 2 * sin(Double(e) * 0.7) + (offRoute ? 150 : 0)
    let point = g.coordinate(at: truth, hint: j).destination(
      distance: abs(wobble), bearing: g.bearings[j] + (wobble < 0 ? -90 : 90))
    let accuracy = 3.6
    let query =
      offRoute
      ? MatchQuery(
        point: point, course: g.bearings[j] + 1,
        window: (along - 100 - 2 * accuracy)...(along + 20_000), predicted: along,
        sigmaLateral: 4, sigmaAlong: .infinity)
      : MatchQuery(
        point: point, course: g.bearings[j] + 1,
        window: (along - 15 - 2 * accuracy)...(along + 25 * 1.5 + 20 + 3 * accuracy),
        predicted: along + 25, sigmaLateral: 4, sigmaAlong: 10 + 0.3 * 25 + accuracy)
    var statistics = MatchStatistics()
    let best = matcher.match(query, hint: hint, statistics: &statistics)
    #expect(best == matcher.exhaustiveMatch(query, hint: hint))
    if let best {
      along = offRoute ? truth : best.s
      hint = best.segment
    }
    work.segments = max(work.segments, statistics.segments)
    work.blocks = max(work.blocks, statistics.blocks)
    work.meanSegments += Double(statistics.segments)
    work.meanBlocks += Double(statistics.blocks)
    fixes += 1
  }
  work.meanSegments /= Double(max(1, fixes))
  work.meanBlocks /= Double(max(1, fixes))
  return work
}

@Suite struct RouteMatcherDensityTests {
  @Test func blockSearchFindsTheSameCandidateAsTheWalkOnRandomRoutes() {
    var rng = RandomSource(seed: 8_002)
    var compared = 0
    var found = 0
    for _ in 0..<100 {
      let g = RouteGeometry(route: randomRoute(&rng))
      let matcher = RouteMatcher(geometry: g)
      for _ in 0..<300 {
        let (query, hint) = randomQuery(g, &rng)
        let fast = matcher.match(query, hint: hint)
        let walk = matcher.exhaustiveMatch(query, hint: hint)
        #expect(
          fast == walk,
          "\(g.points.count) points, window \(query.window), hint \(hint): \(String(describing: fast)) ≠ \(String(describing: walk))"
        )
        compared += 1
        if walk != nil { found += 1 }
      }
    }
    // Most windows hold a candidate: the comparison is not only of nils.
    #expect(found > compared * 3 / 4)
  }

  @Test func initialMatchIsTheSameAsTheWholeRouteWalk() {
    var rng = RandomSource(seed: 8_003)
    for _ in 0..<60 {
      let g = RouteGeometry(route: randomRoute(&rng))
      let matcher = RouteMatcher(geometry: g)
      for _ in 0..<40 {
        let (query, _) = randomQuery(g, &rng)
        let accept = rng.uniform(5...60)
        let fast = matcher.initialMatch(
          point: query.point, course: query.course, acceptLateral: accept)
        let walk = matcher.exhaustiveInitialMatch(
          point: query.point, course: query.course, acceptLateral: accept)
        #expect(fast == walk, "\(g.points.count) points, accept \(accept)")
      }
    }
  }

  @Test func segmentSearchStopsWhereTheWalkStops() {
    var rng = RandomSource(seed: 8_004)
    for _ in 0..<40 {
      let g = RouteGeometry(route: randomRoute(&rng))
      let c = g.cumulative
      for _ in 0..<200 {
        // Exact point distances too: with zero-length segments, where the walk stops there
        // depends on the side it comes from.
        let s =
          rng.chance(0.2)
          ? c[Int.random(in: 0..<c.count, using: &rng)] : rng.uniform(-10...g.length + 10)
        let start = Int.random(in: -2...g.segmentCount + 2, using: &rng)
        var j = min(max(0, start), g.segmentCount - 1)
        while j > 0 && c[j] > s { j -= 1 }
        while j < g.segmentCount - 1 && c[j + 1] < s { j += 1 }
        #expect(g.segment(containing: s, from: start) == j, "s \(s) from \(start)")
      }
    }
  }

  @Test func smoothRoutesCostTheSameWorkPerFixAtEveryDensity() {
    // 3 km of 250 m bends with a point every 30 m … 10 cm (up to 30,000 points; thinning
    // leaves bends about 10 m apart at most).
    for spacing in [30.0, 3, 0.3, 0.1] {
      let work = drive(RouteGeometry(route: bends(length: 3000, spacing: spacing, jitter: false)))
      print("smooth, \(spacing) m:", work)
      #expect(work.segments <= 8, "\(work)")
      #expect(work.meanSegments + work.meanBlocks <= 6, "\(work)")
    }
  }

  @Test func segmentsExaminedPerFixDoNotGrowWithPointDensity() {
    // The same bends with jitter that thinning cannot remove: 100 … 10,000 points, all kept.
    // The segments examined stay flat; the blocks whose bounds are computed grow with the
    // depth of the tree over the window, at most six for each fourfold density.
    for spacing in [30.0, 10, 3, 1, 0.3] {
      let g = RouteGeometry(route: bends(length: 3000, spacing: spacing, jitter: true))
      #expect(g.points.count == Int((3000 / spacing).rounded()) + 1)
      let work = drive(g)
      print("jittered, \(spacing) m:", work)
      let levels = log(max(4, 100 / spacing)) / log(4)
      // 12, not 10: route points are held to 10⁻⁷ degree (RoutePolyline), and at 0.3 m spacing
      // that rounding (up to 0.56 cm) is a seventh of the 3.75 cm jitter, so a few more
      // segments come within reach of the best one.
      #expect(work.segments <= 12, "\(work)")
      #expect(Double(work.blocks) <= 6 * levels, "\(work)")
    }
  }

  @Test func aTwentyKilometreOffRouteWindowExaminesOnlyTheRouteNearTheFix() {
    // 150 m beside the route, the whole 3 km jittered route (10,000 segments) in the window.
    // Seen from 150 m, segments within a few metres of the nearest point differ by less than
    // the jitter, so a few dozen are examined: about 1 % of the window.
    let work = drive(
      RouteGeometry(route: bends(length: 3000, spacing: 0.3, jitter: true)), offRoute: true)
    print("off route:", work)
    #expect(work.segments <= 120, "\(work)")
    #expect(work.blocks <= 120, "\(work)")
    #expect(work.meanSegments + work.meanBlocks <= 100, "\(work)")
  }
}
