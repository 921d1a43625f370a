/// An error in JSON syntax, with the position where parsing stopped.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What was wrong.
  public var message: String
  /// 1-based line of the offending byte.
  public var line: Int
  /// 1-based column (in bytes) of the offending byte.
  public var column: Int
  /// 0-based byte offset.
  public var offset: Int

  public var description: String { "\(message) at line \(line), column \(column)" }
}

/// A strict RFC 8259 JSON parser working on bytes.
///
/// It rejects trailing garbage, control characters in strings, leading zeros, bare `NaN` and
/// lone surrogates, and it limits nesting depth so hostile input cannot exhaust the stack.
public struct JSONParser {
  /// The maximum nesting of arrays and objects accepted.
  public static let maximumDepth = 512

  /// The longest number accepted, in bytes.
  ///
  /// A double needs at most 17 significant digits, and JSON writers print at most about 25
  /// bytes; RFC 8259 lets a parser limit the range and precision of numbers. The limit stops
  /// a number of a hundred megabytes of digits at once, where it starts, instead of copying
  /// and converting it.
  public static let maximumNumberLength = 1024

  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0
  var depth = 0
  /// The members of the objects being parsed, innermost last: each object takes its own off
  /// the top when it ends, so its array is allocated once, at its final size.
  private var members: [(key: String, value: JSONValue)] = []
  /// Member names seen recently, reused instead of decoding the same bytes again (a route's
  /// points repeat `latitude` and `longitude` hundreds of thousands of times).
  private var names: [(bytes: [UInt8], string: String)] = []

