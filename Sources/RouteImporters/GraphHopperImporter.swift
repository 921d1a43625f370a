import Geodesy
public import Instructions
public import JSON
public import Routes

/// Converts a GraphHopper `/route` response into a native route document.
///
/// Every path becomes a route. Instruction i covers `points[interval[0]…interval[1]]` and
/// its maneuver is at the start, so the MapKit shift applies: native step i ≥ 1 has the points,
/// `distance` and mode of instruction i − 1 and the text of instruction i. GraphHopper has no
/// depart sign; its first instruction ("Continue onto …") is the departure. A `REACHED_VIA`
/// instruction (sign 5) becomes a waypoint step, and the "Continue" (sign 0) that starts the
/// next leg at the same point gets no step of its own.
///
/// Text: the instruction's `text` when it is in the wanted language (judged from the texts:
/// Hangul is Korean, English openers are English), otherwise written from the sign, the street
/// name and the roundabout exit (see `docs/instructions.md` for the sign cross-walk).
///
/// Points: encoded (precision from `points_encoded_multiplier` when the server states it,
/// otherwise GraphHopper's default 1e5, checked: every point must lie in `bbox` and the line's
/// length must match `distance` within ``lengthTolerance``) or a GeoJSON LineString. Times are
/// milliseconds. `details.road_environment` marks ferries (transit steps and a notice) and
/// tunnels; `details.toll` sets `hasTolls` and notices; `details.road_class` `motorway` sets
/// `hasHighways`.
public enum GraphHopperImporter {
  /// How far, as a fraction, the decoded line's length may differ from the path `distance`.
  public static let lengthTolerance = 0.2

  /// Converts a parsed GraphHopper response.
  ///
  /// - Parameters:
  ///   - value: the response.
  ///   - writer: writes instructions not given in `writer.language`, and chooses the language
  ///     of notices.
  /// - Returns: a document that ``NativeRouteFormat`` accepts.
  /// - Throws: `routerError` for an error response (`message` without `paths`), `emptyRoutes`
  ///   for no path, `invalidPolyline` when the points fit no precision; otherwise an error with
  ///   the JSON path of the first problem.
  public static func decode(
    _ value: JSONValue, writer: InstructionWriter = InstructionWriter(language: .en)
  ) throws(RouteDocumentError) -> RouteDocument {
    typealias R = JSONPathReader
    if case .array = value {
      throw RouteDocumentError(
        .missingField, path: "",
        "a bare list of GraphHopper instructions has no points: not a route (expected a /route "
          + "response with \"paths\")")
    }
    let root = try R.object(value, "")
    guard let pathsValue = root["paths"] else {
      if let m = try R.optional(root, "message", "", R.string) {
        throw RouteDocumentError(.routerError, path: "message", "GraphHopper error: \(m)")
      }
      throw RouteDocumentError(.missingField, path: "paths", "missing required field 'paths'")
    }
    let paths = try R.array(pathsValue, "paths")
    guard !paths.isEmpty else {
      throw RouteDocumentError(.emptyRoutes, path: "paths", "the response has no path")
    }
    var routes: [Route] = []
    var ends: (Coordinate, Coordinate, String, String)?
    for (i, p) in paths.enumerated() {
      let (route, start, end, firstName, lastName) = try path(p, "paths[\(i)]", writer)
      routes.append(route)
      if i == 0 { ends = (start, end, firstName, lastName) }
    }
    guard let (start, end, firstName, lastName) = ends else {
      throw RouteDocumentError(.emptyRoutes, path: "paths", "the response has no path")
    }
    return RouteDocument(
      source: Place(
        name: firstName.isEmpty ? RouteImportSupport.coordinateName(start) : firstName,
        coordinate: start),
      destination: Place(
        name: lastName.isEmpty ? RouteImportSupport.coordinateName(end) : lastName,
        coordinate: end),
      routes: routes)
  }

  private struct Instruction {
    var sign: Int
    var text: String
    var streetName: String
    var distance: Double
    var first: Int
    var last: Int
    var exitNumber: Int?
    var heading: Double?
    var path: String
    /// `street_ref`, `street_destination_ref`, `street_destination` and `motorway_junction`.
    var roadSign: RouteSign?
  }

