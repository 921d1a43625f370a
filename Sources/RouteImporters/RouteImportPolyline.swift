public import Geodesy
import Instructions
public import Routes

/// Google's Encoded Polyline Algorithm Format.
///
/// Valhalla's native `shape` is always precision 6 (1e-6 degrees); OSRM and GraphHopper default to
/// precision 5. The string does not say its precision, so the caller must know it from the
/// producer and should check the result against a known point (`ValhallaImporter` does).
/// Points are latitude first, then longitude.
public enum Polyline {
  /// The precisions accepted, in decimal digits after the point.
  public static let supportedPrecisions = 1...9

  /// Decodes an encoded polyline.
  ///
  /// The error's `path` is empty (the caller knows where the string came from); its message
  /// gives the 0-based character offset of the problem.
  ///
  /// - Parameters:
  ///   - encoded: the polyline string, after JSON unescaping.
  ///   - precision: decimal digits; 5 for OSRM/Google (1e-5 degrees), 6 for Valhalla.
  /// - Returns: the points, in degrees.
  /// - Throws: `invalidPolyline` for a string that ends inside a value or decodes out of range.
  public static func decode(_ encoded: String, precision: Int) throws(RouteDocumentError)
    -> [Coordinate]
  {
    var points: [Coordinate] = []
    try decode(encoded, precision: precision) { c, _, _ in points.append(c) }
    return points
  }

  /// Decodes an encoded polyline straight into fixed point, without a `Coordinate` array: the
  /// same points (what `RoutePolyline(decode(encoded, precision:))` holds) and the same errors
  /// as ``decode(_:precision:)``.
  ///
  /// - Parameters:
  ///   - encoded: the polyline string, after JSON unescaping.
  ///   - precision: decimal digits; 6 for Valhalla.
  /// - Returns: the points.
  /// - Throws: `invalidPolyline`, as ``decode(_:precision:)``.
  public static func decodeFixedPoint(_ encoded: String, precision: Int)
    throws(RouteDocumentError) -> RoutePolyline
  {
    var points = RoutePolyline()
    // Up to seven decimals the units are the decoded integers scaled exactly (10⁻⁷ degree; the
    // nearest `Double` of the decimal value, converted, gives the same integer).
    let digits = RoutePolyline.decimals
    var factor = 1
    for _ in 0..<max(0, digits - precision) { factor *= 10 }
    // Points take at least two bytes each.
    points.reserveCapacity(encoded.utf8.count / 2)
    try decode(encoded, precision: precision) { c, lat, lon in
      if precision <= digits {
        points.append(latitudeUnits: Int32(lat * factor), longitudeUnits: Int32(lon * factor))
      } else {
        points.append(c)
      }
    }
    return points.trimmed
  }

  /// Decodes an encoded polyline, calling `point` with each point in degrees and as the
  /// decoded integers (units of 10^−`precision` degree).
  @inline(__always)
  private static func decode(
    _ encoded: String, precision: Int, _ point: (Coordinate, Int, Int) -> Void
  ) throws(RouteDocumentError) {
    guard supportedPrecisions.contains(precision) else {
      throw RouteDocumentError(
        .invalidPolyline, path: "", "unsupported polyline precision \(precision) (use 5 or 6)")
    }
    let scale = powerOfTen(precision)
    var count = 0
    var lat = 0
    var lon = 0
    var value = 0
    var shift = 0
    var haveLatitude = false
    var offset = 0
    for byte in encoded.utf8 {
      guard byte >= 63 && byte <= 126 else {
        throw RouteDocumentError(
          .invalidPolyline, path: "",
          "invalid character at offset \(offset) (byte \(byte); expected '?'…'~')")
      }
      guard shift <= 55 else {
        throw RouteDocumentError(
          .invalidPolyline, path: "", "value too long at offset \(offset)")
      }
      let chunk = Int(byte) - 63
      value |= (chunk & 0x1F) << shift
      shift += 5
      offset += 1
      if chunk >= 0x20 { continue }
      let delta = (value & 1) != 0 ? ~(value >> 1) : (value >> 1)
      value = 0
      shift = 0
      if !haveLatitude {
        lat = lat &+ delta
        haveLatitude = true
        continue
      }
      lon = lon &+ delta
      haveLatitude = false
      let c = Coordinate(latitude: Double(lat) / scale, longitude: Double(lon) / scale)
      guard c.isValid else {
        throw RouteDocumentError(
          .invalidPolyline, path: "",
          "point \(count) (ending at offset \(offset - 1)) decodes to \(c), outside "
            + "−90…90 / −180…180 (wrong precision?)")
      }
      point(c, lat, lon)
      count += 1
    }
    guard shift == 0 else {
      throw RouteDocumentError(
        .invalidPolyline, path: "", "the string ends in the middle of a value (truncated?)")
    }
    guard !haveLatitude else {
      throw RouteDocumentError(
        .invalidPolyline, path: "", "the string ends with a latitude but no longitude")
    }
  }

  /// Encodes points as a polyline string.
  ///
  /// - Parameters:
  ///   - points: coordinates in degrees.
  ///   - precision: decimal digits, 5 or 6 (any of ``supportedPrecisions`` works).
  /// - Returns: the encoded polyline.
  public static func encode(_ points: [Coordinate], precision: Int) -> String {
    let scale = powerOfTen(max(supportedPrecisions.lowerBound, min(precision, 9)))
    var out: [UInt8] = []
    var previousLat = 0
    var previousLon = 0
    func emit(_ delta: Int) {
      var v = delta < 0 ? ~(delta << 1) : (delta << 1)
      while v >= 0x20 {
        out.append(UInt8((0x20 | (v & 0x1F)) + 63))
        v >>= 5
      }
      out.append(UInt8(v + 63))
    }
    for p in points {
      let lat = Int((p.latitude * scale).rounded())
      let lon = Int((p.longitude * scale).rounded())
      emit(lat - previousLat)
      emit(lon - previousLon)
      previousLat = lat
      previousLon = lon
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func powerOfTen(_ n: Int) -> Double {
    var s = 1.0
    for _ in 0..<n { s *= 10 }
    return s
  }
}
