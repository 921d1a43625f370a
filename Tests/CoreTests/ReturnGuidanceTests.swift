import Geodesy
import Guidance
import GuidanceSettings
import Phrasebook
import Returning
import Routes
import TestSupport
import Testing

/// Guidance back to the route when no new route can be had: where the route is, "turn around
/// when possible" once moving away, repeated with growing spacing, a bounded number of times,
/// and normal guidance at the right step once back.
@Suite struct ReturnGuidanceTests {
  static let start = Coordinate(latitude: 47.14, longitude: 9.52)

  @Test func directionsAreQuadrantsOfTheCourseOrCompassPointsWithoutOne() {
    #expect(ReturnDirection(bearing: 10, course: 350) == .ahead)
    #expect(ReturnDirection(bearing: 80, course: 0) == .right)
    #expect(ReturnDirection(bearing: 280, course: 0) == .left)
    #expect(ReturnDirection(bearing: 180, course: 10) == .behind)
    #expect(ReturnDirection(bearing: 100, course: 270) == .behind)
    #expect(ReturnDirection(bearing: 44, course: nil) == .compass(.northEast))
    #expect(ReturnDirection(bearing: 359, course: nil) == .compass(.north))
    #expect(ReturnDirection(bearing: 200, course: nil) == .compass(.south))
    #expect(ReturnDirection(bearing: 250, course: nil) == .compass(.west))
    #expect(CompassPoint(bearing: -45) == .northWest)
  }

  static func observation(_ t: Double, _ d: Double, bearing: Double = 90, course: Double? = 0)
    -> ReturnGuide.Observation
  {
    ReturnGuide.Observation(time: t, distance: d, bearing: bearing, course: course)
  }

  @Test func theFirstAnnouncementIsDueAtOnceAndRepetitionsWaitLongerEachTimeUpToALimit() {
    var guide = ReturnGuide()
    var times: [Double] = []
    for t in stride(from: 0.0, through: 1000, by: 1) {
      guide.observe(Self.observation(t, 120))
      if let say = guide.due() {
        times.append(t)
        #expect(say == ReturnGuide.Prompt(distance: 120, direction: .right, turnAround: false))
      }
    }
    #expect(times == [0, 15, 45, 105, 225, 345])
    #expect(guide.announcements == ReturnConfiguration().announcementLimit)
  }

  @Test func movingAwayFromTheRouteBringsTurnAroundOnceThenTheSpacingGoesOn() {
    var guide = ReturnGuide()
    var said: [(Double, ReturnGuide.Prompt)] = []
    // The route to the right, then behind and farther at each fix, then to the right again.
    for t in 0..<60 {
      let time = Double(t)
      let o =
        t < 8
        ? Self.observation(time, 60)
        : t < 20
          ? Self.observation(time, 60 + 10 * (time - 7), bearing: 180)
          : Self.observation(time, 150, bearing: 90)
      guide.observe(o)
      if let say = guide.due() { said.append((time, say)) }
    }
    // The turn-around comes as soon as the vehicle is moving away (not at the next
    // repetition, due at 15 s); the spacing then goes on from it.
    #expect(said.map(\.0) == [0, 10, 40])
    #expect(said[1].1 == ReturnGuide.Prompt(distance: 90, direction: .behind, turnAround: true))
    // Turned towards the route again: a plain direction.
    #expect(said[2].1 == ReturnGuide.Prompt(distance: 150, direction: .right, turnAround: false))
  }

