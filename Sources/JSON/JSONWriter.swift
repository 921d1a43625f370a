/// Writes compact JSON with members in insertion order.
///
/// Doubles are written in their shortest round-trip form; integral values without a fraction.
/// Non-finite numbers cannot be represented in JSON and are written as `null`.
public enum JSONWriter {
  /// Serialises a value on one line.
  public static func string(_ value: JSONValue) -> String {
    var out = ""
    write(value, into: &out)
    return out
  }

  /// Serialises a value with two-space indentation, for documents meant for people.
  public static func prettyString(_ value: JSONValue) -> String {
    var out = ""
    writePretty(value, indent: 0, into: &out)
    out.append("\n")
    return out
  }

  public static func write(_ value: JSONValue, into out: inout String) {
    switch value {
    case .null: out.append("null")
    case .bool(let b): out.append(b ? "true" : "false")
    case .number(let d): out.append(number(d))
    case .string(let s): writeString(s, into: &out)
    case .array(let a):
      out.append("[")
      for (i, v) in a.enumerated() {
        if i > 0 { out.append(",") }
        write(v, into: &out)
      }
      out.append("]")
    case .object(let o):
      out.append("{")
      var first = true
      for (k, v) in o {
        if !first { out.append(",") }
        first = false
        writeString(k, into: &out)
        out.append(":")
        write(v, into: &out)
      }
      out.append("}")
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
    guard d.isFinite else { return "null" }
    if d == d.rounded() && abs(d) < 1e15 {
      return String(Int64(d))
    }
    return String(d)
  }

  public static func writeString(_ s: String, into out: inout String) {
    out.append("\"")
    var needsEscape = false
    for u in s.utf8 where u < 0x20 || u == 0x22 || u == 0x5C {
      needsEscape = true
      break
    }
    if !needsEscape {
      out.append(s)
      out.append("\"")
      return
    }
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out.append("\\\"")
      case "\\": out.append("\\\\")
      case "\n": out.append("\\n")
      case "\r": out.append("\\r")
      case "\t": out.append("\\t")
      default:
        if scalar.value < 0x20 {
          let h = String(scalar.value, radix: 16)
          out.append("\\u" + String(repeating: "0", count: 4 - h.count) + h)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out.append("\"")
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
