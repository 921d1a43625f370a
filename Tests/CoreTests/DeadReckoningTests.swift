import Geodesy
import Guidance
import GuidanceSettings
import Matching
import Phrasebook
import RouteShape
import Routes
import TestSupport
import Testing

/// Dead reckoning along the route: a vehicle without fixes is carried on, its events say so,
/// and the fixes that come back take over without a jump backwards or a false off-route.
@Suite struct DeadReckoningTests {
  /// 1000 m east, a 40 m step north, 800 m east.
  static let doc = makeRoute(legs: [
    (90, 1000, "Turn left onto A Street"), (0, 40, "Turn right onto B Street"),
    (90, 800, "Your destination is on the left"),
  ])
  static let t0 = 1_714_550_400.0
  static let geometry = RouteGeometry(route: doc.routes[0])

  static func fix(at s: Double, time: Double, speed: Double = 12, quality: FixQuality = .gps)
    -> Fix
  {
    let c = geometry.coordinate(at: s)
    let course = geometry.bearings[geometry.segment(containing: s, from: 0)]
    return Fix(
      time: t0 + time, coordinate: c, speed: speed, course: course, horizontalAccuracy: 3,
      quality: quality)
  }

  /// A fix `s` metres along `geometry` (`north` metres north of it), with the route's course
  /// while moving and none while standing.
  static func fix(
    on geometry: RouteGeometry, at s: Double, time: Double, speed: Double, north: Double = 0
  ) -> Fix {
    let on = geometry.coordinate(at: s)
    return Fix(
      time: t0 + time, coordinate: north == 0 ? on : on.destination(distance: north, bearing: 0),
      speed: speed,
      course: speed > 0 ? geometry.bearings[geometry.segment(containing: s, from: 0)] : nil,
      horizontalAccuracy: 3)
  }

  static func session() throws -> NavigationSession {
    try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
  }

  /// Fixes at 12 m/s for the first `until` seconds; the session's events up to then.
  static func drive(_ s: inout NavigationSession, until: Int) -> [NavigationEvent] {
    var events: [NavigationEvent] = []
    for t in 0...until { events += s.ingest(fix(at: 12 * Double(t), time: Double(t))) }
    return events
  }

