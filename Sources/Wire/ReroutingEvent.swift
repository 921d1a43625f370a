import Geodesy
public import JSON

/// A change of where rerouting stands (the `REROUTE` event, `stepwised --router` only).
public struct ReroutingEvent: Sendable, Equatable {
  public enum Status: String, Sendable, Hashable, CaseIterable {
    /// Nothing under way.
    case idle
    /// A request is out, or a new route waits for the deviation to be confirmed.
    case rerouting
    /// The router did not answer (down, draining, timed out).
    case noRouter
    /// The router found no road near the vehicle.
    case offNetwork
  }

  /// Fix time, seconds since the Unix epoch.
  public var time: Double
  public var status: Status

  public init(time: Double, status: Status) {
    self.time = time
    self.status = status
  }
}

extension EventEncoder {
  /// The JSON object of a `REROUTE` event.
  public static func object(_ event: ReroutingEvent) -> JSONObject {
    var o = JSONObject()
    o.append("class", "REROUTE")
    o.append("time", .string(UTCTime.iso8601(event.time)))
    o.append("status", .string(event.status.rawValue))
    return o
  }
}
