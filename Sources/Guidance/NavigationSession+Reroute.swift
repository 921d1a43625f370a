public import Geodesy
import GuidanceSettings
import Matching
import RouteShape
public import Routes

extension NavigationSession {
  /// Metres within which a maneuver of a new route is the same physical maneuver as one of the
  /// route it replaces (the routers snap both to the same junction node).
  public static let sameManeuverDistance = 12.0

  /// The speed guidance works with, metres per second (the fixes', smoothed).
  public var currentSpeed: Double { speed }

  /// Whether fixes away from the route have been seen that are not yet enough to say the
  /// vehicle left it (``offRoute`` says when they are).
  public var offRouteSuspected: Bool { !offRoute && detector.suspecting }

  /// The revision of the route: 0 for the route guidance started with, n after n routes applied
  /// since (select, load, reload, reroute).
  ///
  /// Announcement ids of revision n > 0 carry `v<n>`, so they never collide with earlier ones.
  public var routeRevision: Int {
    get { announcer.revision }
    set { announcer.revision = max(0, newValue) }
  }

  /// The maneuver points of the steps not yet passed (the current step's first); built when
  /// asked, which is once per router answer, not per fix.
  public var remainingManeuvers: [Coordinate] {
    geometry.stepEndPoint[min(currentStep, lastStep)...].map { geometry.points[$0] }
  }

  /// A session that takes over from this one on the first route of `document`, while driving.
  ///
  /// It makes no departure announcement and sends no `ROUTE` event of its own (the caller publishes
  /// the new route). At its first fix it says the new route's next instruction once (kind
  /// `reroute`, "New route. In 200 meters, turn right onto …") when `announce` is true. A
  /// maneuver already announced on this route is not announced again from the same tier: the
  /// announcements made for it carry over to the same physical maneuver on the new route (within
  /// ``sameManeuverDistance`` metres, with the same instructions), and a road object said
  /// (`ahead`) is not said again (the same kind within ``sameObjectDistance`` metres).
  public func rerouted(onto document: RouteDocument, revision: Int, announce: Bool)
    throws(RouteDocumentError) -> NavigationSession
  {
    var next = try NavigationSession(
      document: document, routeIndex: 0, phrasing: phrasing, configuration: configuration)
    next.started = true
    next.announcer.revision = revision
    next.routeReason = .reroute
    next.state = .acquiring(.newRoute(announced: announce))
    next.fixes.speed = speed
    next.fixes.lead = fixes.lead
    next.fixes.interval = fixInterval
    next.detector = detector.carriedOver()
    next.guidesBack = guidesBack
    let old = route.steps
    for k in 1..<next.route.steps.count {
      guard let point = next.route.steps[k].polyline.last else { continue }
      for j in max(1, currentStep)..<old.count {
        guard let o = old[j].polyline.last, o.distance(to: point) <= Self.sameManeuverDistance,
          old[j].instructions == next.route.steps[k].instructions
        else { continue }
        next.scheduler.carryOver(k, from: scheduler, step: j)
        break
      }
    }
    // An object said on this route is not said again on the new one.
    next.ahead.carryOver(
      from: ahead, oldGeometry: geometry, geometry: next.geometry, within: Self.sameObjectDistance)
    return next
  }

  /// The "new route" announcement, once, for the maneuver ahead after a reroute's first match.
  mutating func announceNewRoute(time: Double, into events: inout [NavigationEvent]) {
    let m = currentStep
    guard m >= 1, m <= lastStep, !scheduler.saidNow(m) else { return }
    let d = max(0, geometry.stepEnd[m] - distanceAlong)
    announce(
      .newRoute(instructions: route.steps[m].instructions, distance: d), kind: .reroute, step: m,
      id: "reroute", time: time, distance: d, into: &events)
    scheduler.saidNewRoute(m, time: time)
  }
}
