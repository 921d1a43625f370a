import Geodesy
import Guidance
import GuidanceSettings
import Matching
import Phrasebook
import RouteShape
import Routes
import TestSupport
import Testing

/// Heads-ups: a slow vehicle that loses its fixes is not carried past a maneuver, so the
/// maneuvers it may reach in the dark are named, with their distance, once it may be near them;
/// their final prompts are never said too late to act on, and when the fixes come back far
/// behind, their prompts come again when due.
@Suite struct HeadsUpTests {
  static let t0 = DeadReckoningTests.t0

  /// `legs` as a route, a session on it, and fixes `s` metres along it at `v` m/s.
  struct Drive {
    let geometry: RouteGeometry
    var session: NavigationSession
    var events: [NavigationEvent] = []

    init(
      _ legs: [(Double, Double, String)], language: Language = .en,
      configuration: GuidanceConfiguration = .init()
    ) throws {
      let doc = makeRoute(legs: legs)
      geometry = RouteGeometry(route: doc.routes[0])
      session = try NavigationSession(
        document: doc, phrasing: Phrasebook(language: language), configuration: configuration)
    }

    mutating func fix(_ s: Double, _ t: Double, _ v: Double) {
      events += session.ingest(
        DeadReckoningTests.fix(on: geometry, at: s, time: t, speed: v))
    }

    mutating func dark(_ times: ClosedRange<Int>) {
      for t in times { events += session.ingest(.noFix(time: HeadsUpTests.t0 + Double(t))) }
    }

    /// Drives at 12 m/s from the start to `stop` metres, and stands there until `until`.
    mutating func driveAndStand(at stop: Double, until: Int) {
      var t = 0
      while 12 * Double(t) < stop {
        fix(12 * Double(t), Double(t), 12)
        t += 1
      }
      for k in t...until { fix(stop, Double(k), 0) }
    }

    func announcements(_ from: Int = 0) -> [(time: Double, a: Announcement, estimated: Bool)] {
      events[from...].compactMap { e in
        e.announcement.map { (e.time - HeadsUpTests.t0, $0, e.estimated) }
      }
    }
  }

  /// 1000 m east, 40 m north, 800 m east: two turns 40 m apart.
  static let close: [(Double, Double, String)] = [
    (90, 1000, "Turn left onto A Street"), (0, 40, "Turn right onto B Street"),
    (90, 800, "Your destination is on the left"),
  ]

  /// Standing at a light 150 m before two close turns when the fixes stop, it drives off in
  /// the dark: as the loss is reported it hears both turns with their distance from where it
  /// stood, and no final prompt comes too late when the fixes are back just before them.
  @Test func aStandingVehicleLosingItsFixesIsToldTheTurnsAhead() throws {
    var d = try Drive(Self.close)
    d.driveAndStand(at: 850, until: 90)
    let before = d.events.count
    d.dark(91...105)
    let told = d.announcements(before).filter { $0.a.kind == .approach }
    #expect(told.count == 1, "\(told.map(\.a.text))")
    let h = try #require(told.first)
    #expect(h.estimated && h.a.step == 1 && h.a.thenSteps == [2], "\(h.a)")
    #expect(h.time == 95, "said as the loss is reported")
    #expect(abs((h.a.distance ?? 0) - 150) < 5, "\(h.a.text)")
    #expect(h.a.text.hasPrefix("In 150 meters, turn left onto A Street, then turn right"))
    // It drove off at 91 s; the fixes come back 20 m before the first turn, too late for a
    // final prompt to be acted on: none is said (the heads-up was).
    let back = d.events.count
    for (k, t) in (106...115).enumerated() { d.fix(980 + 12 * Double(k), Double(t), 12) }
    #expect(!d.announcements(back).contains { [1, 2].contains($0.a.step) && $0.a.kind == .now })
    #expect(!d.events.contains { if case .offRoute = $0.kind { true } else { false } })
    #expect(d.session.currentStep == 3)
  }

  /// The heads-up is a prompt like any other: in Korean, in Korean.
  @Test func theHeadsUpIsSpokenInKoreanToo() throws {
    var d = try Drive(
      [(90, 1000, "좌회전하십시오."), (0, 40, "우회전하십시오."), (90, 800, "목적지가 왼쪽에 있습니다.")],
      language: .ko)
    d.driveAndStand(at: 850, until: 90)
    let before = d.events.count
    d.dark(91...100)
    let told = d.announcements(before).filter { $0.a.kind == .approach }
    #expect(told.map(\.a.text) == ["150미터 앞에서 좌회전하십시오. 이어서 우회전하십시오."])
  }

