import Geodesy
public import Instructions
public import Routes

/// Converts a GPX 1.0 or 1.1 file into a native route document.
///
/// GPX has no maneuver vocabulary, so the file decides how much guidance there is:
/// - **A route with turn texts** (`rte/rtept` whose points carry `desc`, `cmt`, a `name` of
///   several words, or GraphHopper's `gh:sign`): every such point after the first is a maneuver
///   and gets a step; the points between them are shape. The approach of a step follows the
///   file's track (`trk`) between the two points when there is one, else the straight line.
///   GraphHopper's via points (`gh:sign` 5) become waypoint steps. Texts in another language
///   than the wanted one are written from `gh:sign` when it is there.
/// - **A route without texts** (`rtept` names such as "#001" or OSM way ids), a **track**
///   (`trk/trkseg/trkpt`, segments joined) or, failing both, **waypoints** (`wpt`): a route
///   line, one arrival step. Several `rte` (or `trk`) elements are the legs of one route,
///   joined by waypoint steps.
///
/// Distances are measured along the points. The expected travel time is the sum of
/// GraphHopper's `gh:time`, else the span of the track's `time`s, else the distance at an
/// assumed 50 km/h (``RouteImportSupport``). `lat`/`lon` are checked: a latitude beyond ±90
/// that would fit as a longitude is reported as swapped.
public enum GPXImporter {
  /// Converts GPX bytes.
  ///
  /// - Parameters:
  ///   - bytes: the file.
  ///   - writer: writes arrival and sign-based instructions, and chooses the notice language.
  /// - Returns: a document that ``NativeRouteFormat`` accepts.
  /// - Throws: `syntax` for XML that is not well formed (with line and column),
  ///   `unsupportedFormat` when the root is not `gpx`, `missingField` for a file without at
  ///   least two points, `invalidCoordinate` for a bad `lat`/`lon`.
  public static func decode(
    _ bytes: some Collection<UInt8>, writer: InstructionWriter = InstructionWriter(language: .en)
  ) throws(RouteDocumentError) -> RouteDocument {
    let root = try XMLReader.parse(Array(bytes))
    guard root.localName == "gpx" else {
      throw RouteDocumentError(
        .unsupportedFormat, path: root.name, "the root element is <\(root.name)>, not <gpx>")
    }
    let rtes = root.children("rte")
    let trks = root.children("trk")
    var trackLegs: [[Point]] = []
    for (t, trk) in trks.enumerated() {
      var leg: [Point] = []
      for (s, seg) in trk.children("trkseg").enumerated() {
        for (k, pt) in seg.children("trkpt").enumerated() {
          leg.append(try point(pt, "gpx.trk[\(t)].trkseg[\(s)].trkpt[\(k)]"))
        }
      }
      if !leg.isEmpty { trackLegs.append(leg) }
    }
    // A track is a recorded trail: its pieces (several trk or trkseg) make one line.
    if trackLegs.count > 1 { trackLegs = [trackLegs.flatMap { $0 }] }
    var routeLegs: [[Point]] = []
    for (r, rte) in rtes.enumerated() {
      var leg: [Point] = []
      for (k, pt) in rte.children("rtept").enumerated() {
        leg.append(try point(pt, "gpx.rte[\(r)].rtept[\(k)]"))
      }
      if !leg.isEmpty { routeLegs.append(leg) }
    }
    let name =
      [rtes.first?.child("name"), trks.first?.child("name"), root.child("metadata")?.child("name")]
      .compactMap { $0?.text.trimmingSpaces() }.first { !$0.isEmpty } ?? "GPX route"

    let steps: [RouteStep]
    var time: Double?
    let routePoints = routeLegs.flatMap { $0 }
    if routePoints.count >= 2, routePoints.dropFirst().contains(where: \.isManeuver) {
      let track = trackLegs.flatMap { $0 }.map(\.coordinate)
      steps = try maneuverSteps(routePoints, track: track, writer: writer)
      let times = routePoints.compactMap(\.ghTime)
      if !times.isEmpty { time = times.reduce(0, +) / 1000 }
    } else {
      let legs: [[Point]]
      if routePoints.count >= 2 {
        legs = routeLegs
      } else if trackLegs.flatMap({ $0 }).count >= 2 {
        legs = trackLegs
      } else {
        var wpts: [Point] = []
        for (k, pt) in root.children("wpt").enumerated() {
          wpts.append(try point(pt, "gpx.wpt[\(k)]"))
        }
        legs = wpts.count >= 2 ? [wpts] : []
      }
      guard legs.flatMap({ $0 }).count >= 2 else {
        throw RouteDocumentError(
          .missingField, path: "gpx",
          "the GPX file has no route: it needs at least 2 points in <rte>, <trk> or <wpt>")
      }
      steps = try RouteImportSupport.lineSteps(
        legs: legs.map { $0.map(\.coordinate) }, writer: writer, mode: .automobile)
      let stamps = legs.flatMap { $0 }.compactMap(\.time)
      if let first = stamps.first, let last = stamps.last, last > first { time = last - first }
    }
    let distance = steps.reduce(0) { $0 + $1.distance }
    let route = Route(
      name: name, distance: distance,
      expectedTravelTime: time ?? distance / RouteImportSupport.assumedSpeed(.automobile),
      transportType: .automobile, steps: steps)
    guard let start = steps.first?.polyline.first, let end = steps.last?.polyline.last else {
      throw RouteDocumentError(.missingField, path: "gpx", "the GPX file has no points")
    }
    return RouteDocument(
      source: Place(name: RouteImportSupport.coordinateName(start), coordinate: start),
      destination: Place(name: RouteImportSupport.coordinateName(end), coordinate: end),
      routes: [route])
  }

