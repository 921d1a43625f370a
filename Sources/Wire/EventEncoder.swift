import Geodesy
public import Guidance
public import JSON
import Routes

/// Turns navigation events into the JSON objects of `docs/events.md` and of the socket protocol:
/// one object per event with `class` and `time`.
public enum EventEncoder {
  /// The JSON object for `event`.
  ///
  /// Unknown values are omitted, never `null`.
  public static func object(_ event: NavigationEvent) -> JSONObject {
    var o = JSONObject()
    func num(_ v: Double, _ step: Double) -> JSONValue {
      let scale = (1 / step).rounded()
      return .number((v * scale).rounded() / scale)
    }
    func coord(_ c: Coordinate) -> (JSONValue, JSONValue) {
      (num(c.latitude, 1e-7), num(c.longitude, 1e-7))
    }
    switch event.kind {
    case .route(let r):
      o.append("class", "ROUTE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("name", .string(r.name))
      o.append("routeIndex", .number(Double(r.routeIndex)))
      o.append("distance", num(r.distance, 0.1))
      o.append("expectedTravelTime", num(r.expectedTravelTime, 0.1))
      o.append("transportType", .string(r.transportType.rawValue))
      o.append("hasTolls", .bool(r.hasTolls))
      o.append("hasHighways", .bool(r.hasHighways))
      o.append("steps", .number(Double(r.steps)))
      o.append("source", .string(r.source))
      o.append("destination", .string(r.destination))
      o.append("reason", .string(r.reason.rawValue))
      o.append("revision", .number(Double(r.revision)))
    case .announce(let a):
      o.append("class", "ANNOUNCE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("step", .number(Double(a.step)))
      o.append("kind", .string(a.kind.rawValue))
      o.append("text", .string(a.text))
      if let d = a.distance { o.append("distance", num(d, 1)) }
      o.append("id", .string(a.id))
    case .step(let s):
      o.append("class", "STEP")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("step", .number(Double(s)))
    case .progress(let p):
      o.append("class", "PROGRESS")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("step", .number(Double(p.step)))
      o.append("distanceToManeuver", num(p.distanceToManeuver, 0.1))
      o.append("distanceRemaining", num(p.distanceRemaining, 0.1))
      o.append("timeRemaining", num(p.timeRemaining, 0.1))
      o.append("eta", .string(UTCTime.iso8601((event.time + p.timeRemaining).rounded())))
      o.append("onRoute", .bool(p.onRoute))
      let (lat, lon) = coord(p.raw)
      o.append("latitude", lat)
      o.append("longitude", lon)
      let (mlat, mlon) = coord(p.matched)
      o.append("matchedLatitude", mlat)
      o.append("matchedLongitude", mlon)
      o.append("distanceAlong", num(p.distanceAlong, 0.1))
      o.append("distanceFromRoute", num(p.distanceFromRoute, 0.1))
      if let v = p.speed { o.append("speed", num(v, 0.01)) }
      if let c = p.course { o.append("course", num(c, 0.1)) }
      if p.discardedFixes > 0 { o.append("discardedFixes", .number(Double(p.discardedFixes))) }
    case .offRoute(let d, let reason):
      o.append("class", "OFFROUTE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("distance", num(d, 0.1))
      if reason != .distance { o.append("reason", .string(reason.rawValue)) }
    case .onRoute:
      o.append("class", "ONROUTE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
    case .arrived(let d):
      o.append("class", "ARRIVED")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("distance", num(d, 0.1))
    case .gps(let s):
      o.append("class", "GPS")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("status", .string(s.rawValue))
    }
    return o
  }

  /// One JSON line (without the newline) for `event`: the bytes of ``write(_:into:)``.
  public static func line(_ event: NavigationEvent) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(512)
    EventLineWriter.write(event, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the JSON line of `event` (without the newline) to `out`.
  ///
  /// The bytes are those of ``object(_:)`` written by `JSONWriter`, produced without building
  /// the object: this is what `stepwised --json` writes for every fix.
  public static func write(_ event: NavigationEvent, into out: inout [UInt8]) {
    EventLineWriter.write(event, into: &out)
  }

  /// One readable line for `event`, for people watching stdout.
  public static func readableLine(_ event: NavigationEvent) -> String {
    let iso = UTCTime.iso8601(event.time)
    let clock = String(iso.dropFirst(11).prefix(8))
    switch event.kind {
    case .route(let r):
      return "\(clock) ROUTE     \(r.name): \(r.source) → \(r.destination), "
        + "\(Int(r.distance.rounded())) m, \(Int(r.expectedTravelTime.rounded())) s, "
        + "\(r.steps) steps\(r.hasTolls ? ", tolls" : "")"
    case .announce(let a):
      let pad = a.kind.rawValue.padding(8)
      return "\(clock) ANNOUNCE  [step \(a.step) \(pad)] \(a.text)"
    case .step(let s):
      return "\(clock) STEP      \(s)"
    case .progress(let p):
      return
        "\(clock) PROGRESS  step \(p.step), \(Int(p.distanceToManeuver.rounded())) m to maneuver, "
        + "\(Int(p.distanceRemaining.rounded())) m to go\(p.onRoute ? "" : " (off route)")"
    case .offRoute(let d, let reason):
      return "\(clock) OFFROUTE  \(Int(d.rounded())) m from the route"
        + (reason == .wrongWay ? ", the wrong way" : "")
    case .onRoute:
      return "\(clock) ONROUTE"
    case .arrived(let d):
      return "\(clock) ARRIVED   \(Int(d.rounded())) m from the end of the route"
    case .gps(let s):
      return "\(clock) GPS       \(s.rawValue)"
    }
  }
}

extension String {
  fileprivate func padding(_ n: Int) -> String {
    count >= n ? self : self + String(repeating: " ", count: n - count)
  }
}

/// A change of the fix source's state (the `SOURCE` event): a live gpsd connection delivering
/// reports, or lost.
///
/// Replays of files have no `SOURCE` events.
public struct SourceEvent: Sendable, Equatable {
  public enum Status: String, Sendable, Hashable {
    case connected, disconnected
  }

  /// Seconds since the Unix epoch on the fix clock (the last fix time plus the time elapsed
  /// since it), or the system's UTC clock before the first fix.
  public var time: Double
  public var status: Status
  /// Where the fixes come from, such as `gpsd://127.0.0.1:2947`.
  public var source: String
  /// Why the connection ended, such as `end of stream`, when it did.
  public var reason: String?

  public init(time: Double, status: Status, source: String, reason: String? = nil) {
    self.time = time
    self.status = status
    self.source = source
    self.reason = reason
  }
}

extension EventEncoder {
  /// The JSON object of a `SOURCE` event.
  public static func object(_ event: SourceEvent) -> JSONObject {
    var o = JSONObject()
    o.append("class", "SOURCE")
    o.append("time", .string(UTCTime.iso8601(event.time)))
    o.append("status", .string(event.status.rawValue))
    o.append("source", .string(event.source))
    if let r = event.reason { o.append("reason", .string(r)) }
    return o
  }

  /// One JSON line (without the newline) for a `SOURCE` event.
  public static func line(_ event: SourceEvent) -> String {
    var bytes: [UInt8] = []
    EventLineWriter.write(event, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the JSON line of a `SOURCE` event (without the newline) to `out`.
  public static func write(_ event: SourceEvent, into out: inout [UInt8]) {
    EventLineWriter.write(event, into: &out)
  }

  /// One readable line for a `SOURCE` event.
  public static func readableLine(_ event: SourceEvent) -> String {
    let clock = String(UTCTime.iso8601(event.time).dropFirst(11).prefix(8))
    let why = event.reason.map { " (\($0))" } ?? ""
    return "\(clock) SOURCE    \(event.status.rawValue) \(event.source)\(why)"
  }
}
