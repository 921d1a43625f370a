import Foundation
import Geodesy
import NMEA
import TestSupport
import Testing

/// The real-receiver captures in `Fixtures/nmea` (gpsd's regression logs, BSD-2-Clause).
@Suite struct NMEACorpusTests {
  typealias Input = NMEATestInput

  static let captures = [
    "ac12.log", "april6_2019.log", "beidou-bd.log", "bu353-glonass.log", "et-332.log",
    "furuno_gl_ga.log", "garmin-geko201.log", "garmin48.log", "gp-320fw-2019-04-06-overflow.log",
    "gpsdf.log", "haicom-305N.log", "holux-gm-210.log", "hp58534a.log", "iTrek.log", "isync.log",
    "jl-micro-jlt.log", "nl2008u.log", "nmea-fuzzy-cases.log", "quectel-eg25-g.log",
    "quectelLC79D.log", "sl869.log", "st-teseo-liv4f.log", "telit-he910.log", "telit-pls83-w.log",
    "tn200.log", "ublox-8.log", "ublox-f9p-hpnmea.log", "ublox-neo-m9n-nmea.log",
  ]

  static func run(_ name: String, chunk: Int? = nil) throws -> NMEARun {
    let bytes = try #require(Input.fixture(name), "missing fixture \(name)")
    return Input.read(bytes, chunk: chunk)
  }

