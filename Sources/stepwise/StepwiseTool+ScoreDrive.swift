import CommandLineSupport
import GPSDProtocol
import Geodesy
import JSON
import Lab
import POSIX
import Phrasebook
import RouteFiles
import Routes

extension StepwiseTool {
  static let scoreDriveUsage = """
    usage: stepwise scenario score-drive ROUTE TRACK [--json] [--route-index N] [--locale L]

    Replays a recorded drive through the pipeline the scenarios use and scores it against ROUTE,
    which must be the path driven (so any off-route is false). TRACK is an NMEA log, a gpsd
    capture (gpspipe -w) or a t,lat,lon CSV (relative seconds; speed and course from the fixes
    either side). Prints one line: clean, or FAIL and what falls short of the bar (every maneuver
    prompted, as its own announcement or the "then" of the one before, at least 2 s before it is
    reached; the departure said first; no off-route; arrival within 25 m); exits 1 on a
    shortfall. --json writes the details as one JSON object instead.
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
    let score = try drive.score(name: rest[1])
    out.line(json ? JSONWriter.string(.object(scoreObject(score))) : score.verdict)
    return score.violations().isEmpty ? 0 : 1
  }

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
