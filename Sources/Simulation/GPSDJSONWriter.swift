import Geodesy

/// Writes a simulated drive as gpsd 3.22 would report it to `gpspipe -w`: one JSON object per
/// line, VERSION, DEVICES, WATCH and DEVICE first, then a TPV and a SKY per epoch.
///
/// Error figures are gpsd's "95 %" estimates: `epx`/`epy` are twice the per-axis one-sigma
/// error the receiver reported, `eph` is √(epx² + epy²), `epv` twice the vertical sigma. Like
/// gpsd 3.22, a TPV without a fix is `mode` 1 with no `time`.
public enum GPSDJSONWriter {
  /// The whole capture, newline terminated.
  public static func capture(_ drive: SimulatedDrive, sky: Bool, device: String) -> String {
    let first = drive.fixes.first?.time ?? 0
    let cycle = drive.fixes.count > 1 ? drive.fixes[1].time - drive.fixes[0].time : 1
    let activated = UTCTime.iso8601(first)
    let deviceObject =
      "{\"class\":\"DEVICE\",\"path\":\"\(device)\",\"driver\":\"NMEA0183\","
      + "\"activated\":\"\(activated)\",\"flags\":1,\"native\":0,\"bps\":9600,\"parity\":\"N\","
      + "\"stopbits\":1,\"cycle\":\(NMEAWriter.fixed(cycle, 2))}"
    var out = "{\"class\":\"VERSION\",\"release\":\"3.22\",\"rev\":\"3.22\",\"proto_major\":3,"
    out += "\"proto_minor\":14}\n"
    out += "{\"class\":\"DEVICES\",\"devices\":[\(deviceObject)]}\n"
    out += "{\"class\":\"WATCH\",\"enable\":true,\"json\":true,\"nmea\":false,\"raw\":0,"
    out += "\"scaled\":false,\"timing\":false,\"split24\":false,\"pps\":false}\n"
    out += deviceObject + "\n"
    for (i, fix) in drive.fixes.enumerated() {
      out += tpv(fix, sigma: drive.sigmas[i], device: device) + "\n"
      if sky { out += skyReport(fix, device: device) + "\n" }
    }
    return out
  }

  /// One TPV object, members in gpsd 3.22's order.
  static func tpv(_ fix: Fix, sigma: Double, device: String) -> String {
    let f = NMEAWriter.fixed
    guard let c = fix.coordinate else {
      return "{\"class\":\"TPV\",\"device\":\"\(device)\",\"mode\":1}"
    }
    let alt = fix.altitude ?? 0
    let epx = 2 * sigma
    let eph = (2 * epx * epx).squareRoot()
    var o = "{\"class\":\"TPV\",\"device\":\"\(device)\",\"mode\":3,"
    // The receiver's own estimate: gpsd's STATUS_DR.
    if fix.quality == .deadReckoning { o += "\"status\":5," }
    o += "\"time\":\"\(UTCTime.iso8601(fix.time))\",\"ept\":0.005,"
    o += "\"lat\":\(f(c.latitude, 9)),\"lon\":\(f(c.longitude, 9)),"
    o += "\"altHAE\":\(f(alt + 47, 4)),\"altMSL\":\(f(alt, 4)),\"alt\":\(f(alt, 4)),"
    o += "\"epx\":\(f(epx, 3)),\"epy\":\(f(epx, 3)),\"epv\":\(f(3 * sigma, 3)),"
    if let t = fix.course { o += "\"track\":\(f(t, 4)),\"magtrack\":\(f(t, 4)),\"magvar\":0.0," }
    if let v = fix.speed {
      o +=
        "\"speed\":\(f(v, 3)),\"climb\":0.000,\"eps\":\(f(max(0.2, epx / 10), 2)),\"epc\":\(f(3 * sigma, 2)),"
    }
    o +=
      "\"geoidSep\":47.000,\"eph\":\(f(eph, 3)),\"sep\":\(f((eph * eph + 9 * sigma * sigma).squareRoot(), 3))}"
    return o
  }

  /// One SKY object: dilutions and the satellites in view.
  static func skyReport(_ fix: Fix, device: String) -> String {
    guard fix.coordinate != nil else {
      return "{\"class\":\"SKY\",\"device\":\"\(device)\",\"nSat\":0,\"uSat\":0,\"satellites\":[]}"
    }
    let f = NMEAWriter.fixed
    let hdop = fix.hdop ?? 1
    let sats = SatelliteSky.view(at: fix.time)
    var o = "{\"class\":\"SKY\",\"device\":\"\(device)\",\"time\":\"\(UTCTime.iso8601(fix.time))\","
    o += "\"xdop\":\(f(hdop * 0.7, 2)),\"ydop\":\(f(hdop * 0.7, 2)),\"vdop\":1.50,\"tdop\":1.00,"
    o += "\"hdop\":\(f(hdop, 2)),\"gdop\":2.05,\"pdop\":1.80,"
    o += "\"nSat\":\(sats.count),\"uSat\":\(sats.filter(\.used).count),\"satellites\":["
    o += sats.map { s in
      "{\"PRN\":\(s.prn),\"el\":\(s.elevation).0,\"az\":\(s.azimuth).0,\"ss\":\(s.snr).0,"
        + "\"used\":\(s.used),\"gnssid\":0,\"svid\":\(s.prn)}"
    }.joined(separator: ",")
    o += "]}"
    return o
  }
}
