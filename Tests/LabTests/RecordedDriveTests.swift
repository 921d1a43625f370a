import Geodesy
import Guidance
import Lab
import Matching
import Phrasebook
import Routes
import Simulation
import TestSupport
import Testing

/// Recorded drives scored against a route that is the path driven (issue #35): drives the
/// simulator makes and writes as NMEA, read back as a recording would be.
@Suite struct RecordedDriveTests {
  static let marais = repositoryFile("Simulations/001-marais-drive")

  /// The Marais route and a town drive along it, as the fixes of its NMEA track.
  static func recorded() throws -> (Scenario, [Fix]) {
    let scenario = try Scenario(directory: marais)
    var o = DriveOptions()
    o.profile = .town
    o.noise = 3
    o.seed = 7
    let drive = DriveSimulator.drive(try scenario.document.route(at: 0), options: o)
    let fixes = RecordedDrive.nmeaFixes(Array(drive.nmea().utf8))
    return (scenario, fixes)
  }

  static func score(_ scenario: Scenario, _ fixes: [Fix]) throws -> RecordedDriveScore {
    try RecordedDrive(document: scenario.document, phrasing: Phrasebook(), fixes: fixes)
      .score(name: "marais")
  }

  @Test func aWholeDriveIsClean() throws {
    let (scenario, fixes) = try Self.recorded()
    let s = try Self.score(scenario, fixes)
    #expect(s.violations().isEmpty, "\(s.verdict)")
    #expect(s.quality.maneuvers == scenario.document.routes[0].steps.count - 2)
    #expect(s.departureFirst)
    #expect((s.quality.leadMinimum ?? 0) >= RecordedDriveScore.leadMinimum)
    #expect(s.verdict.hasPrefix("marais: clean: "))
  }

  @Test func aRecordingStartedAtAManeuverMissesIt() throws {
    let (scenario, fixes) = try Self.recorded()
    // The recording starts 1 s before the vehicle reaches the first maneuver.
    let truth = try RecordedDrive(document: scenario.document, phrasing: Phrasebook(), fixes: fixes)
      .truth().truth
    let end = RouteGeometry(route: try scenario.document.route(at: 0)).stepEnd[1]
    let reached = try #require(truth.first { $0.distanceAlong >= end }).time
    let s = try Self.score(scenario, fixes.filter { $0.time >= reached - 1 })
    #expect(s.unprompted + s.shortLeads >= 1, "\(s.verdict)")
    #expect(s.verdict.contains("FAIL"))
  }

  @Test func aRecordingThatStopsShortNeverArrives() throws {
    let (scenario, fixes) = try Self.recorded()
    let s = try Self.score(scenario, Array(fixes.prefix(fixes.count * 2 / 3)))
    #expect(s.quality.arrivalError == nil)
    #expect(s.violations().contains("no arrival"), "\(s.verdict)")
  }

  @Test func aLeftRouteIsAFalseOffRoute() throws {
    let scenario = try Scenario(directory: Self.marais)
    var o = DriveOptions()
    o.deviation = Deviation(at: 300, angle: 70, length: 250, rejoin: true)
    let drive = DriveSimulator.drive(try scenario.document.route(at: 0), options: o)
    let s = try Self.score(scenario, RecordedDrive.nmeaFixes(Array(drive.nmea().utf8)))
    #expect(s.offRoute >= 1)
    #expect(s.violations().contains { $0.hasSuffix("false off-route") }, "\(s.verdict)")
  }

  @Test func csvTracksGetSpeedAndCourseFromTheirNeighbours() throws {
    let text = "t_rel_s,lat,lon\n1,48.0,2.0\n2,48.0001,2.0\n3,48.0002,2.0\n"
    #expect(RecordedDrive.isCSV(Array(text.utf8)))
    #expect(!RecordedDrive.isCSV(Array("$GPRMC,1,A\n".utf8)))
    #expect(!RecordedDrive.isCSV(Array("{\"class\":\"TPV\",\"lat\":1}\n".utf8)))
    let fixes = try RecordedDrive.csvFixes(Array(text.utf8), start: 1000)
    #expect(fixes.map(\.time) == [1001, 1002, 1003])
    // 11.1 m a second due north; the first and last fix see one neighbour only.
    for f in fixes {
      #expect(abs((f.speed ?? 0) - 11.12) < 0.05)
      #expect(abs(bearingDifference(f.course ?? 90, 0)) < 0.1)
    }
    #expect(throws: ScenarioError.self) {
      try RecordedDrive.csvFixes(Array("t,lat,lon\n1,48,2\nx,y\n".utf8), start: 0)
    }
  }
}

