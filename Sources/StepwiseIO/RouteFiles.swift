import Glibc
import JSON
public import Phrasebook
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

/// A route file that could not be loaded; the message names the file and the JSON path.
public struct RouteFileError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var underlying: RouteDocumentError?
  public var message: String
  /// The size limit in bytes, when the file was refused for being larger than it.
  public var sizeLimit: Int?

  public init(
    path: String, underlying: RouteDocumentError?, message: String, sizeLimit: Int? = nil
  ) {
    self.path = path
    self.underlying = underlying
    self.message = message
    self.sizeLimit = sizeLimit
  }

  public var description: String {
    if let u = underlying { return "\(path): \(u)" }
    return "\(path): \(message)"
  }
}

/// Loads route documents from files, detecting the format from the content.
public enum RouteFiles {
  /// The largest route file read unless the caller says otherwise, in bytes: 64 MiB.
  ///
  /// A route file is read whole and parsed into a tree before it is validated, so memory,
  /// not the file system, is what bounds it. Router responses are far smaller (a route from
  /// Portugal to Korea is 1.2 MB of OSRM JSON); 64 MiB holds about 1.4 million points of
  /// native JSON, and such a document peaks at about five times its size while it loads
  /// (docs/limits.md).
  public static let defaultMaximumFileSize = 64 << 20

  /// Loads and validates the document at `path` (`-` for standard input).
  ///
  /// - Parameters:
  ///   - format: forces a format; `nil` detects it from the content.
  ///   - language: the wanted language of instructions and notices: router text in another
  ///     language is replaced by instructions written from the maneuvers. `nil` is the route's
  ///     own language (``RouteLanguage``): the router's text is kept, and what it lacks is
  ///     written in that language, or in English when it is neither English nor Korean.
  ///   - maximumSize: the largest file accepted, in bytes. A larger regular file is refused
  ///     before any of it is read; standard input or a pipe is refused as soon as it passes
  ///     the limit.
  public static func load(
    _ path: String, format: RouteFileFormat? = nil, language: Language? = nil,
    maximumSize: Int = defaultMaximumFileSize
  ) throws(RouteFileError) -> RouteDocument {
    let bytes = try read(path, maximumSize: maximumSize)
    return try decode(bytes, name: path, format: format, language: language)
  }

  /// Reads a route file whole, refusing one larger than `maximumSize` bytes.
  ///
  /// The size of a regular file is checked first, and the buffer is allocated once at that
  /// size, so reading costs the file's size and no more. The corresponding C functions are
  /// `open`, `fstat` and `read`.
  static func read(_ path: String, maximumSize: Int) throws(RouteFileError) -> [UInt8] {
    func tooLarge(_ size: Int?) -> RouteFileError {
      let what = size.map { "the file has \($0) bytes" } ?? "the input goes on"
      return RouteFileError(
        path: path, underlying: nil,
        message: "too large: \(what), more than the route file limit of \(maximumSize) bytes",
        sizeLimit: maximumSize)
    }
    do {
      let input = try InputFile(path: path)
      defer { input.close() }
      var status = stat()
      var out: [UInt8] = []
      if fstat(input.fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG {
        guard status.st_size <= maximumSize else { throw tooLarge(Int(status.st_size)) }
        out.reserveCapacity(Int(status.st_size))
      }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let n = try input.read(into: &chunk)
        if n == 0 { break }
        guard out.count + n <= maximumSize else { throw tooLarge(nil) }
        out.append(contentsOf: chunk[0..<n])
      }
      return out
    } catch let error as RouteFileError {
      throw error
    } catch {
      throw RouteFileError(path: path, underlying: nil, message: "cannot read: \(error)")
    }
  }

  /// The instruction writer for a daemon language: natural style, with `Phrasebook`'s
  /// Korean particle choice (which also reads Latin names, digits and units).
  public static func instructionWriter(_ language: Language) -> InstructionWriter {
    InstructionWriter(
      language: language == .ko ? .ko : .en, style: .natural,
      attach: { word, particle in
        switch particle {
        case .euroRo: attachParticle(word, .euroRo)
        case .eulReul: attachParticle(word, .eulReul)
        }
      })
  }

  /// The language of a loaded document's instructions, for a daemon or a command not told
  /// `--locale`: a Korean route is guided in Korean.
  public static func language(of document: RouteDocument) -> Language? {
    RouteLanguage.of(document).flatMap { Language(rawValue: $0.rawValue) }
  }

  /// Decodes a route document from bytes; `name` is used in messages.
  ///
  /// Every importer's result goes through ``NativeRouteFormat`` validation, so a document that
  /// loads is always a valid native document.
  public static func decode(
    _ bytes: [UInt8], name: String, format: RouteFileFormat? = nil, language: Language? = nil
  ) throws(RouteFileError) -> RouteDocument {
    do throws(RouteDocumentError) {
      let detected: RouteFileFormat
      if let format { detected = format } else { detected = try detect(bytes) }
      let document: RouteDocument
      switch detected {
      case .gpx:
        document = try GPXImporter.decode(bytes, writer: instructionWriter(language ?? .en))
      case .native, .valhalla, .osrm, .graphhopper, .geojson:
        let value = try parseJSON(bytes)
        let own = RouteLanguage.of(value).flatMap { Language(rawValue: $0.rawValue) }
        let writer = instructionWriter(language ?? own ?? .en)
        switch detected {
        case .native: return try NativeRouteFormat.decode(value)
        case .valhalla:
          document = try ValhallaImporter.decode(value, writer: language.map { _ in writer })
        case .osrm: document = try OSRMImporter.decode(value, writer: writer)
        case .graphhopper: document = try GraphHopperImporter.decode(value, writer: writer)
        case .geojson: document = try GeoJSONImporter.decode(value, writer: writer)
        case .gpx: document = try GPXImporter.decode(bytes, writer: writer)
        }
      }
      return try NativeRouteFormat.decode(NativeRouteFormat.encode(document))
    } catch {
      throw RouteFileError(path: name, underlying: error, message: "")
    }
  }

  private static func parseJSON(_ bytes: [UInt8]) throws(RouteDocumentError) -> JSONValue {
    do {
      return try JSONParser.parse(bytes)
    } catch {
      throw RouteDocumentError(.syntax, path: "", "not valid JSON: \(error)")
    }
  }

  /// Recognises the format of a route file from its bytes: XML is GPX, JSON is told apart by
  /// its members.
  public static func detect(_ bytes: [UInt8]) throws(RouteDocumentError) -> RouteFileFormat {
    var i = 0
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    if i < bytes.count, bytes[i] == UInt8(ascii: "<") { return .gpx }
    return try detect(parseJSON(bytes))
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
