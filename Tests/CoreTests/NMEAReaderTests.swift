import Geodesy
import NMEA
import TestSupport
import Testing

@Suite struct NMEAReaderTests {
  typealias Input = NMEATestInput

  static let rmc = "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"
  static let gga = "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
  static let epoch1994 = NMEATestInput.time(1994, 3, 23, 12, 35, 19)

  // MARK: - Checksums

  @Test func checksumHelperMatchesTheTextbookSentences() {
    #expect(NMEASentence.checksum(Array(Self.gga.utf8)) == 0x47)
    #expect(NMEASentence.checksum(Array(Self.rmc.utf8)) == 0x6A)
    #expect(NMEASentence.frame(Self.gga) == "$" + Self.gga + "*47\r\n")
    #expect(
      NMEASentence.frame("GPTXT,x").hasSuffix(
        "*\(hex(NMEASentence.checksum(Array("GPTXT,x".utf8))))\r\n"))
  }

  @Test func goodChecksumIsAccepted() {
    let run = Input.read("$\(Self.rmc)*6A\r\n")
    #expect(run.statistics.sentences == 1)
    #expect(run.statistics.badChecksum == 0)
    #expect(run.statistics.missingChecksum == 0)
    #expect(run.fixes.count == 1)
  }

  @Test func badChecksumDropsTheSentenceAndSaysWhatWasExpected() {
    let run = Input.read("$\(Self.rmc)*6B\r\n")
    #expect(run.fixes.isEmpty)
    #expect(run.statistics.badChecksum == 1)
    #expect(run.statistics.sentences == 0)
    #expect(
      run.rejections == [
        NMEARejection(
          line: 1, reason: .badChecksum(expected: 0x6A, actual: 0x6B), text: "$\(Self.rmc)*6B")
      ])
    #expect(
      run.rejections.first?.reason.description == "bad checksum: sentence says *6B, bytes give *6A")
  }

  @Test func unreadableChecksumCountsAsBad() {
    for tail in ["*", "*6", "*6AA", "*G1", "*6A\u{1B}[H"] {
      let run = Input.read("$\(Self.rmc)\(tail)\n")
      #expect(run.statistics.badChecksum == 1, "\(tail)")
      #expect(run.rejections.first?.reason == .badChecksum(expected: 0x6A, actual: nil), "\(tail)")
    }
  }

  @Test func missingChecksumIsAcceptedButCounted() {
    let run = Input.read("$\(Self.rmc)\r\n$\(Self.gga)\r\n")
    #expect(run.statistics.missingChecksum == 2)
    #expect(run.statistics.sentences == 2)
    #expect(run.statistics.rejected == 0)
    #expect(run.fixes.count == 1)
    #expect(run.fixes.first?.altitude == 545.4)
  }

  @Test func missingChecksumStillNeedsTheFullFieldCount() {
    let run = Input.read("$GPGGA,012530.562,4131.7353,N,09336.8150,W,0,00,50.\n")
    #expect(run.statistics.missingChecksum == 1)
    #expect(run.statistics.malformed == 1)
    #expect(run.fixes.isEmpty)
  }

  @Test func lowercaseHexChecksumIsAccepted() {
    let run = Input.read("$\(Self.rmc)*6a\r\n")
    #expect(run.statistics.sentences == 1)
    #expect(run.statistics.badChecksum == 0)
  }

  // MARK: - Sentence types

  @Test func rmcGivesTimeDatePositionSpeedAndCourse() throws {
    let fix = try #require(Input.read(Input.sentences(Self.rmc)).fixes.first)
    #expect(fix.time == Self.epoch1994)
    let c = try #require(fix.coordinate)
    #expect(abs(c.latitude - (48 + 7.038 / 60)) < 1e-12)
    #expect(abs(c.longitude - (11 + 31.0 / 60)) < 1e-12)
    #expect(abs(try #require(fix.speed) - 22.4 * 1852 / 3600) < 1e-12)
    #expect(fix.course == 84.4)
    #expect(fix.quality == .gps)
    #expect(fix.altitude == nil)
    #expect(fix.horizontalAccuracy == nil)
  }

  @Test func southAndWestAreNegative() throws {
    let run = Input.read(
      Input.sentences("GPRMC,000000,A,3349.0337,S,01843.9282,W,0.0,0.0,010120,,,A"))
    let c = try #require(run.fixes.first?.coordinate)
    #expect(c.latitude < 0 && c.longitude < 0)
  }

  @Test func ggaGivesAltitudeSatellitesHDOPAndQuality() throws {
    let fix = try #require(Input.read(Input.sentences(Self.gga)).fixes.first)
    // No date yet: the day is 1970-01-01.
    #expect(fix.time == 12 * 3600 + 35 * 60 + 19)
    #expect(fix.altitude == 545.4)
    #expect(fix.satellites == 8)
    #expect(fix.hdop == 0.9)
    #expect(fix.quality == .gps)
    #expect(fix.speed == nil)
  }

  @Test func gnsGivesAFixFromItsModeString() throws {
    let run = Input.read(
      Input.sentences(
        "GNGNS,074155.799,3114.8770,N,12135.2463,E,ANNA,05,1.3,156.9,8.3,,0000,V"))
    let fix = try #require(run.fixes.first)
    #expect(fix.isValid)
    #expect(fix.satellites == 5)
    #expect(fix.altitude == 156.9)
    #expect(abs(fix.time - (7 * 3600 + 41 * 60 + 55.799)) < 1e-9)
  }

  @Test func gnsModeStringPicksTheBestQuality() throws {
    let run = Input.read(
      Input.sentences("GNGNS,010101,3114.8770,N,12135.2463,E,ANRD,05,1.3,156.9,8.3,,"))
    #expect(run.fixes.first?.quality == .rtk)
  }

  @Test func gllGivesAFix() throws {
    let run = Input.read(Input.sentences("GPGLL,4916.45,N,12311.12,W,225444,A,A"))
    let fix = try #require(run.fixes.first)
    #expect(abs(try #require(fix.coordinate?.latitude) - (49 + 16.45 / 60)) < 1e-12)
    #expect(fix.time == 22 * 3600 + 54 * 60 + 44)
  }

  @Test func vtgSuppliesSpeedAndCourseWhenThereIsNoRMC() throws {
    let run = Input.read(
      Input.sentences(Self.gga, "GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A"))
    let fix = try #require(run.fixes.first)
    #expect(fix.course == 54.7)
    #expect(abs(try #require(fix.speed) - 5.5 * 1852 / 3600) < 1e-12)
  }

  @Test func vtgBeforeNMEA301HasNoUnitLetters() throws {
    let run = Input.read(Input.sentences(Self.gga, "GPVTG,054.7,034.4,005.5,010.2"))
    let fix = try #require(run.fixes.first)
    #expect(fix.course == 54.7)
    #expect(abs(try #require(fix.speed) - 5.5 * 1852 / 3600) < 1e-12)
  }

  @Test func vtgKilometresPerHourAreUsedWhenKnotsAreMissing() throws {
    let run = Input.read(Input.sentences(Self.gga, "GPVTG,054.7,T,,M,,N,36.0,K,A"))
    #expect(abs(try #require(run.fixes.first?.speed) - 10) < 1e-12)
  }

  @Test func rmcSpeedWinsOverVTG() throws {
    let run = Input.read(
      Input.sentences(Self.rmc, "GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A"))
    let fix = try #require(run.fixes.first)
    #expect(fix.course == 84.4)
    #expect(abs(try #require(fix.speed) - 22.4 * 1852 / 3600) < 1e-12)
  }

  @Test func gstGivesOneSigmaHorizontalAccuracy() throws {
    let run = Input.read(
      Input.sentences(Self.gga, "GPGST,123519,11,,,,3.0,4.0,1.1"))
    #expect(try #require(run.fixes.first?.horizontalAccuracy) == 5)
  }

  @Test func zdaGivesTheDateAndWinsOverRMC() throws {
    let run = Input.read(
      Input.sentences(
        "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
        "GPZDA,123519,24,03,2094,00,00"))
    #expect(run.fixes.first?.time == Input.time(2094, 3, 24, 12, 35, 19))
  }

  @Test func zdaDatesTheEpochsThatFollow() throws {
    let run = Input.read(
      Input.sentences(
        "GPZDA,222449,25,10,2010,+00,00",
        "GPGGA,222450,3349.0337,S,01843.9282,E,1,07,02.31,115.4,M,33.3,M,,"))
    #expect(run.fixes.map(\.time) == [Input.time(2010, 10, 25, 22, 24, 50)])
  }

  @Test(arguments: ["GQ", "GI", "BD", "GB", "GA", "GL", "QZ", "II", "IN"])
  func anyTwoLetterTalkerIsRead(talker: String) {
    let run = Input.read(
      Input.sentences("\(talker)RMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"))
    #expect(run.statistics.sentences == 1)
    #expect(run.fixes.first?.isValid == true)
  }

  @Test func proprietaryUnknownAndGSVSentencesAreSkipped() {
    let run = Input.read(
      Input.sentences(
        "PGRME,9.1,M,15.0,M,12.0,M", "PUBX,00,x", "GPGSV,3,1,11,01,78,221,47",
        "GPTXT,01,01,02,hello", "GPRMB,A,,,,,,,,,,,,V", "SNRSTAT,1"))
    #expect(run.statistics.skipped == 6)
    #expect(run.statistics.rejected == 0)
    #expect(run.fixes.isEmpty)
  }

  @Test func lowercaseAddressIsMalformed() {
    let run = Input.read(Input.sentences("gprmc,123519,A,4807.038,N,01131.000,E,1,2,230394,,"))
    #expect(run.statistics.malformed == 1)
    #expect(run.rejections.first?.reason == .malformed(field: "address"))
  }

  @Test func unreadableFieldsAreMalformed() {
    let bodies = [
      "GPRMC,123519,A,48 7.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
      "GPRMC,123519,A,4807.038,X,01131.000,E,022.4,084.4,230394,003.1,W",
      "GPRMC,123519,A,4860.000,N,01131.000,E,022.4,084.4,230394,003.1,W",
      "GPRMC,126019,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
      "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,2303-4,003.1,W",
      "GPRMC,123519,A,4807.038,N,01131.000,E,02x.4,084.4,230394,003.1,W",
      "GPGGA,123519,4807.038,N,01131.000,E,Q,08,0.9,545.4,M,46.9,M,,",
      "GPGSA,A,7,,,,,,,,,,,,,1,1,1",
    ]
    for body in bodies {
      let run = Input.read(Input.sentences(body))
      #expect(run.statistics.malformed == 1, "\(body)")
      #expect(run.fixes.isEmpty, "\(body)")
    }
  }

  @Test func aPositionIsIgnoredNotRejectedWhenTheSentenceSaysItIsInvalid() {
    // SiRF-II sends latitude 36000.0000 with status V.
    let run = Input.read(
      Input.sentences("GPRMC,000416.984,V,36000.0000,N,72000.0000,E,0.000000,,260120,,"))
    #expect(run.statistics.malformed == 0)
    #expect(run.fixes.count == 1)
    #expect(run.fixes.first?.coordinate == nil)
    #expect(abs((run.fixes.first?.time ?? 0) - Input.time(2020, 1, 26, 0, 4, 16.984)) < 1e-6)
  }

  // MARK: - Epochs

  @Test func oneEpochMergesRMCGGAGSAAndGST() throws {
    let run = Input.read(
      Input.sentences(
        "GPRMC,131519.00,A,4153.85990,N,08738.63638,W,0.048,12.5,030216,,,D",
        "GPVTG,,T,,M,0.048,N,0.089,K,D",
        "GPGGA,131519.00,4153.85991,N,08738.63638,W,2,12,0.95,218.1,M,-33.8,M,,0000",
        "GPGSA,A,3,20,29,13,15,21,05,18,02,51,26,16,30,1.62,0.95,1.31",
        "PTNTA,20160203131536,2,T4,000000066,+108,3,0,3",
        "GPGST,131519.00,11,,,,0.70,0.49,1.1",
        "GPZDA,131519.00,03,02,2016,00,00",
        "GPRMC,131520.00,A,4153.85991,N,08738.63642,W,0.049,,030216,,,D"))
    #expect(run.fixes.count == 2)
    let fix = run.fixes[0]
    #expect(fix.time == Input.time(2016, 2, 3, 13, 15, 19))
    // Position from GGA, speed and course from RMC, accuracy from GST.
    #expect(abs(try #require(fix.coordinate?.latitude) - (41 + 53.85991 / 60)) < 1e-12)
    #expect(abs(try #require(fix.speed) - 0.048 * 1852 / 3600) < 1e-12)
    #expect(fix.course == 12.5)
    #expect(fix.altitude == 218.1)
    #expect(fix.satellites == 12)
    #expect(fix.hdop == 0.95)
    #expect(fix.quality == .dgps)
    #expect(
      abs(try #require(fix.horizontalAccuracy) - (0.7 * 0.7 + 0.49 * 0.49).squareRoot()) < 1e-12)
    #expect(run.statistics.epochs == 2)
    #expect(run.statistics.sentences == 7)
    #expect(run.statistics.skipped == 1)
  }

  @Test func combinedTalkerWinsWhenSeveralSystemsReportTheSameEpoch() throws {
    let run = Input.read(
      Input.sentences(
        "GPGGA,043539.00,4333.100000,N,00127.618380,E,1,05,1.3,250.8,M,50.0,M,,",
        "GNGNS,043539.00,4333.190206,N,00127.618380,E,AAAAN,14,1.2,250.9,50.0,,,V",
        "GAGGA,043539.00,4333.200000,N,00127.618380,E,1,01,1.3,250.8,M,50.0,M,,"))
    let fix = try #require(run.fixes.first)
    #expect(abs(try #require(fix.coordinate?.latitude) - (43 + 33.190206 / 60)) < 1e-12)
    #expect(fix.satellites == 14)
    #expect(fix.hdop == 1.2)
  }

  @Test func gsaCountsUsedSatellitesWhenNoGGASaysHowMany() throws {
    let run = Input.read(
      Input.sentences(
        Self.rmc, "GNGSA,A,3,02,08,10,,,,,,,,,,1.6,1.3,0.9,1",
        "GNGSA,A,3,65,66,,,,,,,,,,,1.6,1.3,0.9,2"))
    #expect(run.fixes.first?.satellites == 5)
    #expect(run.fixes.first?.hdop == 1.3)
  }

  @Test(arguments: [
    ("RMC status V", [NMEAReaderTests.rmcV, NMEAReaderTests.gga]),
    (
      "GGA quality 0",
      [NMEAReaderTests.rmc, "GPGGA,123519,4807.038,N,01131.000,E,0,08,0.9,545.4,M,46.9,M,,"]
    ),
    (
      "GSA mode 1",
      [NMEAReaderTests.rmc, NMEAReaderTests.gga, "GPGSA,A,1,,,,,,,,,,,,,50.0,50.0,50.0"]
    ),
    (
      "FAA mode N",
      ["GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,N", NMEAReaderTests.gga]
    ),
    ("GNS all N", ["GNGNS,123519,4807.038,N,01131.000,E,NNNN,00,,,0.0,,0000"]),
    ("GLL status V", ["GPGLL,4807.038,N,01131.000,E,123519,V,A"]),
    ("GLL mode N", ["GPGLL,4807.038,N,01131.000,E,123519,A,N"]),
  ])
  func anyInvalidSentenceMakesTheEpochANoFix(name: String, bodies: [String]) {
    let run = Input.read(bodies.map(NMEASentence.frame).joined())
    #expect(run.fixes.count == 1, "\(name)")
    #expect(run.fixes.first?.coordinate == nil, "\(name)")
    #expect(run.fixes.first?.quality == FixQuality.none, "\(name)")
    #expect(run.statistics.noFixEpochs == 1, "\(name)")
  }
  static let rmcV = "GPRMC,123519,V,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"

  @Test func anEpochWithoutAnyWordOnValidityIsANoFix() {
    let run = Input.read(
      Input.sentences("GPGGA,123519,4807.038,N,01131.000,E,,08,0.9,545.4,M,46.9,M,,"))
    #expect(run.fixes == [Fix.noFix(time: 12 * 3600 + 35 * 60 + 19)])
  }

  @Test func navigationalStatusVDoesNotInvalidateAFix() {
    let run = Input.read(
      Input.sentences(
        "GNRMC,043539.00,A,4333.190206,N,00127.618380,E,0.0,,040925,1.7,W,A,V",
        "GNGNS,043539.00,4333.190206,N,00127.618380,E,AAAAN,14,1.3,250.8,50.0,,,V"))
    #expect(run.fixes.first?.isValid == true)
  }

  @Test(arguments: [
    ("1", FixQuality.gps), ("2", .dgps), ("3", .gps), ("4", .rtk), ("5", .rtk),
    ("6", .deadReckoning),
    ("7", .simulated), ("8", .simulated),
  ])
  func ggaQualityMapsToFixQuality(quality: String, expected: FixQuality) {
    let run = Input.read(
      Input.sentences("GPGGA,123519,4807.038,N,01131.000,E,\(quality),08,0.9,545.4,M,46.9,M,,"))
    #expect(run.fixes.first?.quality == expected)
  }

  @Test(arguments: [
    ("A", FixQuality.gps), ("D", .dgps), ("R", .rtk), ("F", .rtk), ("E", .deadReckoning),
    ("S", .simulated), ("M", .simulated),
  ])
  func faaModeMapsToFixQuality(mode: String, expected: FixQuality) {
    let run = Input.read(
      Input.sentences("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,\(mode)"))
    #expect(run.fixes.first?.quality == expected)
  }

  @Test func epochOfUntimedSentencesOnlyIsNotEmitted() {
    let run = Input.read(
      Input.sentences(
        "GPRMC,,V,,,,,,,,,,N", "GPGSA,A,1,,,,,,,,,,,,,,,", "GPVTG,,T,,M,,N,,K,N",
        "GPGGA,,,,,,0,,,,M,,M,,"))
    #expect(run.fixes.isEmpty)
    #expect(run.statistics.sentences == 4)
    #expect(run.statistics.epochs == 0)
  }

  @Test func epochOfZDAOrGSTAloneIsNotEmitted() {
    let run = Input.read(
      Input.sentences("GPZDA,193223.00,23,12,2007,00,00", "GPGST,193223.00,11,,,,0.70,0.49,1.1"))
    #expect(run.fixes.isEmpty)
  }

  @Test func timesWithinTenMillisecondsAreOneEpoch() {
    let run = Input.read(
      Input.sentences(
        "GPGGA,123519.297,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPRMC,123519.305,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
        "GPGGA,123520.297,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
    #expect(run.fixes.count == 2)
    #expect(run.fixes.first.map { abs($0.time - (Self.epoch1994 + 0.297)) < 1e-6 } == true)
  }

  @Test func fractionalSecondsAreKept() throws {
    let run = Input.read(
      Input.sentences("GPRMC,132820.60,A,4134.49821229,N,09345.03351845,W,3.252,92.308,180320,,,D"))
    let fix = try #require(run.fixes.first)
    #expect(abs(fix.time - Input.time(2020, 3, 18, 13, 28, 20.6)) < 1e-6)
    #expect(abs(try #require(fix.coordinate?.latitude) - (41 + 34.49821229 / 60)) < 1e-13)
  }

  @Test func sevenDecimalMinutesKeepNanodegreePrecision() throws {
    let run = Input.read(
      Input.sentences(
        "GNGGA,014500.00,4404.1306024,N,12118.8446777,W,2,12,0.49,1129.913,M,-21.350,M,,0278"))
    let c = try #require(run.fixes.first?.coordinate)
    // 44° + 4.1306024′ = 44.068843373333…°; −(121° + 18.8446777′) = −121.314077961666…°
    #expect(abs(c.latitude - 44.068843373333333) < 1e-12)
    #expect(abs(c.longitude + 121.314077961666667) < 1e-12)
  }

  // MARK: - Dates

  @Test func dateRollsOverAtMidnightBeforeTheNextRMC() {
    let run = Input.read(
      Input.sentences(
        "GPRMC,235959,A,4807.038,N,01131.000,E,0,0,311299,,",
        "GPGGA,000000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGGA,000001,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
    #expect(
      run.fixes.map(\.time) == [
        Input.time(1999, 12, 31, 23, 59, 59), Input.time(2000, 1, 1, 0, 0, 0),
        Input.time(2000, 1, 1, 0, 0, 1),
      ])
  }

  @Test func aLateSentenceFromBeforeMidnightIsOutOfOrderNotADayAhead() {
    let run = Input.read(
      Input.sentences(
        "GPRMC,000000,A,4807.038,N,01131.000,E,0,0,010100,,",
        "GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGGA,000001,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
    #expect(
      run.fixes.map(\.time) == [Input.time(2000, 1, 1, 0, 0, 0), Input.time(2000, 1, 1, 0, 0, 1)])
    #expect(run.statistics.outOfOrder == 1)
  }

  @Test(arguments: [("311299", 1999), ("010180", 1980), ("010100", 2000), ("311279", 2079)])
  func twoDigitYearsPivotAt1980(date: String, year: Int) throws {
    let run = Input.read(Input.sentences("GPRMC,000000,A,4807.038,N,01131.000,E,0,0,\(date),,"))
    let days = try #require(run.fixes.first).time / 86_400
    #expect(UTCTime.civil(days: Int(days)).year == year)
  }

  @Test func beforeAnyDateTheDayIs19700101() {
    let run = Input.read(
      Input.sentences("GPGLL,4808.9977,N,01135.0800,E,235723.02,A,A", Self.rmc))
    #expect(abs(run.fixes[0].time - (23 * 3600 + 57 * 60 + 23.02)) < 1e-9)
    #expect(run.fixes[1].time == Self.epoch1994)
  }

  @Test func aDateMovingBackRestartsInsteadOfSilencingTheStream() {
    let run = Input.read(
      Input.sentences(
        "GPRMC,000231,A,4829.0005,N,00022.0016,E,0.16,212.28,060419,,,A",
        "GPRMC,000232,A,4829.0005,N,00022.0016,E,0.16,212.28,220899,,,A",
        "GPRMC,000233,A,4829.0005,N,00022.0016,E,0.16,212.28,220899,,,A"))
    #expect(run.fixes.count == 3)
    #expect(run.statistics.outOfOrder == 0)
  }

  // MARK: - Order

  @Test func timesGoingBackwardsAreDroppedAndCounted() {
    let run = Input.read(
      Input.sentences(
        "GPGGA,105153.71,5050.4122,N,00420.8266,E,1,04,2.25,109.44,M,,M,,",
        "GPRMC,105153.71,A,5050.4122,N,00420.8266,E,0.14,303.60,120319,,,A",
        "GPGGA,105153.408,5050.4122,N,00420.8265,E,1,04,2.25,109.0,M,,M,,0000",
        "GPGSA,A,3,13,15,17,19,,,,,,,,,4.00,2.25,3.25",
        "GPRMC,105153.408,A,5050.4122,N,00420.8265,E,0.13,303.60,120319,,,A",
        "GPGGA,105154.408,5050.4121,N,00420.8268,E,1,04,2.25,109.0,M,,M,,0000"))
    #expect(run.fixes.count == 2)
    #expect(abs(run.fixes[0].time - Input.time(2019, 3, 12, 10, 51, 53.71)) < 1e-6)
    #expect(abs(run.fixes[1].time - Input.time(2019, 3, 12, 10, 51, 54.408)) < 1e-6)
    #expect(run.statistics.outOfOrder == 3)
    #expect(run.rejections.map(\.line) == [3, 4, 5])
    #expect(run.rejections.allSatisfy { $0.reason == .outOfOrder })
  }

  // MARK: - Framing

  @Test func doubleDollarPrefixResyncsOnTheLastDollar() {
    let run = Input.read("$$" + Self.rmc + "*6A\r\n$$$" + Self.gga + "*47\r\n")
    #expect(run.statistics.sentences == 2)
    #expect(run.statistics.rejected == 0)
    #expect(run.fixes.count == 1)
  }

  @Test func garbageAndBinaryBytesAreCountedAndSkipped() {
    var bytes: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x00, 0xFF, 0x0A]
    bytes += Array("hello world\r\n".utf8)
    bytes += [0x00, 0x80, 0xFE] + Array(NMEASentence.frame(Self.rmc).utf8)
    bytes += Array("   \r\n\r\n".utf8)
    let run = Input.read(bytes)
    #expect(run.statistics.garbage == 3)
    #expect(run.statistics.sentences == 1)
    #expect(run.fixes.count == 1)
    #expect(run.rejections.map(\.line) == [1, 2, 3])
    #expect(run.rejections.first?.text == "\\xB5b\\x01\\x07\\x00\\xFF")
    #expect(run.rejections.last?.text == "\\x00\\x80\\xFE")
  }

  @Test func binaryInsideASentenceWithoutChecksumIsMalformed() {
    let run = Input.read(
      Array("$GPRMC,1235".utf8) + [0x01]
        + Array("19,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W\n".utf8))
    #expect(run.statistics.malformed == 1)
  }

  @Test func truncatedSentenceFollowedByAnotherOnTheSameLine() {
    let text =
      "$GPGSV,4,1,15,02,11,115,36,0" + NMEASentence.frame(Self.rmc)
      + "5,34,060,48,07,00,023,,13,56,090,49*71\r\n"
    let run = Input.read(text)
    #expect(run.statistics.truncated == 1)
    #expect(run.statistics.garbage == 1)
    #expect(run.statistics.sentences == 1)
    #expect(run.fixes.count == 1)
    #expect(run.rejections.map(\.reason) == [.truncated, .garbage])
    #expect(run.rejections.map(\.line) == [1, 2])
    #expect(run.rejections.first?.text == "$GPGSV,4,1,15,02,11,115,36,0")
  }

  @Test(arguments: ["\r\n", "\n", "\r\r\n", "\r"])
  func lineEndingsAllWork(ending: String) {
    let lines = ["# header", "$" + Self.rmc + "*6A", "$" + Self.gga + "*47", "$GPRMC,1*00"]
    let run = Input.read(lines.joined(separator: ending) + ending)
    #expect(run.statistics.sentences == 2)
    #expect(run.statistics.comments == 1)
    #expect(run.fixes.count == 1)
    #expect(run.rejections.map(\.line) == [4])
  }

  @Test func aFinalLineWithoutNewlineIsReadByFinish() {
    var reader = NMEAReader()
    #expect(reader.feed(Array(("$" + Self.rmc + "*6A").utf8)).isEmpty)
    let fixes = reader.finish()
    #expect(fixes.count == 1)
    #expect(reader.statistics.sentences == 1)
  }

  @Test func overlongLinesAreRejectedWithTheirLength() {
    let body = "GPTXT," + String(repeating: "A", count: 130)
    let run = Input.read(NMEASentence.frame(body) + NMEASentence.frame(Self.rmc))
    #expect(run.statistics.overlong == 1)
    #expect(run.rejections.first?.reason == .overlong(length: body.utf8.count + 4))
    #expect(run.rejections.first?.text.count == 100)
    #expect(run.fixes.count == 1)
  }

  @Test func eightySevenByteSentencesAreNotOverlong() {
    let body = "GNGGA,014500.00,4404.1306024,N,12118.8446777,W,2,12,0.49,1129.913,M,-21.350,M,,0278"
    #expect(NMEASentence.frame(body).utf8.count == 87 + 2)
    #expect(Input.read(NMEASentence.frame(body)).statistics.sentences == 1)
  }

  @Test func endlessBinaryNeitherGrowsNorStalls() {
    let bytes = [UInt8](repeating: 0x81, count: 1 << 20)
    let run = Input.read(bytes + Array(NMEASentence.frame(Self.rmc).utf8))
    #expect(run.statistics.garbage == 1)
    #expect(run.fixes.count == 1)
  }

  @Test func commentLinesAreCountedNotRejected() {
    let run = Input.read(
      "# Name: x\n#\n# Note: $GPRMC inside a comment\n" + NMEASentence.frame(Self.rmc))
    #expect(run.statistics.comments == 3)
    #expect(run.statistics.rejected == 0)
  }

  @Test func byteByByteFeedingGivesTheSameResultAsOneShot() {
    let text =
      "# x\r\n$$" + Self.rmc + "*6A\r\r\n" + "junk$GPGSV,1\n" + NMEASentence.frame(Self.gga)
      + "$GPRMC,123520,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W\r"
      + "$GPGGA,123521,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
    let whole = Input.read(text)
    for chunk in [1, 2, 3, 7, 64] {
      let split = Input.read(text, chunk: chunk)
      #expect(split.fixes == whole.fixes, "chunk \(chunk)")
      #expect(split.statistics == whole.statistics, "chunk \(chunk)")
      #expect(split.rejections == whole.rejections, "chunk \(chunk)")
    }
    #expect(whole.fixes.count == 3)
  }

  @Test func rejectionsDescribeThemselves() {
    let r = NMEARejection(line: 12, reason: .overlong(length: 133), text: "$PGLOR")
    #expect(r.description == "line 12: overlong: 133 bytes (limit 120): $PGLOR")
    #expect(NMEARejection.Reason.malformed(field: "latitude").description == "malformed latitude")
    #expect(
      NMEARejection.Reason.badChecksum(expected: 0x4A, actual: nil).description.contains("*4A"))
  }

  private func hex(_ v: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(v >> 4)], digits[Int(v & 15)]])
  }
}
