import Glibc
import Instructions
import POSIX
public import RouteImporters
public import Routes

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
  /// A route file other than a native document laid out as the native writer lays it out is
  /// read whole and parsed into a tree before it is validated, so memory, not the file system,
  /// is what bounds it (a native document is mapped and read straight into fixed point). Router responses are far smaller (a route from
  /// Portugal to Korea is 1.2 MB of OSRM JSON); 64 MiB holds about 1.4 million points of
  /// native JSON, and such a document peaks at about five times its size while it loads
  /// (docs/limits.md).
  public static let defaultMaximumFileSize = 64 << 20

  /// Loads and validates the document at `path` (`-` for standard input).
  ///
  /// - Parameters:
  ///   - path: the file, or `-` for standard input.
  ///   - format: forces a format; `nil` detects it from the content.
  ///   - language: the wanted language of instructions and notices: router text in another
  ///     language is replaced by instructions written from the maneuvers. `nil` is the route's
  ///     own language (``RouteLanguage``): the router's text is kept, and what it lacks is
  ///     written in that language, or in English when it is neither English nor Korean.
  ///   - maximumSize: the largest file accepted, in bytes. A larger regular file is refused
  ///     before any of it is read; standard input or a pipe is refused as soon as it passes
  ///     the limit.
  /// - Returns: the document, validated.
  /// - Throws: ``RouteFileError`` naming the file and what is wrong with it.
  public static func load(
    _ path: String, format: RouteFileFormat? = nil, language: Language? = nil,
    maximumSize: Int = defaultMaximumFileSize
  ) throws(RouteFileError) -> RouteDocument {
    if let mapped = loadMapped(path, format: format, maximumSize: maximumSize) {
      let document = mapped.sharingPointArrays()
      releaseDecodedPolylines()
      return document
    }
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

  /// The language of a loaded document's instructions, for a daemon or a command not told
  /// `--locale`: a Korean route is guided in Korean.
  public static func language(of document: RouteDocument) -> Language? {
    RouteLanguage.of(document)
  }

  /// Decodes a route document from bytes; `name` is used in messages.
  ///
  /// Every importer's result goes through ``NativeRouteFormat`` validation, so a document that
  /// loads is always a valid native document. Each route's points are in one array
  /// (``Routes/RouteDocument/sharingPointArrays()``), shared with the sessions made from it.
  public static func decode(
    _ bytes: [UInt8], name: String, format: RouteFileFormat? = nil, language: Language? = nil
  ) throws(RouteFileError) -> RouteDocument {
    do throws(RouteDocumentError) {
      let document = try RouteImport.decode(
        bytes, format: format, language: language,
        writer: { InstructionWriter(language: $0) }
      ).sharingPointArrays()
      releaseDecodedPolylines()
      return document
    } catch {
      throw RouteFileError(path: name, underlying: error, message: "")
    }
  }
}

extension RouteFiles {
  /// Gives back the pages of the decoder's step polylines, freed once a route's points are
  /// moved into one array (``Routes/RouteDocument/sharingPointArrays()``).
  ///
  /// glibc returns memory only from the top of an arena, and once its mmap threshold has risen
  /// (outside stepwised, which fixes it: ``POSIX/HeapRelease/configureForLongRunning()``) it
  /// serves arrays of a step's size from the heap: the freed polylines then stay resident below
  /// the route's array, 7 bytes a point of a million-point route.
  static func releaseDecodedPolylines() { HeapRelease.now() }
}
