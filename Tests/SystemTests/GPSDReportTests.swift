import Daemon
import Events
import GPSD
import GPSDProtocol
import Geodesy
import Guidance
import POSIX
import Phrasebook
import Routes
import TestSupport
import Testing
import Wire

/// gpsd's JSON reports decoded, merged into epochs, and read from gpspipe captures: the pure
/// side of the gpsd client.
@Suite(.blocking) struct GPSDReportTests {
  static func decode(_ line: String) throws -> GPSDReport {
    try GPSDReport.decode(Array(line.utf8))
  }

  @Test func aTPVDecodesWithAbsentValuesAsNil() throws {
    let r = try Self.decode(
      #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2024-05-01T08:00:05.000Z","ept":0.005,"lat":39.2846487,"lon":-76.5916278,"altMSL":450.0,"track":273.0,"speed":1.626,"eph":17.1}"#
    )
    guard case .tpv(let t) = r else {
      Issue.record("not a TPV: \(r)")
      return
    }
    #expect(t.mode == 3 && t.device == "/dev/pts/1" && t.status == nil)
    #expect(t.time == UTCTime.parseISO8601("2024-05-01T08:00:05.000Z"))
    #expect(t.latitude == 39.2846487 && t.longitude == -76.5916278 && t.eph == 17.1)
    #expect(t.epx == nil && t.epy == nil)
  }

