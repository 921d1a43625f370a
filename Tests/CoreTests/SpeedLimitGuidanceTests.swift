import Geodesy
import Matching
import Phrasebook
import RouteShape
import Routes
import TestSupport
import Testing

@testable import Guidance

/// The speed limit where the vehicle is, published in every `PROGRESS` from the route's limit
/// spans: the new limit from the first fix inside its span.
@Suite struct SpeedLimitGuidanceTests {
  static let t0 = 1_714_550_400.0
  /// 1000 m east, a 40 m step north, 800 m east.
  static let plain = makeRoute(legs: [
    (90, 1000, "Turn left onto A Street"), (0, 40, "Turn right onto B Street"),
    (90, 800, "Your destination is on the left"),
  ])
  /// 50 km/h to 400 m, 30 km/h to 900 m, none to 1300 m, unknown to 1500 m, no data after.
  static let limits = [
    SpeedLimitSpan(start: 0, end: 400, limit: .limit(50, .kilometresPerHour)),
    SpeedLimitSpan(start: 400, end: 900, limit: .limit(30, .kilometresPerHour)),
    SpeedLimitSpan(start: 900, end: 1300, limit: .none),
    SpeedLimitSpan(start: 1300, end: 1500, limit: .unknown),
  ]

  static func document(limits: [SpeedLimitSpan]) -> RouteDocument {
    var doc = plain
    doc.routes[0].road = RouteRoad(speedLimits: limits)
    return doc
  }

  /// Fixes on the route every second at `speed` m/s from the start to its end.
  static func drive(_ doc: RouteDocument, speed: Double = 12) throws -> [NavigationEvent] {
    let geometry = RouteGeometry(route: doc.routes[0])
    var s = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    var events: [NavigationEvent] = []
    var t = 0.0
    while !s.arrived && t < 400 {
      let along = min(speed * t, geometry.length)
      let course = geometry.bearings[geometry.segment(containing: along, from: 0)]
      events += s.ingest(
        Fix(
          time: t0 + t, coordinate: geometry.coordinate(at: along), speed: speed, course: course,
          horizontalAccuracy: 3))
      t += 1
    }
    return events
  }

  @Test func everyProgressCarriesTheLimitOfItsPosition() throws {
    let doc = Self.document(limits: Self.limits)
    let progress = try Self.drive(doc).compactMap(\.progressValue)
    #expect(progress.count > 100)
    for p in progress {
      var expected = doc.routes[0].road.speedLimit(at: p.distanceAlong)
      if expected == .unknown { expected = nil }
      #expect(p.speedLimit == expected, "at \(p.distanceAlong) m")
    }
    // Each limit is published, and changes at the first fix inside its span.
    let published = progress.map(\.speedLimit)
    #expect(published.first == .limit(50, .kilometresPerHour))
    #expect(published.contains(.limit(30, .kilometresPerHour)))
    #expect(published.contains(SpeedLimit.none))
    #expect(progress.last?.speedLimit == nil)
    for (before, after) in zip(progress, progress.dropFirst())
    where before.speedLimit != after.speedLimit {
      let boundary = Self.limits.map(\.start).filter { $0 > 0 } + [1500]
      #expect(
        boundary.contains { before.distanceAlong <= $0 && $0 < after.distanceAlong + 1e-9 },
        "changed between \(before.distanceAlong) and \(after.distanceAlong) m")
    }
  }

  @Test func aRouteWithoutLimitsPublishesNone() throws {
    let progress = try Self.drive(Self.plain).compactMap(\.progressValue)
    #expect(!progress.isEmpty && progress.allSatisfy { $0.speedLimit == nil })
  }

  /// The watch walks its index forward and back and answers as the route's binary search does.
  @Test func theWatchAgreesWithTheRoutesLookupForwardAndBack() {
    let road = RouteRoad(
      speedLimits: Self.limits + [
        SpeedLimitSpan(start: 1600, end: 1700, limit: .limit(70, .milesPerHour))
      ])
    var watch = RoadWatch(road: road)
    var x: UInt64 = 0x2545_F491_4F6C_DD1D
    var along = 0.0
    for _ in 0..<5000 {
      x ^= x << 13
      x ^= x >> 7
      x ^= x << 17
      // Mostly forward by up to 40 m, sometimes back, sometimes a jump anywhere.
      switch x % 10 {
      case 0: along = Double(x >> 11 % 2000)
      case 1: along -= Double(x % 60)
      default: along += Double(x % 40)
      }
      along = max(-10, min(1900, along))
      var expected = road.speedLimit(at: along)
      if expected == .unknown { expected = nil }
      #expect(watch.limit(at: along) == expected, "at \(along) m")
    }
    // Shared ends belong to the later span.
    #expect(watch.limit(at: 400) == .limit(30, .kilometresPerHour))
    #expect(watch.limit(at: 1550) == nil)
  }
}
