import Foundation
import Geodesy
import JSON
import Lab
import Routes
import Simulation
import TestSupport
import Testing

/// `stepwise scenario score-drive ROUTE TRACK`: a recorded drive scored against the path driven,
/// on drives the simulator makes (issue #35).
@Suite struct ScoreDriveCommandTests {
  static let route = "Simulations/001-marais-drive/route.json"

  static func drive() throws -> SimulatedDrive {
    let scenario = try Scenario(directory: repositoryFile("Simulations/001-marais-drive"))
    var o = DriveOptions()
    o.profile = .town
    o.noise = 3
    o.seed = 11
    return DriveSimulator.drive(try scenario.document.route(at: 0), options: o)
  }

  /// `scenario make` writes the transcript of the track it has just made: its recipe changed
  /// (an outage added), the transcript says the outage, and `scenario run` then passes.
  @Test func makeWritesTheTranscriptOfTheNewTrack() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let dir = scratch.file("marais")
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: repositoryFile(Self.route), toPath: dir + "/route.json")
    func recipe(_ simulate: String) throws {
      try #"{"description": "", "locale": "en", "units": "metric", "simulate": \#(simulate)}"#
        .write(toFile: dir + "/scenario.json", atomically: true, encoding: .utf8)
    }
    try recipe(#"{"noise": 3, "seed": 11}"#)
    #expect(try runTool("stepwise", ["scenario", "make", dir]).status == 0)
    try recipe(#"{"noise": 3, "seed": 11, "gaps": [[100, 20]]}"#)
    let made = try runTool("stepwise", ["scenario", "make", dir])
    #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
    let transcript = try String(contentsOfFile: dir + "/expected.jsonl", encoding: .utf8)
    #expect(transcript.contains(#""status":"lost""#), "\(transcript)")
    let run = try runTool("stepwise", ["scenario", "run", dir])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
  }

  @Test func aWholeDriveIsCleanAndOneCutShortFails() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var drive = try Self.drive()
    try drive.nmea().write(toFile: scratch.file("whole.nmea"), atomically: true, encoding: .utf8)
    let whole = try runTool(
      "stepwise", ["scenario", "score-drive", Self.route, scratch.file("whole.nmea")])
    #expect(whole.status == 0, "\(whole.stdout)\(whole.stderr)")
    #expect(whole.stdout.contains(": clean: "), "\(whole.stdout)")

    drive.fixes = Array(drive.fixes.prefix(drive.fixes.count / 2))
    drive.sigmas = Array(drive.sigmas.prefix(drive.fixes.count))
    try drive.nmea().write(toFile: scratch.file("half.nmea"), atomically: true, encoding: .utf8)
    let half = try runTool(
      "stepwise", ["scenario", "score-drive", Self.route, scratch.file("half.nmea")])
    #expect(half.status == 1)
    #expect(half.stdout.contains(": FAIL ") && half.stdout.contains("no arrival"), "\(half.stdout)")

    let json = try runTool(
      "stepwise", ["scenario", "score-drive", "--json", Self.route, scratch.file("half.nmea")])
    #expect(json.status == 1)
    guard case .object(let o) = try JSONParser.parse(json.stdout) else {
      Issue.record("not a JSON object: \(json.stdout)")
      return
    }
    #expect(o["clean"]?.boolValue == false)
    #expect(o["violations"]?.arrayValue?.contains { $0.stringValue == "no arrival" } == true)
  }

  /// `--outage AT+LEN`: what guidance said through one cut (estimates said as such, the loss
  /// and the return), then the cut's score; a cut that cuts no fix is refused.
  @Test func oneOutageShowsWhatGuidanceSaidThroughIt() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let drive = try Self.drive()
    try drive.nmea().write(toFile: scratch.file("whole.nmea"), atomically: true, encoding: .utf8)
    let r = try runTool(
      "stepwise",
      ["scenario", "score-drive", Self.route, scratch.file("whole.nmea"), "--outage", "40+20"])
    #expect([0, 1].contains(r.status), "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    let last = try #require(lines.last)
    #expect(last.hasPrefix("40+20 s: "), "\(last)")
    #expect((last == "40+20 s: meets the bar") == (r.status == 0), "\(last)")
    let events = lines.dropLast().compactMap { try? JSONParser.parse($0) }
    #expect(events.count == lines.count - 1, "every line but the last is an event")
    #expect(r.stdout.contains(#""status":"lost""#) && r.stdout.contains(#""estimated":true"#))
    #expect(r.stdout.contains(#""status":"acquired""#) || r.stdout.contains("restored"))

    let none = try runTool(
      "stepwise",
      ["scenario", "score-drive", Self.route, scratch.file("whole.nmea"), "--outage", "99999+20"])
    #expect(none.status == 2 && none.stderr.contains("cuts no fix"), "\(none.stderr)")
    let bad = try runTool(
      "stepwise",
      ["scenario", "score-drive", Self.route, scratch.file("whole.nmea"), "--outage", "40"])
    #expect(bad.status == 2 && bad.stderr.contains("--outage takes AT+LEN"), "\(bad.stderr)")
  }

  @Test func aCSVTrackIsReadWithItsSpeedAndCourse() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let drive = try Self.drive()
    let t0 = drive.fixes[0].time
    var csv = "t_rel_s,lat,lon\n"
    for f in drive.fixes {
      guard let c = f.coordinate else { continue }
      csv += "\(f.time - t0),\(c.latitude),\(c.longitude)\n"
    }
    try csv.write(toFile: scratch.file("track.csv"), atomically: true, encoding: .utf8)
    let r = try runTool(
      "stepwise", ["scenario", "score-drive", Self.route, scratch.file("track.csv")])
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains(": clean: "), "\(r.stdout)")
  }
}