  private static func path(_ value: JSONValue, _ path: String, _ writer: InstructionWriter)
    throws(RouteDocumentError) -> (Route, Coordinate, Coordinate, String, String)
  {
    typealias R = JSONPathReader
    let o = try R.object(value, path)
    let distance = try R.nonNegative(R.require(o, "distance", path), R.join(path, "distance"))
    let time = try R.nonNegative(R.require(o, "time", path), R.join(path, "time")) / 1000
    let points = try self.points(o, path, distance: distance)
    guard points.count >= 1 else {
      throw RouteDocumentError(.invalidPolyline, path: R.join(path, "points"), "no points")
    }
    let language = writer.language

    // Details: point ranges of ferries, tunnels, tolls, motorways.
    var ferry: [ClosedRange<Int>] = []
    var tunnel: [ClosedRange<Int>] = []
    var toll: [ClosedRange<Int>] = []
    var motorway = false
    var road = RouteRoadBuilder()
    if let details = try R.optional(o, "details", path, R.object) {
      let dp = R.join(path, "details")
      func ranges(_ key: String, _ matches: (String) -> Bool) throws(RouteDocumentError)
        -> [ClosedRange<Int>]
      {
        guard let entries = try R.optional(details, key, dp, R.array) else { return [] }
        var out: [ClosedRange<Int>] = []
        for (i, e) in entries.enumerated() {
          let ep = "\(R.join(dp, key))[\(i)]"
          let a = try R.array(e, ep)
          guard a.count >= 3 else {
            throw RouteDocumentError(.invalidValue, path: ep, "expected [from, to, value]")
          }
          let from = try R.integer(a[0], "\(ep)[0]")
          let to = try R.integer(a[1], "\(ep)[1]")
          guard case .string(let v) = a[2], matches(v), from <= to else { continue }
          out.append(from...to)
        }
        return out
      }
      ferry = try ranges("road_environment") { $0 == "ferry" }
      tunnel = try ranges("road_environment") { $0 == "tunnel" }
      toll = try ranges("toll") { $0 == "all" || $0 == "hgv" }
      motorway = try !ranges("road_class") { $0 == "motorway" }.isEmpty
      road = try self.road(details, dp, points: points, ferry: ferry, tunnel: tunnel, toll: toll)
    }

    let ip = R.join(path, "instructions")
    let values = try R.array(R.require(o, "instructions", path), ip)
    guard values.count >= 2 else {
      throw RouteDocumentError(
        .invalidValue, path: ip, "a path needs at least 2 instructions (found \(values.count))")
    }
    var instructions: [Instruction] = []
    for (i, v) in values.enumerated() {
      instructions.append(try instruction(v, "\(ip)[\(i)]", pointCount: points.count))
    }
    instructions = foldingRoundaboutExits(instructions)
    let textLanguage = RouteImportSupport.detectLanguage(instructions.map(\.text))
    let viaCount = instructions.filter { $0.sign == 5 }.count

    var steps = [
      RouteStep(
        instructions: "", distance: 0, transportType: .automobile,
        polyline: [points[instructions[0].first]], maneuver: RouteManeuver(kind: .depart),
        sign: instructions[0].roadSign)
    ]
    var previousFlags: [RouteImportSupport.Notice] = []
    var leg = 0
    var k = 1
    while k < instructions.count {
      let stretch = instructions[k - 1]
      let maneuver = instructions[k]
      var polyline = Array(points[stretch.first...max(stretch.first, stretch.last)])
      if let previous = steps.last?.polyline.last, polyline.first != previous {
        polyline.insert(previous, at: 0)
      }
      if polyline.count == 1 { polyline.append(polyline[0]) }
      let range = stretch.first...max(stretch.first, stretch.last)
      func overlaps(_ rs: [ClosedRange<Int>]) -> Bool {
        rs.contains { $0.overlaps(range) && ($0.count > 1 || range.count == 1) }
      }
      var flags: [RouteImportSupport.Notice] = []
      if overlaps(ferry) || stretch.sign == 9 { flags.append(.ferry) }
      if overlaps(tunnel) { flags.append(.tunnel) }
      if overlaps(toll) { flags.append(.toll) }
      let isVia = maneuver.sign == 5
      var text: String
      if !maneuver.text.isEmpty && textLanguage == language && !isVia {
        text = maneuver.text.trimmingSpaces()
      } else {
        text = try writer.instruction(
          for: instructionStep(maneuver),
          options: InstructionOptions(legIndex: leg, legCount: viaCount + 1))
      }
      if isVia { text = RouteImportSupport.waypointWording(text, language: language) }
      steps.append(
        RouteStep(
          instructions: text,
          notice: RouteImportSupport.noticeText(flags, previous: previousFlags, language: language),
          distance: stretch.distance,
          transportType: flags.contains(.ferry) ? .transit : .automobile, polyline: polyline,
          waypoint: isVia ? leg + 1 : nil, maneuver: RouteManeuver(instructionStep(maneuver)),
          sign: maneuver.roadSign))
      previousFlags = flags
      k += 1
      if isVia {
        leg += 1
        // The "Continue" that starts the next leg is its departure, not a maneuver.
        // Its stretch becomes the approach of the following maneuver.
        if k < instructions.count - 1 && instructions[k].sign == 0 { k += 1 }
      }
    }
    var advisories: [String] = []
    if !ferry.isEmpty || instructions.contains(where: { $0.sign == 9 }) {
      advisories.append(RouteImportSupport.ferryAdvisory(language))
    }
    let named = instructions.map(\.streetName).filter { !$0.isEmpty }
    let route = Route(
      name: routeName(instructions), distance: distance, expectedTravelTime: time,
      transportType: .automobile, hasTolls: !toll.isEmpty, hasHighways: motorway,
      advisoryNotices: advisories, steps: steps, road: road.road)
    return (
      route, points[instructions[0].first],
      points[min(points.count - 1, instructions[instructions.count - 1].last)],
      named.first ?? "", named.last ?? ""
    )
  }

