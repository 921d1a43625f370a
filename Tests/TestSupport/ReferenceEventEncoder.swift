import Geodesy
public import Guidance
public import JSON
import Routes
public import Wire

/// A second, independent encoding of the events as `JSONValue` trees, kept as the tests' oracle:
/// Wire's byte writer (the daemon's one encoder) must write exactly what `JSONWriter` writes for
/// these objects (`EventLineWriterTests`, `EventLineTests`).
public enum ReferenceEventEncoder {
  /// The JSON object for `event`.
  ///
  /// Unknown values are omitted, never `null`.
  public static func object(_ event: NavigationEvent) -> JSONObject {
    var o = JSONObject()
    func num(_ v: Double, _ step: Double) -> JSONValue {
      let scale = (1 / step).rounded()
      return .number((v * scale).rounded() / scale)
    }
    func coord(_ c: Coordinate) -> (JSONValue, JSONValue) {
      (num(c.latitude, 1e-7), num(c.longitude, 1e-7))
    }
    switch event.kind {
    case .route(let r):
      o.append("class", "ROUTE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("name", .string(r.name))
      o.append("routeIndex", .number(Double(r.routeIndex)))
      o.append("distance", num(r.distance, 0.1))
      o.append("expectedTravelTime", num(r.expectedTravelTime, 0.1))
      o.append("transportType", .string(r.transportType.rawValue))
      o.append("hasTolls", .bool(r.hasTolls))
      o.append("hasHighways", .bool(r.hasHighways))
      o.append("steps", .number(Double(r.steps)))
      o.append("source", .string(r.source))
      o.append("destination", .string(r.destination))
      o.append("reason", .string(r.reason.rawValue))
      o.append("revision", .number(Double(r.revision)))
    case .announce(let a):
      o.append("class", "ANNOUNCE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("step", .number(Double(a.step)))
      o.append("kind", .string(a.kind.rawValue))
      o.append("text", .string(a.text))
      if let d = a.distance { o.append("distance", num(d, 1)) }
      o.append("id", .string(a.id))
      if !a.thenSteps.isEmpty { o.append("then", .array(a.thenSteps.map { .number(Double($0)) })) }
    case .step(let s):
      o.append("class", "STEP")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("step", .number(Double(s)))
    case .progress(let p, let ahead):
      o.append("class", "PROGRESS")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("step", .number(Double(p.step)))
      o.append("distanceToManeuver", num(p.distanceToManeuver, 0.1))
      o.append("distanceRemaining", num(p.distanceRemaining, 0.1))
      o.append("timeRemaining", num(p.timeRemaining, 0.1))
      o.append("eta", .string(UTCTime.iso8601((event.time + p.timeRemaining).rounded())))
      o.append("onRoute", .bool(p.onRoute))
      let (lat, lon) = coord(p.raw)
      o.append("latitude", lat)
      o.append("longitude", lon)
      let (mlat, mlon) = coord(p.matched)
      o.append("matchedLatitude", mlat)
      o.append("matchedLongitude", mlon)
      o.append("distanceAlong", num(p.distanceAlong, 0.1))
      o.append("distanceFromRoute", num(p.distanceFromRoute, 0.1))
      if let v = p.speed { o.append("speed", num(v, 0.01)) }
      if let c = p.course { o.append("course", num(c, 0.1)) }
      if p.discardedFixes > 0 { o.append("discardedFixes", .number(Double(p.discardedFixes))) }
      switch p.speedLimit {
      case .limit(let value, let unit)?:
        o.append("speedLimit", num(value, 0.1))
        o.append("speedLimitUnit", .string(unit.rawValue))
      case .none?: o.append("speedLimit", .string("none"))
      case .unknown?, nil: break
      }
      if let ahead {
        o.append(
          "ahead",
          .array(
            ahead.map { r in
              var ro = JSONObject()
              ro.append("type", .string(r.kind.rawValue))
              ro.append("start", num(r.start, 0.1))
              if r.end != r.start { ro.append("length", num(r.end - r.start, 0.1)) }
              if let name = r.name { ro.append("name", .string(name)) }
              return .object(ro)
            }))
      }
    case .offRoute(let d, let reason):
      o.append("class", "OFFROUTE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("distance", num(d, 0.1))
      if reason != .distance { o.append("reason", .string(reason.rawValue)) }
    case .onRoute:
      o.append("class", "ONROUTE")
      o.append("time", .string(UTCTime.iso8601(event.time)))
    case .arrived(let d):
      o.append("class", "ARRIVED")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("distance", num(d, 0.1))
    case .gps(let s):
      o.append("class", "GPS")
      o.append("time", .string(UTCTime.iso8601(event.time)))
      o.append("status", .string(s.rawValue))
    }
    if event.estimated { o.append("estimated", .bool(true)) }
    return o
  }

}

extension ReferenceEventEncoder {
  /// The JSON object of a `SOURCE` event.
  public static func object(_ event: SourceEvent) -> JSONObject {
    var o = JSONObject()
    o.append("class", "SOURCE")
    o.append("time", .string(UTCTime.iso8601(event.time)))
    o.append("status", .string(event.status.rawValue))
    o.append("source", .string(event.source))
    if let r = event.reason { o.append("reason", .string(r)) }
    return o
  }

  /// The JSON object of a `REROUTE` event.
  public static func object(_ event: ReroutingEvent) -> JSONObject {
    var o = JSONObject()
    o.append("class", "REROUTE")
    o.append("time", .string(UTCTime.iso8601(event.time)))
    o.append("status", .string(event.status.rawValue))
    return o
  }

  /// The JSON text `JSONWriter` writes for the reference object.
  public static func line(_ event: NavigationEvent) -> String {
    JSONWriter.string(.object(object(event)))
  }
}
