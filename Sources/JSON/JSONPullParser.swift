/// A JSON text read piece by piece, for documents whose big arrays should go straight into
/// compact storage instead of a tree of ``JSONValue``s (a million route points are about 150 MB
/// as a tree and 8 MB as fixed-point pairs).
///
/// It applies the grammar, the depth limit and the number rules of ``JSONParser``, which does the
/// actual reading: a value read with ``value()`` is what `JSONParser.parse` would have built for
/// it, and ``number()`` returns the same `Double`. It works on a buffer that the caller keeps
/// alive while it is used.
public struct JSONPullParser {
  var parser: JSONParser
  /// Told, every `progressStep` bytes or so while arrays are read, the offset below which the
  /// text has been read (parts of it may still be read again, to place an error): a caller
  /// holding the text in a file mapping can let go of the pages behind it.
  public var progress: ((Int) -> Void)?
  /// Bytes between calls of `progress`.
  public static let progressStep = 4 << 20
  private var nextProgress = JSONPullParser.progressStep

  /// A parser at the start of `bytes`, past a UTF-8 byte order mark.
  public init(_ bytes: UnsafeBufferPointer<UInt8>) {
    parser = JSONParser(bytes)
    parser.skipWhitespace()
    if parser.bytes.count - parser.index >= 3 && bytes[parser.index] == 0xEF
      && bytes[parser.index + 1] == 0xBB && bytes[parser.index + 2] == 0xBF
    {
      parser.index += 3
    }
  }

  /// The first byte of the next value (after white space), or `nil` at the end.
  public mutating func peek() -> UInt8? {
    parser.skipWhitespace()
    return parser.index < parser.bytes.count ? parser.bytes[parser.index] : nil
  }

  /// The next value, whole.
  public mutating func value() throws(JSONSyntaxError) -> JSONValue {
    parser.skipWhitespace()
    return try parser.parseValue()
  }

  /// The next value, which must be a number.
  public mutating func number() throws(JSONSyntaxError) -> Double {
    parser.skipWhitespace()
    guard let c = peek(), c == UInt8(ascii: "-") || (c >= 48 && c <= 57) else {
      throw parser.error("expected a number")
    }
    return try parser.parseNumber()
  }

  /// The next value, which must be a string.
  public mutating func string() throws(JSONSyntaxError) -> String {
    guard peek() == UInt8(ascii: "\"") else { throw parser.error("expected a string") }
    return try parser.parseString()
  }

  /// Reads an object, calling `member` with each member's name; `member` must read the value.
  public mutating func object(
    _ member: (inout JSONPullParser, String) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) {
    guard peek() == UInt8(ascii: "{") else { throw parser.error("expected an object") }
    try parser.enter()
    parser.index += 1
    if peek() == UInt8(ascii: "}") {
      parser.index += 1
      parser.depth -= 1
      return
    }
    while true {
      guard let c = peek() else { throw parser.error("unexpected end of input in an object") }
      guard c == UInt8(ascii: "\"") else { throw parser.error("expected a member name") }
      let key = try parser.parseName()
      guard peek() == UInt8(ascii: ":") else {
        throw parser.error(
          parser.index < parser.bytes.count
            ? "expected ':'" : "unexpected end of input in an object")
      }
      parser.index += 1
      try member(&self, key)
      guard let next = peek() else { throw parser.error("unexpected end of input in an object") }
      parser.index += 1
      if next == UInt8(ascii: ",") { continue }
      if next == UInt8(ascii: "}") { break }
      parser.index -= 1
      throw parser.error("expected ',' or '}'")
    }
    parser.depth -= 1
  }

  /// Reads an array, calling `element` for each element; `element` must read the value.
  public mutating func array(
    _ element: (inout JSONPullParser) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) {
    guard peek() == UInt8(ascii: "[") else { throw parser.error("expected an array") }
    try parser.enter()
    parser.index += 1
    if peek() == UInt8(ascii: "]") {
      parser.index += 1
      parser.depth -= 1
      return
    }
    while true {
      try element(&self)
      if parser.index >= nextProgress, let progress {
        progress(parser.index)
        nextProgress = parser.index + Self.progressStep
      }
      guard let next = peek() else { throw parser.error("unexpected end of input in an array") }
      parser.index += 1
      if next == UInt8(ascii: ",") { continue }
      if next == UInt8(ascii: "]") { break }
      parser.index -= 1
      throw parser.error("expected ',' or ']'")
    }
    parser.depth -= 1
  }

  /// Fails unless only white space is left.
  public mutating func end() throws(JSONSyntaxError) {
    if peek() != nil { throw parser.error("unexpected data after the JSON value") }
  }

  /// A syntax error at the current position.
  public func error(_ message: String) -> JSONSyntaxError { parser.error(message) }
}