/// The outage cutter of `score-drive --outages`: outages cut out of a recorded drive at points
/// spread over it and around its maneuvers, each scored against the drive without it.
@Suite struct RecordedOutageTests {
  @Test func outagesAreCutAroundManeuversAndScored() throws {
    let (scenario, fixes) = try RecordedDriveTests.recorded()
    let drive = RecordedDrive(document: scenario.document, phrasing: Phrasebook(), fixes: fixes)
    let cuts = try drive.outages(count: 3, lengths: [20])
    let spread = cuts.filter { $0.maneuver == nil }
    let around = cuts.filter { $0.maneuver != nil }
    #expect(spread.count == 3)
    // The maneuvers clear of the departure and the arrival get both cuts (one with the maneuver
    // inside, one ending 3 s before it).
    let maneuvers = scenario.document.routes[0].steps.count - 2
    let placed = Set(around.compactMap(\.maneuver))
    #expect(placed.count >= maneuvers / 2, "cuts around \(placed.sorted()) of \(maneuvers)")
    #expect(placed.allSatisfy { (1...maneuvers).contains($0) })
    for m in placed { #expect(around.filter { $0.maneuver == m }.count <= 2) }
    for c in cuts {
      #expect(c.length == 20)
      #expect(c.at >= 20, "outage at \(c.at) s cuts into the departure")
      let name = "outage at \(Int(c.at)) s"
      let s = c.score
      #expect(s.falseOffRoute == 0, "\(name): off-route")
      #expect(s.backwardJump <= 10, "\(name): jumped \(s.backwardJump) m back")
      #expect(s.unprompted.isEmpty, "\(name): maneuvers \(s.unprompted) prompted late or never")
      // The cut made the receiver blind: the replay reported estimates for it.
      #expect(s.blindDistance > 0, "\(name): nothing covered blind")
    }
  }

  /// A cut next to a gap of the drive's own makes one outage of both, longer than the cut: its
  /// blind span says so (`score-drive` lists such cuts apart, beyond the lengths it scores).
  @Test func aCutThatJoinsAGapOfTheDrivesOwnSaysHowLongItWasBlind() throws {
    let (scenario, all) = try RecordedDriveTests.recorded()
    let valid = all.filter(\.isValid)
    let first = try #require(valid.first?.time)
    let last = try #require(valid.last?.time)
    try #require(last - first > 240)
    let gap = (first + 120)...(first + 180)
    let drive = RecordedDrive(
      document: scenario.document, phrasing: Phrasebook(),
      fixes: all.filter { !gap.contains($0.time) })
    let cuts = try drive.outages(count: 60, lengths: [20])
    var joined = 0
    for c in cuts {
      let window = (first + c.at)...(first + c.at + 20)
      if window.upperBound >= gap.lowerBound - 0.5 && window.lowerBound <= gap.upperBound + 0.5 {
        joined += 1
        #expect(c.blind > 60, "cut at \(c.at) s joins the gap: \(c.blind) s blind")
      } else if window.upperBound < gap.lowerBound - 3 || window.lowerBound > gap.upperBound + 3 {
        #expect(c.blind < 24, "cut at \(c.at) s is clear of the gap: \(c.blind) s blind")
      }
    }
    #expect(joined > 0)
  }

  /// A recorded drive has gaps of its own, and no truth in them: the return is this outage's
  /// last estimate, against where the vehicle was at its time (between the fixes either side).
  @Test func theReturnIsTheOutagesOwnEvenWithTheDrivesGapsAround() throws {
    let (scenario, fixes) = try RecordedDriveTests.recorded()
    let drive = RecordedDrive(document: scenario.document, phrasing: Phrasebook(), fixes: fixes)
    let truth = try drive.truth().truth
    let first = try #require(fixes.first?.time)
    let outage = (first + 100)...(first + 120)
    let dark = fixes.map { outage.contains($0.time) ? Fix.noFix(time: $0.time) : $0 }
    func score(plain: [Fix], dark: [Fix], truth: [TruthSample]) throws -> OutageScore {
      try OutageScore(
        document: scenario.document, phrasing: Phrasebook(), plain: plain, dark: dark,
        truth: truth, outage: outage)
    }
    let whole = try score(plain: fixes, dark: dark, truth: truth)
    // The drive's own: 3 s without fixes 15 s after the return (estimated too), and no fix in
    // the last second of the outage's estimates.
    let own = (outage.upperBound + 15)...(outage.upperBound + 17)
    let lastEstimate = outage.upperBound
    func gappy(_ f: [Fix]) -> [Fix] { f.filter { !own.contains($0.time) } }
    let holed = try score(
      plain: gappy(fixes), dark: gappy(dark),
      truth: truth.filter { !own.contains($0.time) && abs($0.time - lastEstimate) > 0.5 })
    let e = try #require(whole.returnError)
    let h = try #require(holed.returnError)
    #expect(abs(h - e) < 2, "return \(h) m off with the drive's gaps, \(e) m without")
    #expect(abs(holed.blindDistance - whole.blindDistance) < 2)
  }

  @Test func noOutageIsCutInsideTheDrivesOwnGap() throws {
    let (scenario, fixes) = try RecordedDriveTests.recorded()
    let first = try #require(fixes.first?.time)
    // 90 s without a fix from 60 s on.
    let gap = (first + 60)...(first + 150)
    let drive = RecordedDrive(
      document: scenario.document, phrasing: Phrasebook(),
      fixes: fixes.filter { !gap.contains($0.time) })
    for c in try drive.outages(count: 12, lengths: [10, 30]) {
      let window = (first + c.at)...(first + c.at + c.length)
      #expect(fixes.contains { gap.contains($0.time) == false && window.contains($0.time) })
    }
  }
}
