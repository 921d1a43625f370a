public import Instructions
import JSON
import RouteImporters
public import Routes

/// Why a router gave no usable route, told apart because each asks for something else: a
/// router that is down is asked again later, one that is draining soon, and a position off the
/// road network is not asked about again until the vehicle is back near a road.
public enum RouterFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// Nothing listens at the router's address (connection refused).
  case refused
  /// The router's host cannot be reached or resolved.
  case unreachable(String)
  /// No complete answer within the timeout.
  case timeout
  /// HTTP 503: the router is starting or draining.
  case draining
  /// No road near the position (Valhalla error 171, OSRM `NoSegment`, GraphHopper "Cannot
  /// find point").
  case offNetwork(String)
  /// The router found no path between the points (Valhalla 442, OSRM `NoRoute`).
  case noRoute(String)
  /// Another HTTP error status.
  case rejected(status: Int, message: String)
  /// An answer that is not a route the importers accept.
  case malformed(String)
  /// An answer to an older request (its `id` is not the one asked for).
  case stale
  /// Any other transport failure (TLS, a broken connection).
  case transport(String)

  /// A stable name, as published on the wire ("refused", "offNetwork", …).
  public var code: String {
    switch self {
    case .refused: "refused"
    case .unreachable: "unreachable"
    case .timeout: "timeout"
    case .draining: "draining"
    case .offNetwork: "offNetwork"
    case .noRoute: "noRoute"
    case .rejected: "rejected"
    case .malformed: "malformed"
    case .stale: "stale"
    case .transport: "transport"
    }
  }

  public var description: String {
    switch self {
    case .refused: "connection refused"
    case .unreachable(let m): "unreachable: \(m)"
    case .timeout: "no answer within the timeout"
    case .draining: "HTTP 503: the router is starting or draining"
    case .offNetwork(let m): "off the road network: \(m)"
    case .noRoute(let m): "no route: \(m)"
    case .rejected(let status, let m): "HTTP \(status): \(m)"
    case .malformed(let m): "not a usable route: \(m)"
    case .stale: "a reply to an older request"
    case .transport(let m): m
    }
  }
}

/// Reads a router's HTTP answer: a route document, or the failure it stands for.
public enum RouterReply {
  /// Valhalla's `error_code` for "No suitable edges near location".
  public static let valhallaOffNetworkCode = 171
  /// Valhalla's `error_code` for "No path could be found for input".
  public static let valhallaNoRouteCode = 442

  /// Classifies an HTTP answer to the request with id `id`.
  ///
  /// - Parameters:
  ///   - api: the router's API, which says how to read the body.
  ///   - status: the HTTP status.
  ///   - body: the reply's bytes.
  ///   - id: the request's id, named in failures.
  ///   - writer: writes instructions in the wanted language where the router's text is in
  ///     another one (or absent, as in OSRM).
  /// - Returns: the route document, validated as a native document, or the failure.
  public static func classify(
    api: RouterAPI, status: Int, body: [UInt8], id: String, writer: InstructionWriter
  ) -> Result<RouteDocument, RouterFailure> {
    let value = try? JSONParser.parse(body)
    if status == 503 { return .failure(.draining) }
    guard (200..<300).contains(status) else {
      return .failure(errorFailure(api: api, status: status, value: value, body: body))
    }
    guard let value else { return .failure(.malformed("not valid JSON")) }
    if api == .valhalla, case .string(let echoed)? = value["id"], echoed != id {
      return .failure(.stale)
    }
    do throws(RouteDocumentError) {
      let document: RouteDocument
      switch api {
      // Asked in format=osrm (RouterRequestBuilder.valhalla); a native answer is read too.
      case .valhalla where value["routes"] != nil:
        document = try OSRMImporter.decode(value, writer: writer, precision: 6)
      case .valhalla: document = try ValhallaImporter.decode(value, writer: writer)
      case .osrm: document = try OSRMImporter.decode(value, writer: writer, precision: 6)
      case .graphhopper: document = try GraphHopperImporter.decode(value, writer: writer)
      }
      return .success(try NativeRouteFormat.decode(NativeRouteFormat.encode(document)))
    } catch {
      if error.code == .routerError {
        return .failure(errorFailure(api: api, status: status, value: value, body: body))
      }
      return .failure(.malformed(error.description))
    }
  }

  /// The failure an error answer stands for, from its status and the router's error body.
  private static func errorFailure(
    api: RouterAPI, status: Int, value: JSONValue?, body: [UInt8]
  ) -> RouterFailure {
    let text = message(api: api, value: value) ?? excerpt(body)
    switch api {
    case .valhalla:
      if case .number(let code)? = value?["error_code"] {
        if Int(code) == valhallaOffNetworkCode { return .offNetwork(text) }
        if Int(code) == valhallaNoRouteCode { return .noRoute(text) }
      }
      // In format=osrm Valhalla answers errors in OSRM's words.
      if let failure = osrmFailure(value, text) { return failure }
    case .osrm:
      if let failure = osrmFailure(value, text) { return failure }
    case .graphhopper:
      if text.hasPrefix("Cannot find point") { return .offNetwork(text) }
      if text.hasPrefix("Connection between locations not found") { return .noRoute(text) }
    }
    return .rejected(status: status, message: text)
  }

  /// OSRM's `NoSegment` and `NoRoute` codes, which Valhalla's `format=osrm` answers use too.
  private static func osrmFailure(_ value: JSONValue?, _ text: String) -> RouterFailure? {
    guard case .string(let code)? = value?["code"] else { return nil }
    if code == "NoSegment" { return .offNetwork(text) }
    if code == "NoRoute" { return .noRoute(text) }
    return nil
  }

  private static func message(api: RouterAPI, value: JSONValue?) -> String? {
    guard let value else { return nil }
    var parts: [String] = []
    switch api {
    case .valhalla where value["error_code"] != nil:
      if case .number(let c)? = value["error_code"] { parts.append("error \(Int(c))") }
      if let e = value["error"]?.stringValue { parts.append(e) }
    case .valhalla, .osrm:
      if let c = value["code"]?.stringValue { parts.append(c) }
      if let m = value["message"]?.stringValue { parts.append(m) }
    case .graphhopper:
      if let m = value["message"]?.stringValue { parts.append(m) }
    }
    return parts.isEmpty ? nil : parts.joined(separator: ": ")
  }

  /// The start of a body that is not the router's JSON, for a message.
  private static func excerpt(_ body: [UInt8]) -> String {
    let head = String(decoding: body.prefix(80), as: UTF8.self)
    let line = head.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    return line.isEmpty ? "an empty reply" : line
  }
}
