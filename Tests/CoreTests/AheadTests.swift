import Geodesy
import Matching
import Phrasebook
import RouteShape
import Routes
import TestSupport
import Testing

@testable import Guidance
@testable import GuidanceSettings

/// What lies ahead (issue 34): road objects announced once each, timed like an approach prompt,
/// never late, never for an object passed, never over or after a maneuver's final prompt, never
/// again after a reroute; and the list `PROGRESS` publishes when it changes.
@Suite struct AheadTests {
  static let t0 = 1_714_550_400.0
  /// 3000 m east, a left turn, 2000 m north to the destination.
  static func document(_ objects: [RoadObject]) -> RouteDocument {
    var doc = makeRoute(legs: [(90, 3000, "Turn left onto A Street"), (0, 2000, "Arrive")])
    doc.routes[0].road = RouteRoad(objects: objects)
    return doc
  }

  struct Drive {
    var events: [NavigationEvent] = []
    /// Per fix: its time and the true metres along the route.
    var truth: [(time: Double, along: Double)] = []

    /// The `ahead` announcements, with the true metres along the route when made.
    var ahead: [(a: Announcement, time: Double, along: Double)] {
      events.compactMap { e in
        guard let a = e.announcement, a.kind == .ahead else { return nil }
        return (a, e.time, along(at: e.time))
      }
    }

    /// The maneuver prompts that carry a road object as a clause (folded into them).
    var folded: [(a: Announcement, clause: AheadClause, time: Double, along: Double)] {
      events.compactMap { e in
        guard let a = e.announcement, case .maneuver(_, _, _, let road?) = a.message,
          let clause = road.ahead
        else { return nil }
        return (a, clause, e.time, along(at: e.time))
      }
    }

    func along(at time: Double) -> Double {
      truth.last { $0.time <= time }?.along ?? 0
    }

    /// The time the vehicle first was past `along`.
    func time(past along: Double) -> Double? { truth.first { $0.along > along }?.time }
  }

  /// One fix a second at `speed` m/s from `from` metres along to the end, on the route, its
  /// course the route's; `session` is taken over when given (a reroute).
  static func drive(
    _ doc: RouteDocument, speed: Double = 13, from: Double = 0,
    configuration: GuidanceConfiguration = GuidanceConfiguration(),
    language: Language = .en,
    reroute: ((Double, inout NavigationSession) throws -> Void)? = nil
  ) throws -> Drive {
    let geometry = RouteGeometry(route: doc.routes[0])
    var s = try NavigationSession(
      document: doc, phrasing: Phrasebook(language: language), configuration: configuration)
    var d = Drive()
    var along = from
    var i = 0.0
    while along <= geometry.length + 10 {
      let at = min(along, geometry.length)
      let segment = geometry.segment(containing: at, from: 0)
      let t = t0 + i
      d.events += s.ingest(
        Fix(
          time: t, coordinate: geometry.coordinate(at: at), speed: speed,
          course: Double(geometry.bearings[segment]), horizontalAccuracy: 3))
      d.truth.append((t, at))
      try reroute?(at, &s)
      along += speed
      i += 1
    }
    return d
  }

  @Test func aTunnelIsSaidOnceWithItsLengthTimedLikeAnApproachPrompt() throws {
    let d = try Self.drive(Self.document([RoadObject(.tunnel, start: 1500, end: 2300)]))
    let said = d.ahead
    try #require(said.count == 1)
    let a = said[0]
    #expect(a.a.text.hasPrefix("In ") && a.a.text.hasSuffix(", a tunnel of 800 meters."))
    #expect(a.a.id == "r0.ahead.0")
    // The approach lead at 13 m/s (260 m) plus the sentence (about 3 s) and a fix's margin:
    // not earlier, and well before the tunnel.
    let lead = 1500 - a.along
    #expect(lead <= 260 + 13 * 4 + 13, "\(lead)")
    #expect(lead >= 260, "\(lead)")
    // In Korean.
    let ko = try Self.drive(
      Self.document([RoadObject(.tunnel, start: 1500, end: 3800)]), language: .ko
    ).ahead
    #expect(ko.count == 1)
    #expect(ko.first?.a.text.hasSuffix("미터 앞에 길이 2.3킬로미터의 터널이 있습니다.") == true)
  }

