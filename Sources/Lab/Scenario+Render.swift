import Geodesy
public import Guidance
import Matching
import RouteShape
public import Routes
public import Simulation

import func Glibc.cos

/// A picture of one run as SVG: the map (route, fixes, matched positions, announcements, off-route
/// stretches, dropouts) and below it a timeline of the distance to the next maneuver with the
/// announcements marked.
///
/// The map uses a local equirectangular projection around the run's centre: east and north
/// metres at the same scale, so shapes and the scale bar are right at any latitude (a
/// Mercator map would stretch north-south distances by 1/cos(latitude)). Pure string writing:
/// no dependencies.
public struct RunPicture: Sendable {
  public var title: String
  public var route: Route
  public var events: [NavigationEvent]
  /// The fixes as received (positionless epochs included).
  public var fixes: [Fix]
  /// The simulator's drive when known: the true track and the dropouts.
  public var truth: SimulatedDrive?

  public init(
    title: String, route: Route, events: [NavigationEvent], fixes: [Fix], truth: SimulatedDrive?
  ) {
    self.title = title
    self.route = route
    self.events = events
    self.fixes = fixes
    self.truth = truth
  }

  static let width = 1000.0
  static let mapHeight = 680.0
  /// The column right of the map that holds the legend: the map is drawn left of it, so the
  /// legend never hides a start, a fix or a maneuver, wherever the route lies.
  static let legendWidth = 260.0
  static let timelineHeight = 260.0
  static let stepColours = ["#1f77b4", "#ff7f0e"]

  /// Colour of an announcement marker by kind.
  static func colour(_ kind: AnnouncementKind) -> String {
    switch kind {
    case .prepare: "#9467bd"
    case .approach: "#17becf"
    case .now: "#d62728"
    case .arrive, .waypoint: "#2ca02c"
    case .offRoute, .onRoute, .return: "#e377c2"
    default: "#7f7f7f"
    }
  }