  @Test func deviceActivatedIsATimeWhileActiveAndZeroOnceGone() throws {
    #expect(
      try Self.decode(
        #"{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2026-11-29T13:31:07.854Z","driver":"NMEA0183","cycle":1.00}"#
      )
        == .device(GPSDDevice(path: "/dev/ttyACM0", activated: true, driver: "NMEA0183", cycle: 1)))
    #expect(
      try Self.decode(#"{"class":"DEVICE","path":"/dev/ttyACM0","activated":0}"#)
        == .device(GPSDDevice(path: "/dev/ttyACM0", activated: false, driver: nil, cycle: nil)))
    #expect(try Self.decode(#"{"class":"DEVICES","devices":[]}"#) == .devices([]))
  }

  @Test func otherClassesDecodeOrAreNamed() throws {
    #expect(
      try Self.decode(
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#)
        == .version(GPSDVersion(release: "3.22", protocolMajor: 3, protocolMinor: 14)))
    #expect(
      try Self.decode(#"{"class":"ERROR","message":"Unrecognized request '?FOO'"}"#)
        == .error("Unrecognized request '?FOO'"))
    #expect(
      try Self.decode(#"{"class":"WATCH","enable":true,"json":true,"device":"/dev/ttyUSB0"}"#)
        == .watch(device: "/dev/ttyUSB0"))
    #expect(try Self.decode(#"{"class":"PPS","device":"/dev/pps0"}"#) == .other("PPS"))
    #expect(throws: GPSDDecodeError.self) { try Self.decode(#"{"class":"TPV","mode":3"#) }
    #expect(throws: GPSDDecodeError.self) { try Self.decode(#"["TPV"]"#) }
    let long = #"{"class":"TPV","x":""# + String(repeating: "a", count: 10_300) + #""}"#
    #expect(throws: GPSDDecodeError.self) { try Self.decode(long) }
  }

  static func tpv(
    _ time: Double, mode: Int = 3, lat: Double? = 48.1, lon: Double? = 11.5, status: Int? = nil,
    eph: Double? = 16.2, speed: Double? = 10
  ) -> GPSDReport {
    .tpv(
      GPSDPositionReport(
        mode: mode, status: status, time: time, latitude: lat, longitude: lon, speed: speed,
        eph: eph))
  }

  @Test func severalTPVsOfOneEpochMergeAndTheNewestValueWins() {
    var m = GPSDEpochMerger()
    // gpsd's first epoch: mode 3 without a position (GSA before RMC), then mode 2, then 3.
    #expect(m.add(Self.tpv(100, lat: nil, lon: nil, eph: nil)) == nil)
    #expect(m.add(Self.tpv(100, mode: 2, lat: 48.1, lon: 11.5, eph: nil)) == nil)
    #expect(m.add(Self.tpv(100, mode: 3, lat: 48.2, lon: nil, eph: 16.2)) == nil)
    let f = m.add(Self.tpv(101))
    #expect(f?.time == 100 && f?.coordinate == Coordinate(latitude: 48.2, longitude: 11.5))
    #expect(abs((f?.horizontalAccuracy ?? 0) - 10) < 1e-9)  // 16.2 m at 95 % is 10 m at 68 %
    #expect(m.merged == 2)
    #expect(m.flush()?.time == 101)
  }

  @Test func timesGoingBackwardsAreDropped() {
    var m = GPSDEpochMerger()
    _ = m.add(Self.tpv(100))
    _ = m.add(Self.tpv(101))
    #expect(m.add(Self.tpv(99)) == nil)  // older than the open epoch
    #expect(m.add(Self.tpv(102))?.time == 101)
    #expect(m.add(Self.tpv(100.5)) == nil)  // older than a closed epoch: a replayed report
    #expect(m.add(Self.tpv(101)) == nil)
    #expect(m.droppedBackwards == 3)
    #expect(m.flush()?.time == 102)
  }

  @Test func modeBelowTwoOrNoPositionIsNoFix() {
    #expect(
      GPSDEpochMerger.fix(GPSDPositionReport(mode: 1, time: 5, latitude: 1, longitude: 2), time: 5)
        == .noFix(time: 5))
    #expect(GPSDEpochMerger.fix(GPSDPositionReport(mode: 0, time: 5), time: 5) == .noFix(time: 5))
    #expect(
      GPSDEpochMerger.fix(GPSDPositionReport(mode: 3, time: 5, latitude: 91, longitude: 2), time: 5)
        == .noFix(time: 5))
    #expect(
      GPSDEpochMerger.fix(GPSDPositionReport(mode: 2, time: 5, latitude: 1, longitude: 2), time: 5)
        .isValid)
  }

  @Test(
    arguments: [
      (nil, FixQuality.gps), (2, .dgps), (3, .rtk), (4, .rtk), (5, .deadReckoning),
      (6, .deadReckoning),
      (8, .simulated), (7, .gps),
    ] as [(Int?, FixQuality)])
  func statusMapsToTheFixQuality(status: Int?, quality: FixQuality) {
    let f = GPSDEpochMerger.fix(
      GPSDPositionReport(mode: 3, status: status, time: 1, latitude: 1, longitude: 2), time: 1)
    #expect(f.quality == quality)
  }

  @Test func theGSTOfAnEpochGivesTheAccuracyLikeNMEA() {
    var m = GPSDEpochMerger()
    _ = m.add(Self.tpv(100, eph: 17.1))
    _ = m.add(.gst(GPSDNoiseReport(time: 100, latitudeError: 3, longitudeError: 4)))
    _ = m.add(.gst(GPSDNoiseReport(time: 99, latitudeError: 30, longitudeError: 40)))
    #expect(m.flush()?.horizontalAccuracy == 5)
  }

  @Test func aCaptureReaderTakesGpspipeLinesWithAndWithoutPrefixes() {
    let capture = """
      # Name: test
      2026-11-29 13:31:06 1795959066.810830: {"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}
      1795959067.9: {"class":"TPV","mode":3,"time":"2024-05-01T08:00:05.000Z","lat":39.1,"lon":-76.5,"eph":16.2}\r
      {"class":"TPV","mode":3,"time":"2024-05-01T08:00:06.000Z","lat":39.1,"lon":-76.5}

      not json
      2026-11-29 13:31:11 1795959071.2: {"class":"TPV","device":"/dev/pts/1","mode":1}
      {"class":"TPV","mode":3,"time":"2024-05-01T08:00:04.000Z","lat":39.1,"lon":-76.5}
      """
    var r = GPSDCaptureReader()
    var rejected: [String] = []
    r.onReject = { rejected.append($0) }
    let fixes = r.feed(Array(capture.utf8)) + r.finish()
    let t0 = UTCTime.parseISO8601("2024-05-01T08:00:05.000Z") ?? 0
    // The no-fix report without a time lands 3.3 s after the last fix that had a receive stamp
    // (08:00:05, received at 67.9); the unstamped 08:00:06 is no anchor.
    let expected = [t0, t0 + 1, t0 + (1795959071.2 - 1795959067.9)]
    #expect(fixes.count == 3 && zip(fixes.map(\.time), expected).allSatisfy { abs($0 - $1) < 1e-6 })
    #expect(fixes.map(\.isValid) == [true, true, false])
    #expect(rejected.count == 1 && rejected[0].contains("line 6"))
    #expect(r.statistics.droppedBackwards == 1)
  }

  @Test(arguments: [
    ("$GPRMC,080000.00,A,3917.07,N,07635.49,W,0.0,266.6,010524,,,A*7D\n", TrackKind.nmea),
    ("# Name: x\n# Description: y\n\n$GPGGA,…\n", .nmea),
    ("{\"class\":\"VERSION\",\"release\":\"3.22\"}\n", .gpsdJSON),
    ("# Name: x\n2026-11-29 13:31:06 1795959066.810830: {\"class\":\"VERSION\"}\n", .gpsdJSON),
    ("1795959066.810830: {\"class\":\"VERSION\"}\n", .gpsdJSON),
    ("", .nmea),
  ])
  func theTrackKindIsToldFromTheContent(text: String, kind: TrackKind) {
    #expect(TrackKind.detect(Array(text.utf8), complete: true) == kind)
  }

  @Test func detectionWaitsForACompleteLine() {
    #expect(TrackKind.detect(Array("# Name: x\n{\"cla".utf8), complete: false) == nil)
  }

  @Test func gpsdAddressesParse() throws {
    #expect(
      try GPSDAddress(parsing: "gpsd://127.0.0.1:29471")
        == GPSDAddress(host: "127.0.0.1", port: "29471"))
    #expect(try GPSDAddress(parsing: "gpsd://box") == GPSDAddress(host: "box", port: "2947"))
    #expect(try GPSDAddress(parsing: "gpsd://[::1]:2948") == GPSDAddress(host: "::1", port: "2948"))
    #expect(try GPSDAddress(parsing: "gpsd://[::1]:2948")?.description == "gpsd://[::1]:2948")
    #expect(try GPSDAddress(parsing: "drive.nmea") == nil)
    #expect(throws: GPSDAddress.Invalid.self) { try GPSDAddress(parsing: "gpsd://host:99999") }
    #expect(GPSDAddress.default.description == "gpsd://localhost:2947")
  }

  @Test func backoffDoublesUpToItsCapWithJitterAndResets() {
    var b = ReconnectBackoff(initial: 0.1, cap: 1.0)
    let top = (0..<8).map { _ in b.next(random: 0.999_999) }
    #expect(abs(top[0] - 0.1) < 1e-3 && abs(top[3] - 0.8) < 1e-3 && abs(top[7] - 1.0) < 1e-3)
    b.reset()
    #expect(abs(b.next(random: 0) - 0.05) < 1e-9)
  }

  @Test func theShimWasBuiltAgainstLibgps() {
    #expect(GPSDConnection.isAvailable)
    #expect(GPSDConnection.apiVersion.hasPrefix("1"), "\(GPSDConnection.apiVersion)")
  }
}

