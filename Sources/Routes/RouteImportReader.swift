import JSON

/// Typed access to a router's JSON for importers, with errors that carry the JSON path.
///
/// Paths look like `trip.legs[0].maneuvers[3].begin_shape_index`, as in the native loader.
package struct JSONPathReader {
  /// `path.key`, or `key` at the root.
  package static func join(_ path: String, _ key: String) -> String {
    path.isEmpty ? key : "\(path).\(key)"
  }

  package static func wrongType(_ v: JSONValue, _ expected: String, _ path: String)
    -> RouteDocumentError
  {
    RouteDocumentError(.wrongType, path: path, "expected \(expected), found \(v.typeName)")
  }

  package static func object(_ v: JSONValue, _ path: String) throws(RouteDocumentError)
    -> JSONObject
  {
    guard case .object(let o) = v else { throw wrongType(v, "an object", path) }
    return o
  }

  package static func array(_ v: JSONValue, _ path: String) throws(RouteDocumentError)
    -> [JSONValue]
  {
    guard case .array(let a) = v else { throw wrongType(v, "an array", path) }
    return a
  }

  package static func string(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> String {
    guard case .string(let s) = v else { throw wrongType(v, "a string", path) }
    return s
  }

  package static func bool(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Bool {
    guard case .bool(let b) = v else { throw wrongType(v, "true or false", path) }
    return b
  }

  package static func number(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Double {
    guard case .number(let d) = v else { throw wrongType(v, "a number", path) }
    guard d.isFinite else {
      throw RouteDocumentError(.invalidValue, path: path, "not a finite number")
    }
    return d
  }

  /// A number that must be ≥ 0 (a length or a time).
  package static func nonNegative(_ v: JSONValue, _ path: String) throws(RouteDocumentError)
    -> Double
  {
    let d = try number(v, path)
    guard d >= 0 else {
      throw RouteDocumentError(
        .negativeDistance, path: path, "negative value \(d) (must be ≥ 0)")
    }
    return d
  }

  /// A whole number (an index or a code).
  package static func integer(_ v: JSONValue, _ path: String) throws(RouteDocumentError) -> Int {
    let d = try number(v, path)
    guard d == d.rounded(), abs(d) < 9e15 else {
      throw RouteDocumentError(.invalidValue, path: path, "expected a whole number, found \(d)")
    }
    return Int(d)
  }

  /// The member `key` of `o`, or a `missingField` error.
  package static func require(_ o: JSONObject, _ key: String, _ path: String)
    throws(RouteDocumentError)
    -> JSONValue
  {
    guard let v = o[key], v != .null else {
      throw RouteDocumentError(
        .missingField, path: join(path, key), "missing required field '\(key)'")
    }
    return v
  }

  /// The member `key` of `o` read with `read`, or `nil` when absent or `null`.
  package static func optional<T>(
    _ o: JSONObject, _ key: String, _ path: String,
    _ read: (JSONValue, String) throws(RouteDocumentError) -> T
  ) throws(RouteDocumentError) -> T? {
    guard let v = o[key], v != .null else { return nil }
    return try read(v, join(path, key))
  }
}