  @Test func everyKindInBothLanguages() {
    let en = Phrasebook(language: .en)
    let ko = Phrasebook(language: .ko)
    func say(_ p: Phrasebook, _ k: RoadObject.Kind, _ length: Double? = nil) -> String {
      p.text(for: .ahead(k, distance: 500, length: length))
    }
    #expect(say(en, .tunnel, 2300) == "In 500 meters, a tunnel of 2.3 kilometers.")
    #expect(say(en, .tollRoad, 9000) == "In 500 meters, the toll road begins.")
    #expect(say(en, .tollBooth) == "In 500 meters, a toll booth.")
    #expect(say(en, .levelCrossing) == "In 500 meters, a level crossing.")
    #expect(say(en, .ferry, 800) == "In 500 meters, a ferry crossing.")
    #expect(say(en, .bridge, 1200) == "In 500 meters, a bridge of 1.2 kilometers.")
    #expect(say(en, .border) == "In 500 meters, a border crossing.")
    #expect(say(en, .speedCamera) == "In 500 meters, a speed camera.")
    #expect(say(ko, .tunnel, 2300) == "500미터 앞에 길이 2.3킬로미터의 터널이 있습니다.")
    #expect(say(ko, .tollRoad, 9000) == "500미터 앞에서 유료 도로가 시작됩니다.")
    #expect(say(ko, .tollBooth) == "500미터 앞에 요금소가 있습니다.")
    #expect(say(ko, .levelCrossing) == "500미터 앞에 철도 건널목이 있습니다.")
    #expect(say(ko, .speedCamera) == "500미터 앞에 과속 단속 카메라가 있습니다.")
  }

