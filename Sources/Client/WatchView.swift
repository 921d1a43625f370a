import Geodesy
import Glibc
import Guidance
public import JSON
public import Phrasebook
import Routes
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
  /// the maneuver's lanes, the speed limit and the next thing ahead, progress bar, what is
  /// left, ETA, route and GPS state, the last announcement.
  public func screen(width: Int) -> [String] {
    let w = max(width, 20)
    guard state.guiding || state.route != nil else {
      return [fit("Not guiding. Waiting for a route (stepwise load ROUTE.json).", w)]
    }
    var lines: [String] = []
    let route = state.route?.value
    var title = route?.name ?? "Route \(state.routeIndex.map(String.init) ?? "?")"
    if let total = route?.steps, let step = state.step {
      title += "  ·  step \(step)/\(total - 1)"
    }
    lines.append(title)
    if state.arrived {
      lines.append("✔ Arrived at \(route?.destination ?? "the destination").")
    } else if let step = state.step, step < steps.count,
      let text = steps[step]["instructions"]?.stringValue, !text.isEmpty
    {
      lines.append("➜ " + text)
    } else if let text = state.announce?.value.text {
      lines.append("➜ " + text)
    } else {
      lines.append("➜ Waiting for the first fix…")
    }
    if let numbered = state.progress, !state.arrived {
      let p = numbered.value
      lines.append("  in " + phrasebook.displayDistance(p.distanceToManeuver))
      if let step = state.step, step < steps.count, let lanes = Self.lanes(steps[step]) {
        lines.append("  lanes " + lanes)
      }
      var road: [String] = []
      switch p.speedLimit {
      case .limit(let value, let unit)?:
        road.append("limit \(Int(value.rounded())) \(unit.rawValue)")
      case .none?: road.append("no limit")
      default: break
      }
      if let next = state.ahead?.first(where: { $0.end >= p.distanceAlong }) {
        road.append(aheadLabel(next, along: p.distanceAlong))
      }
      if !road.isEmpty { lines.append("  " + road.joined(separator: " · ")) }
      let remaining = p.distanceRemaining
      let total = route?.distance ?? remaining
      let fraction = total > 0 ? min(max(1 - remaining / total, 0), 1) : 0
      let barWidth = max(10, min(40, w - 10))
      lines.append("  " + Self.bar(fraction, width: barWidth) + " " + percent(fraction))
      var left = "  " + phrasebook.displayDistance(remaining) + " left"
      left += " · " + phrasebook.displayDuration(p.timeRemaining)
      left += " · ETA " + clock((numbered.time + p.timeRemaining).rounded())
      lines.append(left)
    } else if state.arrived {
      lines.append("  " + Self.bar(1, width: max(10, min(40, w - 10))) + " 100 %")
    }
    var status: [String] = []
    switch state.gps {
    case .lost?: status.append("GPS LOST")
    case .acquired?: status.append("GPS ok")
    default: status.append("GPS: no fix yet")
    }
    if state.onRoute == false {
      status.append("OFF ROUTE")
    } else if state.onRoute == true {
      status.append("on route")
    }
    if let r = state.rerouting.flatMap(Self.reroutingLabel) { status.append(r) }
    lines.append("  " + status.joined(separator: " · "))
    if let said = state.announce?.value.text {
      lines.append("  “" + said + "”")
    }
    return lines.map { fit($0, w) }
  }

  /// One plain line for an event, or `nil` for events not shown (`PROGRESS` unless asked).
  public static func plainLine(_ o: JSONObject, progress: Bool) -> String? {
    let time = o["time"]?.stringValue.map { String($0.dropFirst(11).prefix(8)) } ?? "--:--:--"
    let cls = o["class"]?.stringValue ?? "?"
    let padded = cls.count >= 9 ? cls : cls + String(repeating: " ", count: 9 - cls.count)
    let body: String
    func n(_ v: Double) -> String { String(Int(v.rounded())) }
    if let received = ReceivedEvent(object: o) {
      switch received.event {
      case .navigation(let e):
        switch e.kind {
        case .route(let r):
          body =
            "\(r.name): \(r.source) → \(r.destination), \(n(r.distance)) m, "
            + "\(n(r.expectedTravelTime)) s, \(r.steps) steps (route \(r.routeIndex))"
        case .announce(let a):
          body = "[step \(a.step) \(a.kind.rawValue)] \(a.text)"
        case .step(let step):
          body = String(step)
        case .progress(let p, _):
          guard progress else { return nil }
          body =
            "step \(p.step), \(n(p.distanceToManeuver)) m to maneuver, "
            + "\(n(p.distanceRemaining)) m to go" + (p.onRoute ? "" : " (off route)")
        case .offRoute(let d, let reason):
          body = "\(n(d)) m from the route" + (reason == .wrongWay ? ", the wrong way" : "")
        case .onRoute:
          body = ""
        case .arrived(let d):
          body = "\(n(d)) m from the end of the route"
        case .gps(let status):
          body = status.rawValue
        }
      case .source(let e):
        body = [e.status.rawValue, e.source, e.reason].compactMap { $0 }.joined(separator: " ")
      case .rerouting(let e):
        body = e.status.rawValue
      case .cancelled:
        body = ""
      }
    } else if let s = GuidanceState(stateObject: o) {
      var parts = [s.guiding ? "guiding" : "not guiding"]
      if let r = s.routeIndex { parts.append("route \(r)") }
      if let st = s.step { parts.append("step \(st)") }
      if let on = s.onRoute { parts.append(on ? "on route" : "off route") }
      if let g = s.gps { parts.append("GPS \(g.rawValue)") }
      if s.arrived { parts.append("arrived") }
      if let r = s.rerouting.flatMap(reroutingLabel) { parts.append(r) }
      body = parts.joined(separator: ", ")
    } else {
      body = o.members.filter { !["class", "time", "seq"].contains($0.key) }
        .map { "\($0.key)=\(JSONWriter.string($0.value))" }.joined(separator: " ")
    }
    return "\(time) \(padded) \(body)".trimmingTrailingSpaces()
  }

  /// The lanes of a route step's object (`lanes` as in the native document), one arrow per
  /// lane from left to right, the ones to use in brackets: "↑ ↑ [↗]"; `nil` without lanes.
  static func lanes(_ step: JSONObject) -> String? {
    guard let lanes = step["lanes"]?.arrayValue, !lanes.isEmpty else { return nil }
    return lanes.map { lane in
      let o = lane.objectValue
      let first = o?["indications"]?.arrayValue?.first?.stringValue ?? "none"
      let arrow =
        switch first {
        case "left", "sharp left": "←"
        case "slight left", "merge to left": "↖"
        case "right", "sharp right": "→"
        case "slight right", "merge to right": "↗"
        case "uturn": "↶"
        default: "↑"
        }
      let use = o?["active"]?.boolValue ?? o?["valid"]?.boolValue ?? false
      return use ? "[\(arrow)]" : " \(arrow) "
    }.joined()
  }

  /// The next thing ahead: "tunnel 900 m in 450 m", "in the tunnel, 300 m left".
  private func aheadLabel(_ o: RoadObject, along: Double) -> String {
    let name = o.kind.rawValue
    let size = o.isPoint ? "" : " " + phrasebook.displayDistance(o.length)
    if o.start <= along {
      return "in the \(name), " + phrasebook.displayDistance(o.end - along) + " left"
    }
    return "\(name)\(size) in " + phrasebook.displayDistance(o.start - along)
  }

  /// What the view says for a `reroute` state: the router asked, unreachable, or no road near.
  static func reroutingLabel(_ status: ReroutingEvent.Status) -> String? {
    switch status {
    case .rerouting: "Rerouting…"
    case .noRouter: "No router"
    case .offNetwork: "Off the network"
    case .idle: nil
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
