/// One rejected line or sentence, reported through ``NMEAReader/onReject``.
public struct NMEARejection: Sendable, Equatable, CustomStringConvertible {
  /// Why a line was rejected.
  public enum Reason: Sendable, Equatable, CustomStringConvertible {
    /// The checksum does not match. `expected` is the XOR of the bytes, `actual` what the
    /// sentence carried after `*`, or `nil` when that was not two hex digits.
    case badChecksum(expected: UInt8, actual: UInt8?)
    /// A field could not be read; `field` names it (`"latitude"`, `"field count"`, …).
    case malformed(field: String)
    /// The sentence is longer than the limit; `length` counts bytes from `$` to the line end.
    case overlong(length: Int)
    /// The sentence was cut off by the start of another sentence on the same line.
    case truncated
    /// Bytes outside any sentence (binary data, stray text).
    case garbage
    /// The sentence's time is older than an epoch already emitted (or it belongs to such a
    /// sentence's epoch).
    case outOfOrder

    public var description: String {
      switch self {
      case .badChecksum(let expected, let actual?):
        return "bad checksum: sentence says *\(NMEASentence.hex(actual)), "
          + "bytes give *\(NMEASentence.hex(expected))"
      case .badChecksum(let expected, nil):
        return "unreadable checksum: bytes give *\(NMEASentence.hex(expected))"
      case .malformed(let field):
        return "malformed \(field)"
      case .overlong(let length):
        return "overlong: \(length) bytes (limit \(NMEAReader.maximumSentenceLength))"
      case .truncated:
        return "truncated: cut off by the next sentence"
      case .garbage:
        return "not an NMEA sentence"
      case .outOfOrder:
        return "out of order: older than an epoch already emitted"
      }
    }
  }

  /// The 1-based line number where the rejected text starts.
  ///
  /// CR LF, CR CR LF, bare LF and bare CR each end one line.
  public var line: Int
  /// Why it was rejected.
  public var reason: Reason
  /// The rejected text, at most 100 characters; bytes outside printable ASCII appear as `\xNN`.
  public var text: String

  /// Creates a rejection.
  public init(line: Int, reason: Reason, text: String) {
    self.line = line
    self.reason = reason
    self.text = text
  }

  /// The line, the reason and the text: `line 12: bad checksum: sentence says *00, bytes give
  /// *4A: $PGLOR,…`.
  public var description: String { "line \(line): \(reason): \(text)" }

  /// Renders bytes for ``text``: printable ASCII as is, anything else as `\xNN`, at most 100
  /// characters, ending in `...` when cut (or when `more` says the bytes were cut already).
  static func render(_ bytes: some Collection<UInt8>, more: Bool = false, limit: Int = 100)
    -> String
  {
    func width(_ b: UInt8) -> Int { (0x20...0x7E).contains(b) ? 1 : 4 }
    let total = bytes.reduce(0) { $0 + width($1) } + (more ? limit : 0)
    let room = total > limit ? limit - 3 : limit
    var out: [UInt8] = []
    out.reserveCapacity(min(total, limit))
    for b in bytes {
      if out.count + width(b) > room { break }
      if width(b) == 1 {
        out.append(b)
      } else {
        out += [92, 120, NMEASentence.hexDigit(b >> 4), NMEASentence.hexDigit(b & 0x0F)]
      }
    }
    if total > limit { out += Array("...".utf8) }
    return String(decoding: out, as: UTF8.self)
  }
}