  /// The promises, for objects of every announced kind at every 100 m of the route and two
  /// speeds: at most once each; never once reached; never late (the sentence ends at least
  /// `aheadMinimumLeadSeconds` before it); never over the turn's final prompt nor between it
  /// and the turn, nor within `aheadQuietSeconds` after a maneuver announcement.
  @Test func neverLateNeverTwiceNeverOverTheFinalPrompt() throws {
    let c = GuidanceConfiguration()
    let phrasebook = Phrasebook(language: .en)
    var saidSomewhere = 0
    for speed in [9.0, 25.0] {
      for start in stride(from: 100.0, through: 4800, by: 100) {
        let kind: RoadObject.Kind = Int(start / 100) % 2 == 0 ? .tollBooth : .tunnel
        let object = RoadObject(kind, start: start, end: kind == .tunnel ? start + 150 : start)
        let d = try Self.drive(Self.document([object]), speed: speed)
        let said = d.ahead
        #expect(said.count <= 1, "\(start) \(speed)")
        #expect(said.count + d.folded.count <= 1, "\(start) \(speed)")
        saidSomewhere += said.count + d.folded.count
        guard let a = said.first else { continue }
        let speech = phrasebook.speechDuration(of: a.a.text)
        #expect(a.along < start, "\(start) \(speed)")
        #expect(start - a.along >= speed * (speech + c.aheadMinimumLeadSeconds) - 1, "\(start)")
        let finals = d.events.compactMap { e in
          e.announcement.flatMap { $0.kind == .now ? e.time : nil }
        }
        let turn = try #require(d.time(past: 3000))
        for f in finals {
          #expect(!(f..<turn).contains(a.time), "\(start) \(speed)")
          // Not over it either: said before it, it ends before the final prompt begins.
          if f >= a.time { #expect(f >= a.time + speech, "\(start) \(speed)") }
        }
        let maneuvers = d.events.compactMap { e in
          e.announcement.flatMap { [.prepare, .approach, .now].contains($0.kind) ? e.time : nil }
        }
        for m in maneuvers where m <= a.time {
          #expect(a.time - m >= c.aheadQuietSeconds, "\(start) \(speed)")
        }
      }
    }
    // Most objects are said, on their own or with a maneuver's prompt.
    #expect(saidSomewhere >= 80, "\(saidSomewhere)")
  }

  @Test func anObjectRightAfterTheTurnIsSaidWithIt() throws {
    // 250 m after the turn: due before the turn, where it would wait for the turn to be
    // passed; said with the turn's prompt instead, in both languages.
    let document = Self.document([RoadObject(.levelCrossing, start: 3250)])
    let d = try Self.drive(document)
    #expect(d.ahead.isEmpty)
    try #require(d.folded.count == 1)
    #expect(d.folded[0].clause.afterManeuver)
    #expect(d.folded[0].a.text.hasSuffix("turn left onto A Street, then a level crossing."))
    let korean = try Self.drive(document, language: .ko)
    try #require(korean.folded.count == 1)
    #expect(korean.folded[0].a.text.hasSuffix(" 이어서 철도 건널목이 있습니다."))
    // Without folding it waits for the turn and is said after it.
    var c = GuidanceConfiguration()
    c.aheadFolding = false
    let waited = try Self.drive(document, configuration: c)
    try #require(waited.ahead.count == 1)
    #expect(waited.ahead[0].time >= (try #require(waited.time(past: 3000))))
    #expect(d.folded[0].time <= waited.ahead[0].time)
  }

  /// An object folded into a maneuver prompt is one its own announcement would have said
  /// later or not at all: every object is said at most once, as many are said as without
  /// folding and more (none dropped that waiting dropped), never later than without folding,
  /// and never late (the prompt ends `aheadMinimumLeadSeconds` before the object).
  @Test func foldingNeverDropsWhatWaitingSaidAndNeverSaysTwice() throws {
    var off = GuidanceConfiguration()
    off.aheadFolding = false
    let phrasebook = Phrasebook(language: .en)
    var (saidOn, saidOff, folded) = (0, 0, 0)
    for speed in [9.0, 25.0] {
      for start in stride(from: 100.0, through: 4800, by: 100) {
        let kind: RoadObject.Kind = Int(start / 100) % 2 == 0 ? .tollBooth : .tunnel
        let object = RoadObject(kind, start: start, end: kind == .tunnel ? start + 150 : start)
        let doc = Self.document([object])
        let on = try Self.drive(doc, speed: speed)
        let without = try Self.drive(doc, speed: speed, configuration: off)
        let times = on.ahead.map(\.time) + on.folded.map(\.time)
        #expect(times.count <= 1, "\(start) \(speed)")
        #expect(times.count >= without.ahead.count, "\(start) \(speed)")
        if let t = times.first, let was = without.ahead.first?.time {
          #expect(t <= was, "\(start) \(speed)")
        }
        for f in on.folded {
          let speech = phrasebook.speechDuration(of: f.a.text)
          #expect(start - f.along >= speed * (speech + off.aheadMinimumLeadSeconds) - 1, "\(start)")
        }
        saidOn += times.count
        saidOff += without.ahead.count
        folded += on.folded.count
      }
    }
    #expect(folded > 0 && saidOn > saidOff, "\(saidOn) against \(saidOff), \(folded) folded")
  }

  @Test func noneForAnObjectBehindTheStartOrTurnedOffOrAnUnderpass() throws {
    // Starting 400 m along: the crossing at 200 m is behind.
    #expect(
      try Self.drive(Self.document([RoadObject(.levelCrossing, start: 200)]), from: 400)
        .ahead.isEmpty)
    var off = GuidanceConfiguration()
    off.aheadKinds = []
    #expect(
      try Self.drive(
        Self.document([RoadObject(.tunnel, start: 1500, end: 2300)]),
        configuration: off
      ).ahead.isEmpty)
    // Bridges are off by default, and a 60 m tunnel is an underpass.
    #expect(
      try Self.drive(Self.document([RoadObject(.bridge, start: 1500, end: 2300)])).ahead
        .isEmpty)
    #expect(
      try Self.drive(Self.document([RoadObject(.tunnel, start: 1500, end: 1560)])).ahead
        .isEmpty)
    var bridges = GuidanceConfiguration()
    bridges.aheadKinds = try GuidanceConfiguration.aheadKinds(parsing: "bridge, toll").get()
    #expect(bridges.aheadKinds == [.bridge, .tollRoad, .tollBooth])
    #expect(
      try Self.drive(
        Self.document([RoadObject(.bridge, start: 1500, end: 2300)]),
        configuration: bridges
      ).ahead.count == 1)
    #expect(throws: AheadKindError(word: "tunnels")) {
      try GuidanceConfiguration.aheadKinds(parsing: "tunnel,tunnels").get()
    }
  }

  @Test func aTunnelSplitAtItsIntersectionsIsOneTunnel() throws {
    let pieces = [
      RoadObject(.tunnel, start: 1500, end: 1700, name: "Tunnel de Monaco"),
      RoadObject(.tollRoad, start: 1600, end: 2600),
      RoadObject(.tunnel, start: 1700, end: 1950), RoadObject(.tunnel, start: 1950, end: 2300),
    ]
    let d = try Self.drive(Self.document(pieces))
    #expect(d.ahead.map(\.a.text).filter { $0.contains("tunnel") }.count == 1)
    #expect(d.ahead.first?.a.text.hasSuffix("a tunnel of 800 meters.") == true)
    let lists = d.events.compactMap { $0.aheadList }
    #expect(
      lists.first == [
        RoadObject(.tunnel, start: 1500, end: 2300, name: "Tunnel de Monaco"),
        RoadObject(.tollRoad, start: 1600, end: 2600),
      ])
  }

  @Test func theListIsPublishedWhenItChanges() throws {
    let objects = [
      RoadObject(.levelCrossing, start: 500), RoadObject(.tunnel, start: 1500, end: 2300),
      RoadObject(.tollBooth, start: 2600), RoadObject(.bridge, start: 3500, end: 3700),
    ]
    let d = try Self.drive(Self.document(objects))
    let published = d.events.compactMap { e in e.aheadList.map { (e.time, $0) } }
    // At the start, past the crossing, out of the tunnel, past the toll booth, off the bridge.
    #expect(published.map(\.1.count) == [3, 3, 2, 1, 0])
    #expect(published[0].1 == Array(objects.prefix(3)))
    #expect(published[1].1 == Array(objects.suffix(3)))
    // Each change comes with the first fix past the object's end.
    for (k, end) in [500.0, 2300, 2600, 3700].enumerated() {
      #expect(published[k + 1].0 == d.time(past: end), "\(end)")
    }
    // A route without objects publishes no list.
    let none = try Self.drive(Self.document([]))
    #expect(none.events.allSatisfy { $0.aheadList == nil })
  }

  @Test func aRerouteToTheSameObjectDoesNotSayItAgain() throws {
    let doc = Self.document([RoadObject(.tunnel, start: 1500, end: 2300)])
    var rerouted = false
    let d = try Self.drive(doc) { along, s in
      // After the tunnel was said, before it is reached: the same route again.
      guard !rerouted, along > 1300 else { return }
      rerouted = true
      s = try s.rerouted(onto: doc, revision: 1, announce: false)
    }
    #expect(rerouted)
    #expect(d.ahead.count == 1)
    // Rerouted before it was said: said once, on the new route.
    var early = false
    let e = try Self.drive(doc) { along, s in
      guard !early, along > 600 else { return }
      early = true
      s = try s.rerouted(onto: doc, revision: 1, announce: false)
    }
    #expect(e.ahead.map(\.a.id) == ["r0.v1.ahead.0"])
  }

  @Test func aResumedSessionDoesNotSayAgainWhatItMayHaveSaid() throws {
    let doc = Self.document([RoadObject(.tunnel, start: 1500, end: 2300)])
    let geometry = RouteGeometry(route: doc.routes[0])
    /// Fixes `range` (one a second, 13 m/s east); the `ahead` announcements made.
    func drive(_ s: inout NavigationSession, _ range: Range<Int>) -> Int {
      range.reduce(0) { said, i in
        let events = s.ingest(
          Fix(
            time: Self.t0 + Double(i), coordinate: geometry.coordinate(at: Double(i) * 13),
            speed: 13, course: 90, horizontalAccuracy: 3))
        return said + events.count { $0.announcement?.kind == .ahead }
      }
    }
    var s = try NavigationSession(document: doc, phrasing: Phrasebook(language: .en))
    // Said at about 1200 m; the restart at 1300 m does not say it again.
    #expect(drive(&s, 0..<100) == 1)
    var resumed = try NavigationSession(
      document: doc, resuming: try #require(s.snapshot), phrasing: Phrasebook(language: .en))
    #expect(drive(&resumed, 100..<200) == 0)
  }
}
