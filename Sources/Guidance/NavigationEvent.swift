public import Geodesy
public import Routes

/// What an announcement is for.
///
/// The raw value is the `kind` member of `ANNOUNCE` objects.
public enum AnnouncementKind: String, Sendable, Hashable, CaseIterable {
  case depart, prepare, approach, now, arrive, waypoint, notice, mode, `continue`
  case offRoute = "offroute"
  case onRoute = "onroute"
  case gps, reroute, `return`
  /// Over the speed limit.
  case speed
  /// A road object on the route ahead (a tunnel, a toll, a level crossing).
  case ahead
}

/// Something to say, with the step it belongs to.
public struct Announcement: Sendable, Equatable {
  /// Index of the step whose maneuver (or notice) is announced.
  public var step: Int
  public var kind: AnnouncementKind
  public var message: AnnouncementMessage
  /// What a voice would say.
  public var text: String
  /// Metres to the maneuver when the announcement was made, where one applies.
  public var distance: Double?
  /// A stable identifier of this announcement (route, step and kind), the same across restarts and
  /// replays, so consumers can drop duplicates.
  public var id: String

  public init(
    step: Int, kind: AnnouncementKind, message: AnnouncementMessage, text: String,
    distance: Double?, id: String
  ) {
    self.step = step
    self.kind = kind
    self.message = message
    self.text = text
    self.distance = distance
    self.id = id
  }
}

/// The route being followed, as announced at the start.
public struct RouteSummary: Sendable, Equatable {
  public var name: String
  public var routeIndex: Int
  public var distance: Double
  public var expectedTravelTime: Double
  public var transportType: TransportType
  public var hasTolls: Bool
  public var hasHighways: Bool
  /// Number of steps including the departure step.
  public var steps: Int
  public var source: String
  public var destination: String
  /// Why this route is followed.
  public var reason: RouteReason = .start
  /// Grows by one with each route applied (select, load, reload, reroute); 0 for the first.
  public var revision = 0

  public init(
    name: String, routeIndex: Int, distance: Double, expectedTravelTime: Double,
    transportType: TransportType, hasTolls: Bool, hasHighways: Bool, steps: Int, source: String,
    destination: String, reason: RouteReason = .start, revision: Int = 0
  ) {
    self.name = name
    self.routeIndex = routeIndex
    self.distance = distance
    self.expectedTravelTime = expectedTravelTime
    self.transportType = transportType
    self.hasTolls = hasTolls
    self.hasHighways = hasHighways
    self.steps = steps
    self.source = source
    self.destination = destination
    self.reason = reason
    self.revision = revision
  }
}

/// Where the vehicle is on the route, after one fix.
///
/// Stored compactly (counts in 32 bits, an unknown speed or course as NaN, the flag last), so
/// that a `PROGRESS` event fits in 128 bytes: the compiler copies a value up to that size inline,
/// a larger one with a `memcpy` call, and every fix copies its event three times on the way to
/// its sinks (StepwiseBench `perfix`: 152 bytes cost 5 % of the CPU time of a fix). It holds no
/// reference (what lies ahead travels beside it, in ``NavigationEvent/Kind/progress(_:ahead:)``),
/// so a copy is plain bytes. The public properties are the plain ones.
public struct Progress: Sendable, Equatable {
  private var step32: Int32
  private var discarded32: Int32
  /// Metres to the next maneuver, along the route.
  public var distanceToManeuver: Double
  /// Metres to the destination, along the route.
  public var distanceRemaining: Double
  /// Expected seconds to the destination.
  public var timeRemaining: Double
  /// Metres travelled along the route.
  public var distanceAlong: Double
  /// The fix as received.
  public var raw: Coordinate
  /// The fix snapped to the route.
  public var matched: Coordinate
  /// Lateral distance between the fix and the route, in metres.
  public var distanceFromRoute: Double
  private var speedOrNaN: Double
  private var courseOrNaN: Double
  /// The posted speed limit at the vehicle's position on the route: a value in its unit, or
  /// ``SpeedLimit/none``; `nil` where the route has no limit data, the router did not know, or
  /// the vehicle is not on the route.
  public var speedLimit: SpeedLimit?
  public var onRoute: Bool

