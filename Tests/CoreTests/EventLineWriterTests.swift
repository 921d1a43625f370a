import Geodesy
import JSON
import Routes
import TestSupport
import Testing
import Wire

@testable import Guidance

/// Wire's one encoder writes the bytes `JSONWriter` writes for the reference encoder's objects,
/// without a tree: checked over every event class and a deterministic sweep of awkward numbers.
@Suite struct EventLineWriterTests {
  static func tree(_ e: NavigationEvent) -> String {
    JSONWriter.string(.object(ReferenceEventEncoder.object(e)))
  }

  static func bytes(_ e: NavigationEvent) -> String {
    EventLine.text(.navigation(e))
  }

  /// Numbers at every rounding step's edges: halves, tiny and huge values, negative zero,
  /// values that print in exponent form, and non-finite ones.
  static let awkward: [Double] = [
    0, -0.0, 0.05, 0.15, 0.25, -0.05, 0.049999, 1e-4, 9.9e-5, 1e-5, -1e-5, 0.001, 12.345, 99.95,
    -99.95, 1234567.89, 1e14 + 0.3, 1e15, 1e15 + 2, 1e16, 9.007199254740993e15, 1e300,
    .infinity, -.infinity, .nan, 47.123456749, 47.12345675, -122.00000005, 179.99999995,
    0.00000005, 0.12345678, 3.000000049, -0.04, 12, -3, 4020, 99_999_999_999_999.9, 1e14,
  ]

  static func sweep() -> [Double] {
    var values = awkward
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<4000 {
      x ^= x << 13
      x ^= x >> 7
      x ^= x << 17
      let unit = Double(x >> 11) / Double(1 << 53)
      let magnitude = [1e-3, 1, 180, 1e4, 1e7][Int(x % 5)]
      values.append((unit * 2 - 1) * magnitude)
    }
    return values
  }

  static func limited(_ progress: Progress, _ limit: SpeedLimit) -> Progress {
    var p = progress
    p.speedLimit = limit
    return p
  }

  static func ahead(_ progress: Progress, _ v: Double) -> NavigationEvent.Kind {
    .progress(
      limited(progress, .limit(50, .kilometresPerHour)),
      ahead: [
        RoadObject(.tunnel, start: v, end: v + 1234.56, name: "Tunnel \"de\" Monaco"),
        RoadObject(.tollBooth, start: abs(v)), RoadObject(.levelCrossing, start: 7.25),
      ])
  }

  @Test func speedLimitMembersAreWrittenAfterTheOthers() {
    var p = Progress(
      step: 1, distanceToManeuver: 10, distanceRemaining: 20, timeRemaining: 5, distanceAlong: 3,
      onRoute: true, raw: Coordinate(latitude: 1, longitude: 2),
      matched: Coordinate(latitude: 1, longitude: 2), distanceFromRoute: 0, speed: 13.9,
      course: nil)
    func line() -> String {
      Self.bytes(NavigationEvent(time: 0, kind: .progress(p)))
    }
    #expect(!line().contains("speedLimit"))
    p.speedLimit = .limit(50, .kilometresPerHour)
    #expect(line().hasSuffix(#","speed":13.9,"speedLimit":50,"speedLimitUnit":"km/h"}"#))
    p.speedLimit = .limit(30, .milesPerHour)
    #expect(line().hasSuffix(#","speedLimit":30,"speedLimitUnit":"mph"}"#))
    p.speedLimit = SpeedLimit.none
    #expect(line().hasSuffix(#","speedLimit":"none"}"#))
    p.speedLimit = .unknown
    #expect(!line().contains("speedLimit"))
  }

