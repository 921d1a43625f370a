/// The format of a recorded track, told from its content (never from the file name).
public enum TrackKind: String, Sendable, Equatable {
  /// NMEA 0183 sentences (gpsd's log format: `#` comments allowed).
  case nmea
  /// gpsd JSON reports as `gpspipe -w` prints them, with or without the `-u`/`-uu` prefix.
  case gpsdJSON

  /// Decides from the first bytes: the first line that is neither empty nor a `#` comment
  /// holds a gpsd report (`{"class":…`, possibly after a gpspipe time prefix) or not.
  ///
  /// Returns
  /// `nil` while `prefix` ends before such a line is complete and `complete` is false.
  public static func detect(_ prefix: some Collection<UInt8>, complete: Bool) -> TrackKind? {
    var line: [UInt8] = []
    func classify(_ l: [UInt8]) -> TrackKind? {
      let trimmed = l.drop {
        $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF
      }
      guard let first = trimmed.first, first != UInt8(ascii: "#") else { return nil }
      if first == UInt8(ascii: "$") || first == UInt8(ascii: "!") { return .nmea }
      let text = String(decoding: trimmed.prefix(200), as: UTF8.self)
      return text.contains("{\"class\"") || text.contains("{ \"class\"") ? .gpsdJSON : .nmea
    }
    for b in prefix {
      if b == 0x0A {
        if let k = classify(line) { return k }
        line.removeAll(keepingCapacity: true)
      } else {
        line.append(b)
      }
    }
    if complete || line.count > 4096 { return classify(line) ?? .nmea }
    return nil
  }
}