  @Test func theFixtureDirectoryHoldsEveryCaptureAndItsLicence() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Input.fixtureDirectory)
    #expect(Set(names.filter { $0.hasSuffix(".log") }) == Set(Self.captures))
    #expect(names.contains("COPYING.gpsd"))
  }

  @Test(arguments: captures)
  func everyCaptureIsReadWithoutCrashingInAnyChunking(name: String) throws {
    let whole = try Self.run(name)
    let s = whole.statistics
    #expect(s.epochs == whole.fixes.count)
    #expect(s.noFixEpochs == whole.fixes.filter { $0.coordinate == nil }.count)
    #expect(s.rejected == whole.rejections.count)
    for (a, b) in zip(whole.fixes, whole.fixes.dropFirst()) {
      #expect(
        b.time > a.time, "\(name): \(UTCTime.iso8601(a.time)) then \(UTCTime.iso8601(b.time))")
    }
    for fix in whole.fixes {
      if let c = fix.coordinate {
        #expect(c.isValid)
        #expect(fix.quality != FixQuality.none)
      } else {
        #expect(fix.quality == FixQuality.none)
      }
    }
    for chunk in [1, 5, 61, 4096] {
      let split = try Self.run(name, chunk: chunk)
      #expect(split.fixes == whole.fixes, "\(name), chunk \(chunk)")
      #expect(split.statistics == whole.statistics, "\(name), chunk \(chunk)")
      #expect(split.rejections == whole.rejections, "\(name), chunk \(chunk)")
    }
  }

  /// Positions of gpsd 3.27's TPV reports, by time in milliseconds.
  static func gpsdPositions(_ name: String) throws -> [Int: [Coordinate]] {
    let bytes = try #require(Input.fixture(name + ".chk"))
    let prefix = Array(#"{"class":"TPV""#.utf8)
    var positions: [Int: [Coordinate]] = [:]
    for line in bytes.split(separator: 10) where line.starts(with: prefix) {
      let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
      guard let o = object, let text = o["time"] as? String, let time = UTCTime.parseISO8601(text),
        let lat = o["lat"] as? Double, let lon = o["lon"] as? Double, (o["mode"] as? Int ?? 0) >= 2
      else { continue }
      positions[Int((time * 1000).rounded()), default: []].append(
        Coordinate(latitude: lat, longitude: lon))
    }
    return positions
  }

  /// Captures compared with gpsd, and how many of our fixes must find a gpsd fix at the same
  /// time.
  ///
  /// Garmin 48: gpsd reports each RMC/GGA cycle at the GLL's time one second later, so only the GLL
  /// epochs (and the first cycle) line up.
  @Test(arguments: [
    ("garmin48.log", 8), ("nl2008u.log", 9), ("ublox-8.log", 72), ("ublox-f9p-hpnmea.log", 9),
    ("ac12.log", 7), ("april6_2019.log", 1),
  ])
  func positionsAgreeWithGpsdWithinAMicrodegree(name: String, minimum: Int) throws {
    let gpsd = try Self.gpsdPositions(name)
    let run = try Self.run(name)
    var compared = 0
    for fix in run.fixes {
      guard let c = fix.coordinate, let theirs = gpsd[Int((fix.time * 1000).rounded())] else {
        continue
      }
      compared += 1
      let agrees = theirs.contains {
        abs($0.latitude - c.latitude) <= 1e-6 && abs($0.longitude - c.longitude) <= 1e-6
      }
      #expect(agrees, "\(name) at \(UTCTime.iso8601(fix.time)): \(c) vs \(theirs)")
    }
    #expect(compared >= minimum, "\(name): only \(compared) fixes compared")
  }

  @Test func tn200GivesOnlyNoFixEpochs() throws {
    let run = try Self.run("tn200.log")
    #expect(run.fixes.count == 19)
    #expect(run.fixes.allSatisfy { $0.coordinate == nil })
    #expect(run.statistics.noFixEpochs == 19)
    // Its RMC V carries latitude 36000.0000: ignored, not rejected.
    #expect(run.statistics.rejected == 0)
  }

  @Test func garminGekoInDemoModeIsNeverAFix() throws {
    // GGA quality 8 (simulated) says valid, RMC V and GLL V say not: no fix.
    let run = try Self.run("garmin-geko201.log")
    #expect(run.fixes.count == 18)
    #expect(run.fixes.allSatisfy { !$0.isValid })
    #expect(run.statistics.badChecksum == 1)  // $GPBOD,,T,,M,,* with no digits
  }

  @Test func teseoDoubleDollarLinesYieldFixes() throws {
    let run = try Self.run("st-teseo-liv4f.log")
    #expect(run.fixes.count == 12)
    #expect(run.fixes.allSatisfy { $0.isValid })
    #expect(run.statistics.sentences + run.statistics.skipped == 329)
    #expect(run.statistics.badChecksum == 1)
    #expect(run.statistics.rejected == 1)
    #expect(run.fixes.first?.horizontalAccuracy != nil)  // GST
  }

  @Test func gpsdForwarderFakeChecksumsAreCountedAsBad() throws {
    let run = try Self.run("gpsdf.log")
    #expect(run.statistics.badChecksum == 46)
    let bad = run.rejections.filter {
      if case .badChecksum(_, actual: 0x00) = $0.reason { return $0.text.hasPrefix("$PGLOR,4,PWR") }
      return false
    }
    #expect(bad.count == 46)
    #expect(run.fixes.count == 51)
    #expect(run.fixes.allSatisfy { $0.isValid })
  }

  @Test func hp58534aSendsNoChecksumsAtAll() throws {
    let run = try Self.run("hp58534a.log")
    #expect(run.statistics.missingChecksum == 13)
    #expect(run.statistics.rejected == 0)
    #expect(run.fixes.count == 2)
    let fix = try #require(run.fixes.first)
    #expect(fix.time == Input.time(2010, 10, 25, 22, 24, 49))  // date from ZDA
    let latitude = try #require(fix.coordinate?.latitude)
    let expected: Double = -(33 + 49.0337 / 60)
    #expect(abs(latitude - expected) < 1e-12)
    #expect(fix.altitude == 115.4)
    #expect(fix.course == 318.0)  // from VTG
  }

  @Test func ubloxHighPrecisionKeepsSevenDecimalMinutes() throws {
    let run = try Self.run("ublox-f9p-hpnmea.log")
    #expect(run.fixes.count == 9)
    let c = try #require(run.fixes.first?.coordinate)
    // $GNGGA,014500.00,4404.1306024,N,12118.8446777,W,2,… (the RMC has the same digits)
    #expect(abs(c.latitude - (44 + 4.1306024 / 60)) < 1e-12)
    #expect(abs(c.longitude + (121 + 18.8446777 / 60)) < 1e-12)
    #expect(run.fixes.first?.quality == .dgps)
    #expect(run.statistics.overlong == 0)
  }

  @Test func april2019RolloverDatesAreTakenAsSent() throws {
    let run = try Self.run("april6_2019.log")
    // Line 15's RMC has the date "2208-1" and is rejected; line 16 says 220899.
    #expect(run.rejections.map(\.line) == [15])
    #expect(run.rejections.first?.reason == .malformed(field: "date"))
    #expect(run.fixes.count == 1)
    #expect(abs(try #require(run.fixes.first).time - Input.time(1999, 8, 22, 0, 2, 31.42)) < 1e-6)
  }

  @Test func ac12ZDATimesAheadOfTheFixDoNotHoldBackTheFixes() throws {
    // RMC/GGA at :21, ZDA at :23, then RMC/GGA at :22, ZDA at :24, … The ZDA-only epochs say
    // nothing about the fix, so they are not emitted (gpsd emits them as mode-0 TPVs) and do
    // not count as "already emitted" for the out-of-order check.
    let run = try Self.run("ac12.log")
    let start = Input.time(2007, 12, 23, 19, 32, 21)
    #expect(run.fixes.map(\.time) == (0..<7).map { start + Double($0) })
    #expect(run.fixes.allSatisfy { $0.isValid })
    #expect(run.statistics.outOfOrder == 0)
    #expect(run.statistics.noFixEpochs == 0)
  }

  @Test func telitRestartingItsClockDropsTheOlderEpoch() throws {
    // 10:51:53.71 is emitted, then the receiver sends 10:51:53.408: older, so dropped.
    let run = try Self.run("telit-he910.log")
    #expect(run.statistics.outOfOrder == 5)
    #expect(run.rejections.map(\.line) == [267, 268, 269, 272, 273])
    #expect(run.fixes.count == 186)
    // Its 37 no-fix cycles carry no time at all, so they cannot be emitted.
    #expect(run.statistics.noFixEpochs == 0)
  }

  @Test func holuxPartialLastSentenceIsMalformedNotAFix() throws {
    let run = try Self.run("holux-gm-210.log")
    #expect(run.statistics.missingChecksum == 1)
    #expect(run.statistics.malformed == 1)
    #expect(run.fixes.count == 11)
    #expect(run.fixes.allSatisfy { !$0.isValid })
  }

  @Test func et332TerminalEscapesAndSatelliteListsAreRejected() throws {
    let run = try Self.run("et-332.log")
    #expect(run.statistics.badChecksum == 1)
    #expect(run.rejections.contains { $0.line == 105 && $0.text.contains("\\x1B[H") })
    #expect(run.statistics.garbage == 34)
    #expect(run.fixes.count == 19)
  }

  @Test func isyncCollisionRejectsTheCutSentenceAndItsTail() throws {
    let run = try Self.run("isync.log")
    #expect(run.rejections.map(\.reason) == [.truncated, .garbage])
    #expect(run.rejections.map(\.line) == [54, 55])
    #expect(run.fixes.count == 12)
  }

  @Test func ublox8BinaryAndTruncatedLastLine() throws {
    let run = try Self.run("ublox-8.log")
    #expect(run.statistics.garbage == 1)
    #expect(run.statistics.malformed == 1)
    #expect(run.rejections.last?.line == 1019)
    #expect(run.fixes.count == 72)
  }

  @Test func quectelPowerReportsAreOverlong() throws {
    let run = try Self.run("quectelLC79D.log")
    #expect(run.statistics.overlong == 30)
    #expect(run.rejections.allSatisfy { $0.text.hasPrefix("$PGLOR,4,PWR") })
    #expect(run.fixes.count == 30)
  }

  @Test func telitPLS83PrefersTheCombinedSolution() throws {
    let run = try Self.run("telit-pls83-w.log")
    #expect(run.fixes.count == 10)
    #expect(run.fixes.allSatisfy { $0.satellites == 14 })  // GNGNS, not GPGGA's 5
  }

  @Test func gpsWeekRolloverSimulatorCaptureStartsBeforeItsFirstDate() throws {
    let run = try Self.run("gp-320fw-2019-04-06-overflow.log")
    // The first GLL comes before any RMC or ZDA: dated 1970-01-01, as documented.
    #expect(abs(run.fixes[0].time - (23 * 3600 + 57 * 60 + 23.02)) < 1e-6)
    #expect(abs(run.fixes[1].time - Input.time(2019, 4, 6, 23, 57, 24.02)) < 1e-6)
  }
}