  @Test func withoutFixesThePositionMovesOnAndTheEventsSaySo() throws {
    var s = try Self.session()
    _ = Self.drive(&s, until: 60)
    var blind: [NavigationEvent] = []
    for t in 61...100 { blind += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    #expect(blind.filter { $0.kind == .gps(.lost) }.count == 1)
    let progress = blind.filter { $0.progressValue != nil }
    #expect(progress.allSatisfy { $0.estimated })
    #expect(!progress.isEmpty)
    // At 12 m/s: 12 m a second from the last fix, at 720 m.
    let at70 = try #require(progress.first { $0.time == Self.t0 + 70 }?.progressValue)
    #expect(abs(at70.distanceAlong - 840) < 0.5)
    // The maneuver ahead is announced on time and passed; the next one, whose direction
    // nothing tells, is where the estimate waits.
    let now = try #require(blind.first { $0.announcement?.id == "r0.s1.now" })
    #expect(now.estimated && now.time < Self.t0 + 1000 / 12 - 3)
    let step = try #require(blind.first { $0.stepIndex == 2 })
    #expect(step.estimated)
    #expect(abs(step.time - (Self.t0 + 1010 / 12)) <= 1)
    #expect(blind.compactMap(\.stepIndex) == [2, 3])
    #expect(abs((progress.last?.progressValue?.distanceAlong ?? 0) - 1200) < 0.5)
    #expect(!blind.contains { if case .offRoute = $0.kind { true } else { false } })
  }

  /// Metres along the route estimated 10 s after the last of these fixes: 20 s at 16 m/s, then
  /// `slower` s at 12 m/s.
  static func estimateAfterSlowing(for slower: Int) throws -> (last: Double, estimate: Double) {
    let r = try estimate(
      after: Array(repeating: 16, count: 20) + Array(repeating: 12, count: slower))
    return (r.last, r.estimate)
  }

  @Test func aVehicleKeepsItsSpeedWhetherSteadyOrJustSlowed() throws {
    // Steady at 12 m/s for 10 s, no maneuver near: carried on at 12 m/s, not at its peak.
    let steady = try Self.estimateAfterSlowing(for: 10)
    #expect(abs(steady.estimate - (steady.last + 120)) < 1)
    // Slowed 2 s ago: placed at 12 m/s too (it may speed up again, or not).
    let slowed = try Self.estimateAfterSlowing(for: 2)
    #expect(abs(slowed.estimate - (slowed.last + 120)) < 1)
  }

  /// A vehicle that slowed just before its fixes stopped is placed at the speed it had, but its
  /// final prompt is timed for the soonest it may get there.
  ///
  /// That is speeding up again at 1 m/s² to the 16 m/s it drove at: had it sped up, the prompt
  /// came in time; had it not, early.
  @Test func theFinalPromptIsTimedForAVehicleThatSpedUpAgain() throws {
    var s = try Self.session()
    var (_, events) = Self.drive(
      &s, speeds: Array(repeating: 16, count: 20) + Array(repeating: 12, count: 2))
    for t in 22...90 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    // The last fix at 332 m (t 21); 1000 m is reached at 21 + 668 / 12 = 76.7 s at 12 m/s,
    // and at 21 + 2 + (668 - 28) / 16 = 63 s had it sped up again.
    let at60 = try #require(events.first { $0.time == Self.t0 + 60 }?.progressValue)
    #expect(abs(at60.distanceAlong - (332 + 12 * 39)) < 1)
    let now = try #require(events.first { $0.announcement?.id == "r0.s1.now" })
    #expect(now.estimated)
    #expect(now.time <= Self.t0 + 63 - 4, "\(now.time - Self.t0)")
    #expect(now.time >= Self.t0 + 63 - 9, "\(now.time - Self.t0)")
  }

  /// A fix a second at each of `speeds` (m/s) from the route's start, then 10 s without: where
  /// the last fix was, the estimate 10 s after it, and the events.
  static func estimate(after speeds: [Double]) throws -> (
    last: Double, estimate: Double, events: [NavigationEvent]
  ) {
    var s = try session()
    var (last, events) = drive(&s, speeds: speeds)
    let end = Double(speeds.count)
    for k in 0..<10 { events += s.ingest(.noFix(time: t0 + end + Double(k))) }
    let e = try #require(events.last { $0.time == t0 + end + 9 }?.progressValue)
    return (last, e.distanceAlong, events)
  }

  /// A fix a second at each of `speeds` (m/s) from the route's start: where the last one was,
  /// and the events.
  static func drive(_ s: inout NavigationSession, speeds: [Double]) -> (
    last: Double, events: [NavigationEvent]
  ) {
    var along = 0.0
    var events: [NavigationEvent] = []
    for (t, v) in speeds.enumerated() {
      events += s.ingest(fix(at: along, time: Double(t), speed: v))
      along += v
    }
    return (along - (speeds.last ?? 0), events)
  }

  /// Past a maneuver it did not slow for (its speeds within `reckonSteadyFraction` of the last
  /// fix's), the vehicle is carried at its speed: a peak within that noise is no speed to regain.
  @Test func aVehicleThatDidNotSlowForAManeuverKeepsItsSpeed() throws {
    // 12 and 13 m/s by turns, past both maneuvers (at 1,000 and 1,040 m), the last fix at 12.
    var speeds: [Double] = []
    while speeds.reduce(0, +) < 1100 || speeds.last != 12 {
      speeds.append(speeds.count % 2 == 0 ? 12 : 13)
    }
    let r = try Self.estimate(after: speeds)
    #expect(r.events.contains { $0.stepIndex == 3 && !$0.estimated })
    #expect(abs(r.estimate - (r.last + 120)) < 2, "\(r.estimate - r.last)")
  }

  /// Pulling away from a stop when the fixes stopped: the estimate goes on speeding up to the
  /// speed the vehicle drove at before the stop, not only to the speed it had reached.
  @Test func aVehiclePullingAwayFromAStopGoesBackToItsEarlierSpeed() throws {
    // 20 s at 16 m/s, 30 s standing, then 4 s speeding up to 6 m/s (or 4 s steady at 6).
    let before = Array(repeating: 16.0, count: 20) + Array(repeating: 0, count: 30)
    // 10 s after the last fix: from 6 m/s up at 1 m/s² to its 16 m/s, 110 m (not 60 m at 6).
    let away = try Self.estimate(after: before + [1.5, 3, 4.5, 6])
    #expect(abs(away.estimate - (away.last + 110)) < 2, "\(away.estimate - away.last)")
    // Already steady at 6 m/s for the last seconds: it keeps that speed.
    let steady = try Self.estimate(after: before + [6, 6, 6, 6])
    #expect(abs(steady.estimate - (steady.last + 60)) < 2, "\(steady.estimate - steady.last)")
  }

  /// Fixes that come back between the last match and an estimate that ran far (here, one that
  /// went back to its earlier speed after a stop) are matched where they are: the match looks
  /// as far as the estimates went, not only as far as the last fixes' speed reaches.
  @Test func fixesThatComeBackShortOfAFarEstimateAreFoundOnTheRoute() throws {
    let before = Array(repeating: 16.0, count: 20) + Array(repeating: 0, count: 30)
    let speeds = before + [1.5, 3, 4.5, 6]
    // A route planned at 3 m/s (its time counts long stops): the plan says nothing of how far.
    var doc = Self.doc
    doc.routes[0].expectedTravelTime = doc.routes[0].distance / 3
    var s = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    var (last, events) = Self.drive(&s, speeds: speeds)
    let end = Double(speeds.count)
    for k in 0..<40 { events += s.ingest(.noFix(time: Self.t0 + end + Double(k))) }
    let estimate = try #require(events.last { $0.progressValue != nil }?.progressValue)
    #expect(estimate.distanceAlong > last + 550)
    // It went 500 m (12 m/s on average) and comes back slowing, at 5 m/s.
    for k in 0..<10 {
      events += s.ingest(
        Self.fix(at: last + 500 + 5 * Double(k), time: end + 40 + Double(k), speed: 5))
    }
    #expect(!events.contains { if case .offRoute = $0.kind { true } else { false } })
    #expect(abs(s.distanceAlong - (last + 545)) < 10, "\(s.distanceAlong - last)")
  }

  /// A vehicle standing when its fixes stop is not carried, but may have driven off at the
  /// route's speed any time since: where it stands when they come back is weighed against
  /// that, not against the last fixes' standstill, and a stretch of the route passing 30 m from
  /// where it stood does not draw the match back there.
  @Test func aVehicleThatDroveOffAndStoppedInTheDarkIsFoundWhereItStands() throws {
    // 400 m east, 30 m north, 400 m west: the way back passes 30 m from the way out.
    let doc = makeRoute(legs: [
      (90, 400, "Turn left"), (0, 30, "Turn left"), (270, 400, "Your destination is ahead"),
    ])
    let geometry = RouteGeometry(route: doc.routes[0])
    func fix(_ s: Double, _ t: Double, _ v: Double) -> Fix {
      Self.fix(on: geometry, at: s, time: t, speed: v)
    }
    var s = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    var events: [NavigationEvent] = []
    for t in 0...25 { events += s.ingest(fix(12 * Double(t), Double(t), 12)) }
    // Standing 25 s (at a light), then 47 s without fixes.
    for t in 26...50 { events += s.ingest(fix(300, Double(t), 0)) }
    for t in 51...97 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    // It drove 250 m round the bend in the dark and stands 30 m north of where it stood.
    for t in 98...105 { events += s.ingest(fix(550, Double(t), 0)) }
    #expect(!events.contains { if case .offRoute = $0.kind { true } else { false } })
    #expect(abs(s.distanceAlong - 550) < 10, "\(s.distanceAlong)")
  }

  @Test func aVehicleThatBrakedInTheDarkIsFoundBehindTheEstimateNotWhereTheRouteComesBack()
    throws
  {
    // 700 m east, 12 m north, 600 m west: the way back runs 12 m from the way out.
    let doc = makeRoute(legs: [
      (90, 700, "Turn left"), (0, 12, "Turn left"), (270, 600, "Your destination is ahead"),
    ])
    let geometry = RouteGeometry(route: doc.routes[0])
    // Its fixes lie 5 m north of the road (towards the way back), as a receiver's often do.
    func fix(_ s: Double, _ t: Double, _ v: Double) -> Fix {
      Self.fix(on: geometry, at: s, time: t, speed: v, north: 5)
    }
    var s = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    var events: [NavigationEvent] = []
    for t in 0...20 { events += s.ingest(fix(25 * Double(t), Double(t), 25)) }
    // Braking when its fixes stop (the estimate goes back up to 25 m/s, the speed it had).
    for (t, (at, v)) in zip(21..., [(522.0, 22.0), (541, 19), (557, 16)]) {
      events += s.ingest(fix(at, Double(t), v))
    }
    for t in 24...35 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    // It slowed to 2 m/s (too slow for its course to count) and comes back 70 m farther, 72 m
    // short of the turn. The estimate passed both turns and is on the way back, which passes
    // 7 m from the fix: a prediction at 25 m/s since the last match put the fix there.
    for (k, t) in (36...40).enumerated() {
      events += s.ingest(fix(628 + 2 * Double(k), Double(t), 2))
    }
    #expect(!events.contains { if case .offRoute = $0.kind { true } else { false } })
    #expect(abs(s.distanceAlong - 636) < 15, "\(s.distanceAlong)")
  }

  @Test func theEstimateWaitsAtAManeuverItMayNotPassAndAtTheEnd() throws {
    for passing in [1, 2] {
      var c = GuidanceConfiguration()
      c.reckonManeuvers = passing
      var s = try NavigationSession(
        document: Self.doc, phrasing: Phrasebook(language: .en), configuration: c)
      _ = Self.drive(&s, until: 60)
      var blind: [NavigationEvent] = []
      for t in 61...250 { blind += s.ingest(.noFix(time: Self.t0 + Double(t))) }
      #expect(blind.compactMap(\.stepIndex) == Array(2..<(2 + passing)))
      let furthest = blind.compactMap(\.progressValue?.distanceAlong).max() ?? 0
      let end = passing == 1 ? Self.geometry.stepEnd[2] : Self.geometry.length
      #expect(abs(furthest - end) < 0.01)
      // No arrival: the last fix was far from the end.
      #expect(!blind.contains { if case .arrived = $0.kind { true } else { false } })
    }
  }

  /// Fixes that stop within the arrival radius, widened by their error (a garage at the
  /// destination), arrive when the estimate reaches the end; fixes that stop short of it wait
  /// for a fix.
  @Test func fixesThatStopWithinTheArrivalRadiusArriveWhenTheEstimateReachesTheEnd() throws {
    let end = Self.geometry.length
    for (last, arrives) in [(end - 12, true), (end - 28, false)] {
      var s = try Self.session()
      var events = Self.drive(&s, until: 60)
      var t = 60.0
      var along = 720.0
      while along < last - 0.5 {
        t += 1
        along = min(last, along + (last - along > 30 ? 12 : 8))
        events += s.ingest(Self.fix(at: along, time: t, speed: along < last - 30 ? 12 : 8))
      }
      #expect(!events.contains { if case .arrived = $0.kind { true } else { false } })
      var blind: [NavigationEvent] = []
      for k in 1...20 { blind += s.ingest(.noFix(time: Self.t0 + t + Double(k))) }
      let arrived = blind.first { if case .arrived = $0.kind { true } else { false } }
      #expect((arrived != nil) == arrives, "last fix \(end - last) m before the end")
      if let arrived {
        #expect(arrived.estimated)
        #expect(arrived.time - (Self.t0 + t) <= 3, "arrived \(arrived.time - Self.t0 - t) s after")
        #expect(blind.contains { $0.announcement?.kind == .arrive && $0.estimated })
      }
    }
  }

  /// An estimate waiting at the route's end, the vehicle short of it when its fixes return
  /// (a live gpsd back after a restart, seen in CI): the fixes make the arrival, whether they
  /// find it standing there or still rolling up to it.
  @Test func fixesThatComeBackShortOfAnEstimateWaitingAtTheEndArrive() throws {
    for rolling in [false, true] {
      var s = try Self.session()
      _ = Self.drive(&s, until: 60)
      var blind: [NavigationEvent] = []
      for t in 61...200 { blind += s.ingest(.noFix(time: Self.t0 + Double(t))) }
      let waiting = try #require(blind.last { $0.progressValue != nil }?.progressValue)
      #expect(abs(waiting.distanceAlong - Self.geometry.length) < 0.01)
      #expect(!blind.contains { if case .arrived = $0.kind { true } else { false } })
      var back: [NavigationEvent] = []
      for k in 0..<10 {
        let s0 =
          rolling
          ? min(Self.geometry.length - 4, Self.geometry.length - 40 + 5 * Double(k))
          : Self.geometry.length - 4
        let v = rolling && s0 < Self.geometry.length - 4 ? 5.0 : 0
        back += s.ingest(Self.fix(at: s0, time: 201 + Double(k), speed: v))
      }
      #expect(
        back.contains { if case .arrived = $0.kind { true } else { false } }, "rolling: \(rolling)")
      #expect(!back.contains { if case .offRoute = $0.kind { true } else { false } })
    }
  }

