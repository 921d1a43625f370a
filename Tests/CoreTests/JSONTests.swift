import JSON
import TestSupport
import Testing

@Suite struct JSONTests {
  @Test func parsesNestedDocumentsKeepingMemberOrder() throws {
    let v = try JSONParser.parse(
      #"{"b":1,"a":[true,false,null,"x\u00e9\ud83d\ude00"],"c":{"d":-1.5e3}}"#)
    guard case .object(let o) = v else {
      Issue.record("not an object")
      return
    }
    #expect(o.keys == ["b", "a", "c"])
    #expect(v["a"]?.arrayValue?[3].stringValue == "xé😀")
    #expect(v["c"]?["d"]?.doubleValue == -1500)
  }

  @Test(arguments: [
    ("", "unexpected end of input"), ("{", "unexpected end of input"),
    (#"{"a":1,}"#, "expected a member name"), ("[1 2]", "expected ',' or ']'"),
    ("01", "leading zero"), ("NaN", "unexpected character"), (#""\x""#, "invalid escape"),
    ("[1]x", "unexpected data after"), (#""\ud800""#, "lone surrogate"),
    ("\"a\u{01}\"", "control character"),
  ])
  func rejectsInvalidJSONWithAPosition(text: String, message: String) {
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
    do {
      _ = try JSONParser.parse(text)
    } catch {
      #expect(error.message.contains(message), "\(error)")
    }
  }

  @Test func reportsLineAndColumn() {
    do {
      _ = try JSONParser.parse("{\n  \"a\": [1,\n  2,,]\n}")
      Issue.record("accepted")
    } catch {
      #expect(error.line == 3 && error.column == 5, "\(error)")
    }
  }

  @Test func deepNestingIsRefusedNotACrash() {
    let deep = String(repeating: "[", count: 100_000)
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
  }

  @Test func invalidUTF8IsRejected() {
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
  }

  @Test func writerRoundTrips() throws {
    let text = #"{"s":"a\"b\\c\nd\u0001","n":[0,-1,1.5,1e-7,12345678901],"t":true,"z":null}"#
    let v = try JSONParser.parse(text)
    let again = try JSONParser.parse(JSONWriter.string(v))
    #expect(v == again)
    #expect(JSONWriter.string(v).contains(#""n":[0,-1,1.5,1e-07,12345678901]"#))
    #expect(try JSONParser.parse(JSONWriter.prettyString(v)) == v)
  }
}
