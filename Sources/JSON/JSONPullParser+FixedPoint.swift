extension JSONPullParser {
  /// The most decimals ``fixedPointPair(_:_:decimals:)`` reads (seven: 10⁻⁷ degree).
  public static let maximumFixedPointDecimals = 7

  /// Reads an object of exactly two members named `first` and `second`, in that order, whose
  /// values are plain decimal numbers of at most three integer digits and `decimals` decimals,
  /// as whole numbers of 10^−`decimals` (`-12.5` with two decimals is −1250); `nil`, having
  /// read nothing, for anything else, which ``object(_:)`` then reads.
  ///
  /// What it reads is exactly what ``object(_:)`` and ``number()`` would read: the same
  /// grammar (white space anywhere between tokens, the depth limit), and a number `n` is the
  /// decimal value `number()` rounds to a `Double`, so `n / 10^decimals` is that `Double`. It
  /// builds no `String` for the names and converts no `Double`.
  ///
  /// - Parameters:
  ///   - first: the first member's name, as written (no escapes).
  ///   - second: the second member's name.
  ///   - decimals: the decimals kept, 0 ... ``maximumFixedPointDecimals``.
  /// - Returns: the two values, or `nil`.
  public mutating func fixedPointPair(
    _ first: StaticString, _ second: StaticString, decimals: Int
  ) -> (Int64, Int64)? {
    let start = parser.index
    guard parser.depth < JSONParser.maximumDepth, take(UInt8(ascii: "{")),
      let a = fixedPointMember(first, decimals: decimals), take(UInt8(ascii: ",")),
      let b = fixedPointMember(second, decimals: decimals), take(UInt8(ascii: "}"))
    else {
      parser.index = start
      return nil
    }
    return (a, b)
  }

  /// Reads `byte` after white space, if it is next.
  private mutating func take(_ byte: UInt8) -> Bool {
    parser.skipWhitespace()
    guard parser.index < parser.bytes.count, parser.bytes[parser.index] == byte else {
      return false
    }
    parser.index += 1
    return true
  }

  /// Reads `"name": number` (see ``fixedPointPair(_:_:decimals:)``).
  private mutating func fixedPointMember(_ name: StaticString, decimals: Int) -> Int64? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let bytes = parser.bytes
    let n = name.utf8CodeUnitCount
    let text = name.utf8Start
    var i = parser.index
    guard bytes.count - i > n, bytes[i + n] == UInt8(ascii: "\"") else { return nil }
    for k in 0..<n where bytes[i + k] != text[k] { return nil }
    parser.index = i + n + 1
    guard take(UInt8(ascii: ":")) else { return nil }
    parser.skipWhitespace()
    i = parser.index
    let end = bytes.count
    let negative = i < end && bytes[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    // Integer part: 0, or up to three digits not starting with 0.
    var value: Int64 = 0
    let integerStart = i
    while i < end, isDigit(bytes[i]), i - integerStart < 3 {
      value = value * 10 + Int64(bytes[i] &- 48)
      i += 1
    }
    let integerDigits = i - integerStart
    guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0")
    else { return nil }
    var kept = 0
    if i < end, bytes[i] == UInt8(ascii: ".") {
      i += 1
      let fractionStart = i
      while i < end, isDigit(bytes[i]), kept < decimals {
        value = value * 10 + Int64(bytes[i] &- 48)
        kept += 1
        i += 1
      }
      guard i > fractionStart else { return nil }
    }
    // More digits, or an exponent, than read here: the general reader's.
    if i < end {
      let c = bytes[i]
      guard !isDigit(c), c != UInt8(ascii: "."), c != UInt8(ascii: "e"), c != UInt8(ascii: "E")
      else { return nil }
    }
    while kept < decimals {
      value *= 10
      kept += 1
    }
    parser.index = i
    return negative ? -value : value
  }

  @inline(__always)
  private func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
}
