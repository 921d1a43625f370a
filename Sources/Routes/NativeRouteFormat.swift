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
    let root = try r.object(value, "")
    let source = try r.place(r.require(root, "source", ""), "source")
    let destination = try r.place(r.require(root, "destination", ""), "destination")
    let routesValue = try r.array(r.require(root, "routes", ""), "routes")
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
      routes.append(
        .object(
          JSONObject([
            ("name", .string(route.name)),
            ("distance", .number(rounded(route.distance, 0.01))),
            ("expectedTravelTime", .number(rounded(route.expectedTravelTime, 0.1))),
            ("transportType", .string(route.transportType.rawValue)),
            ("hasTolls", .bool(route.hasTolls)),
            ("hasHighways", .bool(route.hasHighways)),
            ("advisoryNotices", .array(route.advisoryNotices.map { .string($0) })),
            ("steps", .array(steps)),
          ])))
    }
    return .object(
      JSONObject([
        ("source", place(doc.source)), ("destination", place(doc.destination)),
        ("routes", .array(routes)),
      ]))
  }

  /// Rounds to a multiple of `step` (a power of ten), dividing last so the result is the double
  /// nearest to the decimal value (1e-7 steps would otherwise leave `…99999999` tails).
  private static func rounded(_ v: Double, _ step: Double) -> Double {
    let scale = (1 / step).rounded()
    return (v * scale).rounded() / scale
  }
}

/// Typed access to JSON with path-carrying errors.
private struct Reader {
  func object(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> JSONObject {
    guard case .object(let o) = v else { throw wrongType(v, "an object", path) }
    return o
  }

  func array(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> [JSONValue] {
    guard case .array(let a) = v else { throw wrongType(v, "an array", path) }
    return a
  }

  func require(_ o: JSONObject, _ key: String, _ path: String) throws(RouteDocumentError)
    -> JSONValue
  {
    guard let v = o[key] else {
      throw RouteDocumentError(
        .missingField, path: join(path, key), "missing required field '\(key)'")
    }
    return v
  }

  func string(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> String {
    guard case .string(let s) = v else { throw wrongType(v, "a string", path) }
    return s
  }

  func bool(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Bool {
    guard case .bool(let b) = v else { throw wrongType(v, "true or false", path) }
    return b
  }

  func number(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Double {
    guard case .number(let d) = v else { throw wrongType(v, "a number", path) }
    guard d.isFinite else {
      throw RouteDocumentError(.invalidValue, path: path, "not a finite number")
    }
    return d
  }

  func distance(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Double {
    let d = try number(v, path)
    guard d >= 0 else {
      throw RouteDocumentError(
        .negativeDistance, path: path, "negative value \(d) (must be ≥ 0)")
    }
    return d
  }

  func wrongType(_ v: JSONValue, _ expected: String, _ path: String) -> RouteDocumentError {
    RouteDocumentError(.wrongType, path: path, "expected \(expected), found \(v.typeName)")
  }

  func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  func coordinate(_ o: JSONObject, _ path: String) throws(RouteDocumentError) -> Coordinate {
    let lat = try number(require(o, "latitude", path), join(path, "latitude"))
    let lon = try number(require(o, "longitude", path), join(path, "longitude"))
    guard abs(lat) <= 90 else {
      throw RouteDocumentError(
        .invalidCoordinate, path: join(path, "latitude"), "latitude \(lat) is outside −90…90")
    }
    guard abs(lon) <= 180 else {
      throw RouteDocumentError(
        .invalidCoordinate, path: join(path, "longitude"),
        "longitude \(lon) is outside −180…180")
    }
    return Coordinate(latitude: lat, longitude: lon)
  }

  func place(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Place {
    let o = try object(v, path)
    let name = try string(require(o, "name", path), join(path, "name"))
    return Place(name: name, coordinate: try coordinate(o, path))
  }

  func transport(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> TransportType {
    let s = try string(v, path)
    guard let t = TransportType(rawValue: s) else {
      throw RouteDocumentError(
        .invalidValue, path: path,
        "unknown transport type '\(s)' (expected automobile, walking, cycling or transit)")
    }
    return t
  }

  mutating func route(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Route {
    let o = try object(v, path)
    let name = try string(require(o, "name", path), join(path, "name"))
    let distance = try self.distance(require(o, "distance", path), join(path, "distance"))
    let time = try self.distance(
      require(o, "expectedTravelTime", path), join(path, "expectedTravelTime"))
    let transport = try self.transport(
      require(o, "transportType", path), join(path, "transportType"))
    let hasTolls = try o["hasTolls"].map { (v) throws(RouteDocumentError) in
      try bool(v, join(path, "hasTolls"))
    } ?? false
    let hasHighways = try o["hasHighways"].map { (v) throws(RouteDocumentError) in
      try bool(v, join(path, "hasHighways"))
    } ?? false
    var advisories: [String] = []
    if let a = o["advisoryNotices"] {
      let ap = join(path, "advisoryNotices")
      for (i, n) in try array(a, ap).enumerated() {
        advisories.append(try string(n, "\(ap)[\(i)]"))
      }
    }
    let stepsPath = join(path, "steps")
    let stepValues = try array(require(o, "steps", path), stepsPath)
    guard stepValues.count >= 2 else {
      throw RouteDocumentError(
        .invalidValue, path: stepsPath,
        "a route needs a departure step and at least one more step (found \(stepValues.count))")
    }
    var steps: [RouteStep] = []
    steps.reserveCapacity(stepValues.count)
    var waypointCount = 0
    for (i, sv) in stepValues.enumerated() {
      let sp = "\(stepsPath)[\(i)]"
      let so = try object(sv, sp)
      let instructions = try string(require(so, "instructions", sp), join(sp, "instructions"))
      var notice: String?
      if let n = so["notice"], n != .null { notice = try string(n, join(sp, "notice")) }
      let d = try self.distance(require(so, "distance", sp), join(sp, "distance"))
      let t = try so["transportType"].map { (v) throws(RouteDocumentError) in
        try self.transport(v, join(sp, "transportType"))
      } ?? transport
      let pp = join(sp, "polyline")
      let points = try array(require(so, "polyline", sp), pp)
      var polyline: [Coordinate] = []
      polyline.reserveCapacity(points.count)
      for (k, pv) in points.enumerated() {
        let ptPath = "\(pp)[\(k)]"
        polyline.append(try coordinate(object(pv, ptPath), ptPath))
      }
      var waypoint: Int?
      if let w = so["waypoint"], w != .null {
        let wn = try number(w, join(sp, "waypoint"))
        waypointCount += 1
        guard wn == Double(waypointCount) else {
          throw RouteDocumentError(
            .invalidValue, path: join(sp, "waypoint"),
            "waypoints must be numbered 1, 2, … in order (expected \(waypointCount))")
        }
        waypoint = waypointCount
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
          polyline: polyline, waypoint: waypoint))
    }
    return Route(
      name: name, distance: distance, expectedTravelTime: time, transportType: transport,
      hasTolls: hasTolls, hasHighways: hasHighways, advisoryNotices: advisories, steps: steps)
  }

  func formatMetres(_ m: Double) -> String {
    m < 10 ? "\((m * 10).rounded() / 10) m" : "\(Int(m.rounded())) m"
  }
}
