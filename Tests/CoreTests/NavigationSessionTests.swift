import Geodesy
import Guidance
import Matching
import Phrasebook
import RouteShape
import Routes
import Simulation
import TestSupport
import Testing

/// Direct checks of the session's rules with hand-made fixes.
@Suite struct NavigationSessionTests {
  static let doc = makeRoute(legs: [
    (90, 1000, "Turn left onto A Street"), (0, 40, "Turn right onto B Street"),
    (90, 800, "Your destination is on the left"),
  ])
  static let start = 1_714_550_400.0

  /// A fix at `s` metres along the east-then-north-then-east test route.
  static func fix(at s: Double, time: Double, speed: Double = 12, course: Double? = nil)
    -> Fix
  {
    let g = RouteGeometry(route: doc.routes[0])
    let c = g.coordinate(at: s)
    let brg = course ?? g.bearings[g.segment(containing: s, from: 0)]
    return Fix(
      time: start + time, coordinate: c, speed: speed, course: brg, horizontalAccuracy: 3)
  }

  static func session(_ language: Language = .en) throws -> NavigationSession {
    try NavigationSession(document: doc, phrasing: Phrasebook(language: language))
  }

  @Test func theFirstFixGivesRouteDepartureAndStepOne() throws {
    var s = try Self.session()
    let events = s.ingest(Self.fix(at: 0, time: 0, speed: 0))
    guard case .route(let r) = events[0].kind else {
      Issue.record("first event is not ROUTE")
      return
    }
    #expect(r.steps == 4 && r.source == "Start" && r.destination == "Goal")
    #expect(events[1].announcement?.kind == .depart)
    #expect(events[1].announcement?.text == "Depart from Start.")
    #expect(events[2].stepIndex == 1)
    #expect(abs((events.last?.progressValue?.distanceToManeuver ?? 0) - 1000) < 0.01)
  }

