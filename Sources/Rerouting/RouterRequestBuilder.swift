import Geodesy
import JSON
public import Routes

/// One HTTP request to a router, relative to its base URL.
public struct RouterHTTPRequest: Sendable, Equatable {
  /// The path and query, starting with "/" ("/route", "/route/v1/driving/…?…").
  public var path: String
  /// The POST body, or `nil` for a GET.
  public var body: [UInt8]?
  public var contentType: String?

  public init(path: String, body: [UInt8]?, contentType: String? = nil) {
    self.path = path
    self.body = body
    self.contentType = contentType
  }
}

/// Writes a ``RouteRequest`` the way each router takes it.
///
/// Every router gets the origin's heading (with a tolerance where it takes one) and snapping
/// radius, the waypoints not yet reached with their stop or through kind, the costing of the
/// route's transport type, and the text's language; Valhalla also gets the units and an `id`.
/// Every router is asked for the road data its importer keeps (lanes, signs, speed limits, road
/// objects), so a new route carries what the first one did.
public enum RouterRequestBuilder {
  /// The request for `api`.
  public static func request(_ r: RouteRequest, api: RouterAPI) -> RouterHTTPRequest {
    switch api {
    case .valhalla: valhalla(r)
    case .osrm: osrm(r)
    case .graphhopper: graphHopper(r)
    }
  }

  // MARK: - Valhalla

  /// Valhalla's costing model for a transport type.
  public static func valhallaCosting(_ t: TransportType) -> String {
    switch t {
    case .automobile: "auto"
    case .cycling: "bicycle"
    case .walking: "pedestrian"
    case .transit: "bus"
    }
  }

  /// `POST /route`: the origin with `heading`, `heading_tolerance` and `radius`, then the
  /// remaining waypoints as `break` (stop) or `through`; the destination is always a `break`.
  ///
  /// The answer is asked in `format=osrm`, with the speed-limit filter and voice instructions:
  /// Valhalla 3.9.1 gives the lanes (`intersections[].lanes`), the signs (`exits`,
  /// `destinations`), the road classes (tunnel, toll, toll booth) and, with the filter, the
  /// posted limits (`annotation.maxspeed`) only there; its native format has the signs but no
  /// lanes or limits. The voice instructions make it state the text's language (`voiceLocale`).
  /// Valhalla does not echo the `id` in this format (it is sent all the same, for its logs):
  /// replies are matched to requests by the exchange that carries them
  /// (`RerouteController.received`), and a native answer that echoes another id is still stale.
  public static func valhalla(_ r: RouteRequest) -> RouterHTTPRequest {
    var origin = JSONObject()
    origin.append("lat", .number(rounded(r.origin.coordinate.latitude)))
    origin.append("lon", .number(rounded(r.origin.coordinate.longitude)))
    if let h = r.heading {
      origin.append("heading", .number(h.rounded()))
      origin.append("heading_tolerance", .number(r.headingTolerance))
    }
    if let radius = r.radius { origin.append("radius", .number(radius)) }
    var locations: [JSONValue] = [.object(origin)]
    for (i, w) in r.waypoints.enumerated() {
      var o = JSONObject()
      o.append("lat", .number(rounded(w.coordinate.latitude)))
      o.append("lon", .number(rounded(w.coordinate.longitude)))
      let last = i == r.waypoints.count - 1
      o.append("type", .string(last || w.kind == .stop ? "break" : "through"))
      locations.append(.object(o))
    }
    var body = JSONObject()
    body.append("locations", .array(locations))
    body.append("costing", .string(valhallaCosting(r.transportType)))
    body.append("units", .string(r.imperial ? "miles" : "kilometers"))
    body.append("language", .string(r.language))
    body.append("id", .string(r.id))
    body.append("format", .string("osrm"))
    body.append("voice_instructions", .bool(true))
    var filters = JSONObject()
    filters.append("attributes", .array([.string("shape_attributes.speed_limit")]))
    filters.append("action", .string("include"))
    body.append("filters", .object(filters))
    return RouterHTTPRequest(
      path: "/route", body: Array(JSONWriter.string(.object(body)).utf8),
      contentType: "application/json")
  }