  static func events(_ v: Double) -> [NavigationEvent] {
    let c = Coordinate(latitude: v.isFinite ? max(-90, min(90, v)) : v, longitude: v)
    let progress = Progress(
      step: 3, distanceToManeuver: v, distanceRemaining: abs(v), timeRemaining: 17.25,
      distanceAlong: v, onRoute: v > 0, raw: c, matched: Coordinate(latitude: v, longitude: -v),
      distanceFromRoute: v, speed: v > 1 ? v : nil, course: v < 0 ? nil : v,
      discardedFixes: v.isFinite && v > 0 ? Int(min(v, 1e9)) : 0)
    let announcement = Announcement(
      step: 2, kind: .prepare, message: .gpsLost, text: "Turn \"left\"\n onto Großstraße \\ 3",
      distance: v.isNaN ? nil : v, id: "r0.s2.prepare")
    let summary = RouteSummary(
      name: "Test\u{1} route", routeIndex: 1, distance: v, expectedTravelTime: abs(v),
      transportType: .automobile, hasTolls: true, hasHighways: false, steps: 4, source: "A",
      destination: "B ☃")
    let t = 1_700_000_000.0 + (v.isFinite ? v.truncatingRemainder(dividingBy: 1e6) : 0)
    return [
      NavigationEvent(time: t, kind: .progress(progress)),
      NavigationEvent(time: t, kind: .announce(announcement)),
      NavigationEvent(time: t, kind: .route(summary)),
      NavigationEvent(time: t, kind: .step(7)),
      NavigationEvent(time: t, kind: .offRoute(distance: v)),
      NavigationEvent(time: t, kind: .onRoute),
      NavigationEvent(time: t, kind: .arrived(distance: v)),
      NavigationEvent(time: t, kind: .gps(.lost)),
      // Made without fixes (dead reckoning): the member comes last, only when true.
      NavigationEvent(time: t, kind: .progress(progress), estimated: true),
      NavigationEvent(time: t, kind: .announce(announcement), estimated: true),
      NavigationEvent(time: t, kind: .step(8), estimated: true),
      // The limit where the vehicle is: a value in its unit, none, or nothing written.
      NavigationEvent(time: t, kind: .progress(limited(progress, .limit(v, .kilometresPerHour)))),
      NavigationEvent(time: t, kind: .progress(limited(progress, .limit(abs(v), .milesPerHour)))),
      NavigationEvent(time: t, kind: .progress(limited(progress, SpeedLimit.none))),
      NavigationEvent(time: t, kind: .progress(limited(progress, .unknown)), estimated: true),
      // What lies ahead, when it changed: through the tree, after the limit.
      NavigationEvent(time: t, kind: ahead(progress, v)),
      NavigationEvent(time: t, kind: ahead(progress, v), estimated: true),
    ]
  }

  @Test func everyEventClassIsWrittenAsTheTreeWouldBe() {
    var mismatches: [String] = []
    for v in Self.sweep() {
      for e in Self.events(v) where Self.bytes(e) != Self.tree(e) {
        mismatches.append("\(v): \(Self.bytes(e)) != \(Self.tree(e))")
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
  }

  @Test(arguments: [
    -86_400.0 * 800_000, -1, 0, 0.0005, 59.9995, 951_782_400, 4_102_444_799.9996, 253_402_300_800,
  ])
  func timesAreWrittenAsUTCTimeWritesThem(_ t: Double) {
    let e = NavigationEvent(time: t, kind: .onRoute)
    #expect(Self.bytes(e) == Self.tree(e))
    // A `PROGRESS` line's two times, its ETA on the same day, the next one, or years later
    // (`ProgressLineWriter` works a date out once for both when they share a day).
    for remaining in [0, 0.0004, 17.25, 43_200, 86_399.9996, 86_400, 90_000, 4e7] {
      let progress = Progress(
        step: 1, distanceToManeuver: 10, distanceRemaining: 20, timeRemaining: remaining,
        distanceAlong: 0, onRoute: true, raw: Coordinate(latitude: 1, longitude: 2),
        matched: Coordinate(latitude: 1, longitude: 2), distanceFromRoute: 0, speed: nil,
        course: nil, discardedFixes: 0)
      let p = NavigationEvent(time: t, kind: .progress(progress))
      #expect(Self.bytes(p) == Self.tree(p), "\(t) + \(remaining)")
    }
  }

  @Test func sourceEventsAreWrittenAsTheTreeWouldBe() {
    for reason in [nil, "end of \"stream\""] {
      let e = SourceEvent(
        time: 1_700_000_000.5, status: .disconnected, source: "gpsd://h:1", reason: reason)
      #expect(
        EventLine.text(.source(e)) == JSONWriter.string(.object(ReferenceEventEncoder.object(e))))
    }
  }
}
