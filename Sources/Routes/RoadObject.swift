/// Something on the road along the route: a stretch (a tunnel, a bridge, a toll road, a ferry)
/// or a point (a toll booth, a border, a level crossing, a speed camera), with its place in
/// metres along the route (along its step polylines, from the start of the route).
public struct RoadObject: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case tunnel
    case bridge
    case tollRoad = "toll road"
    case tollBooth = "toll booth"
    case ferry
    case border
    case levelCrossing = "level crossing"
    case speedCamera = "speed camera"
  }

  public var kind: Kind
  /// Metres along the route where the object starts (or is, for a point).
  public var start: Double
  /// Metres along the route where it ends; `start` for a point.
  public var end: Double
  /// Its name, when the router gave one (a toll booth's, a tunnel's).
  public var name: String?

  public init(_ kind: Kind, start: Double, end: Double? = nil, name: String? = nil) {
    self.kind = kind
    self.start = start
    self.end = end ?? start
    self.name = name
  }

  /// The length of a stretch in metres (0 for a point).
  public var length: Double { end - start }
  public var isPoint: Bool { end == start }
}

/// What the router said about the road along a route, away from its maneuvers: the speed
/// limits, the objects on it and the lanes at intersections that are not maneuvers.
///
/// All three are empty for a route whose router gave none of them, and then cost the route
/// three empty arrays, nothing per point.
public struct RouteRoad: Sendable, Equatable {
  /// In order along the route, not overlapping.
  public var speedLimits: [SpeedLimitSpan]
  /// In order of their start along the route.
  public var objects: [RoadObject]
  /// In order along the route.
  public var lanes: [RouteLaneGuidance]

  public init(
    speedLimits: [SpeedLimitSpan] = [], objects: [RoadObject] = [],
    lanes: [RouteLaneGuidance] = []
  ) {
    self.speedLimits = speedLimits
    self.objects = objects
    self.lanes = lanes
  }

  public var isEmpty: Bool { speedLimits.isEmpty && objects.isEmpty && lanes.isEmpty }

  /// The speed limit at `distance` metres along the route, or `nil` where no span covers it (a
  /// point shared by two spans is in the later one).
  public func speedLimit(at distance: Double) -> SpeedLimit? {
    var lo = 0
    var hi = speedLimits.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if speedLimits[mid].start <= distance { lo = mid + 1 } else { hi = mid }
    }
    guard lo > 0, distance <= speedLimits[lo - 1].end else { return nil }
    return speedLimits[lo - 1].limit
  }
}