  /// The whole SVG document.
  public func svg() -> String {
    let geometry = RouteGeometry(route: route)
    var all: [Coordinate] = Array(geometry.points)
    all += fixes.compactMap(\.coordinate)
    if let truth { all += truth.truth.map(\.position) }
    let projection = LocalProjection(
      points: all, width: Self.width - Self.legendWidth, height: Self.mapHeight)
    let total = Self.mapHeight + Self.timelineHeight + 40
    var o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    o +=
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(Self.width))\" height=\"\(n(total))\" "
    o +=
      "viewBox=\"0 0 \(n(Self.width)) \(n(total))\" font-family=\"sans-serif\" font-size=\"12\">\n"
    o += "<title>\(xml(title))</title>\n"
    o +=
      "<rect x=\"0\" y=\"0\" width=\"\(n(Self.width))\" height=\"\(n(total))\" fill=\"#ffffff\"/>\n"
    o +=
      "<text id=\"title\" x=\"12\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(xml(title))</text>\n"
    o += map(geometry, projection)
    o += timeline(top: Self.mapHeight + 30)
    o += "</svg>\n"
    return o
  }

  // MARK: - Map

  private func map(_ g: RouteGeometry, _ p: LocalProjection) -> String {
    var o = "<g id=\"map\">\n"
    // Route, one polyline per step in alternating colours.
    o +=
      "<g id=\"route\" fill=\"none\" stroke-width=\"5\" stroke-linejoin=\"round\" stroke-opacity=\"0.55\">\n"
    for i in 1..<g.stepEnd.count {
      let pts = g.points[g.stepEndPoint[i - 1]...g.stepEndPoint[i]].map(p.point)
      o += "<polyline class=\"step\" data-step=\"\(i)\" stroke=\"\(Self.stepColours[i % 2])\" "
      o +=
        "points=\"\(path(pts))\"><title>step \(i): \(xml(route.steps[i].instructions))</title></polyline>\n"
    }
    o += "</g>\n"
    o += road(g, p)
    // Dropouts: the stretches of the route (or of the track) without a fix.
    o +=
      "<g id=\"dropouts\" fill=\"none\" stroke=\"#000000\" stroke-width=\"9\" stroke-opacity=\"0.25\" stroke-dasharray=\"6 4\">\n"
    for stretch in dropoutStretches(p) {
      o += "<polyline class=\"dropout\" points=\"\(path(stretch))\"/>\n"
    }
    o += "</g>\n"
    // The true track.
    if let truth {
      o +=
        "<g id=\"truth\" fill=\"none\" stroke=\"#000000\" stroke-width=\"0.8\" stroke-opacity=\"0.7\">\n"
      o +=
        "<polyline points=\"\(path(decimate(truth.truth.map { p.point($0.position) })))\"/>\n</g>\n"
    }
    // Raw fixes.
    o += "<g id=\"fixes\" fill=\"#555555\" fill-opacity=\"0.6\">\n"
    let raw = fixes.compactMap(\.coordinate)
    let stride = max(1, raw.count / 2500)
    for (i, c) in raw.enumerated() where i % stride == 0 {
      let q = p.point(c)
      o += "<circle class=\"fix\" cx=\"\(n(q.x))\" cy=\"\(n(q.y))\" r=\"1.6\"/>\n"
    }
    o += "</g>\n"
    // Matched positions and off-route stretches, from the PROGRESS events.
    var matched: [(Double, Double)] = []
    var offStretches: [[(Double, Double)]] = []
    var current: [(Double, Double)]?
    for e in events {
      guard case .progress(let pr, _) = e.kind else { continue }
      if pr.onRoute {
        matched.append(p.point(pr.matched))
        if let c = current { offStretches.append(c) }
        current = nil
      } else {
        current = (current ?? []) + [p.point(pr.raw)]
      }
    }
    if let c = current { offStretches.append(c) }
    o += "<g id=\"matched\" fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"1.5\">\n"
    o += "<polyline points=\"\(path(decimate(matched)))\"/>\n</g>\n"
    o +=
      "<g id=\"offroute\" fill=\"none\" stroke=\"#e377c2\" stroke-width=\"4\" stroke-linecap=\"round\">\n"
    for s in offStretches where !s.isEmpty {
      o += "<polyline class=\"offroute\" points=\"\(path(s))\"/>\n"
    }
    o += "</g>\n"
    // Maneuver points, numbered.
    o += "<g id=\"maneuvers\">\n"
    for i in 1..<g.stepEnd.count {
      let q = p.point(g.points[g.stepEndPoint[i]])
      o +=
        "<g class=\"maneuver\"><circle cx=\"\(n(q.x))\" cy=\"\(n(q.y))\" r=\"8\" fill=\"#ffffff\" "
      o += "stroke=\"#000000\" stroke-width=\"1.5\"/><text x=\"\(n(q.x))\" y=\"\(n(q.y + 4))\" "
      o += "text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\">\(i)</text></g>\n"
    }
    o += "</g>\n"
    // Where each announcement was spoken: the position the engine had then.
    o += "<g id=\"announcements\">\n"
    var lastPosition: Coordinate?
    for e in events {
      if case .progress(let pr, _) = e.kind { lastPosition = pr.onRoute ? pr.matched : pr.raw }
      guard case .announce(let a) = e.kind, let c = lastPosition ?? fixAt(e.time) else { continue }
      let q = p.point(c)
      o +=
        "<path class=\"announcement\" data-kind=\"\(a.kind.rawValue)\" d=\"M \(n(q.x)) \(n(q.y - 9)) l 5 -9 l -10 0 z\" "
      o += "fill=\"\(Self.colour(a.kind))\" stroke=\"#000000\" stroke-width=\"0.5\">"
      o += "<title>\(xml(a.kind.rawValue)): \(xml(a.text))</title></path>\n"
    }
    o += "</g>\n"
    o += legend()
    o += scaleBar(p)
    o += "</g>\n"
    return o
  }

  private func fixAt(_ time: Double) -> Coordinate? {
    fixes.last { $0.time <= time && $0.coordinate != nil }?.coordinate
  }

  private func dropoutStretches(_ p: LocalProjection) -> [[(Double, Double)]] {
    var out: [[(Double, Double)]] = []
    if let truth {
      var current: [(Double, Double)] = []
      for s in truth.truth {
        if !s.hasFix {
          current.append(p.point(s.position))
        } else if !current.isEmpty {
          out.append(current)
          current = []
        }
      }
      if !current.isEmpty { out.append(current) }
      return out
    }
    // Without truth: bridge each gap in the fixes.
    var last: Fix?
    var gap = false
    for f in fixes {
      if f.coordinate == nil {
        gap = true
        continue
      }
      if let l = last, let a = l.coordinate, let b = f.coordinate, gap || f.time - l.time > 3 {
        out.append([p.point(a), p.point(b)])
      }
      gap = false
      last = f
    }
    return out
  }

  /// The road along the route, when the route carries it: each road object (a stretch as a
  /// thick brown line, a point as a brown square, its kind, length and name in its title) and
  /// each speed limit where its span starts (a red-ringed sign with the value).
  private func road(_ g: RouteGeometry, _ p: LocalProjection) -> String {
    let road = route.road
    guard !road.objects.isEmpty || !road.speedLimits.isEmpty else { return "" }
    var o = "<g id=\"road\">\n"
    for object in road.objects {
      let title = xml(
        object.kind.rawValue + (object.isPoint ? "" : " \(Int(object.length.rounded())) m")
          + (object.name.map { " (\($0))" } ?? ""))
      if object.isPoint {
        let c = p.point(g.coordinate(at: object.start))
        o +=
          "<rect class=\"road-object\" x=\"\(n(c.x - 5))\" y=\"\(n(c.y - 5))\" width=\"10\" height=\"10\" fill=\"#8c564b\"><title>\(title)</title></rect>\n"
      } else {
        let step = max(5, object.length / 60)
        let pts = stride(from: object.start, through: object.end, by: step).map {
          p.point(g.coordinate(at: $0))
        }
        o +=
          "<polyline class=\"road-object\" fill=\"none\" stroke=\"#8c564b\" stroke-width=\"11\" stroke-opacity=\"0.35\" points=\"\(path(pts))\"><title>\(title)</title></polyline>\n"
      }
    }
    for span in road.speedLimits {
      let label: String
      switch span.limit {
      case .limit(let v, _): label = String(Int(v.rounded()))
      case .none: label = "–"
      case .unknown: continue
      }
      let c = p.point(g.coordinate(at: span.start))
      o +=
        "<g class=\"speed-limit\" transform=\"translate(\(n(c.x + 12)) \(n(c.y - 12)))\"><circle r=\"9\" fill=\"#ffffff\" stroke=\"#d62728\" stroke-width=\"2.5\"/><text text-anchor=\"middle\" y=\"3.5\" font-size=\"9\">\(label)</text></g>\n"
    }
    return o + "</g>\n"
  }

  private func legend() -> String {
    let items: [(String, String)] =
      [
        (
          "<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#1f77b4\" stroke-width=\"5\" stroke-opacity=\"0.55\"/>"
            + "<line x1=\"11\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#ff7f0e\" stroke-width=\"5\" stroke-opacity=\"0.55\"/>",
          "route, steps in alternating colours"
        ),
        (
          "<circle cx=\"11\" cy=\"0\" r=\"7\" fill=\"#ffffff\" stroke=\"#000000\"/>",
          "maneuver point (step number)"
        ),
        ("<circle cx=\"11\" cy=\"0\" r=\"2\" fill=\"#555555\"/>", "raw fix"),
        (
          "<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#2ca02c\" stroke-width=\"1.5\"/>",
          "matched position"
        ),
        (
          "<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#000000\" stroke-width=\"0.8\" stroke-opacity=\"0.7\"/>",
          "true track (simulated)"
        ),
        (
          "<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#e377c2\" stroke-width=\"4\"/>",
          "off route"
        ),
        (
          "<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#000000\" stroke-opacity=\"0.25\" stroke-width=\"9\" stroke-dasharray=\"6 4\"/>",
          "no fix (dropout)"
        ),
        ("<path d=\"M 11 0 l 5 -9 l -10 0 z\" fill=\"#9467bd\"/>", "announcement: prepare"),
        ("<path d=\"M 11 0 l 5 -9 l -10 0 z\" fill=\"#17becf\"/>", "announcement: approach"),
        ("<path d=\"M 11 0 l 5 -9 l -10 0 z\" fill=\"#d62728\"/>", "announcement: now"),
        ("<path d=\"M 11 0 l 5 -9 l -10 0 z\" fill=\"#2ca02c\"/>", "arrival, waypoint"),
        ("<path d=\"M 11 0 l 5 -9 l -10 0 z\" fill=\"#7f7f7f\"/>", "other announcement"),
      ] + (route.road.objects.isEmpty && route.road.speedLimits.isEmpty ? [] : Self.roadLegend)
    let x = Self.width - Self.legendWidth + 10
    var o = "<g id=\"legend\" transform=\"translate(\(n(x)) 40)\">\n"
    o +=
      "<rect x=\"-8\" y=\"-14\" width=\"246\" height=\"\(items.count * 18 + 10)\" fill=\"#ffffff\" fill-opacity=\"0.85\" stroke=\"#999999\"/>\n"
    for (i, item) in items.enumerated() {
      o +=
        "<g transform=\"translate(0 \(i * 18))\">\(item.0)<text x=\"30\" y=\"4\">\(xml(item.1))</text></g>\n"
    }
    o += "</g>\n"
    return o
  }

  /// The legend's lines for the road, on routes that carry it.
  static let roadLegend: [(String, String)] = [
    (
      "<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#8c564b\" stroke-width=\"11\" stroke-opacity=\"0.35\"/>"
        + "<rect x=\"6\" y=\"-5\" width=\"10\" height=\"10\" fill=\"#8c564b\"/>",
      "road object: tunnel, toll… / point"
    ),
    (
      "<circle cx=\"11\" cy=\"0\" r=\"8\" fill=\"#ffffff\" stroke=\"#d62728\" stroke-width=\"2.5\"/>",
      "speed limit from here"
    ),
  ]

  private func scaleBar(_ p: LocalProjection) -> String {
    // A round length near a fifth of the width.
    let target = Self.width / 5 / p.scale
    var length = 1.0
    while length * 10 <= target { length *= 10 }
    if length * 5 <= target { length *= 5 } else if length * 2 <= target { length *= 2 }
    let px = length * p.scale
    let label =
      length >= 1000
      ? "\(NMEAWriter.fixed(length / 1000, length >= 10_000 ? 0 : 1)) km" : "\(Int(length)) m"
    let y = Self.mapHeight - 20
    var o = "<g id=\"scalebar\" transform=\"translate(20 \(n(y)))\">\n"
    o += "<rect x=\"0\" y=\"-6\" width=\"\(n(px / 2))\" height=\"6\" fill=\"#000000\"/>"
    o +=
      "<rect x=\"\(n(px / 2))\" y=\"-6\" width=\"\(n(px / 2))\" height=\"6\" fill=\"#ffffff\" stroke=\"#000000\"/>\n"
    o +=
      "<text x=\"0\" y=\"-10\">0</text><text x=\"\(n(px))\" y=\"-10\" text-anchor=\"middle\">\(label)</text>\n"
    o +=
      "<text x=\"0\" y=\"14\" font-size=\"10\" fill=\"#555555\">north up, local equirectangular projection</text>\n"
    o += "</g>\n"
    return o
  }

  // MARK: - Timeline

  private func timeline(top: Double) -> String {
    let left = 60.0
    let right = Self.width - 20
    let height = Self.timelineHeight - 40
    let t0 = fixes.first?.time ?? events.first?.time ?? 0
    let t1 = max(t0 + 1, fixes.last?.time ?? events.last?.time ?? t0 + 1)
    var series: [(Double, Double)] = []
    for e in events {
      if case .progress(let p, _) = e.kind, p.onRoute {
        series.append((e.time, p.distanceToManeuver))
      }
    }
    // A round top for the distance axis; longer approaches are clipped.
    let longest = series.map(\.1).max() ?? 100
    let yMax = [100.0, 200, 500, 1000, 2000].first { $0 >= longest } ?? 2000
    func x(_ t: Double) -> Double { left + (t - t0) / (t1 - t0) * (right - left) }
    func y(_ d: Double) -> Double { top + height - min(d, yMax) / yMax * height }
    var o = "<g id=\"timeline\">\n"
    o +=
      "<text x=\"12\" y=\"\(n(top - 8))\" font-weight=\"bold\">Distance to the next maneuver over time, with the announcements</text>\n"
    o +=
      "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(right - left))\" height=\"\(n(height))\" fill=\"#fafafa\" stroke=\"#999999\"/>\n"
    // Shaded stretches: no fix (grey) and off route (pink).
    var shades: [(Double, Double, String, String)] = []
    var darkFrom: Double?
    for f in fixes {
      if f.coordinate == nil {
        if darkFrom == nil { darkFrom = f.time }
      } else if let d = darkFrom {
        shades.append((d, f.time, "#000000", "nofix"))
        darkFrom = nil
      }
    }
    if let d = darkFrom { shades.append((d, t1, "#000000", "nofix")) }
    var offFrom: Double?
    for e in events {
      if case .offRoute = e.kind, offFrom == nil { offFrom = e.time }
      if e.kind == .onRoute, let f = offFrom {
        shades.append((f, e.time, "#e377c2", "offroute"))
        offFrom = nil
      }
    }
    if let f = offFrom { shades.append((f, t1, "#e377c2", "offroute")) }
    for s in shades {
      o +=
        "<rect class=\"\(s.3)\" x=\"\(n(x(s.0)))\" y=\"\(n(top))\" width=\"\(n(max(1, x(s.1) - x(s.0))))\" "
      o += "height=\"\(n(height))\" fill=\"\(s.2)\" fill-opacity=\"0.15\"/>\n"
    }
    // Step changes.
    for e in events {
      guard case .step(let s) = e.kind else { continue }
      o +=
        "<line class=\"stepchange\" x1=\"\(n(x(e.time)))\" y1=\"\(n(top))\" x2=\"\(n(x(e.time)))\" "
      o += "y2=\"\(n(top + height))\" stroke=\"#cccccc\"/><text x=\"\(n(x(e.time) + 2))\" "
      o += "y=\"\(n(top + 10))\" font-size=\"9\" fill=\"#777777\">\(s)</text>\n"
    }
    // Axes.
    for k in 0...4 {
      let d = yMax * Double(k) / 4
      o +=
        "<text x=\"\(n(left - 6))\" y=\"\(n(y(d) + 4))\" text-anchor=\"end\" font-size=\"10\">\(Int(d)) m</text>\n"
    }
    let span = t1 - t0
    var tick = 10.0
    for step in [10.0, 30, 60, 120, 300, 600, 1200] where span / step > 4 { tick = step }
    var tt = 0.0
    while tt <= span {
      o +=
        "<text x=\"\(n(x(t0 + tt)))\" y=\"\(n(top + height + 14))\" text-anchor=\"middle\" font-size=\"10\">\(Int(tt)) s</text>\n"
      tt += tick
    }
    // The distance series, broken where there was no on-route position for a while.
    var pieces: [[(Double, Double)]] = []
    var previous: Double?
    for (t, d) in series {
      if previous.map({ t - $0 > 3 }) ?? true { pieces.append([]) }
      pieces[pieces.count - 1].append((x(t), y(d)))
      previous = t
    }
    o += "<g id=\"distance\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.2\">\n"
    for piece in pieces { o += "<polyline points=\"\(path(decimate(piece)))\"/>\n" }
    o += "</g>\n"
    // Announcements.
    var lastDistance = 0.0
    var i = 0
    for e in events {
      if case .progress(let p, _) = e.kind, p.onRoute { lastDistance = p.distanceToManeuver }
      guard case .announce(let a) = e.kind else { continue }
      i += 1
      let d = a.distance ?? lastDistance
      o +=
        "<circle class=\"announcement\" data-kind=\"\(a.kind.rawValue)\" cx=\"\(n(x(e.time)))\" cy=\"\(n(y(d)))\" r=\"4\" "
      o += "fill=\"\(Self.colour(a.kind))\" stroke=\"#000000\" stroke-width=\"0.5\">"
      o +=
        "<title>\(NMEAWriter.fixed(e.time - t0, 1)) s, \(xml(a.kind.rawValue)): \(xml(a.text))</title></circle>\n"
    }
    o += "</g>\n"
    return o
  }
}

