public import Instructions
public import JSON
public import Routes

/// The route file formats Stepwise reads.
///
/// The raw values are what `--route-format` takes.
public enum RouteFileFormat: String, Sendable, CaseIterable {
  /// The native route document (`docs/route-format.md`).
  case native
  /// A Valhalla native `/route` response (`trip.legs[].maneuvers`).
  case valhalla
  /// An OSRM v5 `/route` response, including Mapbox Directions and Valhalla `format=osrm`.
  case osrm
  /// A GraphHopper `/route` response (`paths[]`).
  case graphhopper
  /// A GPX 1.0 or 1.1 file (`rte`/`rtept`, `trk`/`trkseg`).
  case gpx
  /// A GeoJSON `LineString`, `MultiLineString`, `Feature` or `FeatureCollection`.
  case geojson
}

/// Route documents from the bytes of any supported format: format detection and the importer
/// of each format, every result validated as a native document.
public enum RouteImport {
  /// Decodes a route document from bytes.
  ///
  /// - Parameters:
  ///   - bytes: the document.
  ///   - format: forces a format; `nil` detects it from the content.
  ///   - language: the wanted language of instructions and notices: router text in another
  ///     language is replaced by instructions written from the maneuvers. `nil` is the route's
  ///     own language (``RouteLanguage``): the router's text is kept, and what it lacks is
  ///     written in that language, or in English when it is neither English nor Korean.
  ///   - writer: the instruction writer for a language.
  /// - Returns: a document that ``NativeRouteFormat`` accepts.
  /// - Throws: ``RouteDocumentError`` with the JSON path (or line) of the first problem.
  public static func decode(
    _ bytes: [UInt8], format: RouteFileFormat? = nil, language: Language? = nil,
    writer: (Language) -> InstructionWriter
  ) throws(RouteDocumentError) -> RouteDocument {
    // A native document straight into fixed point, without a tree; anything unusual (and every
    // error) takes the tree.
    if format == nil || format == .native,
      let document = bytes.withUnsafeBufferPointer({ NativeRouteFormat.decodeStreaming($0) })
    {
      return document
    }
    let detected: RouteFileFormat
    var parsed: JSONValue?
    if let format {
      detected = format
    } else if isXML(bytes) {
      detected = .gpx
    } else {
      let value = try parseJSON(bytes)
      detected = try detect(value)
      parsed = value
    }
    let document: RouteDocument
    switch detected {
    case .gpx:
      document = try GPXImporter.decode(bytes, writer: writer(language ?? .en))
    case .native, .valhalla, .osrm, .graphhopper, .geojson:
      let value: JSONValue
      if let parsed { value = parsed } else { value = try parseJSON(bytes) }
      let chosen = writer(language ?? RouteLanguage.of(value) ?? .en)
      switch detected {
      case .native: return try NativeRouteFormat.decode(value)
      case .valhalla:
        document = try ValhallaImporter.decode(value, writer: language.map { _ in chosen })
      case .osrm: document = try OSRMImporter.decode(value, writer: chosen)
      case .graphhopper: document = try GraphHopperImporter.decode(value, writer: chosen)
      case .geojson: document = try GeoJSONImporter.decode(value, writer: chosen)
      case .gpx: document = try GPXImporter.decode(bytes, writer: chosen)
      }
    }
    return try NativeRouteFormat.normalized(document)
  }

  /// A native document read from a buffer (such as a file mapping) by the pull decoder, or
  /// `nil` when that format is not asked for or the document is not one the pull decoder reads,
  /// or has a problem: ``decode(_:format:language:writer:)`` of its bytes then reads it, or says
  /// what is wrong.
  ///
  /// `progress` is told how far it has read (see ``JSONPullParser/progress``).
  public static func decodeNative(
    buffer: UnsafeBufferPointer<UInt8>, format: RouteFileFormat? = nil,
    progress: ((Int) -> Void)? = nil
  ) -> RouteDocument? {
    guard format == nil || format == .native else { return nil }
    return NativeRouteFormat.decodeStreaming(buffer, progress: progress)
  }

  /// Parses `bytes` as JSON, or fails with a `syntax` error that says where.
  public static func parseJSON(_ bytes: some Collection<UInt8>) throws(RouteDocumentError)
    -> JSONValue
  {
    do {
      return try JSONParser.parse(bytes)
    } catch {
      throw RouteDocumentError(.syntax, path: "", "not valid JSON: \(error)")
    }
  }

  /// Recognises the format of a route file from its bytes: XML is GPX, JSON is told apart by
  /// its members.
  public static func detect(_ bytes: [UInt8]) throws(RouteDocumentError) -> RouteFileFormat {
    if isXML(bytes) { return .gpx }
    return try detect(parseJSON(bytes))
  }

  /// Whether the first byte after a byte order mark and white space opens XML.
  private static func isXML(_ bytes: [UInt8]) -> Bool {
    var i = 0
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    return i < bytes.count && bytes[i] == UInt8(ascii: "<")
  }

  /// Recognises the format of a parsed route file.
  public static func detect(_ value: JSONValue) throws(RouteDocumentError) -> RouteFileFormat {
    if case .array(let items) = value, case .object(let first)? = items.first,
      first["sign"] != nil, first["interval"] != nil
    {
      return .graphhopper  // an instruction list: the importer explains what is missing
    }
    guard case .object(let o) = value else {
      throw RouteDocumentError(
        .unsupportedFormat, path: "", "expected a JSON object, found \(value.typeName)")
    }
    if o["routes"] != nil && o["source"] != nil { return .native }
    if o["trip"] != nil { return .valhalla }
    if o["error_code"] != nil || (o["error"] != nil && o["status_code"] != nil) { return .valhalla }
    if o["paths"] != nil { return .graphhopper }
    if case .string(let type) = o["type"],
      ["Feature", "FeatureCollection", "LineString", "MultiLineString"].contains(type)
    {
      return .geojson
    }
    if o["code"] != nil || o["waypoints"] != nil { return .osrm }
    if case .array(let routes) = o["routes"], case .object(let r)? = routes.first,
      r["legs"] != nil
    {
      return .osrm
    }
    if o["message"] != nil && (o["hints"] != nil || o["info"] != nil) { return .graphhopper }
    if o["routes"] != nil {
      // Looks like a native document missing its source.
      return .native
    }
    throw RouteDocumentError(
      .unsupportedFormat, path: "",
      "unrecognised route format (expected a Stepwise route document, or a response of OSRM, "
        + "Valhalla or GraphHopper, or GPX or GeoJSON)")
  }
}
