import JSON

// The native document's road members (docs/route-format.md): a step's `lanes` and `sign`, a
// route's `speedLimits`, `roadObjects` and `laneGuidance`. All are optional: a document without
// them loads as before, and a route without them is written as before.

private typealias R = JSONPathReader

extension NativeRouteFormat {
  /// Adds the step's `lanes` and `sign` to its object, when it has them.
  static func encodeRoad(of step: RouteStep, into o: inout JSONObject) {
    encodeRoad(lanes: step.lanes, sign: step.sign, into: &o)
  }

  /// Adds `lanes` and `sign` as a step's members, when there are any: the native document's
  /// form, which `ANNOUNCE` events carry too (`docs/events.md`).
  public static func encodeRoad(lanes: [RouteLane], sign: RouteSign?, into o: inout JSONObject) {
    if !lanes.isEmpty { o.append("lanes", Self.lanes(lanes)) }
    if let sign {
      o.append(
        "sign",
        .array(
          sign.elements.map { e in
            var eo = JSONObject()
            eo.append("type", .string(e.kind.rawValue))
            eo.append("text", .string(e.text))
            if e.isRouteNumber { eo.append("routeNumber", .bool(true)) }
            return .object(eo)
          }))
    }
  }

  /// Adds the route's `speedLimits`, `roadObjects` and `laneGuidance`, when it has them.
  static func encodeRoad(of road: RouteRoad, into o: inout JSONObject) {
    if !road.speedLimits.isEmpty {
      o.append(
        "speedLimits",
        .array(
          road.speedLimits.map { s in
            var so = JSONObject()
            so.append("start", .number(rounded(s.start, 0.01)))
            so.append("end", .number(rounded(s.end, 0.01)))
            switch s.limit {
            case .limit(let v, let unit):
              so.append("limit", .number(v))
              so.append("unit", .string(unit.rawValue))
            case .none: so.append("limit", .string("none"))
            case .unknown: so.append("limit", .string("unknown"))
            }
            return .object(so)
          }))
    }
    if !road.objects.isEmpty {
      o.append(
        "roadObjects",
        .array(
          road.objects.map { r in
            var ro = JSONObject()
            ro.append("type", .string(r.kind.rawValue))
            ro.append("start", .number(rounded(r.start, 0.01)))
            if !r.isPoint { ro.append("end", .number(rounded(r.end, 0.01))) }
            if let name = r.name { ro.append("name", .string(name)) }
            return .object(ro)
          }))
    }
    if !road.lanes.isEmpty {
      o.append(
        "laneGuidance",
        .array(
          road.lanes.map {
            .object(
              JSONObject([("at", .number(rounded($0.at, 0.01))), ("lanes", lanes($0.lanes))]))
          }))
    }
  }

  private static func lanes(_ lanes: [RouteLane]) -> JSONValue {
    .array(
      lanes.map { lane in
        var lo = JSONObject()
        lo.append("indications", .array(lane.indications.map { .string($0.rawValue) }))
        lo.append("valid", .bool(lane.valid))
        if let a = lane.active { lo.append("active", .bool(a)) }
        if let v = lane.validIndication { lo.append("validIndication", .string(v.rawValue)) }
        return .object(lo)
      })
  }

  /// The road as the writer rounds it, or `nil` when it would not pass validation (see
  /// ``Reader/road(_:_:)``).
  static func roundedRoad(_ road: RouteRoad) -> RouteRoad? {
    var out = road
    var previousEnd = 0.0
    for i in out.speedLimits.indices {
      let s = out.speedLimits[i]
      let start = rounded(s.start, 0.01)
      let end = rounded(s.end, 0.01)
      guard start >= previousEnd, end >= start, validLimit(s.limit) else { return nil }
      out.speedLimits[i].start = start
      out.speedLimits[i].end = end
      previousEnd = end
    }
    var previousStart = 0.0
    for i in out.objects.indices {
      let r = out.objects[i]
      let start = rounded(r.start, 0.01)
      let end = rounded(r.end, 0.01)
      guard start >= previousStart, end >= start else { return nil }
      out.objects[i].start = start
      out.objects[i].end = end
      previousStart = start
    }
    var previousAt = 0.0
    for i in out.lanes.indices {
      let at = rounded(out.lanes[i].at, 0.01)
      guard at >= previousAt else { return nil }
      out.lanes[i].at = at
      previousAt = at
    }
    return out
  }

  static func validLimit(_ limit: SpeedLimit) -> Bool {
    if case .limit(let v, _) = limit { return v.isFinite && v > 0 }
    return true
  }
}

extension NativeRouteFormat {
  /// Reads `lanes` and `sign` members written by ``encodeRoad(lanes:sign:into:)``; `nil` when
  /// they are malformed.
  public static func decodeRoad(_ o: JSONObject) -> (lanes: [RouteLane], sign: RouteSign?)? {
    let r = Reader()
    guard let lanes = try? r.stepLanes(o, ""), let sign = try? r.sign(o, "") else { return nil }
    return (lanes, sign)
  }
}

extension Reader {
  /// A step's `lanes` (an empty array when absent).
  func stepLanes(_ o: JSONObject, _ path: String) throws(RouteDocumentError) -> [RouteLane] {
    guard let v = o["lanes"], v != .null else { return [] }
    return try lanes(v, R.join(path, "lanes"))
  }

