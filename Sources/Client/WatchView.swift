import Geodesy
import Glibc
public import JSON
public import Phrasebook
public import Wire

/// What `stepwise watch` shows: the live view redrawn on a terminal, and the plain lines written
/// when the output is not a terminal.
public struct WatchView: Sendable {
  public var phrasebook: Phrasebook
  /// The current state, folded from `STATE` and the live events.
  public var state = GuidanceState()
  /// The selected route's steps (`routes` with `steps`), for the instruction of the current step.
  public var steps: [JSONObject] = []
  /// The ETA clock: seconds east of UTC added to the ETA before showing it.
  public var utcOffset: Int

  public init(phrasebook: Phrasebook, utcOffset: Int = WatchView.localUTCOffset()) {
    self.phrasebook = phrasebook
    self.utcOffset = utcOffset
  }

  /// The local time zone's offset from UTC now, in seconds.
  ///
  /// The corresponding C function is
  /// `localtime_r`.
  public static func localUTCOffset() -> Int {
    var now = time(nil)
    var tm = Glibc.tm()
    guard localtime_r(&now, &tm) != nil else { return 0 }
    return tm.tm_gmtoff
  }

  /// The live view, at most `width` columns wide: route, instruction, distance to the maneuver,
  /// progress bar, what is left, ETA, route and GPS state, the last announcement.
  public func screen(width: Int) -> [String] {
    let w = max(width, 20)
    guard state.guiding || state.route != nil else {
      return [fit("Not guiding. Waiting for a route (stepwise load ROUTE.json).", w)]
    }
    var lines: [String] = []
    let route = state.route
    var title = route?["name"]?.stringValue ?? "Route \(state.routeIndex.map(String.init) ?? "?")"
    if let total = route?["steps"]?.doubleValue, let step = state.step {
      title += "  ·  step \(step)/\(Int(total) - 1)"
    }
    lines.append(title)
    if state.arrived {
      lines.append("✔ Arrived at \(route?["destination"]?.stringValue ?? "the destination").")
    } else if let step = state.step, step < steps.count,
      let text = steps[step]["instructions"]?.stringValue, !text.isEmpty
    {
      lines.append("➜ " + text)
    } else if let text = state.announce?["text"]?.stringValue {
      lines.append("➜ " + text)
    } else {
      lines.append("➜ Waiting for the first fix…")
    }
    if let p = state.progress, !state.arrived {
      if let d = p["distanceToManeuver"]?.doubleValue {
        lines.append("  in " + phrasebook.displayDistance(d))
      }
      let remaining = p["distanceRemaining"]?.doubleValue ?? 0
      let total = route?["distance"]?.doubleValue ?? remaining
      let fraction = total > 0 ? min(max(1 - remaining / total, 0), 1) : 0
      let barWidth = max(10, min(40, w - 10))
      lines.append("  " + Self.bar(fraction, width: barWidth) + " " + percent(fraction))
      var left = "  " + phrasebook.displayDistance(remaining) + " left"
      if let t = p["timeRemaining"]?.doubleValue { left += " · " + phrasebook.displayDuration(t) }
      if let eta = p["eta"]?.stringValue.flatMap({ UTCTime.parseISO8601($0) }) {
        left += " · ETA " + clock(eta)
      }
      lines.append(left)
    } else if state.arrived {
      lines.append("  " + Self.bar(1, width: max(10, min(40, w - 10))) + " 100 %")
    }
    var status: [String] = []
    switch state.gps {
    case "lost"?: status.append("GPS LOST")
    case "acquired"?: status.append("GPS ok")
    default: status.append("GPS: no fix yet")
    }
    if state.onRoute == false {
      status.append("OFF ROUTE")
    } else if state.onRoute == true {
      status.append("on route")
    }
    if let r = state.reroute.flatMap(Self.reroutingLabel) { status.append(r) }
    lines.append("  " + status.joined(separator: " · "))
    if let said = state.announce?["text"]?.stringValue {
      lines.append("  “" + said + "”")
    }
    return lines.map { fit($0, w) }
  }

