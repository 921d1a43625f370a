import Geodesy
import GuidanceSettings
import Matching
import Returning

extension NavigationSession {
  /// Time of the first fix off the route since the vehicle last left it, `nil` on the route.
  public var offRouteSince: Double? {
    guard case .offRoute(let o) = state else { return nil }
    return o.value.guide.since
  }

  /// The `return` announcement due now for a vehicle off its route, if any (see ``guidesBack``):
  /// where the route is, from the latest fix.
  ///
  /// An edge with a router calls it after each fix for which no new route can be had.
  public mutating func guideBack() -> [NavigationEvent] {
    var events: [NavigationEvent] = []
    sayReturn(into: &events)
    return events
  }

  /// Finds the route's nearest point ahead of where the vehicle left it, from the fix at
  /// `point`.
  mutating func followReturn(point: Coordinate, course: Double?, time: Double) {
    let a: Double
    if case .offRoute(let o) = state { a = o.value.anchor } else { return }
    let query = MatchQuery(
      point: point, course: nil, window: a...(a + configuration.returning.searchAhead),
      predicted: a, sigmaLateral: 1, sigmaAlong: .infinity)
    guard let c = matcher.match(query, hint: 0) else { return }
    let target = geometry.coordinate(at: c.s, hint: c.segment)
    let o = ReturnGuide.Observation(
      time: time, distance: c.lateral, bearing: point.bearing(to: target), course: course)
    state.modifyOffRoute { $0.guide.observe(o) }
  }

  /// The `return` announcement, when one is due for a vehicle off the route.
  mutating func sayReturn(into events: inout [NavigationEvent]) {
    let due = state.modifyOffRoute { off in
      off.guide.latest.flatMap { o in off.guide.due().map { (o, $0, off.guide.announcements) } }
    }
    guard let (o, p, n) = due ?? nil else { return }
    announce(
      .returnToRoute(distance: p.distance, direction: p.direction, turnAround: p.turnAround),
      kind: .return, step: currentStep, id: "return.\(detector.count).\(n)", time: o.time,
      distance: o.distance, into: &events)
  }
}
