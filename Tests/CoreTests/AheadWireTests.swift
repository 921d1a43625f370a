import Geodesy
import JSON
import Routes
import Testing
import Wire

@testable import Guidance

/// `PROGRESS`'s `ahead` (protocol 1.6): written when it changes, read back, folded into the
/// state and its `STATE` object; a line without it (a 1.5 daemon's, or an unchanged list)
/// leaves the list as it was.
@Suite struct AheadWireTests {
  static let objects = [
    RoadObject(.tunnel, start: 1500.04, end: 2300, name: "Tunnel de Monaco"),
    RoadObject(.tollBooth, start: 2600),
  ]

  static func progress(step: Int, along: Double, ahead: [RoadObject]?) -> Event {
    .navigation(
      NavigationEvent(
        time: 1_714_550_400 + along / 10,
        kind: .progress(
          Progress(
            step: step, distanceToManeuver: 100, distanceRemaining: 4000 - along,
            timeRemaining: 300, distanceAlong: along, onRoute: true,
            raw: Coordinate(latitude: 43.7, longitude: 7.4),
            matched: Coordinate(latitude: 43.7, longitude: 7.4), distanceFromRoute: 1,
            speed: 13, course: 90),
          ahead: ahead)))
  }

  @Test func writtenAndReadBack() throws {
    let line = EventLine.text(Self.progress(step: 1, along: 10, ahead: Self.objects))
    #expect(
      line.hasSuffix(
        #","ahead":[{"type":"tunnel","start":1500,"length":800,"name":"Tunnel de Monaco"},"#
          + #"{"type":"toll booth","start":2600}]}"#))
    let read = try #require(ReceivedEvent(line: Array(line.utf8)))
    guard case .navigation(let e) = read.event, case .progress(_, let ahead) = e.kind else {
      Issue.record("not a PROGRESS: \(read)")
      return
    }
    #expect(
      ahead == [
        RoadObject(.tunnel, start: 1500, end: 2300, name: "Tunnel de Monaco"),
        RoadObject(.tollBooth, start: 2600),
      ])
    // An empty list is a list: nothing lies ahead any more.
    let empty = EventLine.text(Self.progress(step: 2, along: 2700, ahead: []))
    #expect(empty.hasSuffix(#","ahead":[]}"#))
    // Without it, the fast path's bytes as before.
    #expect(!EventLine.text(Self.progress(step: 1, along: 11, ahead: nil)).contains("ahead"))
  }

  @Test func foldedIntoTheStateUntilItChangesOrTheRouteDoes() throws {
    var state = GuidanceState()
    state.apply(Self.progress(step: 1, along: 10, ahead: Self.objects), seq: 1)
    state.apply(Self.progress(step: 1, along: 20, ahead: nil), seq: 2)
    #expect(state.ahead == Self.objects)
    // The STATE object carries it for a late joiner, and reads back.
    let o = state.object
    #expect(JSONWriter.string(.object(o)).contains(#""ahead":[{"type":"tunnel","start":1500,"#))
    let back = try #require(GuidanceState(stateObject: o))
    #expect(back.ahead?.map(\.kind) == [.tunnel, .tollBooth])
    #expect(back.ahead?.first?.length == 800)
    state.apply(Self.progress(step: 2, along: 2700, ahead: []), seq: 3)
    #expect(state.ahead == [])
    // Once, as the state's own member: the last PROGRESS it embeds has none, even the one
    // that carried the list.
    let embedded = JSONWriter.string(.object(state.object))
    #expect(embedded.ranges(of: #""ahead":"#).count == 1)
    #expect(embedded.contains(#""ahead":[]"#))
    // A new route forgets it; a state without it reads as unknown.
    state.beginGuidance(routeIndex: 0)
    #expect(state.ahead == nil)
    #expect(GuidanceState(stateObject: state.object)?.ahead == nil)
  }

  @Test func aLineOfAnOlderDaemonOrWithUnknownTypesIsRead() throws {
    // 1.5: no member; 1.6 with a type this reader does not know: that object is skipped.
    let old = #"{"class":"PROGRESS","time":"2024-05-01T08:00:00.000Z","step":2,"distanceAlong":5}"#
    let e = try #require(ReceivedEvent(line: Array(old.utf8)))
    var state = GuidanceState()
    state.apply(e)
    #expect(state.ahead == nil)
    let newer =
      #"{"class":"PROGRESS","time":"2024-05-01T08:00:01.000Z","step":2,"ahead":"#
      + #"[{"type":"rest area","start":900},{"type":"border","start":1200}]}"#
    state.apply(try #require(ReceivedEvent(line: Array(newer.utf8))))
    #expect(state.ahead == [RoadObject(.border, start: 1200)])
  }
}
