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
    o.speedWander = try args.number("--speed-wander", in: 0...0.5) ?? 0
    if let s = try args.number("--speed-wander-correlation", in: 1...3600) {
      o.speedWanderCorrelation = s
    }
    o.hz = try args.number("--hz", in: 1...10) ?? 1
    o.noise = try args.number("--noise", in: 0...500) ?? 0
    o.multipath = try args.number("--multipath", in: 0...500) ?? 0
    o.seed = UInt64(try args.integer("--seed") ?? 1)
    o.settle = try args.number("--settle", in: 0...3600) ?? 5
    o.dwell = try args.number("--dwell", in: 0...3600) ?? 5
    o.endsMoving = args.flag("--ends-moving")
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
    try receiverFlaws(&args, into: &o)
    var silences: [ClosedRange<Double>] = []
    while let g = try args.option("--silence") {
      silences.append(try window(g, "--silence"))
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
    var drive = DriveSimulator.drive(route, options: o)
    drive.silence(silences, after: o.start)
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

  /// The options of the receiver's flaws a real city shows (the recipe keys `noiseCorrelation`,
  /// `canyons`, `glitchEvery`, `gaps`, `pullOut`, `cornerCut`, `hdop`, `coast`, `coastFlagged`,
  /// `reacquire`).
  private static func receiverFlaws(_ args: inout Arguments, into o: inout DriveOptions) throws {
    if let s = try args.number("--noise-correlation", in: 1...3600) { o.noiseCorrelation = s }
    while let c = try args.option("--canyon") {
      let parts = c.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
      guard parts.count == 3, let from = parts[0], let to = parts[1], let bias = parts[2],
        from <= to, abs(bias) <= 500
      else {
        throw UsageError("invalid --canyon '\(c)' (expected FROM:TO:BIAS in metres)")
      }
      o.canyons.append(Canyon(from: from, to: to, bias: bias))
    }
    o.glitchEvery = try args.number("--glitch-every", in: 0...86_400) ?? 0
    while let g = try args.option("--gap") { o.gaps.append(try window(g, "--gap")) }
    if let p = try args.option("--pull-out") {
      let d = PullOut()
      let pieces = p.split(separator: ":", omittingEmptySubsequences: false)
      let parts = pieces.compactMap { Double($0) }
      guard (1...4).contains(parts.count), parts.count == pieces.count else {
        throw UsageError("invalid --pull-out '\(p)' (expected TURN[:RADIUS[:SPEED[:CIRCLE]]])")
      }
      let turn = parts[0]
      let radius = parts.count > 1 ? parts[1] : d.radius
      let speed = parts.count > 2 ? parts[2] : d.speed
      let circle = parts.count > 3 ? parts[3] : d.circle
      guard abs(turn) <= 360, radius > 0, radius <= 1_000, speed > 0, speed <= 50,
        (0...600).contains(circle)
      else {
        throw UsageError(
          "invalid --pull-out '\(p)' (turn up to 360 degrees, radius up to 1000 m, speed up to 50 m/s, circling up to 600 s)"
        )
      }
      o.pullOut = PullOut(turn: turn, radius: radius, speed: speed, circle: circle)
    }
    o.cornerCut = try args.number("--corner-cut", in: 0...100) ?? 0
    if let h = try args.number("--hdop", in: 0.5...99) { o.hdop = h }
    o.coast = try args.number("--coast", in: 0...600) ?? 0
    o.coastFlagged = args.flag("--coast-flagged")
    o.reacquire = try args.number("--reacquire", in: 0...500) ?? 0
  }

  /// `AT:SECONDS` (seconds after the first epoch) as a closed range.
  private static func window(_ text: String, _ option: String) throws -> ClosedRange<Double> {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
    guard parts.count == 2, let at = parts[0], let seconds = parts[1], at >= 0, seconds >= 0
    else {
      throw UsageError("invalid \(option) '\(text)' (expected AT:SECONDS after the first epoch)")
    }
    return at...(at + seconds)
  }
}
