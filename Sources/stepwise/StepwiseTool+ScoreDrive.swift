import CommandLineSupport
import GPSDProtocol
import Geodesy
import JSON
import Lab
import POSIX
import Phrasebook
import RouteFiles
import Routes
import Simulation
import Wire

extension StepwiseTool {
  static let scoreDriveUsage = """
    usage: stepwise scenario score-drive ROUTE TRACK [--json] [--route-index N] [--locale L]
                                         [--outages N [--outage-lengths S,S,...]]
                                         [--outage AT+LEN]

    Replays a recorded drive through the pipeline the scenarios use and scores it against ROUTE,
    which must be the path driven (so any off-route is false). TRACK is an NMEA log, a gpsd
    capture (gpspipe -w) or a t,lat,lon CSV (relative seconds; speed and course from the fixes
    either side). Prints one line: clean, or FAIL and what falls short of the bar (every maneuver
    prompted, as its own announcement or the "then" of the one before, at least 2 s before it is
    reached; the departure said first; no off-route; arrival within 25 m); exits 1 on a
    shortfall. --json writes the details as one JSON object instead.

    --outages N cuts GPS outages out of the track instead (every fix inside becomes an epoch
    without a fix) of each of the --outage-lengths (default 10,20,30,45,60 s): at N points spread
    over the drive, and around every maneuver (one with the maneuver inside it, one ending 3 s
    before it), and scores each against the drive without it: every maneuver still prompted at
    least 2 s before it, prompts made from an estimate at steady speed within 2 s of the schedule
    without the outage, the position when fixes return within 5 % of the distance covered blind
    (steady speed, not held at a maneuver), no backward jump over 10 m, no off-route (none in the
    10 s after the return either). A cut that joins a gap of the drive's own into an outage
    longer than the longest length (and 5 s) is beyond that range: it is listed apart, as
    "joined", and not counted. A cut whose every miss a vehicle carried on at its last fix's
    speed shares (it stood, or changed speed in the dark) is marked "beyond a carried speed" and
    counted apart in the summary. The summary also counts, not as short, the final prompts made
    from an estimate while the vehicle was over twice as far from the maneuver as the drive
    without the outage says them (and over 50 m farther): the estimate ran ahead of a vehicle
    that slowed or stopped in the dark, or was timed for one that may have sped up. Prints a
    summary line and each cut that falls short; exits 1 when any counted one does.

    --outage AT+LEN cuts one outage of LEN seconds, AT seconds after the track's first fix (as
    --outages lists them), and prints what guidance said through it, the events stepwised
    --json prints, then a line with what the cut misses of that bar; exits 1 when it misses any.
    """

  /// 2026-11-30T09:00:00Z: where the relative seconds of a CSV track start.
  static let csvStart = 1_796_029_200.0

  /// `stepwise scenario score-drive ROUTE TRACK`: returns 1 when the drive misses the bar.
  static func scoreDriveCommand(_ args: inout Arguments, _ out: OutputSink) throws -> Int32 {
    if args.flag("--help", "-h") {
      out.line(scoreDriveUsage)
      return 0
    }
    let json = args.flag("--json")
    let outages = try args.integer("--outages", minimum: 1)
    let lengths = try args.option("--outage-lengths").map(outageLengths) ?? [10, 20, 30, 45, 60]
    let single = try args.option("--outage").map(outageCut)
    let common = try CommonOptions.parse(&args)
    let rest = try args.positionals()
    guard rest.count == 2 else { throw UsageError("scenario score-drive needs ROUTE and TRACK") }
    let document = try RouteFiles.load(
      rest[0], format: common.routeFormat, language: common.locale)
    let language = common.locale ?? RouteFiles.language(of: document) ?? .en
    let drive = RecordedDrive(
      document: document, routeIndex: common.routeIndex,
      phrasing: Phrasebook(language: language, units: common.units),
      fixes: try trackFixes(try readWholeFile(rest[1])))
    if let (at, length) = single {
      return try oneOutageCommand(drive, at: at, length: length, out)
    }
    if let n = outages {
      return try outageCommand(drive, count: n, lengths: lengths, name: rest[1], out)
    }
    let score = try drive.score(name: rest[1])
    out.line(json ? JSONWriter.string(.object(scoreObject(score))) : score.verdict)
    return score.violations().isEmpty ? 0 : 1
  }

