import Geodesy
import Guidance
import Matching
import Phrasebook
import RouteShape
import Routes
import Simulation
import TestSupport
import Testing

/// Guidance against the errors of real receivers and real route geometry, each on its own:
/// a car-park start, street-canyon bias that the accuracy does not show, single-fix glitches,
/// corners cut on a route of junction points, and maneuvers close together.
///
/// The scenario suite (033–044) has them at length and combined; these pin each rule down.
@Suite struct RealReceiverTests {
  /// Out 600 m east, a U-turn, back 600 m: the way back lies on the way out.
  static let outAndBack = makeRoute(legs: [
    (90, 600, "Make a U-turn."), (270, 600, "Your destination is ahead."),
  ])
  /// Three legs of junction points only (no shape points between the turns).
  static let coarse = makeRoute(
    legs: [
      (0, 500, "Turn right onto A Street."), (90, 500, "Turn left onto B Street."),
      (0, 500, "Your destination is ahead."),
    ], spacing: 10_000)

  static func drive(_ doc: RouteDocument, _ options: DriveOptions) -> SimulatedDrive {
    DriveSimulator.drive(doc.routes[0], options: options)
  }

  static func town(seed: UInt64, noise: Double = 4) -> DriveOptions {
    var o = DriveOptions()
    o.profile = .town
    o.noise = noise
    o.seed = seed
    return o
  }

  /// The fixes as a receiver without an error estimate reports them: HDOP only.
  static func hdopOnly(_ fixes: [Fix]) -> [Fix] {
    fixes.map { f in
      var g = f
      g.horizontalAccuracy = nil
      return g
    }
  }

  @Test func aUTurnOutOfAParkingSpaceDepartsOnTheWayOut() throws {
    for seed: UInt64 in 1...4 {
      var o = Self.town(seed: seed)
      o.settle = 0
      o.pullOut = PullOut(turn: 180, radius: 8, speed: 6)
      let d = Self.drive(Self.outAndBack, o)
      // The first course points back along the way home, where the route also runs.
      let first = try #require(d.fixes.first?.course)
      #expect(bearingDifference(first, 270) < 40, "seed \(seed)")
      let events = try runSession(Self.outAndBack, fixes: d.fixes)
      let said = events.compactMap(\.announcement).map(\.id)
      #expect(said.first == "r0.depart", "seed \(seed): \(said)")
      #expect(events.compactMap(\.stepIndex) == [1, 2], "seed \(seed)")
      #expect(!events.contains { $0.isOffRoute }, "seed \(seed)")
      #expect(said.contains("r0.s1.now") && said.last == "r0.arrive", "seed \(seed): \(said)")
    }
  }

