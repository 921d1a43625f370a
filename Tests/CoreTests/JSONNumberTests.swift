import JSON
import TestSupport
import Testing

/// The parser's exact fast path for short decimals gives the very double `Double(String)`
/// gives, and member names reused from its cache are the same strings.
@Suite struct JSONNumberTests {
  static func parsed(_ text: String) throws -> Double? {
    try JSONParser.parse("[\(text)]").arrayValue?.first?.doubleValue
  }

  @Test(arguments: [
    "0", "-0", "0.0", "-0.0", "1", "12.5", "48.1234567", "-122.0000001", "179.9999999", "0.1",
    "0.000001", "1e22", "1e23", "123456789012345", "1234567890123456", "9007199254740993",
    "1.7976931348623157e308", "5e-324", "1E-7", "2.5E+3", "0.30000000000000004", "1e-22",
    "1e-23", "100000000000000000000000", "3.141592653589793",
  ])
  func awkwardNumbersParseAsDoubleParsesThem(_ text: String) throws {
    let value = try #require(try Self.parsed(text))
    let expected = try #require(Double(text))
    #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) != \(expected)")
  }

  @Test func aSweepOfRouteLikeNumbersParsesExactly() throws {
    var x: UInt64 = 0x2545_F491_4F6C_DD1D
    var texts: [String] = []
    for i in 0..<20_000 {
      x ^= x << 13
      x ^= x >> 7
      x ^= x << 17
      let digits = Int(x % 16) + 1
      let mantissa = String(x >> 8).prefix(digits)
      let point = Int((x >> 4) % UInt64(digits + 1))
      var t = String(mantissa.prefix(point)) + "." + String(mantissa.dropFirst(point))
      if t.hasPrefix(".") { t = "0" + t }
      if t.hasSuffix(".") { t.removeLast() }
      while t.count > 1 && t.hasPrefix("0") && !t.hasPrefix("0.") { t.removeFirst() }
      if i % 3 == 0 { t = "-" + t }
      if i % 7 == 0 { t += "e\(Int(x % 40) - 20)" }
      texts.append(t)
    }
    let values = try #require(
      try JSONParser.parse("[" + texts.joined(separator: ",") + "]").arrayValue)
    var wrong: [String] = []
    for (t, v) in zip(texts, values) where v.doubleValue?.bitPattern != Double(t)?.bitPattern {
      wrong.append(t)
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(5))")
  }

  @Test func repeatedMemberNamesAreStillReadExactly() throws {
    let text =
      #"[{"latitude":1,"longitude":2},{"latitude":3,"longitude":4,"lat\u0069tude":5},{"l":6,"latitudé":7}]"#
    let items = try #require(try JSONParser.parse(text).arrayValue)
    #expect(items[0].objectValue?.keys == ["latitude", "longitude"])
    #expect(items[1].objectValue?.keys == ["latitude", "longitude", "latitude"])
    #expect(items[1]["latitude"]?.doubleValue == 5)
    #expect(items[2].objectValue?.keys == ["l", "latitudé"])
  }
}