/// East and north metres around a centre, scaled to fit a box with a margin, y down.
struct LocalProjection {
  let latitude0: Double
  let longitude0: Double
  let cosLatitude: Double
  /// Pixels per metre.
  let scale: Double
  let offsetX: Double
  let offsetY: Double

  init(points: [Coordinate], width: Double, height: Double) {
    let lats = points.map(\.latitude)
    let lat0 = ((lats.min() ?? 0) + (lats.max() ?? 0)) / 2
    let lon0 = points.first?.longitude ?? 0
    latitude0 = lat0
    longitude0 = lon0
    cosLatitude = max(0.01, cosDegreesIO(lat0))
    let metresPerDegree = earthRadius * .pi / 180
    var minX = Double.infinity
    var maxX = -Double.infinity
    var minY = Double.infinity
    var maxY = -Double.infinity
    for c in points {
      let e = wrappedLongitudeDelta(c.longitude - lon0) * cosLatitude * metresPerDegree
      let nn = (c.latitude - lat0) * metresPerDegree
      minX = min(minX, e)
      maxX = max(maxX, e)
      minY = min(minY, nn)
      maxY = max(maxY, nn)
    }
    if !minX.isFinite { (minX, maxX, minY, maxY) = (-100, 100, -100, 100) }
    let margin = 40.0
    let top = 40.0
    let s = min(
      (width - 2 * margin) / max(1, maxX - minX), (height - top - margin) / max(1, maxY - minY))
    scale = s
    offsetX = margin + ((width - 2 * margin) - (maxX - minX) * s) / 2 - minX * s
    offsetY = top + ((height - top - margin) - (maxY - minY) * s) / 2 + maxY * s
  }

