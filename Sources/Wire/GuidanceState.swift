public import JSON

/// The state of guidance as far as the event stream tells it: what a `STATE` object carries.
///
/// The server folds every published event into one of these, so that a subscriber that connects
/// late gets the current state first (`docs/protocol.md`, STATE). Clients fold the `STATE` they
/// receive and the live events after it into their own copy the same way. The state is kept as
/// the event objects themselves, so nothing is lost or reformatted on the way.
public struct GuidanceState: Sendable, Equatable {
  /// The `seq` of the last event folded in; 0 before the first.
  public var seq: Int = 0
  /// Whether a route is being followed (from `ROUTE`, `select` or `load` until `CANCELLED`).
  public var guiding = false
  /// The alternative being followed, when known.
  public var routeIndex: Int?
  /// The last `ROUTE` object of the current guidance.
  public var route: JSONObject?
  /// The last `PROGRESS` object of the current guidance.
  public var progress: JSONObject?
  /// The last `ANNOUNCE` object of the current guidance.
  public var announce: JSONObject?
  /// The step being travelled, from `STEP` and `PROGRESS`.
  public var step: Int?
  /// `false` between `OFFROUTE` and `ONROUTE`; `nil` before the first fix.
  public var onRoute: Bool?
  /// `acquired` or `lost`, from `GPS` events and `PROGRESS`; `nil` before the first fix.
  public var gps: String?
  /// Whether `ARRIVED` was reported for the current guidance.
  public var arrived = false
  /// The `time` of the last event.
  public var time: String?
  /// The last `SOURCE` object (live fix sources only: connected to gpsd or not).
  public var source: JSONObject?
  /// Where rerouting stands (`rerouting`, `noRouter`, `offNetwork`), from `REROUTE`; `nil`
  /// while nothing is under way.
  public var reroute: String?

  public init() {}

  /// Folds one published event object (with or without `seq`) into the state.
  public mutating func apply(_ event: JSONObject) {
    if let s = event["seq"]?.doubleValue { seq = Int(s) }
    if let t = event["time"]?.stringValue { time = t }
    switch event["class"]?.stringValue {
    case "ROUTE":
      beginGuidance(routeIndex: event["routeIndex"]?.doubleValue.map { Int($0) })
      route = event
    case "PROGRESS":
      guiding = true
      progress = event
      if let s = event["step"]?.doubleValue { step = Int(s) }
      if let b = event["onRoute"]?.boolValue { onRoute = b }
      gps = "acquired"
    case "ANNOUNCE":
      announce = event
    case "STEP":
      if let s = event["step"]?.doubleValue { step = Int(s) }
    case "OFFROUTE":
      onRoute = false
    case "ONROUTE":
      onRoute = true
    case "GPS":
      if let s = event["status"]?.stringValue { gps = s }
    case "ARRIVED":
      arrived = true
    case "SOURCE":
      source = event
    case "REROUTE":
      let s = event["status"]?.stringValue
      reroute = s == "idle" ? nil : s
    case "CANCELLED":
      guiding = false
      route = nil
      progress = nil
      announce = nil
      step = nil
      onRoute = nil
      arrived = false
    default:
      break
    }
  }

  /// Forgets the current guidance because another alternative or document was chosen; the new
  /// `ROUTE` follows with the next fix.
  public mutating func beginGuidance(routeIndex: Int?) {
    guiding = true
    self.routeIndex = routeIndex
    route = nil
    progress = nil
    announce = nil
    step = nil
    onRoute = nil
    arrived = false
  }

  /// The `STATE` object (`docs/protocol.md`).
  ///
  /// Unknown values are omitted.
  public var object: JSONObject {
    var o = JSONObject()
    o.append("class", "STATE")
    if let time { o.append("time", .string(time)) }
    o.append("seq", .number(Double(seq)))
    o.append("guiding", .bool(guiding))
    if let routeIndex { o.append("routeIndex", .number(Double(routeIndex))) }
    if let step { o.append("step", .number(Double(step))) }
    if let onRoute { o.append("onRoute", .bool(onRoute)) }
    if let gps { o.append("gps", .string(gps)) }
    o.append("arrived", .bool(arrived))
    if let route { o.append("route", .object(route)) }
    if let progress { o.append("progress", .object(progress)) }
    if let announce { o.append("announce", .object(announce)) }
    if let source { o.append("source", .object(source)) }
    if let reroute { o.append("reroute", .string(reroute)) }
    return o
  }

  /// Reads a `STATE` object back; `nil` when `object` is not one.
  public init?(stateObject o: JSONObject) {
    guard o["class"]?.stringValue == "STATE" else { return nil }
    seq = Int(o["seq"]?.doubleValue ?? 0)
    guiding = o["guiding"]?.boolValue ?? false
    routeIndex = o["routeIndex"]?.doubleValue.map { Int($0) }
    step = o["step"]?.doubleValue.map { Int($0) }
    onRoute = o["onRoute"]?.boolValue
    gps = o["gps"]?.stringValue
    arrived = o["arrived"]?.boolValue ?? false
    time = o["time"]?.stringValue
    route = o["route"]?.objectValue
    progress = o["progress"]?.objectValue
    announce = o["announce"]?.objectValue
    source = o["source"]?.objectValue
    reroute = o["reroute"]?.stringValue
  }
}