  private static func instruction(_ v: JSONValue, _ p: String, pointCount: Int)
    throws(RouteDocumentError) -> Instruction
  {
    typealias R = JSONPathReader
    let o = try R.object(v, p)
    let interval = try R.array(R.require(o, "interval", p), R.join(p, "interval"))
    guard interval.count == 2 else {
      throw RouteDocumentError(
        .invalidValue, path: R.join(p, "interval"), "expected [first, last] point indexes")
    }
    // Old hand-made responses end intervals past the last point: clamp.
    let first = min(
      max(0, try R.integer(interval[0], R.join(p, "interval") + "[0]")), pointCount - 1)
    let last = min(
      max(0, try R.integer(interval[1], R.join(p, "interval") + "[1]")), pointCount - 1)
    var elements: [RouteSign.Element] = []
    for (key, kind) in [
      ("motorway_junction", RouteSign.Kind.exitNumber), ("street_destination_ref", .branch),
      ("street_destination", .toward), ("street_ref", .ref),
    ] {
      if let text = try R.optional(o, key, p, R.string), !text.isEmpty {
        elements.append(RouteSign.Element(kind, text))
      }
    }
    return Instruction(
      sign: try R.integer(R.require(o, "sign", p), R.join(p, "sign")),
      text: try R.optional(o, "text", p, R.string) ?? "",
      streetName: try R.optional(o, "street_name", p, R.string) ?? "",
      distance: try R.nonNegative(R.require(o, "distance", p), R.join(p, "distance")),
      first: first, last: last, exitNumber: try R.optional(o, "exit_number", p, R.integer),
      heading: try R.optional(o, "heading", p, R.number), path: p,
      roadSign: elements.isEmpty ? nil : RouteSign(elements))
  }

