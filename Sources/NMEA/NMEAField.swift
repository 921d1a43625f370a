import Geodesy

/// A field that does not parse; `field` names it for ``NMEARejection/Reason/malformed(field:)``.
struct MalformedField: Error {
  var field: String
}

/// One comma-separated field of a sentence body, as a range of a borrowed buffer.
///
/// The parsers return `nil` for an empty field (no data) and throw for a field that is present
/// but unreadable. They work on bytes and never allocate.
struct NMEAField {
  let buffer: UnsafeBufferPointer<UInt8>
  let start: Int
  let end: Int

  var isEmpty: Bool { start >= end }
  var count: Int { end - start }

  /// The single character of a one-byte field, or `nil` when empty or longer.
  var character: UInt8? { count == 1 ? buffer[start] : nil }

  /// Whether the field holds exactly `ascii`.
  func equals(_ ascii: Unicode.Scalar) -> Bool {
    count == 1 && buffer[start] == UInt8(ascii: ascii)
  }

  /// A non-negative integer of at most 9 digits.
  func integer(_ name: String) throws(MalformedField) -> Int? {
    if isEmpty { return nil }
    guard count <= 9 else { throw MalformedField(field: name) }
    var value = 0
    for i in start..<end {
      let d = buffer[i] &- 48
      guard d < 10 else { throw MalformedField(field: name) }
      value = value * 10 + Int(d)
    }
    return value
  }

  /// A decimal number with an optional sign and fraction, such as `-30.40`, `0.000`, `1.` or `.5`.
  ///
  /// Up to 18 significant digits are kept; the value is one correctly rounded division.
  func decimal(_ name: String) throws(MalformedField) -> Double? {
    if isEmpty { return nil }
    var i = start
    var negative = false
    if buffer[i] == 45 || buffer[i] == 43 {  // - +
      negative = buffer[i] == 45
      i += 1
    }
    var mantissa: Int64 = 0
    var digits = 0
    var fractionDigits = 0
    var seenPoint = false
    var sawDigit = false
    while i < end {
      let c = buffer[i]
      if c == 46 {  // .
        guard !seenPoint else { throw MalformedField(field: name) }
        seenPoint = true
      } else {
        let d = c &- 48
        guard d < 10 else { throw MalformedField(field: name) }
        sawDigit = true
        if digits < 18 {
          if mantissa != 0 || d != 0 { digits += 1 }
          mantissa = mantissa * 10 + Int64(d)
          if seenPoint { fractionDigits += 1 }
        } else if !seenPoint {
          throw MalformedField(field: name)  // more than 18 integer digits
        }
      }
      i += 1
    }
    guard sawDigit else { throw MalformedField(field: name) }
    // Zeros right after the point are not significant digits but still count as fraction
    // digits: `0.000…01` can have more than the table holds (NMEAFuzz, 2026-11-29; the index
    // used to trap). Such values are below 1e-18: divide in steps, exactness no longer matters.
    var value = Double(mantissa)
    var scale = fractionDigits
    while scale >= powersOfTen.count {
      value /= powersOfTen[powersOfTen.count - 1]
      scale -= powersOfTen.count - 1
    }
    value /= powersOfTen[scale]
    return negative ? -value : value
  }

  /// A UTC time of day `hhmmss[.s…]`, in microseconds since midnight.
  ///
  /// A leap second (`ss` = 60) is accepted; digits past the sixth decimal are dropped.
  func timeOfDay() throws(MalformedField) -> Int64? {
    if isEmpty { return nil }
    guard count >= 6 else { throw MalformedField(field: "time") }
    var whole: Int64 = 0
    for i in start..<(start + 6) {
      let d = buffer[i] &- 48
      guard d < 10 else { throw MalformedField(field: "time") }
      whole = whole * 10 + Int64(d)
    }
    let hh = whole / 10_000
    let mm = whole / 100 % 100
    let ss = whole % 100
    guard hh < 24, mm < 60, ss <= 60 else { throw MalformedField(field: "time") }
    var micros: Int64 = 0
    if count > 6 {
      guard buffer[start + 6] == 46 else { throw MalformedField(field: "time") }
      var scale: Int64 = 100_000
      for i in (start + 7)..<end {
        let d = buffer[i] &- 48
        guard d < 10 else { throw MalformedField(field: "time") }
        micros += Int64(d) * scale
        scale /= 10
      }
    }
    return ((hh * 60 + mm) * 60 + ss) * 1_000_000 + micros
  }

