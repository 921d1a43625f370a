/// How a receiver says it obtained a position.
public enum FixQuality: String, Sendable, Hashable {
  /// No position: the receiver said its data are not valid.
  case none
  /// Autonomous GNSS.
  case gps
  /// Differentially corrected GNSS (DGPS, SBAS).
  case dgps
  /// Real-time kinematic, fixed or float.
  case rtk
  /// Dead reckoning, alone or combined with GNSS: positions are estimates that drift.
  case deadReckoning
  /// Simulated or manual input, which real receivers mark as such.
  case simulated
}

/// One receiver epoch as the core sees it: a time and, when the receiver had a fix, a position.
///
/// Fixes come from NMEA epochs, gpsd reports or the simulator. Time is the receiver's UTC time in
/// seconds since 1970-01-01T00:00:00Z; it is the only clock the core knows.
public struct Fix: Sendable, Equatable {
  /// Receiver time, seconds since the Unix epoch (UTC).
  public var time: Double
  /// The position, or `nil` for an epoch without a valid fix.
  public var coordinate: Coordinate?
  /// Speed over ground in metres per second, when known.
  public var speed: Double?
  /// Course over ground in degrees clockwise from true north, when known.
  public var course: Double?
  /// Horizontal accuracy in metres at about 68 % confidence (one-sigma radial), when known.
  ///
  /// gpsd's `eph` is a 95 % figure and NMEA GST gives per-axis standard deviations: the sources
  /// convert both to this scale before building a `Fix`.
  public var horizontalAccuracy: Double?
  /// Horizontal dilution of precision, when known.
  public var hdop: Double?
  /// Altitude above mean sea level in metres, when known.
  public var altitude: Double?
  /// Number of satellites used, when known.
  public var satellites: Int?
  /// How the position was obtained.
  public var quality: FixQuality

  /// Creates a fix.
  public init(
    time: Double, coordinate: Coordinate?, speed: Double? = nil, course: Double? = nil,
    horizontalAccuracy: Double? = nil, hdop: Double? = nil, altitude: Double? = nil,
    satellites: Int? = nil, quality: FixQuality = .gps
  ) {
    self.time = time
    self.coordinate = coordinate
    self.speed = speed
    self.course = course
    self.horizontalAccuracy = horizontalAccuracy
    self.hdop = hdop
    self.altitude = altitude
    self.satellites = satellites
    self.quality = coordinate == nil ? .none : quality
  }

  /// Creates an epoch without a position.
  public static func noFix(time: Double) -> Fix {
    Fix(time: time, coordinate: nil, quality: .none)
  }

  /// Whether this epoch carries a usable position.
  public var isValid: Bool { coordinate != nil && quality != .none }
}