  @Test func theEstimatesAreTheSameWhateverTheEdgeCallsAndWhen() throws {
    // No-fix epochs every second, a live engine's ticks every 0.3 s, and a replay's one
    // silence: the same events, at the same times, once the fixes are back.
    func run(_ quiet: (inout NavigationSession, Int) -> [NavigationEvent]) throws
      -> [NavigationEvent]
    {
      var s = try Self.session()
      _ = Self.drive(&s, until: 40)
      var events: [NavigationEvent] = []
      // Tenths of a second, until the fixes come back at 90 s, past the first maneuver.
      for k in 403..<900 { events += quiet(&s, k) }
      for k in 90...95 { events += s.ingest(Self.fix(at: 12 * Double(k), time: Double(k))) }
      return events
    }
    let epochs = try run { s, k in
      k % 10 == 1 ? s.ingest(.noFix(time: Self.t0 + Double(k / 10))) : []
    }
    let ticks = try run { s, k in k % 3 == 0 ? s.silence(at: Self.t0 + Double(k) / 10) : [] }
    let replay = try run { s, k in k == 451 ? s.silence(at: Self.t0 + 45) : [] }
    #expect(epochs.contains { $0.stepIndex == 2 && $0.estimated })
    #expect(ticks == epochs)
    #expect(replay == epochs)
  }

