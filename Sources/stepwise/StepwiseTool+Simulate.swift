import CommandLineSupport
import Geodesy
import POSIX
import Routes
import Simulation

extension StepwiseTool {
  /// `stepwise simulate`: NMEA (or a gpsd JSON capture) for a drive along the route.
  static func simulateCommand(_ args: inout Arguments, _ out: OutputSink) throws {
    var o = DriveOptions()
    if let p = try args.option("--profile", as: SpeedProfile.self) { o.profile = p }
    if let kmh = try args.number("--speed", in: 0.1...500) { o.speed = kmh / 3.6 }
    o.acceleration = try args.number("--accel", in: 0.05...10)
    o.braking = try args.number("--brake", in: 0.05...10)
    o.hz = try args.number("--hz", in: 1...10) ?? 1
    o.noise = try args.number("--noise", in: 0...500) ?? 0
    o.multipath = try args.number("--multipath", in: 0...500) ?? 0
    o.seed = UInt64(try args.integer("--seed") ?? 1)
    o.settle = try args.number("--settle", in: 0...3600) ?? 5
    o.dwell = try args.number("--dwell", in: 0...3600) ?? 5
    o.tunnels = !args.flag("--no-tunnels")
    if let start = try args.option("--start") {
      guard let t = UTCTime.parseISO8601(start) else {
        throw UsageError("invalid --start '\(start)' (expected YYYY-MM-DDTHH:MM:SSZ)")
      }
      o.start = t
    }
    while let d = try args.option("--dropout") {
      let parts = d.split(separator: ":").compactMap { Double($0) }
      guard parts.count == 2, parts[0] <= parts[1] else {
        throw UsageError("invalid --dropout '\(d)' (expected FROM:TO in metres)")
      }
      o.dropouts.append(parts[0]...parts[1])
    }
    if let at = try args.number("--deviate-at", in: 0...1e8) {
      o.deviation = Deviation(
        at: at, angle: try args.number("--deviate-angle", in: -180...180) ?? 60,
        length: try args.number("--deviate-length", in: 1...1e6) ?? 200,
        rejoin: args.flag("--rejoin"))
    }
    let standing = try args.number("--stop-for", in: 0...86_400) ?? 30
    while let s = try args.option("--stop-at") {
      let parts = s.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
      guard (1...2).contains(parts.count), let at = parts[0], at >= 0,
        parts.count == 1 || (parts[1].map { $0 >= 0 } ?? false)
      else {
        throw UsageError("invalid --stop-at '\(s)' (expected METRES or METRES:SECONDS)")
      }
      o.stops.append(Stop(at: at, duration: parts.count == 2 ? parts[1] ?? standing : standing))
    }
    let talker = try args.option("--talker") ?? "GP"
    guard talker.utf8.count == 2, talker.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
      throw UsageError("invalid --talker '\(talker)' (two capital letters)")
    }
    var sentences = NMEAWriter.Sentence.classic
    if let list = try args.option("--sentences") {
      guard let chosen = NMEAWriter.Sentence.list(list), !chosen.isEmpty else {
        throw UsageError("invalid --sentences '\(list)' (a list of RMC,VTG,GGA,GSA,GSV,GST)")
      }
      sentences = chosen
    }
    let format = try args.option("--format") ?? "nmea"
    guard format == "nmea" || format == "gpsd-json" else {
      throw UsageError("invalid --format '\(format)' (expected nmea or gpsd-json)")
    }
    let (doc, common) = try loadRoute(&args)
    let route = try doc.route(at: common.routeIndex)
    let drive = DriveSimulator.drive(route, options: o)
    var text: String
    if format == "gpsd-json" {
      text = drive.gpsdJSON(
        sky: sentences.contains(.gsv) || sentences == NMEAWriter.Sentence.classic)
    } else {
      text = drive.nmea(
        talker: talker, sentences: sentences,
        header: ["Name: stepwise simulate", "Route: \(route.name)"])
    }
    if text.hasSuffix("\n") { text.removeLast() }
    out.line(text)
  }
}
