import Instructions
import Routes

/// An XML element as read by ``XMLReader``: name, attributes, child elements and text.
struct XMLElement: Sendable {
  /// The qualified name as written (`gh:sign`).
  var name: String
  var attributes: [(name: String, value: String)]
  var children: [XMLElement]
  /// The character data directly inside this element (entities decoded, CDATA included).
  var text: String
  /// 1-based line of the start tag.
  var line: Int

  /// The name without its namespace prefix (`sign` for `gh:sign`).
  var localName: Substring { name.split(separator: ":").last ?? Substring(name) }

  /// The value of the attribute whose local name is `local`.
  func attribute(_ local: String) -> String? {
    attributes.first { ($0.name.split(separator: ":").last ?? "") == local }?.value
  }

  /// The child elements whose local name is `local`, in document order.
  func children(_ local: String) -> [XMLElement] { children.filter { $0.localName == local } }

  /// The first child element whose local name is `local`.
  func child(_ local: String) -> XMLElement? { children.first { $0.localName == local } }
}

/// A small, strict, byte-level XML reader for route files (GPX).
///
/// It reads elements, attributes, character data, the five predefined entities, numeric
/// character references and CDATA sections; it skips the XML declaration, processing
/// instructions, comments and a DOCTYPE without an internal subset. It checks that tags nest and
/// that the document is complete. No DTDs, no external entities, no namespace processing
/// beyond splitting prefixes. Errors give the line and column (1-based).
enum XMLReader {
  /// Parses a whole document and returns its root element.
  static func parse(_ bytes: [UInt8]) throws(RouteDocumentError) -> XMLElement {
    var p = Parser(bytes: bytes)
    return try p.document()
  }

  private struct Parser {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8]) {
      self.bytes = bytes
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    func error(_ message: String) -> RouteDocumentError {
      RouteDocumentError(
        .syntax, path: "", "not valid XML: \(message) at line \(line), column \(i - lineStart + 1)")
    }

    var atEnd: Bool { i >= bytes.count }

    mutating func advance(_ n: Int = 1) {
      for _ in 0..<n where i < bytes.count {
        if bytes[i] == 0x0A {
          line += 1
          lineStart = i + 1
        }
        i += 1
      }
    }

    func starts(_ s: String) -> Bool {
      let u = Array(s.utf8)
      return i + u.count <= bytes.count && bytes[i..<(i + u.count)].elementsEqual(u)
    }

    mutating func skip(until s: String, what: String) throws(RouteDocumentError) {
      while !atEnd && !starts(s) { advance() }
      guard !atEnd else { throw error("unterminated \(what)") }
      advance(s.utf8.count)
    }

    mutating func skipSpace() {
      while !atEnd, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { advance() }
    }

    /// Skips declarations, comments and processing instructions between elements.
    mutating func skipMisc() throws(RouteDocumentError) {
      while true {
        skipSpace()
        if starts("<?") {
          try skip(until: "?>", what: "processing instruction")
        } else if starts("<!--") {
          try skip(until: "-->", what: "comment")
        } else if starts("<!DOCTYPE") {
          try skip(until: ">", what: "DOCTYPE")
        } else {
          return
        }
      }
    }

    mutating func document() throws(RouteDocumentError) -> XMLElement {
      try skipMisc()
      guard !atEnd else { throw error("the document is empty") }
      guard bytes[i] == UInt8(ascii: "<") else { throw error("expected '<'") }
      let root = try element()
      try skipMisc()
      guard atEnd else { throw error("content after the root element") }
      return root
    }

    static func isNameByte(_ b: UInt8) -> Bool {
      b >= 0x80 || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
        || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b == UInt8(ascii: "-")
        || b == UInt8(ascii: ".")
    }

    mutating func name() throws(RouteDocumentError) -> String {
      let start = i
      while !atEnd && Self.isNameByte(bytes[i]) { advance() }
      guard i > start else { throw error("expected a name") }
      return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    /// Parses an element starting at '<'.
    mutating func element() throws(RouteDocumentError) -> XMLElement {
      let startLine = line
      advance()  // <
      let name = try self.name()
      var element = XMLElement(name: name, attributes: [], children: [], text: "", line: startLine)
      while true {
        skipSpace()
        guard !atEnd else { throw error("unterminated start tag <\(name)>") }
        if starts("/>") {
          advance(2)
          return element
        }
        if bytes[i] == UInt8(ascii: ">") {
          advance()
          break
        }
        let attribute = try self.name()
        skipSpace()
        guard !atEnd, bytes[i] == UInt8(ascii: "=") else {
          throw error("expected '=' after attribute \(attribute)")
        }
        advance()
        skipSpace()
        guard !atEnd, bytes[i] == 0x22 || bytes[i] == 0x27 else {
          throw error("expected a quoted value for attribute \(attribute)")
        }
        let quote = bytes[i]
        advance()
        let start = i
        while !atEnd && bytes[i] != quote { advance() }
        guard !atEnd else { throw error("unterminated value of attribute \(attribute)") }
        let raw = Array(bytes[start..<i])
        advance()
        element.attributes.append((attribute, try decodeText(raw)))
      }
      // Content.
      var text: [UInt8] = []
      while true {
        guard !atEnd else { throw error("unexpected end of the document inside <\(name)>") }
        if bytes[i] != UInt8(ascii: "<") {
          text.append(bytes[i])
          advance()
          continue
        }
        if starts("</") {
          advance(2)
          let close = try self.name()
          guard close == name else { throw error("</\(close)> closes <\(name)>") }
          skipSpace()
          guard !atEnd, bytes[i] == UInt8(ascii: ">") else { throw error("expected '>'") }
          advance()
          element.text = try decodeText(text)
          return element
        }
        if starts("<!--") {
          try skip(until: "-->", what: "comment")
        } else if starts("<![CDATA[") {
          advance(9)
          let start = i
          while !atEnd && !starts("]]>") { advance() }
          guard !atEnd else { throw error("unterminated CDATA section") }
          // Escape so that decodeText leaves the CDATA bytes as they are.
          for b in bytes[start..<i] {
            if b == UInt8(ascii: "&") { text += Array("&amp;".utf8) } else { text.append(b) }
          }
          advance(3)
        } else if starts("<?") {
          try skip(until: "?>", what: "processing instruction")
        } else {
          element.children.append(try self.element())
        }
      }
    }

    /// Decodes entity and character references in character data.
    func decodeText(_ raw: [UInt8]) throws(RouteDocumentError) -> String {
      guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
      var out: [UInt8] = []
      var k = 0
      while k < raw.count {
        guard raw[k] == UInt8(ascii: "&") else {
          out.append(raw[k])
          k += 1
          continue
        }
        guard let semicolon = raw[k...].firstIndex(of: UInt8(ascii: ";")), semicolon - k <= 10
        else { throw error("unterminated entity reference") }
        let entity = String(decoding: raw[(k + 1)..<semicolon], as: UTF8.self)
        switch entity {
        case "amp": out.append(UInt8(ascii: "&"))
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "quot": out.append(0x22)
        case "apos": out.append(0x27)
        default:
          var scalar: UInt32?
          if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
            scalar = UInt32(entity.dropFirst(2), radix: 16)
          } else if entity.hasPrefix("#") {
            scalar = UInt32(entity.dropFirst(), radix: 10)
          }
          guard let s = scalar, let u = Unicode.Scalar(s) else {
            throw error("unknown entity &\(entity);")
          }
          out += Array(String(Character(u)).utf8)
        }
        k = semicolon + 1
      }
      return String(decoding: out, as: UTF8.self)
    }
  }
}
