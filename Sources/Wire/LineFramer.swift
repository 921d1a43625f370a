import func Glibc.memchr

/// Splits a byte stream into lines of bounded length, for the command side of the socket.
///
/// Lines end with NL; a CR before the NL is dropped, so both CR-NL and NL are accepted. Empty lines
/// are skipped. A line longer than ``maximumLength`` bytes is not kept: the framer keeps its first
/// ``sniffLength`` bytes (so the caller can say which command was too long), discards the rest up
/// to the next NL, and then reports it once as ``Item/overlong(prefix:length:)``. Memory stays
/// below `maximumLength + sniffLength` bytes however long a line is.
public struct LineFramer: Sendable {
  /// One framed item.
  public enum Item: Sendable, Equatable {
    /// A complete line, without its line end.
    case line([UInt8])
    /// A line that was too long: its first bytes and its whole length in bytes (line end excluded).
    case overlong(prefix: [UInt8], length: Int)
  }

  /// The longest line accepted, in bytes, line end excluded.
  ///
  /// May be changed between feeds.
  public var maximumLength: Int
  /// How many leading bytes of an overlong line are kept.
  public let sniffLength: Int
  private var buffer: [UInt8] = []
  private var discarding = false
  private var discarded = 0
  private var prefix: [UInt8] = []

  public init(maximumLength: Int, sniffLength: Int = 256) {
    self.maximumLength = maximumLength
    self.sniffLength = sniffLength
  }

  /// The number of bytes held for an unfinished line.
  public var pendingBytes: Int { buffer.count }

  /// Feeds bytes as they arrive and returns the items they complete, in order.
  public mutating func feed(_ bytes: some Collection<UInt8>) -> [Item] {
    // Called from another module this generic is not specialized, and scanning through the
    // Collection witnesses cost a call and an allocation per byte. Contiguous bytes (arrays,
    // array slices, buffers: every caller) take one concrete loop instead.
    if let items = bytes.withContiguousStorageIfAvailable({ feedContiguous($0) }) {
      return items
    }
    return Array(bytes).withUnsafeBufferPointer { feedContiguous($0) }
  }

  private mutating func feedContiguous(_ bytes: UnsafeBufferPointer<UInt8>) -> [Item] {
    var items: [Item] = []
    var start = bytes.startIndex
    while start != bytes.endIndex {
      let newline = Self.firstNewline(in: bytes, from: start)
      let end = newline ?? bytes.endIndex
      let piece = bytes[start..<end]
      if discarding {
        discarded += piece.count
      } else if buffer.count + piece.count > maximumLength + 1 {
        // +1 leaves room for a CR that belongs to the line end.
        discarding = true
        prefix = Array(buffer.prefix(sniffLength))
        if prefix.count < sniffLength { prefix += piece.prefix(sniffLength - prefix.count) }
        discarded = buffer.count + piece.count
        buffer.removeAll()
      } else {
        buffer.append(contentsOf: piece)
      }
      guard let newline else { break }
      if discarding {
        items.append(.overlong(prefix: prefix, length: discarded))
        discarding = false
        discarded = 0
        prefix = []
      } else {
        if buffer.last == 0x0D { buffer.removeLast() }
        if buffer.count > maximumLength {
          items.append(.overlong(prefix: Array(buffer.prefix(sniffLength)), length: buffer.count))
        } else if !buffer.isEmpty {
          items.append(.line(buffer))
        }
        buffer.removeAll(keepingCapacity: buffer.count <= 4096)
      }
      start = bytes.index(after: newline)
    }
    return items
  }

  /// The index of the first NL at or after `start`.
  ///
  /// memchr, not a loop over the collection: a document of megabytes arrives as one piece (an
  /// MQTT `load`), and a generic loop left unspecialized (debug and sanitizer builds) spends
  /// about 2 µs a byte.
  private static func firstNewline(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = bytes.baseAddress, start < bytes.endIndex,
      let hit = memchr(base + start, 0x0A, bytes.endIndex - start)
    else { return nil }
    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
  }
}
