/// Text laid out in terminal columns, where wide (CJK, Hangul) characters take two cells.
public enum TextColumns {
  /// Lays out rows as aligned columns (display width counts wide characters as two).
  public static func lines(_ rows: [[String]], rightAligned: Set<Int>) -> [String] {
    guard let columns = rows.map(\.count).max() else { return [] }
    var widths = [Int](repeating: 0, count: columns)
    for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], displayWidth(c)) } }
    return rows.map { r in
      var line = ""
      for (i, c) in r.enumerated() {
        let pad = String(repeating: " ", count: widths[i] - displayWidth(c))
        if i > 0 { line += "  " }
        line += rightAligned.contains(i) ? pad + c : (i == r.count - 1 ? c : c + pad)
      }
      while line.hasSuffix(" ") { line.removeLast() }
      return line
    }
  }

  public static func displayWidth(_ s: String) -> Int {
    s.unicodeScalars.reduce(0) { w, u in
      let v = u.value
      let wide =
        (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v)
        || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v)
        || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
      return w + (wide ? 2 : 1)
    }
  }
}