/// The engine loop and its publisher, without processes.
@Suite(.blocking) struct GPSDEngineLoopTests {
  final class Recorder: EventSink, @unchecked Sendable {
    // Invariant: written by the engine's thread only, read after the engine finished.
    var received: [Publication] = []
    var finished = false
    func receive(_ publication: Publication) { received.append(publication) }
    func finish() { finished = true }
  }

  final class FakeClock: PacingClock, @unchecked Sendable {
    // Invariant: used from the test's thread only.
    var time = 1000.0
    func now() -> Double { time }
    func sleep(until deadline: Double) { time = max(time, deadline) }
  }

  static func session() throws -> NavigationSession {
    let doc = makeRoute(legs: [(90, 600, "Turn left onto B Street."), (0, 300, "Arrive")])
    return try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
  }

  @Test func ticksReportGPSLossOnTheFixClockAndSourceChangesArePublished() throws {
    let publisher = EventPublisher()
    let sink = Recorder()
    publisher.add(sink)
    let clock = FakeClock()
    var engine = Engine(
      session: try Self.session(), publisher: publisher, clock: clock, utcNow: { 5 })
    engine.sourceName = "gpsd://test"
    engine.handle(.source(.connected, reason: nil))
    let start = Coordinate(latitude: 47.14, longitude: 9.52)
    engine.handle(.fix(Fix(time: 100, coordinate: start, speed: 0)))
    clock.time += 4.9
    engine.handle(.tick)
    #expect(
      !sink.received.contains {
        if case .navigation(let e) = $0.event, case .gps = e.kind {
          return true
        } else {
          return false
        }
      })
    clock.time += 0.2
    engine.handle(.tick)
    engine.handle(.source(.disconnected, reason: "end of stream"))
    let gps = sink.received.compactMap { p -> NavigationEvent? in
      if case .navigation(let e) = p.event, case .gps(.lost) = e.kind { return e }
      return nil
    }
    #expect(gps.map(\.time) == [105])
    let sources = sink.received.compactMap { p -> SourceEvent? in
      if case .source(let s) = p.event { return s }
      return nil
    }
    // Before the first fix a SOURCE event has the system's UTC time; afterwards the fix clock's.
    #expect(sources.count == 2 && sources[0].time == 5 && abs(sources[1].time - 105.1) < 1e-9)
    #expect(sources.map(\.status) == [.connected, .disconnected])
    #expect(sink.received.map(\.seq) == Array(1...UInt64(sink.received.count)))
    #expect(engine.heartbeat.value == 5)  // one per input
  }

  @Test func aLateSinkGetsTheStateAndThenOnlyLaterEvents() throws {
    let publisher = EventPublisher()
    var engine = Engine(session: try Self.session(), publisher: publisher, clock: FakeClock())
    engine.handle(
      .fix(Fix(time: 100, coordinate: Coordinate(latitude: 47.14, longitude: 9.52), speed: 0)))
    let late = Recorder()
    let state = publisher.add(late)
    #expect(state.route != nil && state.step == 1 && state.progress != nil)
    engine.handle(
      .fix(Fix(time: 101, coordinate: Coordinate(latitude: 47.14, longitude: 9.5201), speed: 5)))
    #expect(late.received.first?.seq == state.seq + 1)
    publisher.finish()
    #expect(late.finished)
    let after = Recorder()
    publisher.add(after)
    #expect(after.finished)
  }
}