  /// A `wpt`, `rtept` or `trkpt` with what the importer uses of it.
  struct Point {
    var coordinate: Coordinate
    var text: String?
    var sign: Int?
    var ghTime: Double?
    var time: Double?

    var isManeuver: Bool { text != nil || sign != nil }
  }

  private static func point(_ e: XMLElement, _ path: String) throws(RouteDocumentError) -> Point {
    guard let latText = e.attribute("lat"), let lonText = e.attribute("lon") else {
      throw RouteDocumentError(
        .missingField, path: path, "<\(e.name)> at line \(e.line) needs lat and lon attributes")
    }
    guard let lat = Double(latText.trimmingSpaces()), let lon = Double(lonText.trimmingSpaces()),
      lat.isFinite, lon.isFinite
    else {
      throw RouteDocumentError(
        .invalidCoordinate, path: path,
        "<\(e.name)> at line \(e.line): lat=\"\(latText)\" lon=\"\(lonText)\" are not numbers")
    }
    let c = Coordinate(latitude: lat, longitude: lon)
    guard c.isValid else {
      let swapped = Coordinate(latitude: lon, longitude: lat).isValid
      throw RouteDocumentError(
        .invalidCoordinate, path: path,
        "<\(e.name)> at line \(e.line): lat=\(lat) lon=\(lon) is outside −90…90 / −180…180"
          + (swapped ? "; lat and lon look swapped" : ""))
    }
    var text: String?
    for key in ["desc", "cmt"] {
      if let t = e.child(key)?.text.trimmingSpaces(), !t.isEmpty {
        text = t
        break
      }
    }
    if text == nil, let n = e.child("name")?.text.trimmingSpaces(), n.contains(" "),
      n.contains(where: \.isLetter)
    {
      text = n
    }
    let ext = e.child("extensions")
    return Point(
      coordinate: c, text: text,
      sign: ext?.child("sign").flatMap { Int($0.text.trimmingSpaces()) },
      ghTime: ext?.child("time").flatMap { Double($0.text.trimmingSpaces()) },
      time: e.child("time").flatMap { UTCTime.parseISO8601($0.text.trimmingSpaces()) })
  }

  /// Steps at the route points that carry a turn, along the track when there is one.
  private static func maneuverSteps(
    _ points: [Point], track: [Coordinate], writer: InstructionWriter
  ) throws(RouteDocumentError) -> [RouteStep] {
    let language = writer.language
    let textLanguage = RouteImportSupport.detectLanguage(points.compactMap(\.text))
    // Each route point's index on the track (monotonic nearest search), when close enough.
    var trackIndex: [Int?] = []
    var searchFrom = 0
    for p in points {
      guard !track.isEmpty else {
        trackIndex.append(nil)
        continue
      }
      var best: (Int, Double)?
      // The first close approach from where the previous point matched (a track may pass
      // the same place twice, as on a U-turn).
      for k in searchFrom..<track.count {
        let d = track[k].distance(to: p.coordinate)
        let next = k + 1 < track.count ? track[k + 1].distance(to: p.coordinate) : .infinity
        if d <= 30 && next > d {
          best = (k, d)
          break
        }
        if best == nil || d < (best?.1 ?? .infinity) { best = (k, d) }
      }
      if let (k, d) = best, d <= 30 {
        trackIndex.append(k)
        searchFrom = k
      } else {
        trackIndex.append(nil)
      }
    }
    let maneuvers = points.indices.filter { $0 == 0 || points[$0].isManeuver }
    let legCount = points.filter { $0.sign == 5 }.count + 1
    var steps = [
      RouteStep(
        instructions: "", distance: 0, transportType: .automobile,
        polyline: [points[0].coordinate])
    ]
    var leg = 0
    var m = 1
    while m < maneuvers.count {
      let from = maneuvers[m - 1]
      let to = maneuvers[m]
      var polyline: [Coordinate] = []
      if let a = trackIndex[from], let b = trackIndex[to], a < b {
        // The track between the two points, pinned to the route points at both ends.
        polyline = [points[from].coordinate] + track[(a + 1)..<b] + [points[to].coordinate]
      } else {
        polyline = points[from...to].map(\.coordinate)
      }
      if let previous = steps.last?.polyline.last { polyline[0] = previous }
      if polyline.count == 1 { polyline.append(polyline[0]) }
      let p = points[to]
      let isVia = p.sign == 5
      let isLast = m == maneuvers.count - 1
      var text: String
      if let t = p.text, textLanguage == language, !isVia {
        text = language == .en ? InstructionWriter.capitalized(t) : t
      } else if isVia || isLast || p.sign == 4 {
        text = try writer.instruction(
          for: InstructionStep(type: "arrive"),
          options: InstructionOptions(legIndex: leg, legCount: legCount))
      } else if let sign = p.sign {
        text = try writer.instruction(
          for: GraphHopperImporter.instructionStep(sign: sign, streetName: "", exitNumber: nil))
      } else {
        text = p.text ?? ""
      }
      if isVia { text = RouteImportSupport.waypointWording(text, language: language) }
      steps.append(
        RouteStep(
          instructions: text, distance: RouteImportSupport.length(polyline),
          transportType: .automobile, polyline: polyline, waypoint: isVia ? leg + 1 : nil))
      m += 1
      if isVia {
        leg += 1
        // The "continue" point that starts the next leg at the via point is its departure.
        if m < maneuvers.count - 1, points[maneuvers[m]].sign == 0,
          points[maneuvers[m]].coordinate.distance(to: p.coordinate) < 1
        {
          m += 1
        }
      }
    }
    return steps
  }
}
