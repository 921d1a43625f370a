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

  /// How `stepwise fleet` shows the table: which vehicles, in which order, which page.
  public struct View: Sendable, Equatable {
    public enum Order: String, Sendable, CaseIterable {
      /// By vehicle id; by last message, the longest silent first; by distance to go, the
      /// shortest first; by ETA, the earliest first (vehicles without one last).
      case id, seen, remaining, eta
    }
    public var order = Order.id
    /// Only vehicles whose id or route name contains this (case-insensitive), or, for the
    /// words `offline`, `stale`, `off` (off route) and `arrived`, those in that condition.
    public var filter: String?
    /// Rows per page, and the page shown (from 1).
    public var rows = 50
    public var page = 1
    /// A vehicle silent this long (seconds) is shown `stale`, whatever its `online` says: a
    /// RabbitMQ node that dies takes its vehicles' wills with it (docs/fleet.md).
    public var staleAfter = 60.0

    public init() {}
  }

  /// `ONLINE`: what the vehicle said, or `stale` when it has been silent too long.
  public static func status(_ v: Vehicle, now: Double, staleAfter: Double) -> String {
    if v.online == false { return "no" }
    if now - v.lastSeen > staleAfter { return "stale" }
    return v.online == true ? "yes" : "?"
  }

  /// The ids `view` shows, in its order, all pages (the vehicles' count is the table's size:
  /// one pass to filter, one sort of what passed).
  public func selected(_ view: View, now: Double) -> [String] {
    let needle = view.filter?.lowercased()
    var ids: [String] = []
    ids.reserveCapacity(vehicles.count)
    for (id, v) in vehicles {
      if let needle, !needle.isEmpty {
        let status = Self.status(v, now: now, staleAfter: view.staleAfter)
        let keep: Bool
        switch needle {
        case "offline": keep = status == "no"
        case "stale": keep = status == "stale"
        case "off": keep = v.onRoute == false
        case "arrived": keep = v.arrived
        default:
          keep =
            id.lowercased().contains(needle) || (v.route?.lowercased().contains(needle) ?? false)
        }
        if !keep { continue }
      }
      ids.append(id)
    }
    func key(_ id: String) -> Double? {
      guard let v = vehicles[id] else { return nil }
      switch view.order {
      case .id: return nil
      case .seen: return v.lastSeen
      case .remaining: return v.remaining
      case .eta: return v.eta
      }
    }
    if view.order == .id {
      ids.sort()
    } else {
      let keyed = ids.map { ($0, key($0)) }
      ids = keyed.sorted { a, b in
        switch (a.1, b.1) {
        case (let x?, let y?): return x != y ? x < y : a.0 < b.0
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return a.0 < b.0
        }
      }.map(\.0)
    }
    return ids
  }

  /// The table, one row per vehicle by id.
  public func render(now: Double) -> String {
    var all = View()
    all.rows = Int.max
    all.staleAfter = .infinity
    return render(now: now, all).table
  }

  /// One page of the table under `view`, and a footer line: how many vehicles, shown,
  /// offline and stale, and the page.
  public func render(now: Double, _ view: View) -> (table: String, footer: String) {
    let ids = selected(view, now: now)
    let perPage = max(1, view.rows)
    let pages = max(1, ids.count / perPage + (ids.count % perPage == 0 ? 0 : 1))
    let page = min(max(1, view.page), pages)
    let start = (page - 1) * perPage
    var offline = 0
    var stale = 0
    for v in vehicles.values {
      switch Self.status(v, now: now, staleAfter: view.staleAfter) {
      case "no": offline += 1
      case "stale": stale += 1
      default: break
      }
    }
    var rows = [
      ["VEHICLE", "ONLINE", "ROUTE", "STEP", "NEXT", "TO TURN", "TO GO", "ETA", "ROUTE?", "SEEN"]
    ]
    let end = ids.count - start <= perPage ? ids.count : start + perPage
    for id in ids[start..<end] {
      guard let v = vehicles[id] else { continue }
      rows.append([
        id, Self.status(v, now: now, staleAfter: view.staleAfter), clip(v.route ?? "-", 28),
        v.step.map { s in v.steps.map { "\(s)/\($0 - 1)" } ?? "\(s)" } ?? "-",
        clip(v.arrived ? "arrived" : (v.next ?? "-"), 40), metres(v.toManeuver),
        metres(v.remaining),
        v.eta.map { String(UTCTime.iso8601($0).dropFirst(11).prefix(5)) } ?? "-",
        v.onRoute.map { $0 ? "on" : "OFF" } ?? "-", "\(Int(max(0, now - v.lastSeen))) s",
      ])
    }
    var widths = [Int](repeating: 0, count: rows[0].count)
    for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
    let table = rows.map { r in
      r.enumerated().map { i, c in c + String(repeating: " ", count: widths[i] - c.count) }
        .joined(separator: "  ")
    }.joined(separator: "\n")
    let footer =
      "\(vehicles.count) vehicles, \(ids.count) shown (\(view.order.rawValue)"
      + (view.filter.map { ", filter \($0)" } ?? "") + "), \(offline) offline, \(stale) stale; "
      + "page \(page)/\(pages)"
    return (table, footer)
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
        case .progress(let p, _): detail = "step \(p.step), \(metres(p.distanceRemaining)) to go"
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