  /// The road of a path's `details`, by metres along its points: `max_speed` (km/h; `null` is
  /// unknown), the tunnels and ferries of `road_environment` and its bridges, the toll ranges.
  private static func road(
    _ details: JSONObject, _ path: String, points: [Coordinate], ferry: [ClosedRange<Int>],
    tunnel: [ClosedRange<Int>], toll: [ClosedRange<Int>]
  ) throws(RouteDocumentError) -> RouteRoadBuilder {
    typealias R = JSONPathReader
    var road = RouteRoadBuilder()
    let offsets = RouteRoadBuilder.offsets(points, from: 0)
    func at(_ i: Int) -> Double { offsets[min(max(i, 0), offsets.count - 1)] }
    if let entries = try R.optional(details, "max_speed", path, R.array) {
      let mp = R.join(path, "max_speed")
      for (i, e) in entries.enumerated() {
        let ep = "\(mp)[\(i)]"
        let a = try R.array(e, ep)
        guard a.count >= 3 else {
          throw RouteDocumentError(.invalidValue, path: ep, "expected [from, to, value]")
        }
        let from = try R.integer(a[0], "\(ep)[0]")
        let to = try R.integer(a[1], "\(ep)[1]")
        guard from <= to else { continue }
        let limit: SpeedLimit
        if case .number(let v) = a[2], v > 0, v.isFinite {
          limit = .limit(v, .kilometresPerHour)
        } else {
          limit = .unknown
        }
        road.addLimit(limit, from: at(from), to: at(to))
      }
    }
    let bridges =
      try R.optional(details, "road_environment", path, R.array).map {
        (entries) throws(RouteDocumentError) -> [ClosedRange<Int>] in
        var out: [ClosedRange<Int>] = []
        for (i, e) in entries.enumerated() {
          let ep = "\(R.join(path, "road_environment"))[\(i)]"
          let a = try R.array(e, ep)
          if a.count >= 3, case .string("bridge") = a[2] {
            let from = try R.integer(a[0], "\(ep)[0]")
            let to = try R.integer(a[1], "\(ep)[1]")
            if from <= to { out.append(from...to) }
          }
        }
        return out
      } ?? []
    var objects: [(RoadObject.Kind, ClosedRange<Int>)] =
      tunnel.map { (.tunnel, $0) } + bridges.map { (.bridge, $0) } + ferry.map { (.ferry, $0) }
      + toll.map { (.tollRoad, $0) }
    objects.sort { $0.1.lowerBound < $1.1.lowerBound }
    for (kind, range) in objects {
      road.addObject(kind, from: at(range.lowerBound), to: at(range.upperBound))
    }
    return road
  }

  /// The instructions with a `LEAVE_ROUNDABOUT` (sign −6, which GraphHopper reserves) folded
  /// into the `USE_ROUNDABOUT` (sign 6) before it: the roundabout names its exit, and leaving
  /// it is no maneuver of its own.
  private static func foldingRoundaboutExits(_ instructions: [Instruction]) -> [Instruction] {
    RouteImportSupport.folding(instructions) { round, i in
      guard i.sign == -6, round.sign == 6 else { return false }
      round.distance += i.distance
      round.last = max(round.last, i.last)
      round.roadSign = RouteSign.joined(round.roadSign, i.roadSign)
      return true
    }
  }

  /// A GraphHopper instruction `sign` in OSRM's vocabulary, for the instruction writer.
  ///
  /// 0 continue → `new name` straight; ±1/±2/±3 → `turn` slight/plain/sharp right or left;
  /// ±7 keep → `fork` slight; ±8 and −98 → `continue` uturn; 6 → `roundabout` with the exit;
  /// −6 → `exit roundabout`; 4 and 5 → `arrive`; 9 → a ferry `notification`; others → `turn`
  /// straight.
  public static func instructionStep(sign: Int, streetName: String, exitNumber: Int?)
    -> InstructionStep
  {
    func turn(_ type: String, _ modifier: String) -> InstructionStep {
      InstructionStep(type: type, modifier: modifier, name: streetName)
    }
    switch sign {
    case 0: return turn("new name", "straight")
    case 1: return turn("turn", "slight right")
    case -1: return turn("turn", "slight left")
    case 2: return turn("turn", "right")
    case -2: return turn("turn", "left")
    case 3: return turn("turn", "sharp right")
    case -3: return turn("turn", "sharp left")
    case 4, 5: return InstructionStep(type: "arrive", name: streetName)
    case 6:
      return InstructionStep(
        type: "roundabout", modifier: "straight", exit: exitNumber, name: streetName)
    case -6: return turn("exit roundabout", "straight")
    case 7: return turn("fork", "slight right")
    case -7: return turn("fork", "slight left")
    case 8, -8, -98: return turn("continue", "uturn")
    case 9:
      return InstructionStep(
        type: "notification", modifier: "straight", name: streetName, mode: "ferry")
    default: return turn("turn", "straight")
    }
  }

