import Geodesy
import JSON
import Routes
import TestSupport
import Testing
import Wire

@testable import Guidance

/// `EventLine`, the one encoding of an event: subscribers get the JSON object with `seq` after
/// `time`, standard output the same bytes without it.
@Suite struct EventLineTests {
  /// The object with `seq` placed after `time`, as the socket protocol defines it.
  static func stamped(_ o: JSONObject, _ seq: UInt64) -> String {
    var out = JSONObject()
    for m in o.members {
      out.append(m.key, m.value)
      if m.key == "time" { out.append("seq", .number(Double(seq))) }
    }
    return JSONWriter.string(.object(out)) + "\n"
  }

  @Test func everyEventClassIsOneLineWithSeqAndTheSameLineWithoutIt() {
    for v in [0.0, 12.345, -99.95, 1e7] {
      for (i, e) in EventLineWriterTests.events(v).enumerated() {
        let seq = UInt64(1 + i) * 997
        let line = EventLine(.navigation(e), seq: seq)
        #expect(
          String(decoding: line.bytes, as: UTF8.self)
            == Self.stamped(ReferenceEventEncoder.object(e), seq))
        let plain = line.withoutSeq
        #expect(
          String(decoding: Array(plain.head) + Array(plain.tail), as: UTF8.self)
            == ReferenceEventEncoder.line(e) + "\n")
        // Standard output alone encodes straight into its buffer: the same bytes.
        var unnumbered: [UInt8] = [0x2A]
        EventLine.appendUnnumbered(.navigation(e), to: &unnumbered)
        #expect(unnumbered == [0x2A] + Array(plain.head) + Array(plain.tail))
      }
    }
    let source = SourceEvent(time: 1e9, status: .disconnected, source: "gpsd://x", reason: "eof")
    #expect(
      String(decoding: EventLine(.source(source), seq: 5).bytes, as: UTF8.self)
        == Self.stamped(ReferenceEventEncoder.object(source), 5))
    var unnumbered: [UInt8] = []
    EventLine.appendUnnumbered(.source(source), to: &unnumbered)
    let plain = EventLine(.source(source), seq: 5).withoutSeq
    #expect(unnumbered == Array(plain.head) + Array(plain.tail))
    for status in ReroutingEvent.Status.allCases {
      let r = ReroutingEvent(time: 1e9 + 0.25, status: status)
      #expect(
        String(decoding: EventLine(.rerouting(r), seq: 77).bytes, as: UTF8.self)
          == Self.stamped(ReferenceEventEncoder.object(r), 77))
    }
  }

  /// The one reader reads back what the one writer wrote: re-written, every event of every
  /// class is the same line again, `seq` and `boot` included.
  @Test func everyEventClassReadsBackToTheSameLine() throws {
    var events: [Event] = []
    for v in [0.0, 12.345, -99.95, 1e7, 0.05] {
      events += EventLineWriterTests.events(v).map(Event.navigation)
    }
    events += [
      .source(SourceEvent(time: 1e9, status: .disconnected, source: "gpsd://x", reason: "eof")),
      .source(SourceEvent(time: 1e9, status: .connected, source: "gpsd://x")),
      .cancelled(time: 1_714_550_530), .cancelled(time: nil),
    ]
    events += ReroutingEvent.Status.allCases.map {
      .rerouting(ReroutingEvent(time: 1e9, status: $0))
    }
    // A maneuver announcement with its lanes (those of the "then" maneuver) and its sign.
    let lanes = [
      RouteLane(indications: [.left], valid: false),
      RouteLane(indications: [.straight, .right], valid: true, active: true),
      RouteLane(indications: [.right], valid: true, active: false, validIndication: .right),
    ]
    let sign = RouteSign([
      .init(.exitNumber, "52"), .init(.ref, "A8", isRouteNumber: true), .init(.toward, "Nice"),
    ])
    let road = ManeuverRoad(lanes: lanes, lanesForThen: true, sign: sign)
    let said = Announcement(
      step: 3, kind: .approach,
      message: .maneuver(instructions: "Take exit 52.", distance: 300, then: nil, road: road),
      text: "In 300 meters, use the middle lane to take exit 52.", distance: 300,
      id: "r0.s3.approach")
    // One whose "then" clause says the next step's maneuver (protocol 1.7): `then` [step + 1],
    // read back as a "then" clause whose words are in `text`.
    let pair = Announcement(
      step: 6, kind: .now,
      message: .maneuver(instructions: "Turn left.", distance: nil, then: "Turn right."),
      text: "Turn left, then turn right.", distance: 40, id: "r0.s6.now")
    let pairLine = EventLine.text(.navigation(NavigationEvent(time: 1e9, kind: .announce(pair))))
    #expect(pairLine.contains(#""id":"r0.s6.now","then":[7]}"#), "\(pairLine)")
    let pairBack = try #require(ReceivedEvent(line: Array(pairLine.utf8)))
    guard case .navigation(let pn) = pairBack.event, case .announce(let pa) = pn.kind else {
      Issue.record("not an announcement: \(pairBack)")
      return
    }
    #expect(pa.thenSteps == [7])
    #expect(pa.text == pair.text)
    events.append(.navigation(NavigationEvent(time: 1e9, kind: .announce(pair))))
    events.append(.navigation(NavigationEvent(time: 1e9, kind: .announce(said))))
    #expect(Set(events.map(\.eventClass)) == Set(EventClass.allCases))
    let text = EventLine.text(events[events.count - 1])
    #expect(text.contains(#""lanes":[{"indications":["left"],"valid":false},"#), "\(text)")
    #expect(text.contains(#""lanesStep":4,"sign":[{"type":"exitNumber","text":"52"},"#), "\(text)")
    let back = try #require(ReceivedEvent(line: Array(text.utf8)))
    guard case .navigation(let n) = back.event, case .announce(let a) = n.kind,
      case .maneuver(_, _, _, let readRoad?) = a.message
    else {
      Issue.record("the announcement's lanes and sign were not read back: \(back)")
      return
    }
    #expect(readRoad == road)
    for (i, e) in events.enumerated() {
      let line = EventLine(e, seq: UInt64(i + 1))
      let read = try #require(ReceivedEvent(line: line.bytes), "\(e)")
      #expect(read.seq == UInt64(i + 1) && read.boot == nil)
      #expect(EventLine(read.event, seq: UInt64(i + 1)) == line, "\(e)")
      let booted = line.bytes(boot: "00ff")
      let withBoot = try #require(ReceivedEvent(line: booted))
      #expect(withBoot.boot == "00ff" && withBoot.event == read.event)
      #expect(String(decoding: booted, as: UTF8.self).contains(#","seq":\#(i + 1),"boot":"00ff""#))
    }
  }

  @Test func cancelledCarriesTheLastEventsTimeWhenThereWasOne() {
    #expect(
      String(decoding: EventLine(.cancelled(time: 1_714_550_530), seq: 278).bytes, as: UTF8.self)
        == #"{"class":"CANCELLED","time":"2024-05-01T08:02:10.000Z","seq":278}"# + "\n")
    #expect(
      String(decoding: EventLine(.cancelled(time: nil), seq: 1).bytes, as: UTF8.self)
        == #"{"class":"CANCELLED","seq":1}"# + "\n")
  }

  @Test func theRouteSaysWhyAndWhichRevision() throws {
    var summary = RouteSummary(
      name: "N", routeIndex: 0, distance: 10, expectedTravelTime: 5, transportType: .automobile,
      hasTolls: false, hasHighways: false, steps: 3, source: "A", destination: "B")
    summary.reason = .reroute
    summary.revision = 2
    let text = EventLine.text(.navigation(NavigationEvent(time: 0, kind: .route(summary))))
    let o = try #require(try JSONParser.parse(Array(text.utf8)).objectValue)
    #expect(o["reason"]?.stringValue == "reroute")
    #expect(o["revision"]?.doubleValue == 2)
  }
}
