import Geodesy
import Guidance
import JSON
import Wire

/// What `stepwise fleet` knows of each vehicle, folded from its `online`, `state`, `events` and
/// `progress` messages; pure, so its rendering is tested without a broker.
public struct FleetTable: Sendable {
  public struct Vehicle: Sendable, Equatable {
    public var online: Bool?
    /// Its guidance, folded from its retained `state` and its events as every reader folds them.
    public var state = GuidanceState()
    /// Wall-clock seconds of the last message.
    public var lastSeen: Double = 0

    public var route: String? { state.route?.value.name }
    public var steps: Int? { state.route?.value.steps }
    public var step: Int? { state.step }
    /// The last announcement's text.
    public var next: String? { state.announce?.value.text }
    /// Metres to the next manoeuvre, and to the destination.
    public var toManeuver: Double? { state.progress?.value.distanceToManeuver }
    public var remaining: Double? { state.progress?.value.distanceRemaining }
    /// The estimated arrival, seconds since 1970.
    public var eta: Double? {
      state.progress.map { ($0.time + $0.value.timeRemaining).rounded() }
    }
    public var onRoute: Bool? { state.onRoute }
    public var arrived: Bool { state.arrived }
  }

  public private(set) var vehicles: [String: Vehicle] = [:]

  public init() {}

  /// The vehicle and the topic kind of `PREFIX/VEHICLE/KIND` (the vehicle is the level before
  /// the last).
  public static func split(_ topic: String) -> (vehicle: String, kind: String)? {
    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
    guard levels.count >= 2 else { return nil }
    return (String(levels[levels.count - 2]), String(levels[levels.count - 1]))
  }

  public mutating func apply(vehicle id: String, kind: String, _ o: JSONObject, at now: Double) {
    var v = vehicles[id] ?? Vehicle()
    v.lastSeen = now
    switch kind {
    case "online":
      v.online = o["online"]?.boolValue
    case "state":
      if let s = GuidanceState(stateObject: o) { v.state = s }
    default:
      if let e = ReceivedEvent(object: o) { v.state.apply(e) }
    }
    vehicles[id] = v
  }

  /// The table, one row per vehicle by id.
  public func render(now: Double) -> String {
    var rows = [
      ["VEHICLE", "ONLINE", "ROUTE", "STEP", "NEXT", "TO TURN", "TO GO", "ETA", "ROUTE?", "SEEN"]
    ]
    for id in vehicles.keys.sorted() {
      guard let v = vehicles[id] else { continue }
      rows.append([
        id, v.online.map { $0 ? "yes" : "no" } ?? "?", clip(v.route ?? "-", 28),
        v.step.map { s in v.steps.map { "\(s)/\($0 - 1)" } ?? "\(s)" } ?? "-",
        clip(v.arrived ? "arrived" : (v.next ?? "-"), 40), metres(v.toManeuver),
        metres(v.remaining),
        v.eta.map { String(UTCTime.iso8601($0).dropFirst(11).prefix(5)) } ?? "-",
        v.onRoute.map { $0 ? "on" : "OFF" } ?? "-", "\(Int(max(0, now - v.lastSeen))) s",
      ])
    }
    var widths = [Int](repeating: 0, count: rows[0].count)
    for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
    return rows.map { r in
      r.enumerated().map { i, c in c + String(repeating: " ", count: widths[i] - c.count) }
        .joined(separator: "  ")
    }.joined(separator: "\n")
  }

  /// One readable line for a message (`stepwise fleet` when output is not a terminal).
  public static func line(vehicle: String, kind: String, _ o: JSONObject) -> String {
    let time = o["time"]?.stringValue.map { String($0.dropFirst(11).prefix(8)) } ?? "--:--:--"
    switch kind {
    case "online":
      return "\(vehicle) \(time) ONLINE    \(o["online"]?.boolValue == true ? "yes" : "no")"
    case "state":
      return
        "\(vehicle) \(time) STATE     step \(o["step"]?.doubleValue.map { String(Int($0)) } ?? "-")"
    default:
      guard let received = ReceivedEvent(object: o) else {
        return "\(vehicle) \(time) \((o["class"]?.stringValue ?? kind).padding(9))"
      }
      var detail = ""
      if case .navigation(let e) = received.event {
        switch e.kind {
        case .announce(let a): detail = a.text
        case .route(let r): detail = r.name
        case .step(let n): detail = String(n)
        case .progress(let p): detail = "step \(p.step), \(metres(p.distanceRemaining)) to go"
        default: break
        }
      }
      return "\(vehicle) \(time) \(received.event.className.padding(9)) \(detail)"
    }
  }

  private func clip(_ s: String, _ n: Int) -> String {
    s.count <= n ? s : String(s.prefix(n - 1)) + "…"
  }

  private static func metres(_ m: Double?) -> String {
    guard let m else { return "-" }
    return m >= 1000
      ? "\(Int((m / 100).rounded()) / 10).\(Int((m / 100).rounded()) % 10) km"
      : "\(Int(m.rounded())) m"
  }

  private func metres(_ m: Double?) -> String { Self.metres(m) }
}

extension String {
  fileprivate func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