  private static func instructionStep(_ i: Instruction) -> InstructionStep {
    instructionStep(sign: i.sign, streetName: i.streetName, exitNumber: i.exitNumber)
  }

  private static func routeName(_ instructions: [Instruction]) -> String {
    let named = instructions.enumerated().filter { !$0.element.streetName.isEmpty }
    let sorted = named.sorted { $0.element.distance > $1.element.distance }
    guard let first = sorted.first else { return "GraphHopper route" }
    var picked = [first]
    if let second = sorted.first(where: { $0.element.streetName != first.element.streetName }) {
      picked.append(second)
    }
    return picked.sorted { $0.offset < $1.offset }.map(\.element.streetName).joined(
      separator: ", ")
  }

  // MARK: - Points

  private static func points(_ o: JSONObject, _ path: String, distance: Double)
    throws(RouteDocumentError) -> [Coordinate]
  {
    typealias R = JSONPathReader
    let pp = R.join(path, "points")
    let value = try R.require(o, "points", path)
    if case .object(let line) = value {
      let cp = R.join(pp, "coordinates")
      let coords = try R.array(R.require(line, "coordinates", pp), cp)
      var out: [Coordinate] = []
      for (i, c) in coords.enumerated() {
        let a = try R.array(c, "\(cp)[\(i)]")
        guard a.count >= 2 else {
          throw RouteDocumentError(
            .invalidCoordinate, path: "\(cp)[\(i)]", "expected [longitude, latitude]")
        }
        out.append(
          try RouteImportSupport.position(
            R.number(a[0], "\(cp)[\(i)][0]"), R.number(a[1], "\(cp)[\(i)][1]"),
            path: "\(cp)[\(i)]"))
      }
      return out
    }
    let encoded = try R.string(value, pp)
    var bbox: [Double]?
    if let bv = try R.optional(o, "bbox", path, R.array), bv.count == 4 {
      var b: [Double] = []
      for (i, x) in bv.enumerated() { b.append(try R.number(x, "\(R.join(path, "bbox"))[\(i)]")) }
      bbox = b
    }
    let stated: Int?
    if let m = try R.optional(o, "points_encoded_multiplier", path, R.number) {
      guard let p = [5, 6].first(where: { abs(m - pow10($0)) < 0.5 }) else {
        throw RouteDocumentError(
          .invalidValue, path: R.join(path, "points_encoded_multiplier"),
          "unsupported multiplier \(m) (expected 1e5 or 1e6)")
      }
      stated = p
    } else {
      stated = nil
    }
    let precision = stated ?? 5
    let points: [Coordinate]
    do {
      points = try Polyline.decode(encoded, precision: precision)
    } catch {
      throw RouteDocumentError(
        .invalidPolyline, path: pp,
        "not a precision-\(precision) polyline\(stated == nil ? " (GraphHopper's default)" : ""): "
          + "\(error.message); an elevation=true response (3 values per point) is not supported")
    }
    // Check the precision against what the response says independently.
    if let b = bbox,
      let bad = points.first(where: {
        $0.longitude < b[0] - 1e-4 || $0.latitude < b[1] - 1e-4 || $0.longitude > b[2] + 1e-4
          || $0.latitude > b[3] + 1e-4
      })
    {
      throw RouteDocumentError(
        .invalidPolyline, path: pp,
        "precision \(precision)\(stated == nil ? " (GraphHopper's default)" : " (stated)") does "
          + "not fit: the point \(bad) is outside bbox \(b)")
    }
    let length = RouteImportSupport.length(points)
    if distance > 50, abs(length - distance) > distance * lengthTolerance {
      throw RouteDocumentError(
        .invalidPolyline, path: pp,
        "precision \(precision)\(stated == nil ? " (GraphHopper's default)" : " (stated)") does "
          + "not fit: the line is \(RouteImportSupport.formatMetres(length)) long but the path's "
          + "distance is \(RouteImportSupport.formatMetres(distance))")
    }
    return points
  }

  private static func pow10(_ n: Int) -> Double {
    var s = 1.0
    for _ in 0..<n { s *= 10 }
    return s
  }
}