  /// One noisy fix near the end is not an arrival, nor are two of a 5 Hz receiver 0.2 s apart
  /// (their errors are the same): a second of fixes within the radius is, whatever the rate.
  @Test(arguments: [1.0, 5.0])
  func arrivalNeedsASecondOfFixesNearTheEndWhateverTheRate(hz: Double) throws {
    var s = try Self.session()
    let length = 1840.0
    var events: [NavigationEvent] = []
    var time = 0.0
    var along = 0.0
    var first: Double?
    while along < 1700 {
      events += s.ingest(Self.fix(at: along, time: time))
      time += 1
      along += 12
    }
    // Slowing to 4 m/s at `hz` fixes a second; the car radius is 15 m.
    while along < length, !events.contains(where: { $0.isArrived }) {
      if first == nil && length - along <= 15 { first = time }
      events += s.ingest(Self.fix(at: along, time: time, speed: 4))
      time += 1 / hz
      along += 4 / hz
    }
    let arrived = try #require(events.first { $0.isArrived }?.time) - Self.start
    let near = try #require(first)
    #expect(
      arrived - near >= 1 - 1 / hz / 2, "arrived \(arrived - near) s after the first fix near")
    #expect(
      arrived - near <= 1 + 1 / hz / 2, "arrived \(arrived - near) s after the first fix near")
  }

  /// A first fix within the radius that the vehicle passes the end within half an interval of
  /// arrives.
  ///
  /// It is the fix nearest that moment, and the next may never come (a garage at the
  /// destination, a recording that ends there). Farther, the next fix is nearer it.
  @Test func theFixNearestTheMomentTheVehiclePassesTheEndArrives() throws {
    let length = 1840.0
    for (left, arrives) in [(5.0, true), (9.0, false)] {
      var s = try Self.session()
      var events: [NavigationEvent] = []
      var time = 0.0
      var along = length - left - 12 * 150
      while along < length - left - 1 {
        events += s.ingest(Self.fix(at: along, time: time))
        time += 1
        along += 12
      }
      #expect(!events.contains { $0.isArrived })
      let last = s.ingest(Self.fix(at: length - left, time: time))
      #expect(last.contains { $0.isArrived } == arrives, "\(left) m before the end at 12 m/s, 1 Hz")
    }
  }

  @Test func koreanDepartureReadsNaturally() throws {
    var s = try Self.session(.ko)
    let events = s.ingest(Self.fix(at: 0, time: 0, speed: 0))
    #expect(events[1].announcement?.text == "Start에서 출발합니다.")
  }

  @Test func timeGoingBackwardsIsIgnored() throws {
    var s = try Self.session()
    _ = s.ingest(Self.fix(at: 0, time: 10))
    _ = s.ingest(Self.fix(at: 12, time: 11))
    #expect(s.ingest(Self.fix(at: 24, time: 9)).isEmpty)
    #expect(abs(s.distanceAlong - 12) < 1)
  }

  @Test func noFixEpochsGiveNoProgressAndEventuallyGPSLost() throws {
    var s = try Self.session()
    _ = s.ingest(Self.fix(at: 0, time: 0))
    var all: [NavigationEvent] = []
    for t in 1...8 { all += s.ingest(.noFix(time: Self.start + Double(t))) }
    // Progress goes on, estimated along the route.
    #expect(all.allSatisfy { $0.progressValue == nil || $0.estimated })
    let lost = all.filter { $0.kind == .gps(.lost) }
    #expect(lost.count == 1)
    #expect(lost.first?.time == Self.start + 5)
    let back = s.ingest(Self.fix(at: 12, time: 9))
    #expect(back.contains { $0.kind == .gps(.acquired) })
    #expect(back.contains { $0.announcement?.text == "GPS signal restored." })
  }

  @Test func silenceWithoutEpochsAlsoReportsGPSLoss() throws {
    var s = try Self.session()
    _ = s.ingest(Self.fix(at: 0, time: 0))
    #expect(!s.silence(at: Self.start + 4).contains { $0.kind == .gps(.lost) })
    #expect(s.silence(at: Self.start + 6).contains { $0.kind == .gps(.lost) })
    // Later silence reports no second loss (dead reckoning carries the position, nothing else).
    #expect(
      !s.silence(at: Self.start + 60).contains {
        if case .gps = $0.kind { return true }
        return false
      })
  }

  @Test func oneFixPassingTwoManeuversStartsBothStepsInOrderAndAnnouncementsNeither() throws {
    var s = try Self.session()
    _ = s.ingest(Self.fix(at: 0, time: 0))
    var t = 0.0
    var d = 0.0
    var events: [NavigationEvent] = []
    while d < 900 {
      t += 1
      d += 30
      events += s.ingest(Self.fix(at: d, time: t, speed: 30))
    }
    // Then a jump (a lost second) straight past both close maneuvers.
    events = s.ingest(Self.fix(at: 1100, time: t + 6, speed: 30))
    #expect(events.compactMap(\.stepIndex) == [2, 3])
    #expect(
      !events.contains {
        $0.announcement.map { [.prepare, .approach, .now].contains($0.kind) && $0.step < 3 }
          ?? false
      })
  }

  @Test func standingBeforeAManeuverNeverRepeatsAAnnouncement() throws {
    var s = try Self.session()
    var events = s.ingest(Self.fix(at: 0, time: 0))
    var t = 0.0
    var d = 0.0
    while d < 700 {
      t += 1
      d += 12
      events += s.ingest(Self.fix(at: d, time: t))
    }
    // A red light for two minutes, 300 m before the turn, with the usual jitter.
    for k in 0..<120 {
      t += 1
      events += s.ingest(
        Self.fix(at: d + Double(k % 3), time: t, speed: 0.1, course: Double(k * 37 % 360)))
    }
    let ids = events.compactMap(\.announcement).map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(!events.contains { $0.isOffRoute })
    #expect(!events.contains { $0.kind == .gps(.lost) })
  }

  /// A prepare prompt (a minute ahead) falls due at one distance while the speed wobbles within
  /// `leadSpeedBand` of the speed held, not wherever the fastest fix puts it; a vehicle that
  /// speeds up by more hears it at its new speed's lead.
  @Test func earlyPromptsAreTimedAtAHeldSpeed() throws {
    func prepare(_ speed: (Int) -> Double) throws -> Double? {
      var s = try Self.session()
      var along = 0.0
      for t in 0...80 {
        let v = speed(t)
        if t > 0 { along += v }
        for e in s.ingest(Self.fix(at: along, time: Double(t), speed: v)) {
          if case .announce(let a) = e.kind, a.kind == .prepare { return a.distance }
        }
      }
      return nil
    }
    let steady = try #require(try prepare { _ in 12 })
    // ±5 % from the sixth second: timed at the speed of the moment, it came 24 m early.
    let wobbling = try #require(try prepare { $0 < 5 ? 12 : $0 % 2 == 0 ? 12.6 : 11.4 })
    let faster = try #require(try prepare { $0 < 5 ? 12 : 14 })
    #expect(abs(wobbling - steady) <= 13, "\(wobbling) m against \(steady) m")
    #expect(faster >= steady + 100, "\(faster) m against \(steady) m")
  }

  @Test func aRouteIndexOutOfRangeIsRefused() {
    #expect(throws: RouteDocumentError.self) {
      try NavigationSession(document: Self.doc, routeIndex: 1, phrasing: Phrasebook())
    }
  }

  @Test func offRouteWarningsAreNotRepeatedWithinThirtySeconds() throws {
    var s = try Self.session()
    var events = s.ingest(Self.fix(at: 0, time: 0))
    let g = s.geometry
    var t = 0.0
    // Drive 200 m, then flap between 80 m off and back on, every 5 s.
    for k in 1...16 {
      t += 1
      events += s.ingest(Self.fix(at: Double(k) * 12, time: t))
    }
    for cycle in 0..<4 {
      for k in 0..<5 {
        t += 1
        let along = 200 + Double(cycle * 10 + k) * 12
        let on = g.coordinate(at: along)
        let off = on.destination(distance: 80, bearing: 180)
        events += s.ingest(
          Fix(time: Self.start + t, coordinate: off, speed: 12, course: 90, horizontalAccuracy: 3))
      }
      for k in 5..<10 {
        t += 1
        events += s.ingest(Self.fix(at: 200 + Double(cycle * 10 + k) * 12, time: t))
      }
    }
    let offEvents = events.filter(\.isOffRoute)
    let spoken = events.compactMap(\.announcement).filter { $0.kind == .offRoute }
    #expect(offEvents.count == 4)
    #expect(spoken.count == 2, "\(spoken.map(\.id))")
  }
}