  init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// Parses one JSON text.
  public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    var copy = text
    let result = copy.withUTF8 { buffer in
      Result { () throws(JSONSyntaxError) in try parse(bytes: buffer) }
    }
    return try result.get()
  }

  /// Parses one JSON text from bytes.
  public static func parse<C: Collection<UInt8>>(_ bytes: C) throws(JSONSyntaxError) -> JSONValue {
    let result =
      bytes.withContiguousStorageIfAvailable { b in
        Result { () throws(JSONSyntaxError) in try parse(bytes: b) }
      }
      ?? Array(bytes).withUnsafeBufferPointer { b in
        Result { () throws(JSONSyntaxError) in try parse(bytes: b) }
      }
    return try result.get()
  }

  /// Parses one JSON text from a buffer.
  public static func parse(bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
    var p = JSONParser(bytes)
    p.skipWhitespace()
    // Tolerate a UTF-8 byte order mark.
    if p.remaining >= 3 && bytes[p.index] == 0xEF && bytes[p.index + 1] == 0xBB
      && bytes[p.index + 2] == 0xBF
    {
      p.index += 3
      p.skipWhitespace()
    }
    let v = try p.parseValue()
    p.skipWhitespace()
    if p.index < bytes.count {
      throw p.error("unexpected data after the JSON value")
    }
    return v
  }

  private var remaining: Int { bytes.count - index }

  func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
    let off = min(offset ?? index, bytes.count)
    var line = 1
    var col = 1
    var i = 0
    while i < off {
      if bytes[i] == 0x0A {
        line += 1
        col = 1
      } else {
        col += 1
      }
      i += 1
    }
    return JSONSyntaxError(message: message, line: line, column: col, offset: off)
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    guard index < bytes.count else { throw error("unexpected end of input (truncated JSON?)") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return .number(try parseNumber())
    default:
      throw error("unexpected character '\(printable(bytes[index]))'")
    }
  }

  private func printable(_ b: UInt8) -> String {
    b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
    let n = literal.utf8CodeUnitCount
    let p = literal.utf8Start
    guard remaining >= n else { throw error("invalid literal") }
    for i in 0..<n where bytes[index + i] != p[i] {
      throw error("invalid literal")
    }
    index += n
  }

  mutating func enter() throws(JSONSyntaxError) {
    depth += 1
    if depth > JSONParser.maximumDepth {
      throw error("nesting deeper than \(JSONParser.maximumDepth)")
    }
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    index += 1
    let base = members.count
    skipWhitespace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
      index += 1
      depth -= 1
      return .object(JSONObject())
    }
    while true {
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of input in an object") }
      guard bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
      let key = try parseName()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw error(index < bytes.count ? "expected ':'" : "unexpected end of input in an object")
      }
      index += 1
      skipWhitespace()
      let value = try parseValue()
      members.append((key, value))
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of input in an object") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      if bytes[index] == UInt8(ascii: "}") {
        index += 1
        break
      }
      throw error("expected ',' or '}'")
    }
    depth -= 1
    let own = Array(members[base...])
    members.removeSubrange(base...)
    return .object(JSONObject(own))
  }

  /// A member name: a string, taken from ``names`` when the same bytes were seen lately.
  mutating func parseName() throws(JSONSyntaxError) -> String {
    let first = index + 1
    var end = first
    while end < bytes.count {
      let c = bytes[end]
      if c == UInt8(ascii: "\"") { break }
      if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 || end - first >= 32 {
        return try parseString()
      }
      end += 1
    }
    guard end < bytes.count else { return try parseString() }
    let count = end - first
    for k in names.indices where names[k].bytes.count == count {
      let same = names[k].bytes.withUnsafeBufferPointer { known in
        var i = 0
        while i < count && known[i] == bytes[first + i] { i += 1 }
        return i == count
      }
      if same {
        index = end + 1
        return names[k].string
      }
    }
    let name = try parseString()
    if names.count == 8 { names.removeFirst() }
    names.append((Array(UnsafeBufferPointer(rebasing: bytes[first..<end])), name))
    return name
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    index += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
      index += 1
      depth -= 1
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try parseValue())
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of input in an array") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      if bytes[index] == UInt8(ascii: "]") {
        index += 1
        break
      }
      throw error("expected ',' or ']'")
    }
    depth -= 1
    return .array(items)
  }

  mutating func parseString() throws(JSONSyntaxError) -> String {
    let start = index
    index += 1
    // Fast path: no escapes.
    var i = index
    var high: UInt8 = 0
    while i < bytes.count {
      let c = bytes[i]
      high |= c
      if c == UInt8(ascii: "\"") {
        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<i]), as: UTF8.self)
        if high >= 0x80 && !validUTF8(index..<i) {
          throw error("invalid UTF-8 in a string", at: start)
        }
        index = i + 1
        return s
      }
      if c == UInt8(ascii: "\\") { break }
      if c < 0x20 { throw error("control character in a string", at: i) }
      i += 1
    }
    // No closing quote up to the end: say so before copying what was read.
    guard i < bytes.count else { throw error("unterminated string", at: start) }
    var out: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[index..<i]))
    index = i
    while true {
      guard index < bytes.count else { throw error("unterminated string", at: start) }
      let c = bytes[index]
      if c == UInt8(ascii: "\"") {
        index += 1
        break
      }
      if c < 0x20 { throw error("control character in a string") }
      if c != UInt8(ascii: "\\") {
        out.append(c)
        index += 1
        continue
      }
      index += 1
      guard index < bytes.count else { throw error("unterminated string", at: start) }
      let e = bytes[index]
      index += 1
      switch e {
      case UInt8(ascii: "\""): out.append(0x22)
      case UInt8(ascii: "\\"): out.append(0x5C)
      case UInt8(ascii: "/"): out.append(0x2F)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
          guard remaining >= 6, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
          else { throw error("lone surrogate in a string") }
          index += 2
          let low = try hex4()
          guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in a string") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
          throw error("lone surrogate in a string")
        }
        guard let u = Unicode.Scalar(scalar) else { throw error("invalid escape") }
        out.append(contentsOf: Array(String(Character(u)).utf8))
      default:
        throw error("invalid escape '\\\(printable(e))'", at: index - 2)
      }
    }
    guard let s = String(validating: out, as: UTF8.self) else {
      throw error("invalid UTF-8 in a string", at: start)
    }
    return s
  }

  private func validUTF8(_ range: Range<Int>) -> Bool {
    // ASCII fast check, then full validation only when needed.
    var ascii = true
    for i in range where bytes[i] >= 0x80 {
      ascii = false
      break
    }
    if ascii { return true }
    return String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) != nil
  }

  private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
    guard remaining >= 4 else { throw error("truncated \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[index]
      let d: UInt32
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 48)
      case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 87)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 55)
      default: throw error("invalid \\u escape")
      }
      v = v << 4 | d
      index += 1
    }
    return v
  }

  mutating func parseNumber() throws(JSONSyntaxError) -> Double {
    let start = index
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else {
      throw error("invalid number", at: start)
    }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
      if index < bytes.count && isDigit(bytes[index]) {
        throw error("leading zero in a number", at: start)
      }
    } else {
      try skipDigits(from: start)
    }
    if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw error("invalid number", at: start)
      }
      try skipDigits(from: start)
    }
    if index < bytes.count
      && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E"))
    {
      index += 1
      if index < bytes.count
        && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"))
      {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw error("invalid number", at: start)
      }
      try skipDigits(from: start)
    }
    if let d = exactDouble(start..<index) { return d }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let d = Double(text) else { throw error("invalid number", at: start) }
    return d
  }

  /// Powers of ten that doubles hold exactly.
  private static let exactPowers: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// The value of the well-formed number in `range` when it can be computed exactly with one
  /// rounding (Clinger's fast path): at most 15 significant digits, so the digits are an exact
  /// double, scaled by an exact power of ten up to 10^22.
  ///
  /// That single correctly rounded multiplication or division gives the double nearest the decimal
  /// value, the same one
  /// `Double(String)` returns. Route documents hold one number per coordinate, so this is most
  /// of a route's load time. `nil` for anything else (which then goes through `Double(String)`).
  private func exactDouble(_ range: Range<Int>) -> Double? {
    var i = range.lowerBound
    let negative = bytes[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    var mantissa: UInt64 = 0
    var digits = 0
    var scale = 0
    var fraction = false
    while i < range.upperBound {
      let c = bytes[i]
      if c >= 48 && c <= 57 {
        if mantissa != 0 || c != 48 { digits += 1 }
        guard digits <= 15 else { return nil }
        mantissa = mantissa &* 10 &+ UInt64(c &- 48)
        if fraction { scale -= 1 }
      } else if c == UInt8(ascii: ".") {
        fraction = true
      } else {
        // An exponent: e, E, then an optional sign and digits.
        i += 1
        var exponentNegative = false
        if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
          exponentNegative = bytes[i] == UInt8(ascii: "-")
          i += 1
        }
        var exponent = 0
        while i < range.upperBound {
          exponent = exponent * 10 + Int(bytes[i] &- 48)
          guard exponent < 1000 else { return nil }
          i += 1
        }
        scale += exponentNegative ? -exponent : exponent
        break
      }
      i += 1
    }
    guard scale >= -22 && scale <= 22 else { return nil }
    var value = Double(mantissa)
    if scale < 0 {
      value /= Self.exactPowers[-scale]
    } else {
      value *= Self.exactPowers[scale]
    }
    return negative ? -value : value
  }

  /// Moves past a run of digits of the number that starts at `start`, refusing a number
  /// longer than ``maximumNumberLength`` bytes.
  private mutating func skipDigits(from start: Int) throws(JSONSyntaxError) {
    let end = min(bytes.count, start + JSONParser.maximumNumberLength + 1)
    while index < end && isDigit(bytes[index]) { index += 1 }
    if index - start > JSONParser.maximumNumberLength {
      throw error("number longer than \(JSONParser.maximumNumberLength) bytes", at: start)
    }
  }

  @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
}
