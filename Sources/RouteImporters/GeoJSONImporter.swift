import Geodesy
public import Instructions
public import JSON
public import Routes

/// Converts a GeoJSON route line into a native route document.
///
/// Accepted: a `LineString` or `MultiLineString` geometry, a `Feature` with one, or a
/// `FeatureCollection` whose line features are read in order (other features, such as points,
/// are ignored). Each line is a leg; the route is the departure, then one arrival step per leg
/// (a waypoint step for every leg but the last). Positions are `[longitude, latitude]`
/// (elevation ignored); a latitude beyond ±90 that would fit as a longitude is reported as
/// swapped axes, and so is a line that only fits the file's `bbox` with the axes swapped.
/// `properties.name` names the route. GeoJSON has no times: the expected travel time assumes
/// 50 km/h.
public enum GeoJSONImporter {
  /// Converts a parsed GeoJSON object.
  ///
  /// - Parameters:
  ///   - value: the GeoJSON.
  ///   - writer: writes the arrival instructions.
  /// - Returns: a document that ``NativeRouteFormat`` accepts.
  /// - Throws: `unsupportedFormat` for GeoJSON without a line, `missingField` for a line with
  ///   fewer than 2 positions, `invalidCoordinate` for positions out of range or swapped.
  public static func decode(
    _ value: JSONValue, writer: InstructionWriter = InstructionWriter(language: .en)
  ) throws(RouteDocumentError) -> RouteDocument {
    typealias R = JSONPathReader
    let root = try R.object(value, "")
    var legs: [[Coordinate]] = []
    var name: String?
    let type = try R.string(R.require(root, "type", ""), "type")
    switch type {
    case "FeatureCollection":
      let fp = "features"
      for (i, f) in try R.array(R.require(root, "features", ""), fp).enumerated() {
        let p = "\(fp)[\(i)]"
        let o = try R.object(f, p)
        guard let g = o["geometry"], case .object(let go) = g else { continue }
        if name == nil { name = try featureName(o, p) }
        legs += try lines(go, R.join(p, "geometry"))
      }
    case "Feature":
      name = try featureName(root, "")
      legs = try lines(R.object(R.require(root, "geometry", ""), "geometry"), "geometry")
    default:
      legs = try lines(root, "")
    }
    legs = legs.filter { !$0.isEmpty }
    guard !legs.isEmpty else {
      throw RouteDocumentError(
        .unsupportedFormat, path: "", "the GeoJSON has no LineString or MultiLineString")
    }
    guard legs.flatMap({ $0 }).count >= 2 else {
      throw RouteDocumentError(
        .missingField, path: "coordinates", "a route line needs at least 2 positions")
    }
    if let bv = try R.optional(root, "bbox", "", R.array), bv.count >= 4 {
      var b: [Double] = []
      for (i, x) in bv.prefix(4).enumerated() { b.append(try R.number(x, "bbox[\(i)]")) }
      func inside(_ c: Coordinate) -> Bool {
        c.longitude >= b[0] - 1e-6 && c.latitude >= b[1] - 1e-6 && c.longitude <= b[2] + 1e-6
          && c.latitude <= b[3] + 1e-6
      }
      let all = legs.flatMap { $0 }
      if let outside = all.first(where: { !inside($0) }) {
        let swappedFits = all.allSatisfy {
          inside(Coordinate(latitude: $0.longitude, longitude: $0.latitude))
        }
        throw RouteDocumentError(
          .invalidCoordinate, path: "bbox",
          "the position \(outside) is outside the bbox \(b)"
            + (swappedFits ? "; the positions look like [latitude, longitude]" : ""))
      }
    }
    let steps = try RouteImportSupport.lineSteps(legs: legs, writer: writer, mode: .automobile)
    let distance = steps.reduce(0) { $0 + $1.distance }
    let route = Route(
      name: name ?? "GeoJSON route", distance: distance,
      expectedTravelTime: distance / RouteImportSupport.assumedSpeed(.automobile),
      transportType: .automobile, steps: steps)
    // The places from the positions themselves, not from the fixed-point polylines.
    guard steps.last?.polyline.last != nil, let start = legs.first?.first,
      let end = legs.last?.last
    else {
      throw RouteDocumentError(.missingField, path: "coordinates", "the line has no positions")
    }
    return RouteDocument(
      source: Place(name: RouteImportSupport.coordinateName(start), coordinate: start),
      destination: Place(name: RouteImportSupport.coordinateName(end), coordinate: end),
      routes: [route])
  }

  private static func featureName(_ o: JSONObject, _ path: String) throws(RouteDocumentError)
    -> String?
  {
    guard case .object(let props)? = o["properties"] else { return nil }
    guard case .string(let n)? = props["name"], !n.isEmpty else { return nil }
    return n
  }

  /// The lines of a geometry object: one for a LineString, several for a MultiLineString,
  /// none for other geometries.
  private static func lines(_ g: JSONObject, _ path: String) throws(RouteDocumentError)
    -> [[Coordinate]]
  {
    typealias R = JSONPathReader
    let type = try R.string(R.require(g, "type", path), R.join(path, "type"))
    let cp = R.join(path, "coordinates")
    switch type {
    case "LineString":
      return [try line(R.array(R.require(g, "coordinates", path), cp), cp)]
    case "MultiLineString":
      var out: [[Coordinate]] = []
      for (i, l) in try R.array(R.require(g, "coordinates", path), cp).enumerated() {
        out.append(try line(R.array(l, "\(cp)[\(i)]"), "\(cp)[\(i)]"))
      }
      return out
    case "Point", "MultiPoint", "Polygon", "MultiPolygon", "GeometryCollection":
      return []
    default:
      throw RouteDocumentError(
        .unsupportedFormat, path: R.join(path, "type"), "unknown GeoJSON type '\(type)'")
    }
  }

  private static func line(_ positions: [JSONValue], _ path: String) throws(RouteDocumentError)
    -> [Coordinate]
  {
    typealias R = JSONPathReader
    var out: [Coordinate] = []
    out.reserveCapacity(positions.count)
    for (i, p) in positions.enumerated() {
      let pp = "\(path)[\(i)]"
      let a = try R.array(p, pp)
      guard a.count >= 2 else {
        throw RouteDocumentError(.invalidCoordinate, path: pp, "expected [longitude, latitude]")
      }
      out.append(
        try RouteImportSupport.position(
          R.number(a[0], "\(pp)[0]"), R.number(a[1], "\(pp)[1]"), path: pp))
    }
    return out
  }
}
