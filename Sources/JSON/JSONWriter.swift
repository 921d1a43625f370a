/// Writes compact JSON with members in insertion order.
///
/// Doubles are written in their shortest round-trip form; integral values without a fraction.
/// Non-finite numbers cannot be represented in JSON and are written as `null`.
public enum JSONWriter {
  /// Serialises a value on one line.
  public static func string(_ value: JSONValue) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(256)
    write(value, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Serialises a value with two-space indentation, for documents meant for people.
  public static func prettyString(_ value: JSONValue) -> String {
    var out = ""
    writePretty(value, indent: 0, into: &out)
    out.append("\n")
    return out
  }

  /// Appends a value on one line to `out`.
  public static func write(_ value: JSONValue, into out: inout String) {
    out.append(string(value))
  }

  /// Appends a value on one line to `out` as UTF-8 bytes.
  ///
  /// Events are written once per fix, so this works on bytes: appending to a `String` piece by
  /// piece costs about three times as much (callgrind, `docs/benchmarks.md`).
  public static func write(_ value: JSONValue, into out: inout [UInt8]) {
    switch value {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
    case .number(let d): writeNumber(d, into: &out)
    case .string(let s): writeString(s, into: &out)
    case .array(let a):
      out.append(0x5B)  // [
      var first = true
      for v in a {
        if !first { out.append(0x2C) }  // ,
        first = false
        write(v, into: &out)
      }
      out.append(0x5D)  // ]
    case .object(let o):
      out.append(0x7B)  // {
      var first = true
      for (k, v) in o {
        if !first { out.append(0x2C) }
        first = false
        writeString(k, into: &out)
        out.append(0x3A)  // :
        write(v, into: &out)
      }
      out.append(0x7D)  // }
    }
  }

  private static func writePretty(_ value: JSONValue, indent: Int, into out: inout String) {
    let pad = String(repeating: "  ", count: indent + 1)
    let closePad = String(repeating: "  ", count: indent)
    switch value {
    case .array(let a) where !a.isEmpty:
      // Arrays of scalars and of small flat objects stay on one line per element.
      out.append("[\n")
      for (i, v) in a.enumerated() {
        out.append(pad)
        if isFlat(v) {
          write(v, into: &out)
        } else {
          writePretty(v, indent: indent + 1, into: &out)
        }
        out.append(i + 1 < a.count ? ",\n" : "\n")
      }
      out.append(closePad + "]")
    case .object(let o) where !o.members.isEmpty:
      out.append("{\n")
      for (i, m) in o.members.enumerated() {
        out.append(pad)
        writeString(m.key, into: &out)
        out.append(": ")
        writePretty(m.value, indent: indent + 1, into: &out)
        out.append(i + 1 < o.members.count ? ",\n" : "\n")
      }
      out.append(closePad + "}")
    default:
      write(value, into: &out)
    }
  }

  private static func isFlat(_ v: JSONValue) -> Bool {
    switch v {
    case .object(let o):
      return o.members.count <= 4 && o.members.allSatisfy { !isContainer($0.value) }
    case .array, .null, .bool, .number, .string: return !isContainer(v)
    }
  }

  private static func isContainer(_ v: JSONValue) -> Bool {
    switch v {
    case .array, .object: true
    default: false
    }
  }

  /// Formats a number the way Stepwise writes JSON.
  public static func number(_ d: Double) -> String {
    var bytes: [UInt8] = []
    writeNumber(d, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends a number: integral values below 10^15 as integers, others in Swift's shortest
  /// round-trip form, non-finite values as `null`.
  private static func writeNumber(_ d: Double, into out: inout [UInt8]) {
    guard d.isFinite else {
      out.append(contentsOf: "null".utf8)
      return
    }
    guard d == d.rounded() && abs(d) < 1e15 else {
      out.append(contentsOf: String(d).utf8)
      return
    }
    let n = Int64(d)
    if n < 0 { out.append(0x2D) }  // -
    var magnitude = n.magnitude
    let start = out.count
    repeat {
      out.append(UInt8(truncatingIfNeeded: 0x30 + magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    out[start..<out.count].reverse()
  }

  /// Appends a string literal with its quotes, escaping what JSON requires.
  public static func writeString(_ s: String, into out: inout String) {
    var bytes: [UInt8] = []
    writeString(s, into: &bytes)
    out.append(String(decoding: bytes, as: UTF8.self))
  }

  /// Appends a string literal with its quotes as UTF-8 bytes, escaping what JSON requires.
  ///
  /// Only `"`, `\\` and control characters are escaped; they are single bytes in UTF-8 and never
  /// part of a multi-byte sequence, so the string's bytes are copied in runs between them.
  public static func writeString(_ s: String, into out: inout [UInt8]) {
    out.append(0x22)
    var s = s
    s.withUTF8 { utf8 in
      var run = 0
      for i in 0..<utf8.count {
        let u = utf8[i]
        guard u < 0x20 || u == 0x22 || u == 0x5C else { continue }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<i]))
        run = i + 1
        out.append(0x5C)  // backslash
        switch u {
        case 0x22: out.append(0x22)
        case 0x5C: out.append(0x5C)
        case 0x0A: out.append(0x6E)  // n
        case 0x0D: out.append(0x72)  // r
        case 0x09: out.append(0x74)  // t
        default:
          let hex: [UInt8] = Array("0123456789abcdef".utf8)
          out.append(contentsOf: [0x75, 0x30, 0x30, hex[Int(u >> 4)], hex[Int(u & 15)]])  // u00XX
        }
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<utf8.count]))
    }
    out.append(0x22)
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(nilLiteral: ()) { self = .null }
}
