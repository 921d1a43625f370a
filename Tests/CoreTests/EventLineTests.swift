import Geodesy
import JSON
import Routes
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
        let line = EventLine(e, seq: seq)
        #expect(
          String(decoding: line.bytes, as: UTF8.self) == Self.stamped(EventEncoder.object(e), seq))
        let plain = line.withoutSeq
        #expect(
          String(decoding: Array(plain.head) + Array(plain.tail), as: UTF8.self)
            == EventEncoder.line(e) + "\n")
        // Standard output alone encodes straight into its buffer: the same bytes.
        var unnumbered: [UInt8] = [0x2A]
        EventLine.appendUnnumbered(e, to: &unnumbered)
        #expect(unnumbered == [0x2A] + Array(plain.head) + Array(plain.tail))
      }
    }
    let source = SourceEvent(time: 1e9, status: .disconnected, source: "gpsd://x", reason: "eof")
    #expect(
      String(decoding: EventLine(source, seq: 5).bytes, as: UTF8.self)
        == Self.stamped(EventEncoder.object(source), 5))
    var unnumbered: [UInt8] = []
    EventLine.appendUnnumbered(source, to: &unnumbered)
    let plain = EventLine(source, seq: 5).withoutSeq
    #expect(unnumbered == Array(plain.head) + Array(plain.tail))
    for status in ReroutingEvent.Status.allCases {
      let r = ReroutingEvent(time: 1e9 + 0.25, status: status)
      #expect(
        String(decoding: EventLine(r, seq: 77).bytes, as: UTF8.self)
          == Self.stamped(EventEncoder.object(r), 77))
    }
  }

  @Test func cancelledCarriesTheLastEventsTimeWhenThereWasOne() {
    #expect(
      String(decoding: EventLine(cancelledAt: 1_714_550_530, seq: 278).bytes, as: UTF8.self)
        == #"{"class":"CANCELLED","time":"2024-05-01T08:02:10.000Z","seq":278}"# + "\n")
    #expect(
      String(decoding: EventLine(cancelledAt: nil, seq: 1).bytes, as: UTF8.self)
        == #"{"class":"CANCELLED","seq":1}"# + "\n")
  }

  @Test func theRouteSaysWhyAndWhichRevision() throws {
    var summary = RouteSummary(
      name: "N", routeIndex: 0, distance: 10, expectedTravelTime: 5, transportType: .automobile,
      hasTolls: false, hasHighways: false, steps: 3, source: "A", destination: "B")
    summary.reason = .reroute
    summary.revision = 2
    let o = EventEncoder.object(NavigationEvent(time: 0, kind: .route(summary)))
    #expect(o["reason"]?.stringValue == "reroute")
    #expect(o["revision"]?.doubleValue == 2)
  }
}
