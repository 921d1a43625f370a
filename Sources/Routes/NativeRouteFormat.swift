import Geodesy
public import JSON

/// Reads and writes the native route document (`docs/route-format.md`).
///
/// Loading validates everything before anything is returned, so a caller never holds a
/// half-loaded document; the first problem is reported with its JSON path.
public enum NativeRouteFormat {
  /// Two consecutive step polylines must meet within this many metres.
  public static let continuityTolerance = 1.0

  /// Parses and validates a native route document.
  public static func decode(_ bytes: some Collection<UInt8>) throws(RouteDocumentError)
    -> RouteDocument
  {
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes)
    } catch {
      throw RouteDocumentError(.syntax, path: "", "not valid JSON: \(error)")
    }
    return try decode(value)
  }

  /// Validates an already parsed JSON value as a native route document.
  public static func decode(_ value: JSONValue) throws(RouteDocumentError) -> RouteDocument {
    var r = Reader()
    let root = try R.object(value, "")
    let source = try r.place(R.require(root, "source", ""), "source")
    let destination = try r.place(R.require(root, "destination", ""), "destination")
    let routesValue = try R.array(R.require(root, "routes", ""), "routes")
    guard !routesValue.isEmpty else {
      throw RouteDocumentError(.emptyRoutes, path: "routes", "the document has no routes")
    }
    var routes: [Route] = []
    routes.reserveCapacity(routesValue.count)
    for (i, rv) in routesValue.enumerated() {
      routes.append(try r.route(rv, "routes[\(i)]"))
    }
    return RouteDocument(source: source, destination: destination, routes: routes)
  }

  /// The document as a JSON value, in the field order of `docs/route-format.md`.
  public static func encode(_ doc: RouteDocument) -> JSONValue {
    func place(_ p: Place) -> JSONValue {
      .object(
        JSONObject([
          ("name", .string(p.name)), ("latitude", .number(p.coordinate.latitude)),
          ("longitude", .number(p.coordinate.longitude)),
        ]))
    }
    var routes: [JSONValue] = []
    for route in doc.routes {
      var steps: [JSONValue] = []
      for step in route.steps {
        var o = JSONObject()
        o.append("instructions", .string(step.instructions))
        if let n = step.notice { o.append("notice", .string(n)) }
        o.append("distance", .number(rounded(step.distance, 0.01)))
        o.append("transportType", .string(step.transportType.rawValue))
        if let w = step.waypoint { o.append("waypoint", .number(Double(w))) }
        if let m = step.maneuver { o.append("maneuver", maneuver(m)) }
        encodeRoad(of: step, into: &o)
        o.append(
          "polyline",
          .array(
            step.polyline.map {
              .object(
                JSONObject([
                  ("latitude", .number(rounded($0.latitude, 1e-7))),
                  ("longitude", .number(rounded($0.longitude, 1e-7))),
                ]))
            }))
        steps.append(.object(o))
      }
      var ro = JSONObject([
        ("name", .string(route.name)),
        ("distance", .number(rounded(route.distance, 0.01))),
        ("expectedTravelTime", .number(rounded(route.expectedTravelTime, 0.1))),
        ("transportType", .string(route.transportType.rawValue)),
        ("hasTolls", .bool(route.hasTolls)),
        ("hasHighways", .bool(route.hasHighways)),
        ("advisoryNotices", .array(route.advisoryNotices.map { .string($0) })),
        ("steps", .array(steps)),
      ])
      encodeRoad(of: route.road, into: &ro)
      routes.append(.object(ro))
    }
    return .object(
      JSONObject([
        ("source", place(doc.source)), ("destination", place(doc.destination)),
        ("routes", .array(routes)),
      ]))
  }

  private static func maneuver(_ m: RouteManeuver) -> JSONValue {
    var o = JSONObject()
    o.append("type", .string(m.kind.rawValue))
    if let modifier = m.modifier { o.append("modifier", .string(modifier.rawValue)) }
    if let exit = m.exit { o.append("exit", .number(Double(exit))) }
    if let d = m.exitDistance { o.append("exitDistance", .number(rounded(d, 0.01))) }
    return .object(o)
  }

  /// Rounds to a multiple of `step` (a power of ten), dividing last so the result is the double
  /// nearest to the decimal value (1e-7 steps would otherwise leave `…99999999` tails).
  static func rounded(_ v: Double, _ step: Double) -> Double {
    let scale = (1 / step).rounded()
    return (v * scale).rounded() / scale
  }
}

