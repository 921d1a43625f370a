import Geodesy
import JSON

/// A step as the pull decoder reads it: its members but the polyline, and the polyline.
struct DecodedStep {
  var members: JSONObject
  var polyline: RoutePolyline
}

extension NativeRouteFormat {
  /// Parses and validates a native route document with its polylines read straight into fixed
  /// point, never into a tree; `nil` when the document is not one this path reads, or has a
  /// problem, for ``decode(_:)-(some Collection<UInt8>)`` to read it and say what is wrong.
  ///
  /// It reads the documents the native writer writes: `source` before `routes`, each route's
  /// `steps` and each step's `polyline` once, every point an object of exactly `latitude` and
  /// `longitude` in range. Everything else (the places, a route's and a step's other members)
  /// becomes the same small tree as before, and goes through the same checks, so what it
  /// returns is what the tree would give.
  package static func decodeStreaming(
    _ bytes: UnsafeBufferPointer<UInt8>, progress: ((Int) -> Void)? = nil
  ) -> RouteDocument? {
    var p = JSONPullParser(bytes)
    p.progress = progress
    var root = JSONObject()
    var routes: [(members: JSONObject, steps: [DecodedStep])]?
    do throws(JSONSyntaxError) {
      try p.object { (p: inout JSONPullParser, key: String) throws(JSONSyntaxError) in
        // The writer writes `source` first: another document (a router's response) is left
        // to the tree at its first name, before its value is read.
        guard key == "source" || !root.members.isEmpty else { throw p.error(notStreamed) }
        guard key == "routes" else {
          root.append(key, try p.value())
          return
        }
        guard routes == nil, root["source"] != nil else { throw p.error(notStreamed) }
        var list: [(members: JSONObject, steps: [DecodedStep])] = []
        try p.array { (p: inout JSONPullParser) throws(JSONSyntaxError) in
          list.append(try route(&p))
        }
        routes = list
      }
      try p.end()
    } catch {
      return nil
    }
    guard let routes, !routes.isEmpty else { return nil }
    var r = Reader()
    do throws(RouteDocumentError) {
      let source = try r.place(R.require(root, "source", ""), "source")
      let destination = try r.place(R.require(root, "destination", ""), "destination")
      var result: [Route] = []
      result.reserveCapacity(routes.count)
      for (i, route) in routes.enumerated() {
        result.append(try r.route(route.members, "routes[\(i)]", decoded: route.steps))
      }
      return RouteDocument(source: source, destination: destination, routes: result)
    } catch {
      return nil
    }
  }

  /// ±90 and ±180 degrees in the fixed point of ``RoutePolyline`` (10⁻⁷ degree, the seven
  /// decimals of ``JSONPullParser/fixedPointPair(_:_:decimals:)``).
  private static let maximumLatitudeUnits: Int64 = 900_000_000
  private static let maximumLongitudeUnits: Int64 = 1_800_000_000

  /// The message of the error that abandons the pull decoder (never shown: the tree path runs).
  private static let notStreamed = "not a document for the pull decoder"

  private static func route(_ p: inout JSONPullParser) throws(JSONSyntaxError)
    -> (members: JSONObject, steps: [DecodedStep])
  {
    var members = JSONObject()
    var steps: [DecodedStep]?
    try p.object { (p: inout JSONPullParser, key: String) throws(JSONSyntaxError) in
      guard key == "steps" else {
        members.append(key, try p.value())
        return
      }
      guard steps == nil else { throw p.error(notStreamed) }
      var list: [DecodedStep] = []
      try p.array { (p: inout JSONPullParser) throws(JSONSyntaxError) in
        list.append(try step(&p))
      }
      steps = list
    }
    guard let steps else { throw p.error(notStreamed) }
    return (members, steps)
  }

  private static func step(_ p: inout JSONPullParser) throws(JSONSyntaxError) -> DecodedStep {
    var members = JSONObject()
    var polyline: RoutePolyline?
    try p.object { (p: inout JSONPullParser, key: String) throws(JSONSyntaxError) in
      guard key == "polyline" else {
        members.append(key, try p.value())
        return
      }
      guard polyline == nil else { throw p.error(notStreamed) }
      var line = RoutePolyline()
      try p.array { (p: inout JSONPullParser) throws(JSONSyntaxError) in
        // A point as the writer writes it, straight into fixed point.
        if let (lat, lon) = p.fixedPointPair("latitude", "longitude", decimals: 7) {
          guard abs(lat) <= maximumLatitudeUnits, abs(lon) <= maximumLongitudeUnits else {
            throw p.error(notStreamed)
          }
          line.append(latitudeUnits: Int32(lat), longitudeUnits: Int32(lon))
          return
        }
        var latitude = Double.nan
        var longitude = Double.nan
        var count = 0
        try p.object { (p: inout JSONPullParser, key: String) throws(JSONSyntaxError) in
          count += 1
          switch key {
          case "latitude": latitude = try p.number()
          case "longitude": longitude = try p.number()
          default: throw p.error(notStreamed)
          }
        }
        // NaN (a member missing) fails these too.
        guard count == 2, abs(latitude) <= 90, abs(longitude) <= 180 else {
          throw p.error(notStreamed)
        }
        line.append(Coordinate(latitude: latitude, longitude: longitude))
      }
      polyline = line.trimmed
    }
    guard let polyline else { throw p.error(notStreamed) }
    return DecodedStep(members: members, polyline: polyline)
  }
}

/// The native document's structure, read with ``JSONPathReader``.
private typealias R = JSONPathReader
