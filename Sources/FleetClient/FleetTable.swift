import Geodesy
import JSON

/// What `stepwise fleet` knows of each vehicle, folded from its `online`, `state`, `events` and
/// `progress` messages; pure, so its rendering is tested without a broker.
public struct FleetTable: Sendable {
  public struct Vehicle: Sendable, Equatable {
    public var online: Bool?
    public var route: String?
    public var step: Int?
    public var steps: Int?
    public var next: String?
    /// Metres to the next manoeuvre, and to the destination.
    public var toManeuver: Double?
    public var remaining: Double?
    public var eta: String?
    public var onRoute: Bool?
    public var arrived = false
    /// Wall-clock seconds of the last message.
    public var lastSeen: Double = 0
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
      if let r = o["route"]?.objectValue ?? nil { fold(&v, r) }
      if let a = o["announce"]?.objectValue ?? nil { fold(&v, a) }
      if let p = o["progress"]?.objectValue ?? nil { fold(&v, p) }
      if let s = o["step"]?.doubleValue { v.step = Int(s) }
      if let b = o["onRoute"]?.boolValue { v.onRoute = b }
      v.arrived = o["arrived"]?.boolValue ?? v.arrived
    default:
      fold(&v, o)
    }
    vehicles[id] = v
  }

  private func fold(_ v: inout Vehicle, _ e: JSONObject) {
    switch e["class"]?.stringValue {
    case "ROUTE":
      v.route = e["name"]?.stringValue
      v.steps = e["steps"]?.doubleValue.map { Int($0) }
      v.arrived = false
      v.next = nil
    case "ANNOUNCE":
      v.next = e["text"]?.stringValue
    case "STEP":
      v.step = e["step"]?.doubleValue.map { Int($0) }
    case "PROGRESS":
      v.step = e["step"]?.doubleValue.map { Int($0) } ?? v.step
      v.toManeuver = e["distanceToManeuver"]?.doubleValue
      v.remaining = e["distanceRemaining"]?.doubleValue
      v.eta = e["eta"]?.stringValue
      v.onRoute = e["onRoute"]?.boolValue ?? v.onRoute
    case "OFFROUTE": v.onRoute = false
    case "ONROUTE": v.onRoute = true
    case "ARRIVED": v.arrived = true
    case "CANCELLED":
      v.route = nil
      v.next = nil
    default: break
    }
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
        metres(v.remaining), v.eta.map { String($0.dropFirst(11).prefix(5)) } ?? "-",
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
      let name = o["class"]?.stringValue ?? kind
      var detail = ""
      switch name {
      case "ANNOUNCE": detail = o["text"]?.stringValue ?? ""
      case "ROUTE": detail = o["name"]?.stringValue ?? ""
      case "STEP": detail = o["step"]?.doubleValue.map { String(Int($0)) } ?? ""
      case "PROGRESS":
        detail =
          "step \(o["step"]?.doubleValue.map { String(Int($0)) } ?? "-"), "
          + "\(metres(o["distanceRemaining"]?.doubleValue)) to go"
      default: break
      }
      return "\(vehicle) \(time) \(name.padding(9)) \(detail)"
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