  /// An RMC date `ddmmyy`, as days since 1970-01-01.
  ///
  /// Two-digit years 80–99 are 1980–1999 and 00–79 are 2000–2079.
  func rmcDate() throws(MalformedField) -> Int? {
    if isEmpty { return nil }
    guard count == 6 else { throw MalformedField(field: "date") }
    var v = 0
    for i in start..<end {
      let d = buffer[i] &- 48
      guard d < 10 else { throw MalformedField(field: "date") }
      v = v * 10 + Int(d)
    }
    let day = v / 10_000
    let month = v / 100 % 100
    let yy = v % 100
    return try NMEAField.days(year: NMEAField.fullYear(yy), month: month, day: day)
  }

  /// The full year for a two-digit year: 80–99 are 19xx, 00–79 are 20xx.
  static func fullYear(_ yy: Int) -> Int { yy >= 80 ? 1900 + yy : 2000 + yy }

  /// Days since 1970-01-01 of a validated civil date.
  static func days(year: Int, month: Int, day: Int) throws(MalformedField) -> Int {
    guard (1...12).contains(month), (1...31).contains(day), (1900...2999).contains(year) else {
      throw MalformedField(field: "date")
    }
    return UTCTime.days(year: year, month: month, day: day)
  }

  /// A latitude `ddmm.m…` with its hemisphere field `N`/`S`, in degrees.
  func latitude(hemisphere: NMEAField) throws(MalformedField) -> Double? {
    guard let magnitude = try degreesMinutes(maxDegrees: 90, name: "latitude") else {
      return nil
    }
    switch hemisphere.character {
    case UInt8(ascii: "N"): return magnitude
    case UInt8(ascii: "S"): return -magnitude
    default: throw MalformedField(field: "latitude hemisphere")
    }
  }

  /// A longitude `dddmm.m…` with its hemisphere field `E`/`W`, in degrees.
  func longitude(hemisphere: NMEAField) throws(MalformedField) -> Double? {
    guard let magnitude = try degreesMinutes(maxDegrees: 180, name: "longitude") else {
      return nil
    }
    switch hemisphere.character {
    case UInt8(ascii: "E"): return magnitude
    case UInt8(ascii: "W"): return -magnitude
    default: throw MalformedField(field: "longitude hemisphere")
    }
  }

  /// Degrees from `[d]ddmm[.m…]`.
  ///
  /// Degrees and minutes are gathered as integers (`minutes × 10^k + fraction`), so the only
  /// rounding is one division and one addition: 7- and 8-decimal minutes keep their precision.
  func degreesMinutes(maxDegrees: Int64, name: String) throws(MalformedField) -> Double? {
    if isEmpty { return nil }
    var whole: Int64 = 0
    var i = start
    var integerDigits = 0
    while i < end, buffer[i] != 46 {
      let d = buffer[i] &- 48
      guard d < 10, integerDigits < 5 else { throw MalformedField(field: name) }
      whole = whole * 10 + Int64(d)
      integerDigits += 1
      i += 1
    }
    guard integerDigits >= 3 else { throw MalformedField(field: name) }
    var fraction: Int64 = 0
    var fractionDigits = 0
    if i < end {
      i += 1  // the point
      while i < end {
        let d = buffer[i] &- 48
        guard d < 10 else { throw MalformedField(field: name) }
        if fractionDigits < 12 {
          fraction = fraction * 10 + Int64(d)
          fractionDigits += 1
        }
        i += 1
      }
    }
    let degrees = whole / 100
    let minutes = whole % 100
    guard minutes < 60, degrees <= maxDegrees else { throw MalformedField(field: name) }
    let scale = powersOfTen[fractionDigits]
    let scaledMinutes = Double(minutes * Int64(scale) + fraction)
    let value = Double(degrees) + scaledMinutes / (60 * scale)
    guard value <= Double(maxDegrees) else { throw MalformedField(field: name) }
    return value
  }
}

/// 10⁰ … 10¹⁸, all exact in a `Double`.
let powersOfTen: [Double] = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
  1e18,
]

/// Reads a sentence body field by field, left to right.
struct NMEAFieldCursor {
  let buffer: UnsafeBufferPointer<UInt8>
  private var position: Int
  private let end: Int

  /// A cursor over `buffer[start..<end]`, which starts just after the address's comma.
  init(_ buffer: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
    self.buffer = buffer
    self.position = start
    self.end = end
  }

  /// The next field; an empty field once the body is exhausted.
  mutating func next() -> NMEAField {
    let s = position
    var i = s
    while i < end, buffer[i] != 44 { i += 1 }
    position = i < end ? i + 1 : end + 1
    return NMEAField(buffer: buffer, start: min(s, end), end: min(i, end))
  }

  /// Skips `n` fields.
  mutating func skip(_ n: Int) {
    for _ in 0..<n { _ = next() }
  }
}
