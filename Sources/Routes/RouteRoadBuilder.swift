import Geodesy

/// Gathers what an importer reads about the road, given by point indices of one stretch of the
/// route at a time (a router step, or a router's whole path), into a ``RouteRoad`` whose
/// positions are metres along the route.
///
/// Spans that continue one another (the same limit, or the same kind and name of object, one
/// starting where the other ends) become one span, also across stretches, so a tunnel a router
/// splits at an intersection stays one tunnel.
package struct RouteRoadBuilder {
  package init() {}

  package private(set) var road = RouteRoad()
  /// How close two positions must be to continue one another, in metres.
  package static let joinTolerance = 0.01

  /// Metres along the route of each point of a stretch that starts `along` metres into it.
  package static func offsets(_ points: some RandomAccessCollection<Coordinate>, from along: Double)
    -> [Double]
  {
    var out: [Double] = []
    out.reserveCapacity(points.count)
    var d = along
    var previous: Coordinate?
    for p in points {
      if let previous { d += previous.distance(to: p) }
      out.append(d)
      previous = p
    }
    return out
  }

  /// A speed limit from `start` to `end` metres along the route.
  package mutating func addLimit(_ limit: SpeedLimit, from start: Double, to end: Double) {
    if let last = road.speedLimits.last, last.limit == limit,
      abs(last.end - start) <= Self.joinTolerance
    {
      road.speedLimits[road.speedLimits.count - 1].end = max(last.end, end)
      return
    }
    road.speedLimits.append(SpeedLimitSpan(start: start, end: end, limit: limit))
  }

  /// An object from `start` to `end` metres along the route (a point when they are equal).
  package mutating func addObject(
    _ kind: RoadObject.Kind, from start: Double, to end: Double, name: String? = nil
  ) {
    if end > start,
      let i = road.objects.lastIndex(where: { $0.kind == kind && !$0.isPoint }),
      road.objects[i].name == name || name == nil,
      abs(road.objects[i].end - start) <= Self.joinTolerance
    {
      road.objects[i].end = max(road.objects[i].end, end)
      return
    }
    road.objects.append(RoadObject(kind, start: start, end: end, name: name))
  }

  package mutating func addLanes(_ lanes: [RouteLane], at along: Double) {
    road.lanes.append(RouteLaneGuidance(at: along, lanes: lanes))
  }
}
