import Geodesy
import GuidanceSettings
import Matching
import Phrasebook
import Routes
import TestSupport
import Testing

@testable import Guidance

/// Overspeed warnings: once per excursion above the limit plus its tolerance, within 2 s of
/// exceeding it, never from a doubtful speed or without a limit, no chatter at the threshold.
@Suite struct OverspeedTests {
  static let t0 = 1_714_550_400.0
  /// 3000 m east, then 500 m north to the destination: the first 3 km far from any maneuver.
  static func document(limit: SpeedLimit?) -> RouteDocument {
    var doc = makeRoute(legs: [(90, 3000, "Turn left onto A Street"), (0, 500, "Arrive")])
    if let limit {
      doc.routes[0].road = RouteRoad(speedLimits: [
        SpeedLimitSpan(start: 0, end: 3500, limit: limit)
      ])
    }
    return doc
  }

  /// 50 km/h plus 10 % or 5 km/h: 55 km/h.
  static let threshold = 55 / 3.6

  /// One fix a second at the speeds given (m/s, `nil` for a fix without speed); the events.
  static func drive(
    _ speeds: [Double?], limit: SpeedLimit? = .limit(50, .kilometresPerHour),
    configuration: GuidanceConfiguration = GuidanceConfiguration(),
    quality: (Int) -> FixQuality = { _ in .gps }
  ) throws -> [NavigationEvent] {
    let doc = document(limit: limit)
    let geometry = RouteGeometry(route: doc.routes[0])
    var s = try NavigationSession(
      document: doc, phrasing: Phrasebook(language: .en), configuration: configuration)
    var events: [NavigationEvent] = []
    var along = 0.0
    for (i, v) in speeds.enumerated() {
      if i > 0 { along += speeds[i - 1] ?? 13 }
      events += s.ingest(
        Fix(
          time: t0 + Double(i), coordinate: geometry.coordinate(at: along), speed: v,
          course: 90, horizontalAccuracy: 3, quality: quality(i)))
    }
    return events
  }

  static func warnings(_ events: [NavigationEvent]) -> [(time: Double, a: Announcement)] {
    events.compactMap { e in e.announcement.flatMap { $0.kind == .speed ? (e.time - t0, $0) : nil }
    }
  }

  static func repeated(_ v: Double, _ n: Int) -> [Double?] { Array(repeating: v, count: n) }

  @Test func onceAnExcursionWithinTwoSecondsOfExceeding() throws {
    // 12 m/s, 17 m/s from 30 s, back to 12 at 60 s for 10 s, 17 again from 70 s to 90 s.
    let speeds =
      Self.repeated(12, 30) + Self.repeated(17, 30) + Self.repeated(12, 10)
      + Self.repeated(17, 20) + Self.repeated(12, 10)
    let warned = Self.warnings(try Self.drive(speeds))
    #expect(warned.map(\.time) == [31, 71])
    #expect(warned.map(\.a.id) == ["r0.speed.1", "r0.speed.2"])
    #expect(warned.first?.a.text == "You are over the speed limit of 50 kilometers per hour.")
    #expect(warned.first?.a.message == .overspeed(limit: 50, unit: .kilometresPerHour))
  }

  @Test func aShortDipBelowTheLimitDoesNotRearm() throws {
    // Over, 2 s below the limit (less than the 3 s that re-arm), over again: one warning.
    let speeds =
      Self.repeated(12, 10) + Self.repeated(17, 10) + Self.repeated(13, 2)
      + Self.repeated(17, 10)
    #expect(Self.warnings(try Self.drive(speeds)).map(\.time) == [11])
  }

  @Test func noChatterAtTheThresholdAndNoneAtTheLimit() throws {
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    func noise(_ amplitude: Double) -> Double {
      x ^= x << 13
      x ^= x >> 7
      x ^= x << 17
      return (Double(x >> 11) / Double(1 << 53) * 2 - 1) * amplitude
    }
    // Hovering at the threshold: at most one warning.
    let hovering: [Double?] = (0..<150).map { _ in Self.threshold + noise(0.6) }
    #expect(Self.warnings(try Self.drive(hovering)).count <= 1)
    // At the limit with noise of ±2 km/h: none.
    let atLimit: [Double?] = (0..<150).map { _ in 50 / 3.6 + noise(2 / 3.6) }
    #expect(Self.warnings(try Self.drive(atLimit)).isEmpty)
    // One noisy fix above: none.
    let spike = Self.repeated(13, 20) + [17] + Self.repeated(13, 20)
    #expect(Self.warnings(try Self.drive(spike)).isEmpty)
  }

  @Test func noneWithoutALimitOrWhenTurnedOff() throws {
    let fast = Self.repeated(12, 5) + Self.repeated(25, 60)
    #expect(Self.warnings(try Self.drive(fast, limit: nil)).isEmpty)
    #expect(Self.warnings(try Self.drive(fast, limit: SpeedLimit.none)).isEmpty)
    #expect(Self.warnings(try Self.drive(fast, limit: .unknown)).isEmpty)
    var off = GuidanceConfiguration()
    off.speedWarnings = false
    #expect(Self.warnings(try Self.drive(fast, configuration: off)).isEmpty)
    #expect(Self.warnings(try Self.drive(fast)).count == 1)
  }

  @Test func noneFromADoubtfulSpeed() throws {
    // Fixes without speed, dead-reckoned fixes, an implausible speed, a jump in speed.
    let unknown: [Double?] = Self.repeated(12, 5) + Array(repeating: nil, count: 30)
    #expect(Self.warnings(try Self.drive(unknown)).isEmpty)
    let fast = Self.repeated(12, 5) + Self.repeated(17, 30)
    #expect(
      Self.warnings(try Self.drive(fast, quality: { $0 >= 5 ? .deadReckoning : .gps })).isEmpty)
    let implausible = Self.repeated(12, 5) + Self.repeated(95, 3) + Self.repeated(12, 5)
    #expect(Self.warnings(try Self.drive(implausible)).isEmpty)
    // A jump of 12 m/s in one second, two fixes long, then back.
    let jump = Self.repeated(12, 5) + Self.repeated(24, 2) + Self.repeated(12, 10)
    #expect(Self.warnings(try Self.drive(jump)).isEmpty)
  }

  @Test func neverOverAManeuversFinalPrompt() throws {
    // Over the limit 180 m before the turn at 3000 m: the warning waits until its final
    // prompt is said and 6 s more, instead of coming 1 s after the excursion began.
    let speeds = Self.repeated(12, 235) + Self.repeated(17, 40)
    let events = try Self.drive(speeds)
    let warned = Self.warnings(events)
    #expect(warned.count == 1)
    let prompts = events.compactMap { e in
      e.announcement.flatMap { $0.kind == .now ? e.time - Self.t0 : nil }
    }
    #expect(prompts.count == 1)
    for p in prompts {
      #expect(warned.allSatisfy { $0.time >= p + 6 }, "\(p) \(warned.map(\.time))")
    }
  }
}