  @Test func fixesThatComeBackBehindTheEstimateDoNotJumpBackwardsOrLeaveTheRoute() throws {
    var s = try Self.session()
    _ = Self.drive(&s, until: 30)
    // Without fixes for 20 s, the vehicle slows to 8 m/s: it is 80 m behind the estimate.
    var events: [NavigationEvent] = []
    for t in 31...50 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    let estimate = try #require(events.last { $0.progressValue != nil }?.progressValue)
    var reported: [Double] = [estimate.distanceAlong]
    for k in 0...20 {
      let e = s.ingest(Self.fix(at: 360 + 160 + 8 * Double(k), time: 51 + Double(k), speed: 8))
      events += e
      reported += e.compactMap(\.progressValue?.distanceAlong)
    }
    #expect(events.contains { $0.kind == .gps(.acquired) })
    #expect(!events.contains { if case .offRoute = $0.kind { true } else { false } })
    for (a, b) in zip(reported, reported.dropFirst()) { #expect(b >= a - 10) }
    // The match itself follows the fixes.
    #expect(abs(s.distanceAlong - (520 + 8 * 20)) < 10)
  }

  /// After minutes without fixes the estimate is a guess.
  ///
  /// A vehicle that stood or crawled in the dark is reported where its fix is, not held for
  /// minutes at an estimate far ahead. One back behind maneuvers the estimate passed, too far
  /// to reach them soon, is on the step it is in again, and their prompts are said again.
  @Test func afterALongOutageAnEstimateFarAheadGivesWayToTheFix() throws {
    func returning(at v: Double, from s0: Double) throws -> (
      estimate: Progress, back: Progress, after: [NavigationEvent]
    ) {
      var s = try Self.session()
      var events: [NavigationEvent] = []
      for t in 0...20 { events += s.ingest(Self.fix(at: v * Double(t), time: Double(t), speed: v)) }
      for t in 21...170 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
      let estimate = try #require(events.last { $0.progressValue != nil }?.progressValue)
      // It crept in the dark, and drives on at 6 m/s from `s0`.
      var after = s.ingest(Self.fix(at: s0, time: 171, speed: 6))
      let back = try #require(after.compactMap(\.progressValue).first)
      for t in 172...400 where s0 + 6 * Double(t - 171) < Self.geometry.length - 50 {
        after += s.ingest(Self.fix(at: s0 + 6 * Double(t - 171), time: Double(t), speed: 6))
      }
      return (estimate, back, after)
    }
    // At 6 m/s the estimate waits at the first maneuver (too slow to pass it unseen).
    let slow = try returning(at: 6, from: 300)
    #expect(abs(slow.estimate.distanceAlong - 1000) < 1)
    #expect(abs(slow.back.distanceAlong - 300) < 15, "\(slow.back.distanceAlong)")
    #expect(slow.back.step == 1)
    // At 12 m/s it passed both maneuvers and waits at the end. Back 700 m before the first,
    // the vehicle is on step 1 again, reported where it is, and each maneuver's final prompt
    // comes once before it reaches it (the first said again, its id naming the loss).
    let held = try returning(at: 12, from: 300)
    #expect(abs(held.estimate.distanceAlong - Self.geometry.length) < 1)
    #expect(abs(held.back.distanceAlong - 300) < 15, "\(held.back.distanceAlong)")
    #expect(held.back.step == 1)
    #expect(held.after.contains { $0.kind == .step(1) })
    for m in 1...2 {
      let reached = try #require(
        held.after.first { ($0.progressValue?.distanceAlong ?? 0) >= Self.geometry.stepEnd[m] })
      let again = held.after.compactMap { e -> Announcement? in
        guard case .announce(let a) = e.kind, a.step == m, a.kind == .now, e.time < reached.time
        else { return nil }
        return a
      }
      // The first was said from the estimate, so again with a new id.
      #expect(again.count == 1 && (m > 1 || again[0].id == "r0.s1.now.gps1"), "\(again)")
    }
    // Back past them, it is reported where its fix is.
    let past = try returning(at: 12, from: 1200)
    #expect(abs(past.back.distanceAlong - 1200) < 15, "\(past.back.distanceAlong)")
    #expect(past.back.step == 3)
  }

