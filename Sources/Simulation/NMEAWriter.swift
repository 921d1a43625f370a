import Geodesy

/// Writes fixes as NMEA 0183 sentences the way a typical receiver does.
public enum NMEAWriter {
  /// RMC, GGA, GSA and GST for one epoch. A fix without position gives RMC status V, GGA
  /// quality 0 and GSA mode 1, with empty position fields.
  public static func epoch(_ fix: Fix, talker: String = "GP", sigma: Double) -> String {
    let days = Int((fix.time / 86_400).rounded(.down))
    let (y, mo, d) = UTCTime.civil(days: days)
    let tod = fix.time - Double(days) * 86_400
    let centis = Int((tod * 100).rounded())
    let hh = centis / 360_000
    let mm = centis / 6_000 % 60
    let ss = centis / 100 % 60
    let cc = centis % 100
    let time = "\(pad(hh, 2))\(pad(mm, 2))\(pad(ss, 2)).\(pad(cc, 2))"
    let date = "\(pad(d, 2))\(pad(mo, 2))\(pad(y % 100, 2))"
    var out = ""
    if let c = fix.coordinate {
      let lat = latitude(c.latitude)
      let lon = longitude(c.longitude)
      let knots = fixed((fix.speed ?? 0) / 0.514444, 2)
      let course = fix.course.map { fixed($0, 1) } ?? ""
      out += frame("\(talker)RMC,\(time),A,\(lat),\(lon),\(knots),\(course),\(date),,,A")
      out += frame(
        "\(talker)GGA,\(time),\(lat),\(lon),1,\(pad(fix.satellites ?? 8, 2)),"
          + "\(fixed(fix.hdop ?? 1, 1)),\(fixed(fix.altitude ?? 0, 1)),M,47.0,M,,")
      out += frame("\(talker)GSA,A,3,02,05,07,09,13,16,20,26,30,,,,1.8,\(fixed(fix.hdop ?? 1, 1)),1.5")
      let sd = fixed(sigma, 1)
      out += frame("\(talker)GST,\(time),\(fixed(sigma * 1.4, 1)),\(sd),\(sd),0.0,\(sd),\(sd),\(fixed(sigma * 1.5, 1))")
    } else {
      out += frame("\(talker)RMC,\(time),V,,,,,,,\(date),,,N")
      out += frame("\(talker)GGA,\(time),,,,,0,00,99.9,,M,,M,,")
      out += frame("\(talker)GSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9")
    }
    return out
  }

  /// `$` + body + `*` + checksum + CR LF.
  public static func frame(_ body: String) -> String {
    var sum: UInt8 = 0
    for b in body.utf8 { sum ^= b }
    let hex = Array("0123456789ABCDEF")
    return "$\(body)*\(hex[Int(sum >> 4)])\(hex[Int(sum & 15)])\r\n"
  }

  static func latitude(_ deg: Double) -> String {
    let a = abs(deg)
    let d = Int(a)
    let m = (a - Double(d)) * 60
    return "\(pad(d, 2))\(minutes(m)),\(deg < 0 ? "S" : "N")"
  }

  static func longitude(_ deg: Double) -> String {
    let a = abs(deg)
    let d = Int(a)
    let m = (a - Double(d)) * 60
    return "\(pad(d, 3))\(minutes(m)),\(deg < 0 ? "W" : "E")"
  }

  /// Minutes as `mm.mmmmmm` (6 decimals: about 2 mm).
  static func minutes(_ m: Double) -> String {
    var micro = Int((m * 1_000_000).rounded())
    if micro >= 60_000_000 { micro = 59_999_999 }
    return "\(pad(micro / 1_000_000, 2)).\(pad(micro % 1_000_000, 6))"
  }

  static func fixed(_ v: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let n = Int((abs(v) * scale).rounded())
    let sign = v < 0 && n != 0 ? "-" : ""
    if decimals == 0 { return sign + String(n) }
    let whole = n / Int(scale)
    let frac = n % Int(scale)
    return "\(sign)\(whole).\(pad(frac, decimals))"
  }

  static func pad(_ v: Int, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }
}
