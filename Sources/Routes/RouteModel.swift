public import Geodesy

/// How a step or a route is travelled, as in MapKit's `MKDirectionsTransportType`.
public enum TransportType: String, Sendable, Hashable, CaseIterable {
  case automobile
  case walking
  case cycling
  case transit
}

/// A named place: the source or the destination of a directions document.
public struct Place: Sendable, Equatable {
  public var name: String
  public var coordinate: Coordinate

  public init(name: String, coordinate: Coordinate) {
    self.name = name
    self.coordinate = coordinate
  }
}

/// One step of a route, with MapKit's `MKRoute.Step` semantics.
///
/// Step 0 is the departure: 0 m, empty `instructions`, one point at the source. For every later
/// step, `polyline` runs from the previous maneuver to this step's maneuver, `distance` is the
/// length of that approach in metres, and `instructions` say what to do at the END of the
/// polyline. The last step's instructions describe the arrival.
public struct RouteStep: Sendable, Equatable {
  /// What to do at the end of this step's polyline ("Turn left onto Rue de Bretagne").
  public var instructions: String
  /// A warning to give with this step ("Railroad crossing"), or `nil`.
  public var notice: String?
  /// Length of the approach to this step's maneuver, in metres.
  public var distance: Double
  /// How this step is travelled.
  public var transportType: TransportType
  /// The approach, from the previous maneuver to this step's maneuver (fixed point, 1.1 cm).
  public var polyline: RoutePolyline
  /// When this step's maneuver is the arrival at an intermediate waypoint, its 1-based number.
  public var waypoint: Int?
  /// What the maneuver is, when the router said it.
  public var maneuver: RouteManeuver?
  /// The lanes at this step's maneuver, from left to right; empty when the router gave none.
  public var lanes: [RouteLane]
  /// The sign of this step's maneuver (exit number, branch, toward), when the router gave one.
  public var sign: RouteSign?

  public init(
    instructions: String, notice: String? = nil, distance: Double,
    transportType: TransportType, polyline: [Coordinate], waypoint: Int? = nil,
    maneuver: RouteManeuver? = nil, lanes: [RouteLane] = [], sign: RouteSign? = nil
  ) {
    self.init(
      instructions: instructions, notice: notice, distance: distance,
      transportType: transportType, polyline: RoutePolyline(polyline), waypoint: waypoint,
      maneuver: maneuver, lanes: lanes, sign: sign)
  }

  public init(
    instructions: String, notice: String? = nil, distance: Double,
    transportType: TransportType, polyline: RoutePolyline, waypoint: Int? = nil,
    maneuver: RouteManeuver? = nil, lanes: [RouteLane] = [], sign: RouteSign? = nil
  ) {
    self.instructions = instructions
    self.notice = notice
    self.distance = distance
    self.transportType = transportType
    self.polyline = polyline
    self.waypoint = waypoint
    self.maneuver = maneuver
    self.lanes = lanes
    self.sign = sign
  }

  /// Whether this is a departure step (0 m, no instructions).
  public var isDeparture: Bool { distance == 0 && instructions.isEmpty }
}

/// One alternative route, with MapKit's `MKRoute` fields.
public struct Route: Sendable, Equatable {
  public var name: String
  /// Total length in metres.
  public var distance: Double
  /// Expected travel time in seconds.
  public var expectedTravelTime: Double
  public var transportType: TransportType
  public var hasTolls: Bool
  public var hasHighways: Bool
  /// Route-wide warnings, said once at departure.
  public var advisoryNotices: [String]
  public var steps: [RouteStep]
  /// Speed limits, road objects and lanes along the route, away from its maneuvers.
  public var road: RouteRoad

  public init(
    name: String, distance: Double, expectedTravelTime: Double, transportType: TransportType,
    hasTolls: Bool = false, hasHighways: Bool = false, advisoryNotices: [String] = [],
    steps: [RouteStep], road: RouteRoad = RouteRoad()
  ) {
    self.name = name
    self.distance = distance
    self.expectedTravelTime = expectedTravelTime
    self.transportType = transportType
    self.hasTolls = hasTolls
    self.hasHighways = hasHighways
    self.advisoryNotices = advisoryNotices
    self.steps = steps
    self.road = road
  }
}

/// A directions response: where from, where to, and one or more alternative routes.
public struct RouteDocument: Sendable, Equatable {
  public var source: Place
  public var destination: Place
  public var routes: [Route]

  public init(source: Place, destination: Place, routes: [Route]) {
    self.source = source
    self.destination = destination
    self.routes = routes
  }

  /// The alternative at `index`, or a `RouteDocumentError` naming the bad index.
  public func route(at index: Int) throws(RouteDocumentError) -> Route {
    guard routes.indices.contains(index) else {
      throw RouteDocumentError(
        .routeIndexOutOfRange, path: "routes[\(index)]",
        "route index \(index) is out of range: the document has \(routes.count) "
          + (routes.count == 1 ? "route (index 0)" : "routes (0…\(routes.count - 1))"))
    }
    return routes[index]
  }
}
