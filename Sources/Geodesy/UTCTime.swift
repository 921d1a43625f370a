/// Conversions between civil UTC dates and seconds since the Unix epoch, without a calendar
/// library (Howard Hinnant's `days_from_civil` and `civil_from_days`).
public enum UTCTime {
  /// Days since 1970-01-01 of a proleptic Gregorian date.
  public static func days(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The civil date of a day number counted from 1970-01-01.
  public static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  /// The civil date and the millisecond of that day of a time in milliseconds since the epoch.
  public static func civil(
    milliseconds: Int64
  ) -> (year: Int, month: Int, day: Int, millisecond: Int) {
    var days = milliseconds / 86_400_000
    var rem = milliseconds % 86_400_000
    if rem < 0 {
      rem += 86_400_000
      days -= 1
    }
    let (y, mo, d) = civil(days: Int(days))
    return (y, mo, d, Int(rem))
  }

  /// Formats seconds since the epoch as ISO 8601 UTC with milliseconds, like gpsd:
  /// `2024-05-01T12:00:01.000Z`.
  public static func iso8601(_ seconds: Double) -> String {
    let (y, mo, d, rem) = civil(milliseconds: Int64((seconds * 1000).rounded()))
    let h = rem / 3_600_000
    let mi = rem / 60_000 % 60
    let s = rem / 1000 % 60
    let ms = rem % 1000
    return "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(Int(h), 2)):\(pad(Int(mi), 2)):"
      + "\(pad(Int(s), 2)).\(pad(Int(ms), 3))Z"
  }

  /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z`; returns `nil` for anything else.
  public static func parseISO8601(_ text: String) -> Double? {
    let b = Array(text.utf8)
    guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
      b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
      b.last == UInt8(ascii: "Z")
    else { return nil }
    func num(_ r: Range<Int>) -> Int? {
      var v = 0
      for i in r {
        let c = b[i]
        guard c >= 48 && c <= 57 else { return nil }
        v = v * 10 + Int(c - 48)
      }
      return v
    }
    guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
      let mi = num(14..<16), let s = num(17..<19), (1...12).contains(mo), (1...31).contains(d),
      h < 24, mi < 60, s < 61
    else { return nil }
    var frac = 0.0
    if b.count > 20 {
      guard b[19] == UInt8(ascii: "."), b.count > 21 else { return nil }
      var scale = 0.1
      for i in 20..<(b.count - 1) {
        let c = b[i]
        guard c >= 48 && c <= 57 else { return nil }
        frac += Double(c - 48) * scale
        scale /= 10
      }
    } else if b[19] != UInt8(ascii: "Z") {
      return nil
    }
    return Double(days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s) + frac
  }

  private static func pad(_ v: Int, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }
}
