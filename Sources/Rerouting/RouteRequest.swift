public import Geodesy
public import Routes

/// What the daemon asks a router for: a route from where the vehicle is to the waypoints it has
/// not reached yet.
///
/// The fields are the router-neutral meaning; ``RouterRequestBuilder`` writes them in each
/// router's own terms.
public struct RouteRequest: Sendable, Equatable {
  /// Where the route starts: the latest fix, or the point predicted along the course.
  public struct Origin: Sendable, Equatable {
    public var coordinate: Coordinate
    /// Course over ground in degrees clockwise from true north, when it can be trusted.
    public var course: Double?
    /// Speed over ground in metres per second.
    public var speed: Double
    /// Horizontal accuracy of the fix in metres (one sigma), when known.
    public var accuracy: Double?

    public init(coordinate: Coordinate, course: Double?, speed: Double, accuracy: Double?) {
      self.coordinate = coordinate
      self.course = course
      self.speed = speed
      self.accuracy = accuracy
    }
  }

  /// A point still to be reached.
  public struct Waypoint: Sendable, Equatable {
    /// `stop` ends a leg (the driver stops there, a U-turn is allowed); `through` is passed
    /// without stopping or turning.
    public enum Kind: String, Sendable, Hashable {
      case stop
      case through
    }
    public var coordinate: Coordinate
    public var kind: Kind

    public init(coordinate: Coordinate, kind: Kind = .stop) {
      self.coordinate = coordinate
      self.kind = kind
    }
  }

  public var origin: Origin
  /// The waypoints not yet reached, the destination last (never empty).
  public var waypoints: [Waypoint]
  public var transportType: TransportType
  /// The language of the route's text, an IETF tag ("en-US", "ko-KR").
  public var language: String
  /// Whether distances in the router's text are in miles (kilometres otherwise).
  public var imperial: Bool
  /// Matches a reply to its request (the exchange carries it; a Valhalla answer in its native
  /// format echoes it, so a stale one is told even there).
  public var id: String

  public init(
    origin: Origin, waypoints: [Waypoint], transportType: TransportType, language: String,
    imperial: Bool, id: String
  ) {
    self.origin = origin
    self.waypoints = waypoints
    self.transportType = transportType
    self.language = language
    self.imperial = imperial
    self.id = id
  }

  // MARK: - Tuning

  /// Below this speed (metres per second) the course says little: no heading is sent.
  public static let headingMinimumSpeed = 2.0
  /// The heading tolerance in degrees at ``headingMinimumSpeed``; it narrows to
  /// ``headingToleranceFast``.
  public static let headingToleranceSlow = 90.0
  /// The heading tolerance at ``headingNarrowSpeed`` and above.
  ///
  /// A fast vehicle cannot turn sharply on the spot, and a wide tolerance lets the router start
  /// it on a cross street.
  public static let headingToleranceFast = 30.0
  public static let headingNarrowSpeed = 15.0
  /// The search radius, in sigmas of the fix's accuracy; at most ``maximumRadius``.
  public static let radiusSigmas = 2.0
  /// The largest search radius, metres (Valhalla's service limit is 200 m; wider finds far
  /// roads).
  public static let maximumRadius = 100.0

  /// The origin heading to send, or `nil` when the course is unknown or the vehicle too slow
  /// for it to mean anything.
  public var heading: Double? {
    guard let c = origin.course, c.isFinite, origin.speed >= Self.headingMinimumSpeed else {
      return nil
    }
    let h = c.truncatingRemainder(dividingBy: 360)
    return h < 0 ? h + 360 : h
  }

  /// The heading tolerance in degrees, narrowing linearly with speed.
  public var headingTolerance: Double {
    let t =
      (origin.speed - Self.headingMinimumSpeed)
      / (Self.headingNarrowSpeed - Self.headingMinimumSpeed)
    let f = min(1, max(0, t))
    return (Self.headingToleranceSlow + (Self.headingToleranceFast - Self.headingToleranceSlow) * f)
      .rounded()
  }

  /// The radius in metres around the origin in which the router may snap it to a road, from
  /// the fix's accuracy; `nil` when the accuracy is unknown (the router's default).
  public var radius: Double? {
    guard let a = origin.accuracy, a.isFinite, a > 0 else { return nil }
    return min(Self.maximumRadius, (Self.radiusSigmas * a).rounded(.up))
  }
}