/// The native document's structure, read with ``JSONPathReader`` (shared with the importers).
private typealias R = JSONPathReader

struct Reader {

  func coordinate(_ o: JSONObject, _ path: String) throws(RouteDocumentError) -> Coordinate {
    let lat = try R.number(R.require(o, "latitude", path), R.join(path, "latitude"))
    let lon = try R.number(R.require(o, "longitude", path), R.join(path, "longitude"))
    guard abs(lat) <= 90 else {
      throw RouteDocumentError(
        .invalidCoordinate, path: R.join(path, "latitude"), "latitude \(lat) is outside −90…90")
    }
    guard abs(lon) <= 180 else {
      throw RouteDocumentError(
        .invalidCoordinate, path: R.join(path, "longitude"),
        "longitude \(lon) is outside −180…180")
    }
    return Coordinate(latitude: lat, longitude: lon)
  }

  func place(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Place {
    let o = try R.object(v, path)
    let name = try R.string(R.require(o, "name", path), R.join(path, "name"))
    return Place(name: name, coordinate: try coordinate(o, path))
  }

  func transport(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> TransportType {
    let s = try R.string(v, path)
    guard let t = TransportType(rawValue: s) else {
      throw RouteDocumentError(
        .invalidValue, path: path,
        "unknown transport type '\(s)' (expected automobile, walking, cycling or transit)")
    }
    return t
  }

  mutating func route(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Route {
    try route(R.object(v, path), path, decoded: nil)
  }

  /// The route of `o`, with its steps from `decoded` instead of `o` when the pull decoder read
  /// them (every step with its polyline, whose points it has checked).
  mutating func route(_ o: JSONObject, _ path: String, decoded: [DecodedStep]?)
    throws(RouteDocumentError) -> Route
  {
    let name = try R.string(R.require(o, "name", path), R.join(path, "name"))
    let distance = try R.nonNegative(R.require(o, "distance", path), R.join(path, "distance"))
    let time = try R.nonNegative(
      R.require(o, "expectedTravelTime", path), R.join(path, "expectedTravelTime"))
    let transport = try self.transport(
      R.require(o, "transportType", path), R.join(path, "transportType"))
    let hasTolls =
      try o["hasTolls"].map { (v) throws(RouteDocumentError) in
        try R.bool(v, R.join(path, "hasTolls"))
      } ?? false
    let hasHighways =
      try o["hasHighways"].map { (v) throws(RouteDocumentError) in
        try R.bool(v, R.join(path, "hasHighways"))
      } ?? false
    var advisories: [String] = []
    if let a = o["advisoryNotices"] {
      let ap = R.join(path, "advisoryNotices")
      for (i, n) in try R.array(a, ap).enumerated() {
        advisories.append(try R.string(n, "\(ap)[\(i)]"))
      }
    }
    let stepsPath = R.join(path, "steps")
    var stepValues: [JSONValue] = []
    if decoded == nil { stepValues = try R.array(R.require(o, "steps", path), stepsPath) }
    let stepCount = decoded?.count ?? stepValues.count
    guard stepCount >= 2 else {
      throw RouteDocumentError(
        .invalidValue, path: stepsPath,
        "a route needs a departure step and at least one more step (found \(stepCount))")
    }
    var steps: [RouteStep] = []
    steps.reserveCapacity(stepCount)
    var waypointCount = 0
    for i in 0..<stepCount {
      let sp = "\(stepsPath)[\(i)]"
      let so: JSONObject
      if let decoded { so = decoded[i].members } else { so = try R.object(stepValues[i], sp) }
      let instructions = try R.string(R.require(so, "instructions", sp), R.join(sp, "instructions"))
      var notice: String?
      if let n = so["notice"], n != .null { notice = try R.string(n, R.join(sp, "notice")) }
      let d = try R.nonNegative(R.require(so, "distance", sp), R.join(sp, "distance"))
      let t =
        try so["transportType"].map { (v) throws(RouteDocumentError) in
          try self.transport(v, R.join(sp, "transportType"))
        } ?? transport
      let pp = R.join(sp, "polyline")
      var polyline = RoutePolyline()
      if let decoded {
        polyline = decoded[i].polyline
      } else {
        let points = try R.array(R.require(so, "polyline", sp), pp)
        polyline.reserveCapacity(points.count)
        for (k, pv) in points.enumerated() {
          // The common case without building the point's JSON path (which only an error
          // needs): most of a long route's load time went into those strings.
          if case .object(let o) = pv, case .number(let lat)? = o["latitude"],
            case .number(let lon)? = o["longitude"], abs(lat) <= 90, abs(lon) <= 180
          {
            polyline.append(Coordinate(latitude: lat, longitude: lon))
            continue
          }
          let ptPath = "\(pp)[\(k)]"
          polyline.append(try coordinate(R.object(pv, ptPath), ptPath))
        }
      }
      var waypoint: Int?
      if let w = so["waypoint"], w != .null {
        let wn = try R.number(w, R.join(sp, "waypoint"))
        waypointCount += 1
        guard wn == Double(waypointCount) else {
          throw RouteDocumentError(
            .invalidValue, path: R.join(sp, "waypoint"),
            "waypoints must be numbered 1, 2, … in order (expected \(waypointCount))")
        }
        waypoint = waypointCount
      }
      var maneuver: RouteManeuver?
      if let m = so["maneuver"], m != .null {
        maneuver = try self.maneuver(m, R.join(sp, "maneuver"))
      }
      if i == 0 {
        guard d == 0, instructions.isEmpty else {
          throw RouteDocumentError(
            .badDeparture, path: sp,
            "step 0 must be the departure: distance 0 and empty instructions")
        }
        guard polyline.count >= 1 else {
          throw RouteDocumentError(
            .badDeparture, path: pp, "the departure step needs one point at the source")
        }
      } else {
        guard polyline.count >= 2 else {
          throw RouteDocumentError(
            .invalidValue, path: pp,
            "a step polyline needs at least 2 points (found \(polyline.count))")
        }
        if let previous = steps.last?.polyline.last {
          let gap = previous.distance(to: polyline[0])
          guard gap <= NativeRouteFormat.continuityTolerance else {
            throw RouteDocumentError(
              .discontinuousPolyline, path: "\(pp)[0]",
              "does not start where step \(i - 1) ended (\(formatMetres(gap)) away)")
          }
        }
      }
      steps.append(
        RouteStep(
          instructions: instructions, notice: notice, distance: d, transportType: t,
          polyline: polyline, waypoint: waypoint, maneuver: maneuver,
          lanes: try stepLanes(so, sp), sign: try sign(so, sp)))
    }
    return Route(
      name: name, distance: distance, expectedTravelTime: time, transportType: transport,
      hasTolls: hasTolls, hasHighways: hasHighways, advisoryNotices: advisories, steps: steps,
      road: try road(o, path))
  }

  /// One of the words of `T` (its raw values), or an error naming `what` and listing them.
  func word<T: RawRepresentable & CaseIterable>(
    _ v: JSONValue, _ path: String, _ what: String
  ) throws(RouteDocumentError) -> T where T.RawValue == String {
    let text = try R.string(v, path)
    guard let value = T(rawValue: text) else {
      throw RouteDocumentError(
        .invalidValue, path: path,
        "unknown \(what) '\(text)' (expected one of "
          + T.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    }
    return value
  }

  /// A step's `maneuver`: OSRM's type and modifier words, the exit number and where it is.
  func maneuver(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> RouteManeuver {
    let o = try R.object(v, path)
    var maneuver = RouteManeuver(
      kind: try word(R.require(o, "type", path), R.join(path, "type"), "maneuver type"))
    if let mv = o["modifier"], mv != .null {
      maneuver.modifier = try word(mv, R.join(path, "modifier"), "maneuver modifier")
    }
    if let ev = o["exit"], ev != .null {
      let ep = R.join(path, "exit")
      let exit = try R.integer(ev, ep)
      guard exit >= 1 else {
        throw RouteDocumentError(.invalidValue, path: ep, "exit numbers start at 1 (found \(exit))")
      }
      maneuver.exit = exit
    }
    if let dv = o["exitDistance"], dv != .null {
      maneuver.exitDistance = try R.nonNegative(dv, R.join(path, "exitDistance"))
    }
    return maneuver
  }

  func formatMetres(_ m: Double) -> String {
    m < 10 ? "\((m * 10).rounded() / 10) m" : "\(Int(m.rounded())) m"
  }
}