  func lanes(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> [RouteLane] {
    var out: [RouteLane] = []
    for (i, lv) in try R.array(v, path).enumerated() {
      let lp = "\(path)[\(i)]"
      let lo = try R.object(lv, lp)
      let ip = R.join(lp, "indications")
      var indications: [RouteLane.Indication] = []
      for (k, w) in try R.array(R.require(lo, "indications", lp), ip).enumerated() {
        indications.append(try word(w, "\(ip)[\(k)]", "lane indication"))
      }
      var lane = RouteLane(
        indications: indications, valid: try R.bool(R.require(lo, "valid", lp), R.join(lp, "valid"))
      )
      if let a = lo["active"], a != .null { lane.active = try R.bool(a, R.join(lp, "active")) }
      if let vi = lo["validIndication"], vi != .null {
        lane.validIndication = try word(vi, R.join(lp, "validIndication"), "lane indication")
      }
      out.append(lane)
    }
    return out
  }

  /// A step's `sign`, or `nil` when absent.
  func sign(_ o: JSONObject, _ path: String) throws(RouteDocumentError) -> RouteSign? {
    guard let v = o["sign"], v != .null else { return nil }
    let sp = R.join(path, "sign")
    var elements: [RouteSign.Element] = []
    for (i, ev) in try R.array(v, sp).enumerated() {
      let ep = "\(sp)[\(i)]"
      let eo = try R.object(ev, ep)
      let kind: RouteSign.Kind = try word(
        R.require(eo, "type", ep), R.join(ep, "type"), "sign type")
      let text = try R.string(R.require(eo, "text", ep), R.join(ep, "text"))
      let routeNumber = try R.optional(eo, "routeNumber", ep, R.bool) ?? false
      elements.append(RouteSign.Element(kind, text, isRouteNumber: routeNumber))
    }
    return RouteSign(elements)
  }

  /// A route's `speedLimits`, `roadObjects` and `laneGuidance`.
  func road(_ o: JSONObject, _ path: String) throws(RouteDocumentError) -> RouteRoad {
    var road = RouteRoad()
    if let v = o["speedLimits"], v != .null {
      let lp = R.join(path, "speedLimits")
      var previousEnd = 0.0
      for (i, sv) in try R.array(v, lp).enumerated() {
        let sp = "\(lp)[\(i)]"
        let so = try R.object(sv, sp)
        let (start, end) = try stretch(so, sp, after: previousEnd, what: "speed limit")
        let limitPath = R.join(sp, "limit")
        let limit: SpeedLimit
        switch try R.require(so, "limit", sp) {
        case .string("none"): limit = .none
        case .string("unknown"): limit = .unknown
        case let lv:
          let value = try R.number(lv, limitPath)
          guard value > 0 else {
            throw RouteDocumentError(
              .invalidValue, path: limitPath, "a speed limit must be above 0 (found \(value))")
          }
          limit = .limit(
            value, try word(R.require(so, "unit", sp), R.join(sp, "unit"), "speed unit"))
        }
        road.speedLimits.append(SpeedLimitSpan(start: start, end: end, limit: limit))
        previousEnd = end
      }
    }
    if let v = o["roadObjects"], v != .null {
      let op = R.join(path, "roadObjects")
      var previousStart = 0.0
      for (i, rv) in try R.array(v, op).enumerated() {
        let rp = "\(op)[\(i)]"
        let ro = try R.object(rv, rp)
        let kind: RoadObject.Kind = try word(
          R.require(ro, "type", rp), R.join(rp, "type"), "road object type")
        let (start, end) = try stretch(ro, rp, after: previousStart, what: "road object")
        let name = try R.optional(ro, "name", rp, R.string)
        road.objects.append(RoadObject(kind, start: start, end: end, name: name))
        previousStart = start
      }
    }
    if let v = o["laneGuidance"], v != .null {
      let gp = R.join(path, "laneGuidance")
      var previousAt = 0.0
      for (i, gv) in try R.array(v, gp).enumerated() {
        let ep = "\(gp)[\(i)]"
        let go = try R.object(gv, ep)
        let at = try R.nonNegative(R.require(go, "at", ep), R.join(ep, "at"))
        guard at >= previousAt else {
          throw RouteDocumentError(
            .invalidValue, path: R.join(ep, "at"),
            "lane guidance must be in order along the route (\(at) m is before \(previousAt) m)")
        }
        road.lanes.append(
          RouteLaneGuidance(
            at: at, lanes: try lanes(R.require(go, "lanes", ep), R.join(ep, "lanes"))))
        previousAt = at
      }
    }
    return road
  }

  /// `start` and `end` (`end` defaults to `start`) of a span, in order after `previous`.
  private func stretch(_ o: JSONObject, _ path: String, after previous: Double, what: String)
    throws(RouteDocumentError) -> (Double, Double)
  {
    let start = try R.nonNegative(R.require(o, "start", path), R.join(path, "start"))
    let end = try R.optional(o, "end", path, R.nonNegative) ?? start
    guard start >= previous else {
      throw RouteDocumentError(
        .invalidValue, path: R.join(path, "start"),
        "\(what)s must be in order along the route (\(start) m is before \(previous) m)")
    }
    guard end >= start else {
      throw RouteDocumentError(
        .invalidValue, path: R.join(path, "end"), "ends at \(end) m, before its start \(start) m")
    }
    return (start, end)
  }
}
