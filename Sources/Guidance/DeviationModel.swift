import Geodesy
import GuidanceSettings
import Matching
import RouteShape

/// What tells a vehicle leaving its route from one that only seems to: recent distances from
/// the route and courses, weighed against a receiver's steady bias and the corners of coarse
/// geometry, and the search for a vehicle that cut across a part of the route
/// (``RouteShortcut``).
///
/// The session matches and decides; this model remembers the last few seconds it needs.
struct DeviationModel: Sendable {
  let configuration: GuidanceConfiguration
  let geometry: RouteGeometry
  /// Recent distances from the route, to tell a vehicle moving away from a steady bias.
  private var laterals = SampleRing<Double>()
  /// Recent trusted courses, to tell a steady course from one turning or spinning.
  private var courses = SampleRing<Double>()
  /// Finds the vehicle farther along after it cut across a part of the route.
  var shortcut = RouteShortcut()

  init(configuration: GuidanceConfiguration, geometry: RouteGeometry) {
    self.configuration = configuration
    self.geometry = geometry
  }

  /// Records the trusted course of a fix (`nil`: none, which ends the run of courses).
  mutating func noteCourse(_ course: Double?, time: Double) {
    guard let course else {
      courses.removeAll()
      return
    }
    courses.advance(to: time, span: configuration.steadyCourseSeconds)
    courses.append(time, course)
  }

  /// The course last noted when the recent courses agree with it (see `steadyCourseSpread`),
  /// else `nil`: worked out only when asked.
  var steadyCourse: Double? {
    let courses = courses.window
    guard let (time, course) = courses.last, let first = courses.first,
      time - first.time >= configuration.steadyCourseSeconds / 2
    else { return nil }
    let spread = configuration.steadyCourseSpread
    return courses.allSatisfy { bearingDifference($0.value, course) <= spread } ? course : nil
  }

  /// How `course` relates to the route around `s` metres: whether it is within
  /// `deviationHeadingDegrees` of the bearings swept from `chordZone` before `s` to `chordZone`
  /// after it (a corner of coarse geometry is rounded through all of them), and how far it has
  /// turned from the bearing before.
  func courseAlongRoute(_ course: Double, at s: Double, segment: Int)
    -> (follows: Bool, turned: Double)
  {
    let g = geometry
    let here = g.bearings[segment]
    let before = g.bearings[
      g.segment(containing: max(0, s - configuration.chordZone), from: segment)]
    let after = g.bearings[
      g.segment(containing: min(g.length, s + configuration.chordZone), from: segment)]
    let tolerance = configuration.deviationHeadingDegrees
    let follows =
      distance(of: course, toArcFrom: before, to: here) <= tolerance
      || distance(of: course, toArcFrom: here, to: after) <= tolerance
    return (follows, bearingDifference(course, before))
  }

  /// Degrees from `course` to the shorter arc of bearings from `a` to `b`.
  func distance(of course: Double, toArcFrom a: Double, to b: Double) -> Double {
    func signed(_ x: Double) -> Double {
      var d = (x).truncatingRemainder(dividingBy: 360)
      if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
      return d
    }
    let sweep = signed(b - a)
    let x = signed(course - a)
    let inside = sweep >= 0 ? (x >= 0 && x <= sweep) : (x <= 0 && x >= sweep)
    if inside { return 0 }
    return min(bearingDifference(course, a), bearingDifference(course, b))
  }

  /// Whether a fix `lateral` metres from the route, beyond the off-route distance, is a
  /// vehicle on the route all the same rather than one leaving it. Without a course nothing
  /// tells them apart; with one, either
  /// - it rounds the corner of a maneuver within `chordZone` (`nearManeuver`): its course
  ///   sweeps the way the route turns, at least `cornerTurnDegrees` from the bearing before
  ///   (a vehicle missing the turn keeps it), and it is within `cornerAllowance` of the chords
  ///   beyond the offset its fixes kept before more than their `accuracy` explains (a bias);
  /// - or it moves along the route at a steady offset (receiver bias): its course follows the
  ///   route, it is within `maximumBias`, plus the accuracy beyond the floor (at 18 m the
  ///   off-route distance would pass `maximumBias`), and its distance is not growing the way a
  ///   vehicle's leaving would: by `deviationGrowth` in `deviationGrowthSeconds`, with a course
  ///   that took it at least `deviationCourseShare` of that away from the route at `speed`.
  ///   Fixes drifting away while the vehicle's course stays with the road are the receiver's
  ///   (a canyon's reflections changing, an offset fix leaving the inside of a bend).
  func isBias(
    lateral: Double, point: Coordinate, course: Double?, match: MatchCandidate, time: Double,
    accuracy: Double, speed: Double, nearManeuver: Bool = false
  ) -> Bool {
    let c = configuration
    guard let course, lateral <= c.maximumBias + max(0, accuracy - c.accuracyFloor) else {
      return false
    }
    let along = courseAlongRoute(course, at: match.s, segment: match.segment)
    guard along.follows else { return false }
    if nearManeuver && along.turned >= c.cornerTurnDegrees
      && lateral <= c.cornerAllowance
        + max(0, (laterals.window.lazy.map(\.value).min() ?? 0) - accuracy)
    {
      return true
    }
    let before = laterals.window.last { $0.time <= time - c.deviationGrowthSeconds }
    if let b = before, lateral - b.value >= c.deviationGrowth,
      away(from: match, point: point, course: course, speed: speed) * (time - b.time)
        >= (lateral - b.value) * c.deviationCourseShare
    {
      return false
    }
    return true
  }

  /// The speed (m/s) at which the recent courses (their mean, `course` when none is kept)
  /// carry a vehicle at `speed` away from `match`, where the route is nearest to `point`.
  private func away(from match: MatchCandidate, point: Coordinate, course: Double, speed v: Double)
    -> Double
  {
    let mean = meanBearing(courses.window.lazy.map(\.value)) ?? course
    let matched = geometry.coordinate(at: match.s, hint: match.segment)
    return speed(v, course: mean, along: planarBearing(from: matched, to: point))
  }

  mutating func noteLateral(_ lateral: Double, time: Double) {
    laterals.advance(to: time, span: configuration.deviationGrowthSeconds * 2)
    if lateral.isFinite { laterals.append(time, lateral) }
  }
}