  /// The step being travelled (its maneuver is the next one).
  public var step: Int {
    get { Int(step32) }
    set { step32 = Int32(clamping: newValue) }
  }
  /// Speed over ground used by the engine, metres per second.
  public var speed: Double? {
    get { speedOrNaN.isNaN ? nil : speedOrNaN }
    set { speedOrNaN = newValue ?? .nan }
  }
  /// Course over ground, degrees.
  public var course: Double? {
    get { courseOrNaN.isNaN ? nil : courseOrNaN }
    set { courseOrNaN = newValue ?? .nan }
  }
  /// Fixes discarded so far as jumps of the receiver (farther from the last fix than the
  /// vehicle can have gone): matched to nothing, counted here.
  public var discardedFixes: Int {
    get { Int(discarded32) }
    set { discarded32 = Int32(clamping: newValue) }
  }

  public init(
    step: Int, distanceToManeuver: Double, distanceRemaining: Double, timeRemaining: Double,
    distanceAlong: Double, onRoute: Bool, raw: Coordinate, matched: Coordinate,
    distanceFromRoute: Double, speed: Double?, course: Double?, discardedFixes: Int = 0,
    speedLimit: SpeedLimit? = nil
  ) {
    step32 = Int32(clamping: step)
    discarded32 = Int32(clamping: discardedFixes)
    self.distanceToManeuver = distanceToManeuver
    self.distanceRemaining = distanceRemaining
    self.timeRemaining = timeRemaining
    self.distanceAlong = distanceAlong
    self.raw = raw
    self.matched = matched
    self.distanceFromRoute = distanceFromRoute
    speedOrNaN = speed ?? .nan
    courseOrNaN = course ?? .nan
    self.speedLimit = speedLimit
    self.onRoute = onRoute
  }

  public static func == (a: Progress, b: Progress) -> Bool {
    a.step32 == b.step32 && a.discarded32 == b.discarded32
      && a.distanceToManeuver == b.distanceToManeuver
      && a.distanceRemaining == b.distanceRemaining && a.timeRemaining == b.timeRemaining
      && a.distanceAlong == b.distanceAlong && a.raw == b.raw && a.matched == b.matched
      && a.distanceFromRoute == b.distanceFromRoute && a.speed == b.speed
      && a.course == b.course && a.speedLimit == b.speedLimit
      && a.onRoute == b.onRoute
  }
}

/// GPS reception as the engine sees it.
public enum GPSStatus: String, Sendable, Hashable {
  case lost, acquired
}

/// One event of a guidance session.
///
/// `time` is the fix time (seconds since the Unix epoch).
public struct NavigationEvent: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    case route(RouteSummary)
    indirect case announce(Announcement)
    /// The vehicle starts travelling along `step` (the maneuver of `step - 1` was just passed).
    case step(Int)
    /// Where the vehicle is, and what lies ahead on the route when it changed with this fix
    /// (and with the first of a route that has any): the next few road objects whose end is
    /// not behind the vehicle, in order of start, `start` and `end` in metres along the route
    /// (as `distanceAlong`); `nil` when unchanged.
    ///
    /// The list is carried beside ``Progress``, not in it: a `Progress` that holds no reference
    /// is copied as plain bytes, and every fix makes one (126 instructions a fix less,
    /// callgrind on StepwiseBench `perfix`).
    case progress(Progress, ahead: [RoadObject]? = nil)
    /// Left the route; metres from it, and why.
    case offRoute(distance: Double, reason: OffRouteReason = .distance)
    case onRoute
    /// Arrived; `distance` is the straight-line distance to the route's end point, metres.
    case arrived(distance: Double)
    case gps(GPSStatus)
  }

  public var time: Double
  public var kind: Kind
  /// Whether the event was made from a position estimated without fixes (dead reckoning along
  /// the route): an announcement, a step or a progress in a tunnel.
  public var estimated: Bool

  public init(time: Double, kind: Kind, estimated: Bool = false) {
    self.time = time
    self.kind = kind
    self.estimated = estimated
  }
}
