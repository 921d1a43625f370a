import Geodesy
import NMEA

/// Writes fixes as NMEA 0183 sentences the way a typical receiver does.
public enum NMEAWriter {
  /// A sentence type the writer can produce.
  public enum Sentence: String, Sendable, CaseIterable {
    case rmc = "RMC"
    case gga = "GGA"
    case gsa = "GSA"
    case gsv = "GSV"
    case gst = "GST"
    case vtg = "VTG"

    /// What the classic simulator wrote: RMC, GGA, GSA and GST.
    public static let classic: [Sentence] = [.rmc, .gga, .gsa, .gst]
    /// Every type, in the order receivers send them.
    public static let all: [Sentence] = [.rmc, .vtg, .gga, .gsa, .gsv, .gst]

    /// Parses a comma-separated list ("RMC,GGA,GST"); `nil` names an unknown type.
    public static func list(_ text: String) -> [Sentence]? {
      var chosen = Set<Sentence>()
      for part in text.split(separator: ",") {
        guard let s = Sentence(rawValue: part.uppercased()) else { return nil }
        chosen.insert(s)
      }
      return all.filter { chosen.contains($0) }
    }
  }

  /// RMC, GGA, GSA and GST for one epoch.
  ///
  /// A fix without position gives RMC status V, GGA quality 0 and GSA mode 1, with empty position
  /// fields.
  public static func epoch(_ fix: Fix, talker: String = "GP", sigma: Double) -> String {
    epoch(fix, talker: talker, sigma: sigma, sentences: Sentence.classic)
  }

  /// The chosen sentences for one epoch, in the order of `Sentence.all`.
  ///
  /// `sigma` is the one-sigma per-axis position error GST reports, metres.
  public static func epoch(_ fix: Fix, talker: String, sigma: Double, sentences: [Sentence])
    -> String
  {
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
    let sky = fix.coordinate == nil ? [] : SatelliteSky.view(at: fix.time)
    for sentence in sentences {
      if let c = fix.coordinate {
        let lat = latitude(c.latitude)
        let lon = longitude(c.longitude)
        let course = fix.course.map { fixed($0, 1) } ?? ""
        // An estimate (the receiver's own dead reckoning) is mode E and quality 6.
        let estimated = fix.quality == .deadReckoning
        let mode = estimated ? "E" : "A"
        switch sentence {
        case .rmc:
          let knots = fixed((fix.speed ?? 0) / 0.514444, 2)
          out += frame(
            "\(talker)RMC,\(time),A,\(lat),\(lon),\(knots),\(course),\(date),,,\(mode)")
        case .vtg:
          let knots = fixed((fix.speed ?? 0) / 0.514444, 2)
          let kmh = fixed((fix.speed ?? 0) * 3.6, 2)
          out += frame("\(talker)VTG,\(course),T,,M,\(knots),N,\(kmh),K,\(mode)")
        case .gga:
          out += frame(
            "\(talker)GGA,\(time),\(lat),\(lon),\(estimated ? 6 : 1),\(pad(fix.satellites ?? 8, 2)),"
              + "\(fixed(fix.hdop ?? 1, 1)),\(fixed(fix.altitude ?? 0, 1)),M,47.0,M,,")
        case .gsa:
          out += frame(
            "\(talker)GSA,A,3,02,05,07,09,13,16,20,26,30,,,,1.8,\(fixed(fix.hdop ?? 1, 1)),1.5")
        case .gsv:
          out += gsv(sky, talker: talker)
        case .gst:
          let sd = fixed(sigma, 1)
          out += frame(
            "\(talker)GST,\(time),\(fixed(sigma * 1.4, 1)),\(sd),\(sd),0.0,\(sd),\(sd),"
              + "\(fixed(sigma * 1.5, 1))")
        }
      } else {
        switch sentence {
        case .rmc: out += frame("\(talker)RMC,\(time),V,,,,,,,\(date),,,N")
        case .vtg: out += frame("\(talker)VTG,,T,,M,,N,,K,N")
        case .gga: out += frame("\(talker)GGA,\(time),,,,,0,00,99.9,,M,,M,,")
        case .gsa: out += frame("\(talker)GSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9")
        case .gsv: out += frame("\(talker)GSV,1,1,00")
        case .gst: break
        }
      }
    }
    return out
  }

  /// GSV sentences, four satellites each.
  static func gsv(_ sky: [SatelliteSky.Satellite], talker: String) -> String {
    let total = max(1, (sky.count + 3) / 4)
    var out = ""
    for n in 0..<total {
      var body = "\(talker)GSV,\(total),\(n + 1),\(pad(sky.count, 2))"
      for s in sky.dropFirst(4 * n).prefix(4) {
        body += ",\(pad(s.prn, 2)),\(pad(s.elevation, 2)),\(pad(s.azimuth, 3)),\(pad(s.snr, 2))"
      }
      out += frame(body)
    }
    return out
  }

  /// `$` + body + `*` + checksum + CR LF.
  public static func frame(_ body: String) -> String { NMEASentence.frame(body) }

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

  /// `v` with exactly `decimals` decimals, rounded half away from zero (no locale, no
  /// exponent).
  public static func fixed(_ v: Double, _ decimals: Int) -> String {
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
