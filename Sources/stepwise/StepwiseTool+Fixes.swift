import CommandLineSupport
import GPSDProtocol
import Geodesy
import JSON
import NMEA
import POSIX

/// `stepwise fixes TRACK`: the fixes Stepwise reads from a track, one per epoch, for debugging a
/// receiver the way `gpsdecode` is used; `--json` writes gpsd `TPV` objects, so the two can be
/// compared line by line.
extension StepwiseTool {
  static let fixesUsage = """
    usage: stepwise fixes TRACK [--json] [--verbose]

    One line per epoch of an NMEA log or a gpsd JSON capture (- reads standard input): UTC time,
    latitude and longitude, speed, course, fix mode and quality, accuracy (68 %), HDOP and
    satellites. --json writes each as a gpsd TPV object (eph is the 95 % figure, as gpsd's);
    --verbose says on standard error why each rejected line was rejected, and how many were.
    Before the receiver has given a date (NMEA GGA and GLL carry only the time of day), the
    time is printed as the time of day and "(no date)", and --json leaves it out, as gpsd does.
    """

  /// 1980-01-06T00:00:00Z, the start of GPS time, in seconds since the Unix epoch.
  ///
  /// A fix before it has no date: the NMEA reader counts days from 1970-01-01 until a sentence
  /// gives one, and no receiver reports a time before GPS time began.
  static let gpsEpoch = 315_964_800.0

  /// Whether the receiver had given a date by the time of `fix`.
  static func hasDate(_ fix: Fix) -> Bool { fix.time >= gpsEpoch }

  /// The time of `fix` as ISO 8601, or only its time of day (`19:14:34.960Z (no date)`)
  /// before the receiver gave a date.
  static func time(_ fix: Fix) -> String {
    let iso = UTCTime.iso8601(fix.time)
    guard !hasDate(fix), let t = iso.firstIndex(of: "T") else { return iso }
    return iso[iso.index(after: t)...] + " (no date)"
  }

  /// Reads the whole track and writes its fixes.
  static func fixesCommand(_ args: inout Arguments, _ out: OutputSink) throws {
    if args.flag("--help", "-h") {
      out.line(fixesUsage)
      return
    }
    let json = args.flag("--json")
    let verbose = args.flag("--verbose", "-v")
    let rest = try args.positionals()
    guard rest.count == 1 else {
      throw UsageError(
        "fixes needs one TRACK: an NMEA log or a gpsd capture (- for standard input)")
    }
    let path = rest[0]
    let bytes = try readWholeFile(path)
    let device = path == "-" ? "stdin" : path
    let rejections = Locked<[String]>([])
    let fixes: [Fix]
    let summary: String
    switch TrackKind.detect(bytes, complete: true) ?? .nmea {
    case .nmea:
      var reader = NMEAReader()
      if verbose { reader.onReject = { r in rejections.withLock { $0.append("\(r)") } } }
      fixes = reader.feed(bytes) + reader.finish()
      let s = reader.statistics
      summary =
        "\(s.sentences) sentences, \(s.epochs) epochs (\(s.noFixEpochs) without a fix), "
        + "\(s.rejected) rejected: \(s.badChecksum) bad checksum, \(s.malformed) malformed, "
        + "\(s.overlong) overlong, \(s.truncated) truncated, \(s.garbage) not NMEA, "
        + "\(s.outOfOrder) out of order; \(s.missingChecksum) without checksum, "
        + "\(s.skipped) of types not read"
    case .gpsdJSON:
      var reader = GPSDCaptureReader()
      if verbose { reader.onReject = { r in rejections.withLock { $0.append(r) } } }
      fixes = reader.feed(bytes) + reader.finish()
      summary = "\(reader.statistics)"
    }
    for fix in fixes {
      out.line(json ? JSONWriter.string(.object(tpv(fix, device: device))) : readable(fix))
    }
    if verbose {
      for r in rejections.withLock({ $0 }) { logLine(6, "stepwise: \(device): \(r)") }
      logLine(6, "stepwise: \(device): \(fixes.count) fixes; \(summary)")
    }
  }

  /// gpsd's TPV `mode`: 1 no fix, 2 without altitude, 3 with it.
  static func mode(_ fix: Fix) -> Int {
    guard fix.isValid else { return 1 }
    return fix.altitude == nil ? 2 : 3
  }

  /// gpsd's TPV `status` for a quality, `nil` for a plain GPS fix (which gpsd leaves out).
  static func status(_ quality: FixQuality) -> Int? {
    switch quality {
    case .none, .gps: nil
    case .dgps: 2
    case .rtk: 3
    case .deadReckoning: 5
    case .simulated: 8
    }
  }

  /// The fix as a gpsd TPV object (gpsd's names and units: metres, m/s, degrees).
  static func tpv(_ fix: Fix, device: String) -> JSONObject {
    var o = JSONObject()
    o.append("class", .string("TPV"))
    o.append("device", .string(device))
    o.append("mode", .number(Double(mode(fix))))
    if let s = status(fix.quality) { o.append("status", .number(Double(s))) }
    if hasDate(fix) { o.append("time", .string(UTCTime.iso8601(fix.time))) }
    if let c = fix.coordinate {
      o.append("lat", .number(c.latitude))
      o.append("lon", .number(c.longitude))
    }
    if let a = fix.altitude {
      o.append("altMSL", .number(a))
      o.append("alt", .number(a))
    }
    if let t = fix.course { o.append("track", .number(t)) }
    if let s = fix.speed { o.append("speed", .number(s)) }
    if let e = fix.horizontalAccuracy {
      o.append("eph", .number((e * GPSDEpochMerger.eph95To68 * 1000).rounded() / 1000))
    }
    if let h = fix.hdop { o.append("hdop", .number(h)) }
    if let n = fix.satellites { o.append("uSat", .number(Double(n))) }
    return o
  }

  /// One readable line: time, position, speed, course, mode and quality, accuracy.
  static func readable(_ fix: Fix) -> String {
    func number(_ v: Double?, _ digits: Int, _ unit: String = "") -> String {
      guard let v else { return "-" }
      var scale = 1.0
      for _ in 0..<digits { scale *= 10 }
      return JSONWriter.number((v * scale).rounded() / scale) + unit
    }
    let position =
      fix.coordinate.map { "\(number($0.latitude, 7)) \(number($0.longitude, 7))" } ?? "no fix"
    return [
      time(fix), position, mode(fix) == 1 ? "mode 1" : "\(mode(fix))D",
      fix.quality.rawValue, "speed " + number(fix.speed, 2, " m/s"),
      "course " + number(fix.course, 1, "°"), "accuracy " + number(fix.horizontalAccuracy, 1, " m"),
      "hdop " + number(fix.hdop, 2), "sats " + (fix.satellites.map(String.init) ?? "-"),
    ].joined(separator: "  ")
  }
}