  /// A vehicle that slowed in the dark and caught up with the estimate by the time the fixes
  /// came back is near the maneuver, but heard its final prompt long before it: said again when
  /// due, not held back because the vehicle is now close.
  @Test func aFinalPromptTheEstimateSaidLongBeforeAVehicleThatSlowedIsSaidAgain() throws {
    var s = try Self.session()
    var events: [NavigationEvent] = []
    for t in 0...100 { events += s.ingest(Self.fix(at: 6 * Double(t), time: Double(t), speed: 6)) }
    for t in 101...171 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    let first = try #require(
      events.first {
        guard case .announce(let a) = $0.kind else { return false }
        return a.step == 1 && a.kind == .now
      })
    #expect(first.estimated)
    // It slowed in the dark: 60 m before the turn at 3 m/s when the fixes return, within the
    // hold of the estimate (which waits at the turn), 15 s after the prompt.
    var after: [NavigationEvent] = []
    for k in 0...19 {
      after += s.ingest(Self.fix(at: 940 + 3 * Double(k), time: 172 + Double(k), speed: 3))
    }
    let again = after.compactMap { e -> (time: Double, id: String)? in
      guard case .announce(let a) = e.kind, a.step == 1, a.kind == .now else { return nil }
      return (e.time, a.id)
    }
    #expect(again.count == 1, "\(again)")
    #expect(again.first?.id == "r0.s1.now.gps1")
    // Not an echo of the first, and before the turn (reached 20 s after the return).
    #expect((again.first?.time ?? 0) - first.time >= 15)
    #expect((again.first?.time ?? .infinity) <= Self.t0 + 189)
  }

  /// A vehicle back before a maneuver the estimate passed, farther from it than its final
  /// prompt falls due, is guided to it again, though it would reach it within 30 s: a position
  /// held beyond the turn would leave it unsaid.
  @Test func aVehicleBackBeforeAManeuverTheEstimatePassedIsGuidedToItAgain() throws {
    var s = try Self.session()
    var events: [NavigationEvent] = []
    for t in 0...40 { events += s.ingest(Self.fix(at: 12 * Double(t), time: Double(t))) }
    for t in 41...100 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    #expect(events.contains { $0.kind == .step(3) && $0.estimated })
    // It slowed in the dark: 60 m before the first turn at 4 m/s, which it reaches at 115 s.
    var after: [NavigationEvent] = []
    for k in 0...14 {
      after += s.ingest(Self.fix(at: 940 + 4 * Double(k), time: 101 + Double(k), speed: 4))
    }
    #expect(after.contains { $0.kind == .step(1) && !$0.estimated })
    let again = after.compactMap { e -> (time: Double, id: String)? in
      guard case .announce(let a) = e.kind, a.step == 1, a.kind == .now else { return nil }
      return (e.time, a.id)
    }
    #expect(again.map(\.id) == ["r0.s1.now.gps1"])
    #expect((again.first?.time ?? .infinity) <= Self.t0 + 113)
  }

  @Test func anOutageWhileSettlingBehindTheEstimateKeepsTheFloor() throws {
    var s = try Self.session()
    _ = Self.drive(&s, until: 30)
    // 20 s without fixes at 12 m/s: the estimate is at 600 m; the vehicle slowed and is at
    // 400 m, moving at 10 m/s, when two fixes come; then none again for 10 s.
    var reported: [Double] = []
    func note(_ e: [NavigationEvent]) { reported += e.compactMap(\.progressValue?.distanceAlong) }
    for t in 31...50 { note(s.ingest(.noFix(time: Self.t0 + Double(t)))) }
    for t in 51...52 {
      note(s.ingest(Self.fix(at: 400 + 10 * Double(t - 51), time: Double(t), speed: 10)))
    }
    for t in 53...62 { note(s.ingest(.noFix(time: Self.t0 + Double(t)))) }
    #expect(abs((reported.first ?? 0) - 384) < 1)
    #expect(reported.contains { $0 >= 599 })
    for (a, b) in zip(reported, reported.dropFirst()) { #expect(b >= a - 10) }
    // The second estimate moves on from the match, behind the floor.
    #expect(abs(s.distanceAlong - 510) < 15)
  }

  @Test func gpsdDeadReckonedFixesAreFixes() throws {
    var s = try Self.session()
    _ = Self.drive(&s, until: 20)
    var events: [NavigationEvent] = []
    for t in 21...40 {
      events += s.ingest(Self.fix(at: 12 * Double(t), time: Double(t), quality: .deadReckoning))
    }
    #expect(!events.contains { $0.kind == .gps(.lost) })
    #expect(!events.contains { $0.estimated })
    #expect(abs(s.distanceAlong - 480) < 5)
  }

  /// A daemon restarted just after a maneuver, the vehicle still at the speed it took it at,
  /// carries it on as the uninterrupted one does when the fixes stop, and times its final
  /// prompts for one that speeds back up to the speed before the maneuver, not for one held at
  /// the turning speed (it knows when the maneuver was passed, and the speeds before).
  @Test func aRestartAfterAManeuverCarriesTheVehicleOnAsBefore() throws {
    let doc = makeRoute(legs: [
      (90, 1000, "Turn left onto A Street"), (0, 40, "Turn right onto B Street"),
      (90, 400, "Turn left onto C Street"), (0, 300, "Your destination is on the left"),
    ])
    let geometry = RouteGeometry(route: doc.routes[0])
    var whole = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    var inputs: [Fix] = (0...80).map {
      Self.fix(on: geometry, at: 12 * Double($0), time: Double($0), speed: 12)
    }
    // Through both turns at 9 m/s, steady for 20 s, 300 m before the third.
    inputs += (1...20).map {
      Self.fix(on: geometry, at: 960 + 9 * Double($0), time: 80 + Double($0), speed: 9)
    }
    for f in inputs { _ = whole.ingest(f) }
    let snapshot = try #require(whole.snapshot)
    var resumed = try NavigationSession(
      document: doc, resuming: snapshot, phrasing: Phrasebook(language: .en))
    func dark(_ s: inout NavigationSession) -> [String] {
      (101...140).flatMap { s.ingest(.noFix(time: Self.t0 + Double($0))) }.compactMap { e in
        guard e.estimated else { return nil }
        if let p = e.progressValue { return "\(Int(e.time - Self.t0)) \(p.distanceAlong)" }
        return e.announcement.map { "\(Int(e.time - Self.t0)) \($0.id)" }
      }
    }
    let expected = dark(&whole)
    // At 12 m/s again from 9, 1,440 m is reached at 125 s; held at 9 m/s, at 133 s.
    let now = try #require(expected.first { $0.hasSuffix("r0.s3.now") })
    #expect(Int(now.prefix(3)) ?? 200 <= 121, "\(expected)")
    #expect(dark(&resumed) == expected)
  }

  @Test func aStandingVehicleIsNotCarried() throws {
    var s = try Self.session()
    for t in 0...10 { _ = s.ingest(Self.fix(at: 100, time: Double(t), speed: 0)) }
    let events = s.silence(at: Self.t0 + 40)
    #expect(events.contains { $0.kind == .gps(.lost) })
    #expect(!events.contains { $0.estimated })
    #expect(abs(s.distanceAlong - 100) < 5)
  }

  /// Fixes that come back on the way out of an out-and-back while the estimate has passed the
  /// U-turn: the way back lies under them too, nearer the estimate, but their course runs
  /// against it.
  @Test func fixesThatComeBackBeforeAUTurnTheEstimatePassedStayOnTheWayOut() throws {
    // 600 m east, a U-turn, 600 m back west along the same road.
    let doc = makeRoute(legs: [
      (90, 600, "Make a U-turn."), (270, 600, "Your destination is ahead."),
    ])
    let g = RouteGeometry(route: doc.routes[0])
    func fix(east x: Double, time: Double, speed: Double) -> Fix {
      Fix(
        time: Self.t0 + time, coordinate: g.coordinate(at: x), speed: speed, course: 90,
        horizontalAccuracy: 3)
    }
    var s = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    var events: [NavigationEvent] = []
    for t in 0...25 { events += s.ingest(fix(east: 14 * Double(t), time: Double(t), speed: 14)) }
    // 25 s without fixes: the estimate goes on at 14 m/s past the U-turn to about 700 m (on
    // the way back, 500 m east); the vehicle slowed in a queue and is 420 m east.
    for t in 26...50 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    #expect(events.contains { $0.estimated && $0.stepIndex == 2 })
    var after: [NavigationEvent] = []
    for k in 0...12 {
      after += s.ingest(fix(east: 420 + 3 * Double(k), time: 51 + Double(k), speed: 3))
    }
    #expect(!after.contains { if case .offRoute = $0.kind { true } else { false } })
    // Matched on the way out, where the vehicle is (the way back there is 780 m along).
    #expect(abs(s.distanceAlong - 456) < 10)
  }

  /// A vehicle standing when the fixes stop (not carried) may drive off in the dark: the fixes
  /// that come back far along are searched for as far as the route's speed reaches, whatever
  /// their own speed (here a crawl).
  @Test func aVehicleThatDroveOffInTheDarkIsFoundFarAlong() throws {
    var s = try Self.session()
    var events: [NavigationEvent] = []
    for t in 0...10 { events += s.ingest(Self.fix(at: 100, time: Double(t), speed: 0)) }
    // 46 s without fixes; the vehicle drove off and is 360 m on, crawling at 2 m/s (the
    // route's planned speed is 12 m/s).
    for t in 11...56 { events += s.ingest(.noFix(time: Self.t0 + Double(t))) }
    #expect(!events.contains { $0.estimated })
    var after: [NavigationEvent] = []
    for k in 0...10 {
      after += s.ingest(Self.fix(at: 460 + 2 * Double(k), time: 57 + Double(k), speed: 2))
    }
    #expect(!after.contains { if case .offRoute = $0.kind { true } else { false } })
    #expect(abs(s.distanceAlong - 480) < 10)
  }

  /// A vehicle parked for 20 minutes is where it stood.
  ///
  /// It crept into the parking place (not carried), and its creeping speed times the silence
  /// puts it where the route comes back 8 m away the other way: a match there makes the vehicle
  /// driving off "off route" (the wrong way). Fails with the creeping speed as the prediction
  /// (checked: an off-route, and the match 338 m from where it is).
  @Test func aVehicleParkedForLongIsWhereItStood() throws {
    let doc = makeRoute(legs: [
      (90, 500, "Turn right onto A Street"), (180, 8, "Turn right onto B Street"),
      (270, 400, "Your destination is on the left"),
    ])
    let geometry = RouteGeometry(route: doc.routes[0])
    func fix(at s: Double, time: Double, speed: Double) -> Fix {
      Fix(
        time: Self.t0 + time, coordinate: geometry.coordinate(at: s), speed: speed,
        course: speed > 0 ? 90 : nil, horizontalAccuracy: 3)
    }
    var s = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    var events: [NavigationEvent] = []
    var along = 0.0
    for t in 0...45 {
      let v = t < 20 ? 12.0 : 1.5
      events += s.ingest(fix(at: along, time: Double(t), speed: v))
      along += v
    }
    // Parked: no epoch at all for 20 minutes, then back where it stood, and off again east.
    for k in 0...15 {
      let v = k < 3 ? 0.0 : Double(k - 2)
      along += v
      events += s.ingest(fix(at: along, time: 1245 + Double(k), speed: v))
    }
    #expect(!events.contains { if case .offRoute = $0.kind { true } else { false } })
    #expect(abs(s.distanceAlong - along) < 10)
  }
}