@Suite struct SessionResumeTests {
  @Test func resumingFromASnapshotRepeatsNothingAndSkipsNothing() throws {
    let doc = GuidanceProperties.townRoute
    var o = Simulation.DriveOptions()
    o.noise = 5
    o.seed = 4
    let drive = DriveSimulator.drive(doc.routes[0], options: o)
    let whole = try runSession(doc, fixes: drive.fixes)
    for cut in [40, 90, 150] {
      var a = try NavigationSession(document: doc, phrasing: Phrasebook())
      var events: [NavigationEvent] = []
      for f in drive.fixes[..<cut] { events += a.ingest(f) }
      let snap = try #require(a.snapshot)
      // The daemon is down for 3 s (three fixes lost), then resumes.
      var b = try NavigationSession(document: doc, resuming: snap, phrasing: Phrasebook())
      for f in drive.fixes[(cut + 3)...] { events += b.ingest(f) }
      let said = events.compactMap(\.announcement).filter { $0.kind != .gps }.map(\.id)
      #expect(Set(said).count == said.count, "cut \(cut): repeated \(said)")
      // Every final announcement and the arrival still come (earlier tiers may differ by a fix).
      let finals = whole.compactMap(\.announcement).filter { [.now, .arrive].contains($0.kind) }
      #expect(Set(finals.map(\.id)).isSubset(of: Set(said)), "cut \(cut)")
      #expect(events.compactMap(\.stepIndex) == Array(1...5), "cut \(cut)")
      #expect(!events.contains { $0.isOffRoute })
    }
  }

  @Test func aSnapshotOfAnotherRouteIsRefused() throws {
    let doc = GuidanceProperties.townRoute
    let snap = NavigationSession.Snapshot(
      routeIndex: 0, distanceAlong: 100, currentStep: 9, said: [0, 0], offRoute: false,
      arrived: false, lastFixTime: nil, speed: 0)
    #expect(throws: RouteDocumentError.self) {
      try NavigationSession(document: doc, resuming: snap, phrasing: Phrasebook())
    }
  }
}