  func point(_ c: Coordinate) -> (x: Double, y: Double) {
    let metresPerDegree = earthRadius * .pi / 180
    let e = wrappedLongitudeDelta(c.longitude - longitude0) * cosLatitude * metresPerDegree
    let nn = (c.latitude - latitude0) * metresPerDegree
    return (offsetX + e * scale, offsetY - nn * scale)
  }
}

private func cosDegreesIO(_ d: Double) -> Double { cos(d * .pi / 180) }

private func n(_ v: Double) -> String { NMEAWriter.fixed(v, 1) }

private func path(_ pts: [(Double, Double)]) -> String {
  pts.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
}

/// Drops points closer than half a pixel to the previous kept one.
private func decimate(_ pts: [(Double, Double)]) -> [(Double, Double)] {
  var out: [(Double, Double)] = []
  for p in pts {
    if let l = out.last, abs(l.0 - p.0) < 0.5 && abs(l.1 - p.1) < 0.5 { continue }
    out.append(p)
  }
  if let l = pts.last, let k = out.last, k != l { out.append(l) }
  return out
}

/// Escapes text for XML character data and attribute values.
func xml(_ s: String) -> String {
  var o = ""
  for c in s {
    switch c {
    case "&": o += "&amp;"
    case "<": o += "&lt;"
    case ">": o += "&gt;"
    case "\"": o += "&quot;"
    default: o.append(c)
    }
  }
  return o
}