  static func outageLengths(_ text: String) throws -> [Double] {
    let values = text.split(separator: ",").map { Double($0) }
    guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 600 }) else {
      throw UsageError("--outage-lengths takes seconds from 1 to 600, separated by commas")
    }
    return values.compactMap { $0 }
  }

  /// `AT+LEN` of `--outage`: seconds after the first fix, and seconds long.
  static func outageCut(_ text: String) throws -> (at: Double, length: Double) {
    let parts = text.split(separator: "+", omittingEmptySubsequences: false)
    guard parts.count == 2, let at = Double(parts[0]), let length = Double(parts[1]),
      at >= 0, length >= 1, length <= 600
    else {
      throw UsageError(
        "--outage takes AT+LEN: seconds after the track's first fix, and 1 to 600 seconds")
    }
    return (at, length)
  }

  /// `score-drive --outage AT+LEN`: one cut, what guidance said through it, and its score.
  static func oneOutageCommand(
    _ drive: RecordedDrive, at: Double, length: Double, _ out: OutputSink
  ) throws -> Int32 {
    let label = "\(NMEAWriter.fixed(at, 0))+\(NMEAWriter.fixed(length, 0)) s"
    guard let cut = try drive.outage(at: at, length: length) else {
      throw UsageError("\(label) cuts no fix out of the track")
    }
    for e in try drive.events(outageAt: at, length: length) {
      out.line(EventLine.text(.navigation(e)))
    }
    var tally = OutageTally()
    let misses = tally.add(cut.score)
    out.line("\(label): " + (misses.isEmpty ? "meets the bar" : misses.joined(separator: "; ")))
    return misses.isEmpty ? 0 : 1
  }

  /// `score-drive --outages N`: cuts outages out of the drive and scores each.
  static func outageCommand(
    _ drive: RecordedDrive, count: Int, lengths: [Double], name: String, _ out: OutputSink
  ) throws -> Int32 {
    let cuts = try drive.outages(count: count, lengths: lengths)
    // A cut that joins a gap of the drive's own makes an outage longer than the range scored:
    // listed apart, not counted (its figures go to a tally of their own).
    let range = (lengths.max() ?? 60) + joinedSlack
    var counted = OutageTally()
    var joined = OutageTally()
    for c in cuts {
      let beyond = c.blind > range
      let misses = beyond ? joined.add(c.score) : counted.add(c.score)
      guard !misses.isEmpty else { continue }
      let around = c.maneuver.map { " (maneuver \($0))" } ?? ""
      let cut = "\(NMEAWriter.fixed(c.at, 0))+\(NMEAWriter.fixed(c.length, 0)) s\(around)"
      let label = beyond ? "joined, \(cut) is \(NMEAWriter.fixed(c.blind, 0)) s blind" : cut
      out.line("  \(label): " + misses.joined(separator: "; "))
    }
    out.line(
      "\(name): \(counted.cuts) outages, \(counted.short) short (\(counted.beyondCarry) of them "
        + "beyond a carried speed, \(counted.steppedBack) jumps back to a maneuver not reached, "
        + "\(counted.early) with no miss but early prompts at steady speed); \(joined.cuts) more "
        + "joined a gap "
        + "of the drive's own into over \(NMEAWriter.fixed(range, 0)) s blind, scored apart "
        + "(\(joined.short) short); \(counted.compared) prompts from estimates at steady "
        + "speed, worst \(NMEAWriter.fixed(counted.worstShift, 1)) s off the schedule; "
        + "\(counted.returns) returns at steady speed, worst "
        + "\(NMEAWriter.fixed(100 * counted.worstReturn, 1)) % of the distance blind; "
        + "largest backward step \(NMEAWriter.fixed(counted.worstJump, 1)) m; "
        + "\(counted.farFinals) of \(counted.finals) final prompts from estimates said over "
        + "twice as far out as without the outage (not counted as short), "
        + "\(counted.farFinalsSaidAgain) of them said again from fixes before the maneuver")
    return counted.short == 0 ? 0 : 1
  }

  /// What `score-drive --outages` sums over cuts: how many fell short, and the worst figures.
  struct OutageTally {
    var cuts = 0
    var short = 0
    /// Cuts short only where a vehicle carried at its last fix's speed falls short too.
    var beyondCarry = 0
    var compared = 0
    var worstShift = 0.0
    var returns = 0
    var worstReturn = 0.0
    var worstJump = 0.0
    /// Short cuts whose only miss is a jump back with a step back to a maneuver the vehicle had
    /// not reached (``OutageScore/steppedBack``), and those whose only misses are prompts at
    /// steady speed over 2 s early.
    var steppedBack = 0
    var early = 0
    /// Final prompts from estimates, those said far out (``OutageScore/farFinals``), and of
    /// those the ones said again from fixes.
    var finals = 0
    var farFinals = 0
    var farFinalsSaidAgain = 0

    /// Adds the cut scored `s`; returns what it misses of the bar (empty: nothing).
    mutating func add(_ s: OutageScore) -> [String] {
      var misses: [String] = []
      // Whether every miss is one a carry at the last fix's speed makes too.
      var carried = true
      if !s.unprompted.isEmpty {
        misses.append("maneuvers \(s.unprompted) prompted under 2 s or never")
        carried = carried && s.unprompted == s.unpromptedCarried
      }
      // An off-route or a jump back is the engine's, whatever the carry does.
      var engine: [String] = []
      if s.falseOffRoute > 0 { engine.append("\(s.falseOffRoute) off-route") }
      if s.offRouteAfterReturn > 0 { engine.append("off-route within 10 s of the return") }
      if s.backwardJump > 10 {
        let to = s.steppedBack ? " to a maneuver not reached" : ""
        engine.append("jumped \(NMEAWriter.fixed(s.backwardJump, 1)) m back\(to)")
      }
      misses += engine
      carried = carried && engine.isEmpty
      worstJump = max(worstJump, s.backwardJump)
      finals += s.finals
      farFinals += s.farFinals.count
      farFinalsSaidAgain += s.farFinals.count { $0.saidAgain }
      if let e = s.returnError, s.steady, !s.held, s.blindDistance > 0 {
        returns += 1
        worstReturn = max(worstReturn, e / s.blindDistance)
        if e > 0.05 * s.blindDistance {
          carried = carried && (s.carriedReturnError ?? 0) > 0.05 * s.blindDistance
          misses.append(
            "\(NMEAWriter.fixed(e, 1)) m off after \(NMEAWriter.fixed(s.blindDistance, 0)) m blind")
        }
      }
      var shifts: [Double] = []
      for p in s.prompts where p.steady {
        guard let shift = p.shift else { continue }
        compared += 1
        worstShift = max(worstShift, abs(shift))
        if abs(shift) > 2 {
          carried = carried && abs(p.carried ?? 0) > 2
          shifts.append(shift)
          let side = shift < 0 ? "earlier" : "later"
          misses.append("\(p.id) \(NMEAWriter.fixed(abs(shift), 1)) s \(side) than the schedule")
        }
      }
      cuts += 1
      if !misses.isEmpty { short += 1 }
      if misses.count == 1, s.steppedBack, s.backwardJump > 10 { steppedBack += 1 }
      if !shifts.isEmpty, misses.count == shifts.count, shifts.allSatisfy({ $0 < 0 }) { early += 1 }
      if !misses.isEmpty && carried {
        beyondCarry += 1
        misses.append("beyond a carried speed")
      }
      return misses
    }
  }

  /// Seconds a cut's blind span may exceed the longest length scored before it counts as joined
  /// to a gap of the drive's own (a fix interval or two either side of the cut).
  static let joinedSlack = 5.0

  /// The fixes of a whole track: a `t,lat,lon` CSV, a gpsd capture or NMEA.
  static func trackFixes(_ bytes: [UInt8]) throws -> [Fix] {
    if RecordedDrive.isCSV(bytes) { return try RecordedDrive.csvFixes(bytes, start: csvStart) }
    switch TrackKind.detect(bytes, complete: true) ?? .nmea {
    case .nmea:
      return RecordedDrive.nmeaFixes(bytes)
    case .gpsdJSON:
      var reader = GPSDCaptureReader()
      return reader.feed(bytes) + reader.finish()
    }
  }

  static func scoreObject(_ s: RecordedDriveScore) -> JSONObject {
    let q = s.quality
    var o = JSONObject()
    o.append("name", .string(q.name))
    o.append("clean", .bool(s.violations().isEmpty))
    o.append("violations", .array(s.violations().map { .string($0) }))
    o.append("departureFirst", .bool(s.departureFirst))
    o.append("maneuvers", .number(Double(q.maneuvers)))
    o.append("unprompted", .number(Double(s.unprompted)))
    o.append("shortLeads", .number(Double(s.shortLeads)))
    o.append("leadTimes", .array(q.leadTimes.map { .number($0) }))
    o.append("leadMinimum", q.leadMinimum.map { .number($0) } ?? .null)
    o.append("offRoute", .number(Double(s.offRoute)))
    o.append("arrivalError", q.arrivalError.map { .number($0) } ?? .null)
    o.append("duplicates", .number(Double(q.duplicates)))
    o.append("notes", .array(q.notes.map { .string($0) }))
    return o
  }
}
