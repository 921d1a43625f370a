import JSON
public import Routes

/// The route file formats Stepwise reads.
public enum RouteFileFormat: String, Sendable, CaseIterable {
  case native
  case valhalla
}

/// A route file that could not be loaded; the message names the file and the JSON path.
public struct RouteFileError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var underlying: RouteDocumentError?
  public var message: String

  public var description: String {
    if let u = underlying { return "\(path): \(u)" }
    return "\(path): \(message)"
  }
}

/// Loads route documents from files, detecting the format from the content.
public enum RouteFiles {
  /// Loads and validates the document at `path` (`-` for standard input).
  ///
  /// - Parameter format: forces a format; `nil` detects it from the content.
  public static func load(_ path: String, format: RouteFileFormat? = nil) throws(RouteFileError)
    -> RouteDocument
  {
    let bytes: [UInt8]
    do {
      bytes = try readWholeFile(path)
    } catch {
      throw RouteFileError(path: path, underlying: nil, message: "cannot read: \(error)")
    }
    return try decode(bytes, name: path, format: format)
  }

  /// Decodes a route document from bytes; `name` is used in messages.
  public static func decode(_ bytes: [UInt8], name: String, format: RouteFileFormat? = nil)
    throws(RouteFileError) -> RouteDocument
  {
    do throws(RouteDocumentError) {
      let value: JSONValue
      do {
        value = try JSONParser.parse(bytes)
      } catch {
        throw RouteDocumentError(.syntax, path: "", "not valid JSON: \(error)")
      }
      let detected: RouteFileFormat
      if let format { detected = format } else { detected = try detect(value) }
      switch detected {
      case .native: return try NativeRouteFormat.decode(value)
      case .valhalla: return try ValhallaImporter.decode(value)
      }
    } catch {
      throw RouteFileError(path: name, underlying: error, message: "")
    }
  }

  /// Recognises the format of a parsed route file.
  public static func detect(_ value: JSONValue) throws(RouteDocumentError) -> RouteFileFormat {
    guard case .object(let o) = value else {
      throw RouteDocumentError(
        .unsupportedFormat, path: "", "expected a JSON object, found \(value.typeName)")
    }
    if o["routes"] != nil && o["source"] != nil { return .native }
    if o["trip"] != nil { return .valhalla }
    if o["error_code"] != nil || (o["error"] != nil && o["status_code"] != nil) { return .valhalla }
    if o["routes"] != nil {
      // Looks like a native document missing its source.
      return .native
    }
    throw RouteDocumentError(
      .unsupportedFormat, path: "",
      "unrecognised route format (expected a Stepwise route document or a Valhalla response)")
  }
}
