/// A posted speed limit: a value in its unit, no limit, or not known.
public enum SpeedLimit: Sendable, Hashable {
  /// The unit a limit is posted in.
  public enum Unit: String, Sendable, Hashable, CaseIterable {
    case kilometresPerHour = "km/h"
    case milesPerHour = "mph"

    /// Metres per second in one of this unit.
    public var metresPerSecond: Double {
      switch self {
      case .kilometresPerHour: 1000.0 / 3600
      case .milesPerHour: 1609.344 / 3600
      }
    }
  }

  /// A limit as signed: `value` in `unit`.
  case limit(Double, Unit)
  /// No limit applies (OSM `maxspeed=none`, OSRM's `{"none": true}`).
  case none
  /// The router said it does not know (OSRM's `{"unknown": true}`).
  case unknown

  /// The limit in metres per second, for a limit with a value.
  public var metresPerSecond: Double? {
    if case .limit(let v, let unit) = self { return v * unit.metresPerSecond }
    return nil
  }
}

/// A stretch of the route under one speed limit, from `start` to `end` metres along the route
/// (along its step polylines, from the start of the route).
///
/// A route's spans are in order and do not overlap; where the router gave nothing there is no
/// span (which is not the same as a span whose limit is ``SpeedLimit/unknown``).
public struct SpeedLimitSpan: Sendable, Hashable {
  public var start: Double
  public var end: Double
  public var limit: SpeedLimit

  public init(start: Double, end: Double, limit: SpeedLimit) {
    self.start = start
    self.end = end
    self.limit = limit
  }
}