  @Test(arguments: 1...20 as ClosedRange<UInt64>)
  func announcementsNeverComeInABurstAndNeverRunOn(seed: UInt64) {
    var rng = SplitMix(seed: seed)
    var guide = ReturnGuide()
    var times: [Double] = []
    var t = 0.0
    for _ in 0..<2000 {
      t += 0.2 + rng.unit() * 2
      let o = ReturnGuide.Observation(
        time: t, distance: 20 + rng.unit() * 500, bearing: rng.unit() * 360,
        course: rng.unit() < 0.2 ? nil : rng.unit() * 360)
      guide.observe(o)
      if guide.due() != nil { times.append(t) }
    }
    let c = ReturnConfiguration()
    #expect(!times.isEmpty && times.count <= c.announcementLimit)
    for (a, b) in zip(times, times.dropFirst()) { #expect(b - a >= c.minimumGap) }
  }

  /// East 400 m to a left turn, then north 600 m to the goal.
  static let route = makeRoute(
    start: start, legs: [(90, 400, "Turn left onto A Street"), (0, 600, "Arrive at Goal")])

  static func drive(_ legs: [(bearing: Double, length: Double)], from t0: Double = 0)
    -> [Fix]
  {
    var out: [Fix] = []
    var here = start
    var t = t0
    let speed = 10.0
    for leg in legs {
      var done = 0.0
      while done < leg.length {
        out.append(
          Fix(
            time: t, coordinate: here.destination(distance: done, bearing: leg.bearing),
            speed: speed, course: leg.bearing, horizontalAccuracy: 3))
        done += speed
        t += 1
      }
      here = here.destination(distance: leg.length, bearing: leg.bearing)
    }
    return out
  }

  @Test func aMissedTurnIsGuidedBackAndGuidanceResumesAtTheRightStep() throws {
    // Past the left turn by 300 m, a U-turn, back to the turn, then north along the route.
    let fixes = Self.drive([(90, 700), (270, 300), (0, 640)])
    var session = try NavigationSession(document: Self.route, phrasing: Phrasebook())
    var events: [NavigationEvent] = []
    for f in fixes { events += session.ingest(f) }
    let said = events.compactMap { e in e.announcement.map { (e.time, $0) } }
    let returns = said.filter { $0.1.kind == .return }
    try #require(returns.count >= 2, "\(said.map(\.1.text))")
    let off = try #require(events.first { if case .offRoute = $0.kind { true } else { false } })
    // Said with the off-route fix: where the route is, behind the vehicle that went straight.
    #expect(returns[0].0 == off.time)
    #expect(returns[0].1.text.hasPrefix("The route is "))
    #expect(returns[0].1.id == "r0.return.1.1")
    // Moving on away from the turn: turn around, before the U-turn at 70 s.
    let turn = try #require(returns.first { $0.1.text.hasPrefix("Turn around when possible.") })
    #expect(turn.0 < 70)
    #expect(turn.1.text.hasSuffix("behind you."))
    // Back on the route past the turn: the next step, no announcement for the turn passed.
    let back = try #require(events.firstIndex { $0.kind == .onRoute })
    #expect(events[back...].contains { $0.kind == .step(2) })
    let after = events[back...].compactMap(\.announcement)
    #expect(!after.contains { $0.step == 1 && [.prepare, .approach, .now].contains($0.kind) })
    #expect(!after.contains { $0.kind == .return })
    #expect(after.contains { $0.kind == .arrive })
    #expect(GuidanceProperties.duplicateIDs(events).isEmpty)
  }

  @Test func anEdgeWithARouterSaysThemOnlyWhenItAsks() throws {
    let fixes = Self.drive([(90, 700)])
    var session = try NavigationSession(document: Self.route, phrasing: Phrasebook(language: .ko))
    session.guidesBack = false
    var own: [Announcement] = []
    var asked: [Announcement] = []
    for f in fixes {
      own += session.ingest(f).compactMap(\.announcement)
      if session.offRoute { asked += session.guideBack().compactMap(\.announcement) }
    }
    #expect(!own.contains { $0.kind == .return })
    #expect(asked.first?.text.hasPrefix("경로는 ") == true)
    #expect(asked.contains { $0.text.hasPrefix("가능한 곳에서 방향을 돌리세요. 경로는 뒤쪽으로 ") })
    #expect(session.offRouteSince != nil)
  }

  @Test func aDriveAlongItsRouteHearsNoReturnAnnouncement() throws {
    let events = try runSession(Self.route, fixes: Self.drive([(90, 400), (0, 640)]))
    #expect(!events.contains { $0.announcement?.kind == .return })
    #expect(events.contains { $0.announcement?.kind == .arrive })
  }
}

/// A small deterministic generator for the property test.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
