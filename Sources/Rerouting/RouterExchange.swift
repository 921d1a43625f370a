import Geodesy
import JSON
public import Routes

/// One line of a recording of what guidance and its router said to each other
/// (`stepwised --record-router FILE`, a closed-loop scenario's `router.jsonl`): the router
/// guidance used, each request the core made, and each answer with the moment the core took
/// it, so a replay can answer the core from the recording alone.
///
/// Times are fix-clock seconds since 1970, written in full (a replay must hand the answer over
/// at exactly the time the daemon did).
public enum RouterExchange: Sendable, Equatable {
  /// The router guidance asked (the first line).
  case router(GuidanceCore.Router)
  /// The core asked for `request` on the fix of `time`.
  case request(RouteRequest, time: Double)
  /// The answer to request `id`, taken by the core right after the fix of time `after` (`nil`:
  /// before any fix), at `time` on the fix clock.
  case answer(
    id: String, result: Result<RouteDocument, RouterFailure>, after: Double?, time: Double)

  /// The line (one JSON object, no newline).
  public var line: String {
    var o = JSONObject()
    switch self {
    case .router(let r):
      o.append("class", "ROUTER")
      o.append("language", .string(r.language))
      o.append("imperial", .bool(r.imperial))
      o.append("timeout", .number(r.timeout))
    case .request(let q, let time):
      o.append("class", "REQUEST")
      o.append("id", .string(q.id))
      o.append("time", .number(time))
      o.append("origin", Self.point(q.origin.coordinate))
      o.append("course", q.origin.course.map(JSONValue.number) ?? .null)
      o.append("speed", .number(q.origin.speed))
      o.append("accuracy", q.origin.accuracy.map(JSONValue.number) ?? .null)
      o.append(
        "waypoints",
        .array(
          q.waypoints.map {
            .array([
              .number($0.coordinate.latitude), .number($0.coordinate.longitude),
              .string($0.kind.rawValue),
            ])
          }))
      o.append("transportType", .string(q.transportType.rawValue))
      o.append("language", .string(q.language))
      o.append("imperial", .bool(q.imperial))
    case .answer(let id, let result, let after, let time):
      o.append("class", "ANSWER")
      o.append("id", .string(id))
      o.append("after", after.map(JSONValue.number) ?? .null)
      o.append("time", .number(time))
      switch result {
      case .success(let document): o.append("route", NativeRouteFormat.encode(document))
      case .failure(let failure): o.append("failure", Self.value(failure))
      }
    }
    return JSONWriter.string(.object(o))
  }

  /// Reads a line written by ``line``.
  public init(line: some Collection<UInt8>) throws(RouterExchangeError) {
    guard let value = try? JSONParser.parse(Array(line)), let o = value.objectValue else {
      throw RouterExchangeError("not a JSON object")
    }
    func number(_ key: String) throws(RouterExchangeError) -> Double {
      guard let v = o[key]?.doubleValue else { throw RouterExchangeError("no number \(key)") }
      return v
    }
    func string(_ key: String) throws(RouterExchangeError) -> String {
      guard let v = o[key]?.stringValue else { throw RouterExchangeError("no string \(key)") }
      return v
    }
    switch o["class"]?.stringValue {
    case "ROUTER":
      self = .router(
        GuidanceCore.Router(
          language: try string("language"), imperial: o["imperial"]?.boolValue ?? false,
          timeout: try number("timeout")))
    case "REQUEST":
      guard let origin = Self.coordinate(o["origin"]) else {
        throw RouterExchangeError("no origin")
      }
      var waypoints: [RouteRequest.Waypoint] = []
      for w in o["waypoints"]?.arrayValue ?? [] {
        guard let a = w.arrayValue, a.count == 3, let c = Self.coordinate(.array(Array(a[0..<2]))),
          let kind = a[2].stringValue.flatMap(RouteRequest.Waypoint.Kind.init)
        else { throw RouterExchangeError("waypoints are [latitude, longitude, kind]") }
        waypoints.append(RouteRequest.Waypoint(coordinate: c, kind: kind))
      }
      guard let transport = TransportType(rawValue: try string("transportType")) else {
        throw RouterExchangeError("unknown transportType")
      }
      let request = RouteRequest(
        origin: RouteRequest.Origin(
          coordinate: origin, course: o["course"]?.doubleValue, speed: try number("speed"),
          accuracy: o["accuracy"]?.doubleValue),
        waypoints: waypoints, transportType: transport, language: try string("language"),
        imperial: o["imperial"]?.boolValue ?? false, id: try string("id"))
      self = .request(request, time: try number("time"))
    case "ANSWER":
      let result: Result<RouteDocument, RouterFailure>
      if let route = o["route"] {
        do {
          result = .success(try NativeRouteFormat.decode(route))
        } catch {
          throw RouterExchangeError("route: \(error)")
        }
      } else if let failure = o["failure"]?.objectValue, let f = Self.failure(failure) {
        result = .failure(f)
      } else {
        throw RouterExchangeError("an answer has a route or a failure")
      }
      self = .answer(
        id: try string("id"), result: result, after: o["after"]?.doubleValue,
        time: try number("time"))
    default:
      throw RouterExchangeError("unknown class (ROUTER, REQUEST or ANSWER)")
    }
  }

  /// Reads a whole recording, one ``line`` per line; errors name the line.
  public static func lines(_ bytes: [UInt8]) throws(RouterExchangeError) -> [RouterExchange] {
    var out: [RouterExchange] = []
    for (n, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
    where !line.isEmpty {
      do {
        out.append(try RouterExchange(line: line))
      } catch {
        throw RouterExchangeError("line \(n + 1): \(error.description)")
      }
    }
    return out
  }

  private static func point(_ c: Coordinate) -> JSONValue {
    .array([.number(c.latitude), .number(c.longitude)])
  }

  private static func coordinate(_ v: JSONValue?) -> Coordinate? {
    guard let a = v?.arrayValue, a.count == 2, let lat = a[0].doubleValue,
      let lon = a[1].doubleValue
    else { return nil }
    return Coordinate(latitude: lat, longitude: lon)
  }

  private static func value(_ f: RouterFailure) -> JSONValue {
    var o = JSONObject([("code", .string(f.code))])
    switch f {
    case .unreachable(let m), .offNetwork(let m), .noRoute(let m), .malformed(let m),
      .transport(let m):
      o.append("message", .string(m))
    case .rejected(let status, let m):
      o.append("status", .number(Double(status)))
      o.append("message", .string(m))
    case .refused, .timeout, .draining, .stale: break
    }
    return .object(o)
  }

  private static func failure(_ o: JSONObject) -> RouterFailure? {
    let m = o["message"]?.stringValue ?? ""
    switch o["code"]?.stringValue {
    case "refused": return .refused
    case "unreachable": return .unreachable(m)
    case "timeout": return .timeout
    case "draining": return .draining
    case "offNetwork": return .offNetwork(m)
    case "noRoute": return .noRoute(m)
    case "rejected": return .rejected(status: Int(o["status"]?.doubleValue ?? 0), message: m)
    case "malformed": return .malformed(m)
    case "stale": return .stale
    case "transport": return .transport(m)
    default: return nil
    }
  }
}

/// A line of a router recording that cannot be read.
public struct RouterExchangeError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
