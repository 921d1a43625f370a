import Geodesy
import GuidanceSettings
import Matching
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
/// moved over the last `movementDistance` metres (within `movementSeconds`), or, where they did
/// not move straight enough to tell (a creep round a car park's loop), the receiver's own: some
/// 10° off at 2 m/s, but it tells a car park's way in from its way out on the same lane, which
/// the fixes, 4 m off each, cannot over a few metres.
///
/// Nothing of this runs while the match in the window fits the fix; it never reaches past a
/// waypoint or a change of mode (places to be visited) nor farther than `shortcutReach`, so an
/// out-and-back route turned round early is still a wrong way.
struct RouteShortcut: Sendable {
  private var recent = SampleRing<Coordinate>()
  private var evidence = Streak()

  /// Records a fix; the fixes of the last `span` seconds are kept (`movementSeconds`).
  mutating func note(_ point: Coordinate, time: Double, span: Double) {
    recent.advance(to: time, span: span)
    recent.append(time, point)
  }

  /// The course the fixes moved along up to the last one noted, when it can be told: worked
  /// out only when asked (most fixes bring a course of their own).
  func movedCourse(configuration c: GuidanceConfiguration) -> Double? {
    let recent = recent.window
    guard let point = recent.last?.value else { return nil }
    let before = recent.dropLast()
    // Over a straight stretch only: the halves of the movement agree on the direction (a
    // chord across a corner or a tight turn is no course).
    guard
      let from = before.lastIndex(where: {
        $0.value.distance(to: point, exceeds: c.movementDistance)
      }),
      let middle = before[from...].lastIndex(where: {
        $0.value.distance(to: point, exceeds: c.movementDistance / 2)
      })
    else { return nil }
    let first = before[from].value.bearing(to: before[middle].value)
    let second = before[middle].value.bearing(to: point)
    guard middle > from, bearingDifference(first, second) <= c.movementStraightness else {
      return nil
    }
    return before[from].value.bearing(to: point)
  }

  /// `found`, this fix's `candidate`, once it was found for `needed` fixes in a row.
  ///
  /// The search itself does not mutate, so the session passes its matcher and configuration to
  /// it without copying them.
  mutating func confirm(_ found: MatchCandidate?, needed: Int) -> MatchCandidate? {
    evidence.observe(found != nil, needed: needed) ? found : nil
  }

  /// A place farther along that fits the fix better than `best`, when `best` is in doubt.
  func candidate(
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
    // It must skip a maneuver (a cut, not a step forward in the window), and no place to be
    // visited: a waypoint, or where the mode changes (the car waits in its car park; a walker
    // there is matched beside the way the car will leave it).
    let to = g.step(containing: found.s, from: step)
    guard to > step,
      !(step..<to).contains(where: {
        steps[$0].waypoint != nil || steps[$0].transportType != steps[$0 + 1].transportType
      })
    else { return nil }
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