  /// One plain line for an event, or `nil` for events not shown (`PROGRESS` unless asked).
  public static func plainLine(_ o: JSONObject, progress: Bool) -> String? {
    let time = o["time"]?.stringValue.map { String($0.dropFirst(11).prefix(8)) } ?? "--:--:--"
    func n(_ key: String) -> String {
      o[key]?.doubleValue.map { String(Int($0.rounded())) } ?? "?"
    }
    let cls = o["class"]?.stringValue ?? "?"
    let padded = cls.count >= 9 ? cls : cls + String(repeating: " ", count: 9 - cls.count)
    let body: String
    switch cls {
    case "ROUTE":
      body =
        "\(o["name"]?.stringValue ?? ""): \(o["source"]?.stringValue ?? "") → "
        + "\(o["destination"]?.stringValue ?? ""), \(n("distance")) m, \(n("expectedTravelTime")) s, "
        + "\(n("steps")) steps (route \(n("routeIndex")))"
    case "ANNOUNCE":
      body = "[step \(n("step")) \(o["kind"]?.stringValue ?? "")] \(o["text"]?.stringValue ?? "")"
    case "STEP":
      body = n("step")
    case "PROGRESS":
      guard progress else { return nil }
      body =
        "step \(n("step")), \(n("distanceToManeuver")) m to maneuver, "
        + "\(n("distanceRemaining")) m to go"
        + (o["onRoute"]?.boolValue == false ? " (off route)" : "")
    case "OFFROUTE":
      body =
        "\(n("distance")) m from the route"
        + (o["reason"]?.stringValue == "wrongWay" ? ", the wrong way" : "")
    case "ARRIVED":
      body = "\(n("distance")) m from the end of the route"
    case "GPS", "SOURCE", "REROUTE":
      body = [o["status"]?.stringValue, o["source"]?.stringValue, o["reason"]?.stringValue]
        .compactMap { $0 }.joined(separator: " ")
    case "STATE":
      guard let s = GuidanceState(stateObject: o) else { return nil }
      var parts = [s.guiding ? "guiding" : "not guiding"]
      if let r = s.routeIndex { parts.append("route \(r)") }
      if let st = s.step { parts.append("step \(st)") }
      if let on = s.onRoute { parts.append(on ? "on route" : "off route") }
      if let g = s.gps { parts.append("GPS \(g)") }
      if s.arrived { parts.append("arrived") }
      if let r = s.reroute.flatMap(reroutingLabel) { parts.append(r) }
      body = parts.joined(separator: ", ")
    default:
      body = o.members.filter { !["class", "time", "seq"].contains($0.key) }
        .map { "\($0.key)=\(JSONWriter.string($0.value))" }.joined(separator: " ")
    }
    return "\(time) \(padded) \(body)".trimmingTrailingSpaces()
  }

  /// What the view says for a `reroute` state: the router asked, unreachable, or no road near.
  static func reroutingLabel(_ status: String) -> String? {
    switch status {
    case "rerouting": "Rerouting…"
    case "noRouter": "No router"
    case "offNetwork": "Off the network"
    default: nil
    }
  }

  /// A bar of `width` cells, `fraction` of them full, with eighth-cell resolution.
  public static func bar(_ fraction: Double, width: Int) -> String {
    let eighths = Int((fraction * Double(width * 8)).rounded(.down))
    let full = eighths / 8
    let partial = eighths % 8
    let parts = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    var s = "[" + String(repeating: "█", count: full)
    if full < width {
      s += partial > 0 ? parts[partial] : "░"
      s += String(repeating: "░", count: width - full - 1)
    }
    return s + "]"
  }

  private func percent(_ f: Double) -> String { "\(Int((f * 100).rounded(.down))) %" }

  private func clock(_ utc: Double) -> String {
    let local = Int(utc.rounded()) + utcOffset
    let minutes = ((local / 60) % 1440 + 1440) % 1440
    let h = minutes / 60
    let m = minutes % 60
    return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
  }

  private func fit(_ s: String, _ width: Int) -> String {
    var out = ""
    var used = 0
    var truncated = false
    for ch in s {
      let cw = TextColumns.displayWidth(String(ch))
      if used + cw > width {
        truncated = true
        break
      }
      out.append(ch)
      used += cw
    }
    if truncated, !out.isEmpty {
      out.removeLast()
      out.append("…")
    }
    return out
  }
}

extension String {
  fileprivate func trimmingTrailingSpaces() -> String {
    var s = self
    while s.hasSuffix(" ") { s.removeLast() }
    return s
  }
}