  @Test func aStartBesideTheRouteIsHeadingToItNotOffIt() throws {
    let doc = Self.coarse
    var session = try NavigationSession(document: doc, phrasing: Phrasebook())
    // 60 m west of the start, standing, then driving east onto it.
    let start = doc.routes[0].steps[0].polyline[0]
    var events: [NavigationEvent] = []
    for i in 0..<12 {
      let p = start.destination(distance: max(0, 60 - 6 * Double(i)), bearing: 270)
      events += session.ingest(
        Fix(time: 100 + Double(i), coordinate: p, speed: i < 2 ? 0 : 6, course: 90))
      if i == 0 { #expect(session.phase == .joining) }
    }
    #expect(events.compactMap(\.announcement).first?.kind == .depart)
    #expect(!events.contains { $0.isOffRoute })
    #expect(session.phase == .onRoute)
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func aVehicleCirclingTheCarParkBeforeTheStartIsNotOffTheRoute(seed: UInt64) throws {
    // 40 s of loops 15–30 m from the route's start, slowing from 6 to 1 m/s, the course
    // sweeping round (and following the route's first bearing now and then), then out.
    var o = Self.town(seed: seed)
    o.settle = 0
    o.hdop = 1.5
    o.pullOut = PullOut(turn: seed % 2 == 0 ? 120 : -120, radius: 10, speed: 4, circle: 40)
    let d = Self.drive(Self.coarse, o)
    let events = try runSession(Self.coarse, fixes: Self.hdopOnly(d.fixes))
    let said = events.compactMap(\.announcement)
    #expect(said.first?.kind == .depart, "seed \(seed)")
    #expect(!events.contains { $0.isOffRoute }, "seed \(seed)")
    #expect(!said.contains { $0.kind == .`return` }, "seed \(seed)")
    #expect(events.compactMap(\.stepIndex) == [1, 2, 3], "seed \(seed)")
    #expect(said.last?.kind == .arrive, "seed \(seed)")
  }

  /// A car park 28 m from the route's start and 4 m from a later pass of it departs at the start.
  ///
  /// The route loops round a block and comes back 32 m north of its start. The car stands in
  /// the car park, then drives to the start and round the loop: it departs on the first step,
  /// not 312 m on.
  @Test func aCarParkBesideALaterPassOfTheRouteDepartsAtTheStart() throws {
    let doc = makeRoute(legs: [
      (180, 80, "Turn left."), (90, 60, "Turn left."), (0, 112, "Turn left."),
      (270, 300, "Your destination is ahead."),
    ])
    let g = RouteGeometry(route: doc.routes[0])
    let start = g.points[0]
    var fixes = (0..<10).map { i in
      Fix(
        time: Double(i), coordinate: start.destination(distance: 28, bearing: 0), speed: 0,
        hdop: 1.5)
    }
    for k in 1...4 {
      fixes.append(
        Fix(
          time: Double(9 + k),
          coordinate: start.destination(distance: 28 - 6 * Double(k), bearing: 0),
          speed: 6, course: 180, hdop: 1.5))
    }
    var s = 2.0
    while s < g.length + 12 {
      let along = min(s, g.length)
      fixes.append(
        Fix(
          time: fixes[fixes.count - 1].time + 1, coordinate: g.coordinate(at: along), speed: 6,
          course: g.bearings[g.segment(containing: along, from: 0)], hdop: 1.5))
      s += 6
    }
    let events = try runSession(doc, fixes: fixes)
    #expect(events.compactMap(\.announcement).first?.kind == .depart)
    #expect(events.compactMap(\.stepIndex) == [1, 2, 3, 4])
    #expect(!events.contains { $0.isOffRoute })
    #expect(events.contains { $0.isArrived })
  }

  /// The same car park, left the other way, along the later pass, joins the route there.
  ///
  /// Once farther from the start than any bias puts a fix: steps 1–3 are behind it, and it
  /// arrives.
  @Test func aCarParkLeftAlongALaterPassOfTheRouteJoinsItThere() throws {
    let doc = makeRoute(legs: [
      (180, 80, "Turn left."), (90, 60, "Turn left."), (0, 112, "Turn left."),
      (270, 300, "Your destination is ahead."),
    ])
    let g = RouteGeometry(route: doc.routes[0])
    let park = g.points[0].destination(distance: 28, bearing: 0)
    var fixes = (0..<10).map { i in
      Fix(time: Double(i), coordinate: park, speed: 0, hdop: 1.5)
    }
    for k in 1...50 {
      fixes.append(
        Fix(
          time: Double(9 + k), coordinate: park.destination(distance: 6 * Double(k), bearing: 270),
          speed: 6, course: 270, hdop: 1.5))
    }
    let events = try runSession(doc, fixes: fixes)
    #expect(events.compactMap(\.stepIndex) == [1, 4])
    #expect(!events.contains { $0.isOffRoute })
    #expect(events.contains { $0.isArrived })
  }

  @Test func aSteadyCanyonBiasIsNeitherOffRouteNorStuck() throws {
    for seed: UInt64 in 1...4 {
      var o = Self.town(seed: seed, noise: 3)
      o.hdop = 1.0
      o.canyons = [Canyon(from: -40, to: 1400, bias: seed % 2 == 0 ? 30 : -30)]
      let d = Self.drive(Self.coarse, o)
      let events = try runSession(Self.coarse, fixes: Self.hdopOnly(d.fixes))
      #expect(!events.contains { $0.isOffRoute }, "seed \(seed)")
      #expect(events.compactMap(\.stepIndex) == [1, 2, 3], "seed \(seed)")
      // Progress keeps up with the vehicle: never more than 60 m behind the truth.
      for e in events {
        guard case .progress(let p, _) = e.kind, p.distanceAlong > 50,
          let truth = d.truth.first(where: { $0.time >= e.time })
        else { continue }
        #expect(truth.distanceAlong - p.distanceAlong < 60, "seed \(seed) at \(e.time)")
      }
    }
  }

  /// Fixes 14 m/s up the first leg of `coarse` (north), `offset(i)` metres east of it, the
  /// course `course(i)`, an accuracy of 5 m.
  ///
  /// The speed jitters by a hundredth, as a receiver's Doppler speed does: one repeated exactly
  /// with the course is a receiver coasting without sky (``CoastingReceiverTests``).
  static func drifting(offset: (Int) -> Double, course: (Int) -> Double) -> [Fix] {
    let start = coarse.routes[0].steps[0].polyline[0]
    return (0..<24).map { i in
      var f = Fix(
        time: 100 + Double(i),
        coordinate: start.destination(distance: 14 * Double(i), bearing: 0).destination(
          distance: offset(i), bearing: 90),
        speed: 14 + 0.01 * Double(i % 2), course: course(i))
      f.horizontalAccuracy = 5
      return f
    }
  }

  /// The offset of fixes drifting from 10 to 40 m beside the road at 5 m/s from the eighth.
  static func drift(_ i: Int) -> Double { min(40, 10 + 5 * Double(max(0, i - 8))) }

  @Test func fixesDriftingOffWhileTheCourseKeepsToTheRoadAreNoDeparture() throws {
    // A canyon's reflections changing: 15 m in 3 s beside the road, the course (the receiver's
    // Doppler, not its position) straight up it.
    let events = try runSession(
      Self.coarse, fixes: Self.drifting(offset: Self.drift, course: { _ in 0 }))
    #expect(!events.contains { $0.isOffRoute })
    let along = try #require(
      events.compactMap { e -> Double? in
        if case .progress(let p, _) = e.kind { return p.distanceAlong }
        return nil
      }.last)
    #expect(along > 14 * 23 - 30, "progress kept up: \(along)")
  }

  @Test func fixesDriftingOffWithTheCourseThatWayAreADeparture() throws {
    // The same positions, the course 21° off the road while they move away (5 m/s sideways at
    // 14 m/s): a vehicle leaving.
    let events = try runSession(
      Self.coarse,
      fixes: Self.drifting(
        offset: Self.drift, course: { Self.drift($0 + 1) > Self.drift($0) ? 21 : 0 }))
    #expect(events.contains { $0.isOffRoute })
  }

  @Test func aWrongTurnInACanyonIsStillReported() throws {
    for seed: UInt64 in 1...4 {
      var o = Self.town(seed: seed, noise: 3)
      o.hdop = 1.0
      o.canyons = [Canyon(from: -40, to: 1400, bias: 25)]
      // Left where the route turns right, 300 m, no return.
      o.deviation = Deviation(at: 500, angle: -90, length: 300, rejoin: false)
      let d = Self.drive(Self.coarse, o)
      let events = try runSession(Self.coarse, fixes: Self.hdopOnly(d.fixes))
      let far = try #require(d.truth.first { $0.offset >= 50 }?.time)
      let reported = try #require(events.first { $0.isOffRoute }?.time, "seed \(seed)")
      #expect(reported - far <= 5, "seed \(seed): \(reported - far) s after 50 m off")
    }
  }

  @Test func aDetourInACanyonRejoinsAtTheBiasAndSkipsNothing() throws {
    for seed: UInt64 in 1...4 {
      var o = Self.town(seed: seed, noise: 3)
      o.hdop = 1.0
      o.canyons = [Canyon(from: -40, to: 1400, bias: 22)]
      o.deviation = Deviation(at: 250, angle: -70, length: 200, rejoin: true)
      let d = Self.drive(Self.coarse, o)
      let events = try runSession(Self.coarse, fixes: Self.hdopOnly(d.fixes))
      #expect(events.filter { $0.isOffRoute }.count == 1, "seed \(seed)")
      #expect(events.contains { $0.kind == .onRoute }, "seed \(seed)")
      #expect(events.compactMap(\.stepIndex) == [1, 2, 3], "seed \(seed)")
      // Back on the route within 10 s of the truth.
      let back = try #require(events.first { $0.kind == .onRoute }?.time)
      let left = try #require(d.truth.firstIndex { $0.offset > 0 })
      let truthBack = try #require(d.truth[left...].first { $0.offset == 0 }?.time)
      #expect(back - truthBack < 10, "seed \(seed): \(back - truthBack) s after the truth")
    }
  }

  @Test func cornersCutOnJunctionPointGeometryAreOnTheRoute() throws {
    for seed: UInt64 in 1...4 {
      var o = Self.town(seed: seed)
      o.cornerCut = 28
      let d = Self.drive(Self.coarse, o)
      #expect(d.truth.contains { $0.offset == 0 })
      let events = try runSession(Self.coarse, fixes: d.fixes)
      #expect(!events.contains { $0.isOffRoute }, "seed \(seed)")
      #expect(events.compactMap(\.stepIndex) == [1, 2, 3], "seed \(seed)")
    }
  }

  @Test func aMissedTurnOnJunctionPointGeometryIsStillReported() throws {
    var o = Self.town(seed: 3)
    o.cornerCut = 28
    // Straight on where the route turns right, from before the corner would be cut.
    o.deviation = Deviation(at: 380, angle: 0, length: 400, rejoin: false)
    let d = Self.drive(Self.coarse, o)
    let events = try runSession(Self.coarse, fixes: d.fixes)
    let far = try #require(d.truth.first { $0.offset >= 50 }?.time)
    let reported = try #require(events.first { $0.isOffRoute }?.time)
    #expect(reported - far <= 5, "\(reported - far) s after 50 m off")
  }

  @Test func singleFixGlitchesAreDiscardedAndCounted() throws {
    var o = Self.town(seed: 7)
    o.glitchEvery = 20
    let d = Self.drive(Self.coarse, o)
    let glitches = zip(d.fixes, d.truth).filter { f, t in
      (f.coordinate?.distance(to: t.position) ?? 0) > 90
    }.count
    #expect(glitches >= 3)
    var session = try NavigationSession(document: Self.coarse, phrasing: Phrasebook())
    var events: [NavigationEvent] = []
    for f in d.fixes { events += session.ingest(f) }
    #expect(session.discardedFixes == glitches)
    #expect(!events.contains { $0.isOffRoute })
    // The arrival is measured from a real fix, not from a glitch.
    let arrival = try #require(
      events.lazy.compactMap { e -> Double? in
        if case .arrived(let m) = e.kind { return m }
        return nil
      }.first)
    #expect(arrival < 25)
  }

