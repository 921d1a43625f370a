import Geodesy

extension NativeRouteFormat {
  /// `decode(encode(document))`: an importer's document rounded as the native writer rounds it
  /// and validated as a native document, without writing and parsing a tree of it (for a
  /// million-point route that tree was most of the import's time and memory).
  ///
  /// A document with any problem goes the long way round, so its error is the one that way
  /// gives.
  package static func normalized(_ document: RouteDocument) throws(RouteDocumentError)
    -> RouteDocument
  {
    if let checked = checkedWithoutTree(document) { return checked }
    return try decode(encode(document))
  }

  /// The document rounded, or `nil` when something in it would fail validation.
  private static func checkedWithoutTree(_ document: RouteDocument) -> RouteDocument? {
    // The writer keeps the places' coordinates as they are.
    func place(_ p: Place) -> Place? {
      let c = p.coordinate
      return abs(c.latitude) <= 90 && abs(c.longitude) <= 180 ? p : nil
    }
    func length(_ v: Double, _ step: Double) -> Double? {
      let r = rounded(v, step)
      return r.isFinite && r >= 0 ? r : nil
    }
    guard let source = place(document.source), let destination = place(document.destination),
      !document.routes.isEmpty
    else { return nil }
    var routes: [Route] = []
    routes.reserveCapacity(document.routes.count)
    for route in document.routes {
      guard let distance = length(route.distance, 0.01),
        let time = length(route.expectedTravelTime, 0.1), route.steps.count >= 2
      else { return nil }
      var steps: [RouteStep] = []
      steps.reserveCapacity(route.steps.count)
      var waypoints = 0
      for (i, step) in route.steps.enumerated() {
        guard let d = length(step.distance, 0.01) else { return nil }
        if let w = step.waypoint {
          waypoints += 1
          guard w == waypoints else { return nil }
        }
        // Fixed-point points are already on the writer's 10⁻⁷ degree grid.
        for c in step.polyline where !(abs(c.latitude) <= 90 && abs(c.longitude) <= 180) {
          return nil
        }
        if i == 0 {
          guard d == 0, step.instructions.isEmpty, step.polyline.count >= 1 else { return nil }
        } else {
          guard step.polyline.count >= 2 else { return nil }
          if let previous = steps.last?.polyline.last,
            !(previous.distance(to: step.polyline[0]) <= continuityTolerance)
          {
            return nil
          }
        }
        var s = step
        s.distance = d
        if let m = step.maneuver {
          if let exit = m.exit, exit < 1 { return nil }
          if let e = m.exitDistance {
            guard let rounded = length(e, 0.01) else { return nil }
            s.maneuver?.exitDistance = rounded
          }
        }
        steps.append(s)
      }
      guard let road = roundedRoad(route.road) else { return nil }
      var r = route
      r.road = road
      r.distance = distance
      r.expectedTravelTime = time
      r.steps = steps
      routes.append(r)
    }
    return RouteDocument(source: source, destination: destination, routes: routes)
  }
}