  /// A parked vehicle hears few heads-ups, and the prompts again when it drives on.
  ///
  /// The first heads-up names what the vehicle heard before (a recap, as the guidance goes
  /// blind: the final prompt was not said); later ones only maneuvers no prompt named, at most
  /// `reckonManeuvers` of them, and none after `reckonHoldOutageSeconds`. When the fixes come
  /// back far behind, what the heads-ups said is said again when due, under new ids.
  @Test func aParkedVehicleHearsFewHeadsUpsAndThePromptsAgainWhenItDrivesOn() throws {
    // Four turns 300 m apart.
    let legs: [(Double, Double, String)] = [
      (90, 600, "Turn left onto A Street"), (0, 300, "Turn right onto B Street"),
      (90, 300, "Turn left onto C Street"), (0, 300, "Turn right onto D Street"),
      (90, 300, "Your destination is on the left"),
    ]
    var d = try Drive(legs)
    d.driveAndStand(at: 400, until: 60)
    let before = d.events.count
    // Parked for 20 minutes without a fix.
    d.dark(61...1260)
    let told = d.announcements(before).filter { $0.a.kind == .approach }
    #expect(told.allSatisfy { $0.estimated && $0.time <= 60 + 120 }, "\(told.map(\.time))")
    let named = told.flatMap { [$0.a.step] + $0.a.thenSteps }
    #expect(named == [1, 2, 3], "\(told.map(\.a.text))")
    #expect(told.first?.a.id == "r0.s1.gps1", "the approach of turn 1 was said before")
    // It drives off where it stood, 200 m before turn 1 (as its recap said): turn 1's final
    // prompt comes; turns 2 and 3, named from 500 and 800 m, get their prompts again.
    let back = d.events.count
    var along = 400.0
    for t in 1261...1400 where along < 1790 {
      d.fix(along, Double(t), 12)
      along += 12
    }
    let again = d.announcements(back).map(\.a.id)
    #expect(
      again.filter { $0.hasPrefix("r0.s") }
        == [
          "r0.s1.now", "r0.s2.approach.gps1", "r0.s2.now.gps1", "r0.s3.approach.gps1",
          "r0.s3.now.gps1", "r0.s4.approach", "r0.s4.now", "r0.s5.approach",
        ], "\(again)")
    #expect(!d.events.contains { if case .offRoute = $0.kind { true } else { false } })
  }

  /// No heads-up for a vehicle at driving speed (it is carried, and its estimate prompts), nor
  /// when the route ahead has no maneuver near.
  @Test func aMovingVehicleGetsNoHeadsUp() throws {
    var d = try Drive(Self.close)
    for t in 0...60 { d.fix(12 * Double(t), Double(t), 12) }
    let before = d.events.count
    d.dark(61...70)
    #expect(!d.announcements(before).contains { $0.a.id.contains("gps") && $0.a.kind != .gps })
    var far = try Drive(Self.close)
    far.driveAndStand(at: 100, until: 20)
    let quiet = far.events.count
    far.dark(21...40)
    #expect(!far.announcements(quiet).contains { $0.a.kind == .approach })
  }

  /// A live engine ticking at odd moments, no-fix epochs every second and one silence of a
  /// replay make the same heads-ups at the same times; a live engine is told when the next is
  /// due (once, not periodically: the vehicle is not carried).
  @Test func headsUpsAreTheSameWhateverTheEdgeCallsAndWhen() throws {
    func run(_ quiet: (inout NavigationSession, Int) -> [NavigationEvent]) throws
      -> [NavigationEvent]
    {
      var d = try Drive(Self.close)
      d.driveAndStand(at: 600, until: 70)
      var events: [NavigationEvent] = []
      for k in 703..<1000 { events += quiet(&d.session, k) }
      return events
    }
    let epochs = try run { s, k in
      k % 10 == 1 ? s.ingest(.noFix(time: Self.t0 + Double(k / 10))) : []
    }
    let ticks = try run { s, k in k % 3 == 0 ? s.silence(at: Self.t0 + Double(k) / 10) : [] }
    let replay = try run { s, k in k == 991 ? s.silence(at: Self.t0 + 99.1) : [] }
    let said = epochs.compactMap(\.announcement).filter { $0.kind == .approach }
    #expect(said.map(\.step) == [1], "\(said.map(\.text))")
    #expect(ticks == epochs)
    #expect(replay == epochs)

    var d = try Drive(Self.close)
    d.driveAndStand(at: 600, until: 70)
    _ = d.session.silence(at: Self.t0 + 76)
    let check = try #require(d.session.nextSilenceCheck(now: Self.t0 + 76))
    #expect(!check.periodic && check.lossDue == nil)
    let due = try #require(check.headsUpDue)
    #expect(!d.session.silence(at: due - 0.5).contains { $0.announcement?.kind == .approach })
    #expect(d.session.silence(at: due).contains { $0.announcement?.kind == .approach })
    #expect(d.session.nextSilenceCheck(now: due) == nil)
  }
}