  @Test(arguments: [1, 2, 3, 4] as [UInt64])
  func fiveManeuversThirteenToEighteenMetresApartAreSaidInUnitsOfTwoInTime(seed: UInt64) throws {
    // Into a car park and out: left, left 18 m on, a U-turn 13 m on, right 13 m back, right
    // 18 m on, left onto the road 60 m on.
    let doc = makeRoute(legs: [
      (90, 400, "Turn left into the car park."), (0, 60, "Turn left."), (270, 18, "Turn left."),
      (180, 13, "Make a left U-turn."), (0, 13, "Turn right."), (90, 18, "Turn right."),
      (180, 60, "Turn left onto the main road."), (90, 400, "Your destination is ahead."),
    ])
    var o = Self.town(seed: seed)
    o.speed = 30 / 3.6
    let d = Self.drive(doc, o)
    let events = try runSession(doc, fixes: d.fixes)
    let ends = [0.0, 400, 460, 478, 491, 504, 522, 582]
    // A maneuver is said by a final announcement of its own or as the "then" of the one before.
    var said: [Int: Double] = [:]
    for e in events {
      guard let a = e.announcement, a.kind == .now,
        case .maneuver(_, _, let then, _) = a.message
      else { continue }
      said[a.step] = e.time
      if then != nil { said[a.step + 1] = e.time }
    }
    for k in 1...7 {
      let at = try #require(said[k], "seed \(seed): maneuver \(k) never said")
      let reached = try #require(d.truth.first { $0.distanceAlong >= ends[k] }?.time)
      #expect(reached - at >= 3, "seed \(seed): maneuver \(k) said \(reached - at) s before")
    }
    #expect(!events.contains { $0.isOffRoute }, "seed \(seed)")
  }

  @Test func aTurnTenMetresAfterAnotherIsSaidWithItInTime() throws {
    // Right, then 10 m later left: no room for a final announcement of its own.
    let doc = makeRoute(legs: [
      (0, 400, "Turn right onto A Street."), (90, 10, "Turn left onto B Street."),
      (0, 400, "Your destination is ahead."),
    ])
    var o = Self.town(seed: 5, noise: 0)
    o.profile = .town
    let d = Self.drive(doc, o)
    let events = try runSession(doc, fixes: d.fixes)
    let announcements = events.compactMap { e in e.announcement.map { (e.time, $0) } }
    // Maneuver 2 is announced only as the "then" of maneuver 1's final announcement.
    #expect(!announcements.contains { $0.1.id == "r0.s2.now" })
    let final = try #require(announcements.last { $0.1.id == "r0.s1.now" })
    guard case .maneuver(_, _, let then, _) = final.1.message else {
      Issue.record("not a maneuver announcement")
      return
    }
    #expect(then == "Turn left onto B Street.")
    let reached = try #require(d.truth.first { $0.distanceAlong >= 410 }?.time)
    #expect(reached - final.0 >= 3)
  }
}