  // MARK: - OSRM

  /// OSRM's profile for a transport type.
  public static func osrmProfile(_ t: TransportType) -> String {
    switch t {
    case .automobile, .transit: "driving"
    case .cycling: "cycling"
    case .walking: "walking"
    }
  }

  /// `GET /route/v1/{profile}/{lon,lat;…}` with steps in polyline6, the speed limits
  /// (`annotations=maxspeed`), `bearings` and `radiuses` for the origin only, and `waypoints`
  /// naming the stops when some points are passed through.
  public static func osrm(_ r: RouteRequest) -> RouterHTTPRequest {
    let points = [r.origin.coordinate] + r.waypoints.map(\.coordinate)
    let coordinates = points.map { "\(number($0.longitude)),\(number($0.latitude))" }
      .joined(separator: ";")
    let rest = String(repeating: ";", count: r.waypoints.count)
    // annotations=maxspeed: the posted limits of the route (RouteRoad.speedLimits).
    var query = ["steps=true", "overview=false", "geometries=polyline6", "annotations=maxspeed"]
    if let h = r.heading {
      query.append("bearings=\(Int(h.rounded()) % 360),\(Int(r.headingTolerance))\(rest)")
    }
    if let radius = r.radius {
      query.append(
        "radiuses=\(number(radius))"
          + String(repeating: ";unlimited", count: r.waypoints.count))
    }
    if r.waypoints.dropLast().contains(where: { $0.kind == .through }) {
      var stops = [0]
      for (i, w) in r.waypoints.enumerated()
      where w.kind == .stop || i == r.waypoints.count - 1 {
        stops.append(i + 1)
      }
      query.append("waypoints=" + stops.map(String.init).joined(separator: ";"))
    }
    return RouterHTTPRequest(
      path: "/route/v1/\(osrmProfile(r.transportType))/\(coordinates)?"
        + query.joined(separator: "&"),
      body: nil)
  }

  // MARK: - GraphHopper

  /// GraphHopper's profile for a transport type.
  public static func graphHopperProfile(_ t: TransportType) -> String {
    switch t {
    case .automobile, .transit: "car"
    case .cycling: "bike"
    case .walking: "foot"
    }
  }

  /// `POST /route` with `points` ([lon, lat]), the start's heading (which needs the flexible
  /// mode, `ch.disable`), `pass_through` when a waypoint is passed through, and the details the
  /// importer reads for notices and the road (`max_speed`).
  public static func graphHopper(_ r: RouteRequest) -> RouterHTTPRequest {
    let points = [r.origin.coordinate] + r.waypoints.map(\.coordinate)
    var body = JSONObject()
    body.append(
      "points",
      .array(
        points.map {
          .array([.number(rounded($0.longitude)), .number(rounded($0.latitude))])
        }))
    body.append("profile", .string(graphHopperProfile(r.transportType)))
    body.append("locale", .string(r.language))
    body.append("instructions", .bool(true))
    body.append("calc_points", .bool(true))
    body.append(
      "details",
      .array([
        .string("road_class"), .string("toll"), .string("road_environment"), .string("max_speed"),
      ]))
    if let h = r.heading {
      body.append("headings", .array([.number(h.rounded())]))
      body.append("ch.disable", .bool(true))
    }
    if r.waypoints.dropLast().contains(where: { $0.kind == .through }) {
      body.append("pass_through", .bool(true))
    }
    return RouterHTTPRequest(
      path: "/route", body: Array(JSONWriter.string(.object(body)).utf8),
      contentType: "application/json")
  }

  // MARK: - Numbers

  /// Degrees to six decimals (about 0.1 m), as the routers' own polyline6 precision.
  private static func rounded(_ degrees: Double) -> Double {
    (degrees * 1e6).rounded() / 1e6
  }

  private static func number(_ d: Double) -> String { JSONWriter.number(rounded(d)) }
}
