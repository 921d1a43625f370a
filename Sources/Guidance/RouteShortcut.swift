import Geodesy
import RouteShape
import Routes

/// Finds a vehicle that met its route again a little farther along than the search window
/// reaches, having skipped the part between: it turned round in a car park before a U-turn's
/// tip, or crept across a small loop of the route after a stop (road graphs draw car parks,
/// turning places and loops as clusters of maneuvers a few metres apart).
///
/// The window of ``RouteMatcher`` follows the vehicle's own progress, so after such a cut the
/// match stays behind on the part the vehicle left, against its course or ever farther from it,
/// until "off route" is declared for a vehicle on its route. When the match in the window is in
/// doubt (beyond the on-route distance, or going against the vehicle's course), the route up to
/// `shortcutReach` metres ahead is searched too; a place there within the on-route distance whose
/// direction fits the course, found for `shortcutFixes` fixes in a row, becomes the match. Below
/// the speed at which the receiver's course is trusted, the course is the direction the fixes
/// moved over the last `movementDistance` metres (within `movementSeconds`).
///
/// Nothing of this runs while the match in the window fits the fix; it never reaches past a
/// waypoint (a place to be visited) nor farther than `shortcutReach`, so an out-and-back route
/// turned round early is still a wrong way.
struct RouteShortcut: Sendable {
  private var recent: [(time: Double, point: Coordinate)] = []
  private var evidence = Streak()

  /// Records a fix, and returns the course the fixes moved along when it can be told.
  mutating func note(_ point: Coordinate, time: Double, configuration c: GuidanceConfiguration)
    -> Double?
  {
    recent.removeAll { time - $0.time > c.movementSeconds || $0.time > time }
    defer { recent.append((time, point)) }
    // Over a straight stretch only: the halves of the movement agree on the direction (a
    // chord across a corner or a tight turn is no course).
    guard
      let from = recent.lastIndex(where: {
        $0.point.distance(to: point, exceeds: c.movementDistance)
      }),
      let middle = recent[from...].lastIndex(where: {
        $0.point.distance(to: point, exceeds: c.movementDistance / 2)
      })
    else { return nil }
    let first = recent[from].point.bearing(to: recent[middle].point)
    let second = recent[middle].point.bearing(to: point)
    guard middle > from, bearingDifference(first, second) <= c.movementStraightness else {
      return nil
    }
    return recent[from].point.bearing(to: point)
  }

  /// The place farther along to match the fix at instead of `best`, once the evidence suffices.
  mutating func look(
    best: MatchCandidate?, from along: Double, hint: Int, step: Int, point: Coordinate,
    course: Double?, accuracy: Double, threshold: Double, matcher: RouteMatcher,
    steps: [RouteStep], configuration c: GuidanceConfiguration
  ) -> MatchCandidate? {
    let found = candidate(
      best: best, from: along, hint: hint, step: step, point: point, course: course,
      accuracy: accuracy, threshold: threshold, matcher: matcher, steps: steps, configuration: c)
    return evidence.observe(found != nil, needed: c.shortcutFixes) ? found : nil
  }

  /// A place farther along that fits the fix better than `best`, when `best` is in doubt.
  private func candidate(
    best: MatchCandidate?, from along: Double, hint: Int, step: Int, point: Coordinate,
    course: Double?, accuracy: Double, threshold: Double, matcher: RouteMatcher,
    steps: [RouteStep], configuration c: GuidanceConfiguration
  ) -> MatchCandidate? {
    let g = matcher.geometry
    let close = threshold * c.onRouteHysteresis
    guard let course else { return nil }
    let doubtful =
      best.map {
        $0.lateral > close
          || bearingDifference(course, g.bearings[$0.segment]) > c.rejoinHeadingDegrees
      } ?? true
    guard doubtful else { return nil }
    let query = MatchQuery(
      point: point, course: course, window: along...(along + c.shortcutReach), predicted: along,
      sigmaLateral: max(c.minimumLateralSigma, accuracy), sigmaAlong: .infinity)
    guard
      let found = matcher.match(query, hint: best?.segment ?? hint),
      found.lateral <= close, (found.headingError ?? 180) <= c.rejoinHeadingDegrees,
      found.cost
        < (best.map { candidateCost($0, course: course, accuracy: accuracy, c, g) } ?? .infinity)
    else { return nil }
    // It must skip a maneuver (a cut, not a step forward in the window) and no waypoint.
    let to = g.step(containing: found.s, from: step)
    guard to > step, !steps[step..<to].contains(where: { $0.waypoint != nil }) else {
      return nil
    }
    return found
  }

  /// The cost of `m` as the shortcut search weighs it: distance and course, not progress.
  private func candidateCost(
    _ m: MatchCandidate, course: Double, accuracy: Double, _ c: GuidanceConfiguration,
    _ g: RouteGeometry
  ) -> Double {
    let sigma = max(c.minimumLateralSigma, accuracy)
    let h = bearingDifference(course, g.bearings[m.segment]) / 45
    return (m.lateral / sigma) * (m.lateral / sigma) + h * h
  }
}
