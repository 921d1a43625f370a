import Foundation
import JSON
import TestSupport
import Testing

@testable import stepwise

/// `stepwise fixes`: the fixes of a track, readable or as gpsd TPV objects, compared with what
/// gpsd itself printed for the same captures (the `.chk` files of its regression suite).
@Suite(.blocking) struct FixesCommandTests {
  static let folder = "Tests/Fixtures/nmea"
  static var captures: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: repositoryFile(folder))) ?? [])
      .filter { $0.hasSuffix(".log.chk") }.map { String($0.dropLast(4)) }.sorted()
  }

  /// The positions of TPV lines by time; a later TPV of the same time replaces an earlier one
  /// (gpsd reports an epoch again as more sentences of it arrive).
  static func positions(_ text: String) -> [String: (lat: Double, lon: Double)] {
    var out: [String: (lat: Double, lon: Double)] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("{") {
      guard case .object(let o)? = try? JSONParser.parse(String(line)),
        o["class"]?.stringValue == "TPV", (o["mode"]?.doubleValue ?? 0) >= 2,
        let time = o["time"]?.stringValue, let lat = o["lat"]?.doubleValue,
        let lon = o["lon"]?.doubleValue
      else { continue }
      out[time] = (lat, lon)
    }
    return out
  }

  @Test(arguments: captures)
  func positionsMatchGpsdsWhereBothAcceptAnEpoch(_ capture: String) throws {
    let r = try runTool("stepwise", ["fixes", "--json", "\(Self.folder)/\(capture)"])
    #expect(r.status == 0, "\(r.stderr)")
    let ours = Self.positions(r.stdout)
    let expected = try String(
      contentsOfFile: repositoryFile("\(Self.folder)/\(capture).chk"), encoding: .utf8)
    let gpsd = Self.positions(expected)
    let common = Set(ours.keys).intersection(gpsd.keys)
    // Most of gpsd's epochs are ours too (Stepwise refuses some gpsd accepts: RMC V, GGA 0).
    #expect(common.count * 2 >= gpsd.count, "\(common.count) of gpsd's \(gpsd.count) epochs")
    for time in common.sorted() {
      let a = ours[time]!
      let b = gpsd[time]!
      #expect(abs(a.lat - b.lat) <= 1e-6 && abs(a.lon - b.lon) <= 1e-6, "\(time): \(a) vs \(b)")
    }
  }

  /// Every line of `--json` is a TPV with gpsd's fields; the readable form has one line per fix.
  @Test func jsonLinesAreTPVsAndReadableLinesMatchThem() throws {
    let track = "\(Self.folder)/ublox-8.log"
    let json = try runTool("stepwise", ["fixes", "--json", track])
    let readable = try runTool("stepwise", ["fixes", track])
    #expect(json.status == 0 && readable.status == 0, "\(json.stderr)\(readable.stderr)")
    let objects = json.stdout.split(separator: "\n").compactMap {
      try? JSONParser.parse(String($0)).objectValue
    }
    #expect(!objects.isEmpty)
    #expect(objects.count == json.stdout.split(separator: "\n").count)
    for o in objects {
      #expect(o["class"]?.stringValue == "TPV")
      #expect(o["time"]?.stringValue?.hasSuffix("Z") == true)
      #expect(o["mode"]?.doubleValue != nil)
    }
    let lines = readable.stdout.split(separator: "\n")
    #expect(lines.count == objects.count)
    if let first = lines.first, let time = objects.first?["time"]?.stringValue {
      #expect(first.hasPrefix(time))
    }
  }

  /// A gpsd capture works the same way, and --verbose explains what was rejected.
  @Test func aGpsdCaptureAndTheRejectedLines() throws {
    let capture = try runTool(
      "stepwise",
      ["fixes", "--json", "Tests/Fixtures/gpsd/003-missed-turn.gpspipe-w.json"])
    #expect(capture.status == 0, "\(capture.stderr)")
    #expect(Self.positions(capture.stdout).count > 100)
    let verbose = try runTool("stepwise", ["fixes", "--verbose", "\(Self.folder)/garmin48.log"])
    #expect(verbose.status == 0)
    #expect(verbose.stderr.contains("bad checksum"), "\(verbose.stderr)")
    #expect(verbose.stderr.contains("1 rejected"), "\(verbose.stderr)")
  }

  /// GGA gives the time of day only: until an RMC gives the date, a fix has a time of day and
  /// no date, and its TPV no time (gpsd leaves the time out); never 1970-01-01.
  @Test func aFixBeforeTheReceiverGaveADateHasNoDate() throws {
    let track = NMEATestInput.sentences(
      "GPGGA,191434.00,4851.2000,N,00221.3000,E,1,08,0.9,35.0,M,47.0,M,,",
      "GPGGA,191435.00,4851.2010,N,00221.3000,E,1,08,0.9,35.0,M,47.0,M,,",
      "GPRMC,191436.00,A,4851.2020,N,00221.3000,E,0.5,10.0,010524,,,A",
      "GPGGA,191436.00,4851.2020,N,00221.3000,E,1,08,0.9,35.0,M,47.0,M,,",
      "GPGGA,191437.00,4851.2030,N,00221.3000,E,1,08,0.9,35.0,M,47.0,M,,")
    let readable = try runTool("stepwise", ["fixes", "-"], stdin: Data(track.utf8))
    #expect(readable.status == 0, "\(readable.stderr)")
    let lines = readable.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 4, "\(readable.stdout)")
    #expect(lines.first?.hasPrefix("19:14:34.000Z (no date)  48.8533333 2.355") == true, "\(lines)")
    #expect(lines.dropFirst().first?.hasPrefix("19:14:35.000Z (no date)") == true, "\(lines)")
    #expect(lines.dropFirst(2).first?.hasPrefix("2024-05-01T19:14:36.000Z") == true, "\(lines)")
    #expect(lines.last?.hasPrefix("2024-05-01T19:14:37.000Z") == true, "\(lines)")
    #expect(!readable.stdout.contains("1970"))
    let json = try runTool("stepwise", ["fixes", "--json", "-"], stdin: Data(track.utf8))
    let times = json.stdout.split(separator: "\n").map {
      (try? JSONParser.parse(String($0)))?["time"]?.stringValue
    }
    #expect(times == [nil, nil, "2024-05-01T19:14:36.000Z", "2024-05-01T19:14:37.000Z"])
  }
}

/// Every command is in `stepwise --help` and in the man page, and the tool knows it.
@Suite(.blocking) struct HelpListsEveryCommandTests {
  @Test func everyCommandIsListedAndKnown() throws {
    let help = try runTool("stepwise", ["--help"])
    #expect(help.status == 0)
    let page = try String(contentsOfFile: repositoryFile("docs/stepwise.1.md"), encoding: .utf8)
    for command in StepwiseTool.commands {
      let listed = help.stdout.split(separator: "\n").contains {
        $0.trimmingCharacters(in: .whitespaces).hasPrefix(command + " ")
          || $0.trimmingCharacters(in: .whitespaces) == command
      }
      #expect(listed, "\(command) is not in stepwise --help")
      #expect(page.contains("**\(command)"), "\(command) is not in docs/stepwise.1.md")
      let r = try runTool("stepwise", [command, "--help"])
      #expect(!r.stderr.contains("unknown command"), "\(command): \(r.stderr)")
    }
    #expect(help.stdout.contains("routes") && help.stdout.contains("--socket"))
  }
}
