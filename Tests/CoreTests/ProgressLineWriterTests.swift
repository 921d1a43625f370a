import Geodesy
import JSON
import Routes
import Testing
import Wire

@testable import Guidance

/// The `PROGRESS` line's own writer where it hands over to the general code or leaves the
/// common case.
///
/// Times outside the years 0 to 9999 (the event's and the ETA), integers past 10^15, large
/// `seq` values, rounding at halves: each line must be the tree's.
@Suite struct ProgressLineWriterTests {
  static func progress(step: Int, timeRemaining: Double, value: Double, discarded: Int)
    -> Progress
  {
    Progress(
      step: step, distanceToManeuver: value, distanceRemaining: value, timeRemaining: timeRemaining,
      distanceAlong: value, onRoute: true, raw: Coordinate(latitude: value, longitude: -value),
      matched: Coordinate(latitude: 48.1234567, longitude: 11.5),
      distanceFromRoute: value, speed: value, course: value, discardedFixes: discarded)
  }

  @Test(arguments: [
    -62_167_219_200.0, -62_167_219_200.5, 253_402_300_799.999, 253_402_300_800, 1e12, -1e12,
    1_700_000_000.0005, 1_700_000_000.0015,
  ])
  func timesAtAndPastTheYearRangeAreWrittenAsTheTreeWouldBe(_ t: Double) {
    for remaining in [0, 0.5, 1.5, -0.5, 1e9] {
      let e = NavigationEvent(
        time: t,
        kind: .progress(Self.progress(step: 2, timeRemaining: remaining, value: 1.25, discarded: 0))
      )
      #expect(
        EventLineWriterTests.bytes(e) == EventLineWriterTests.tree(e), "\(t) + \(remaining)")
    }
  }

  @Test func integersAndHalvesAreWrittenAsTheTreeWouldBe() {
    let steps = [
      0, -1, 9, 10, 99, 100, 12_345, 999_999_999_999_999, 1_000_000_000_000_000, .max, .min,
    ]
    let values = [
      0.05, 0.15, 0.25, 0.35, -0.05, -0.25, 0.005, 0.015, 0.00000005, 0.00000015, 1.00000005,
      99.99999995, -99.99999995, 123_456_789.05, 4.5e14, 4.5e14 + 0.5, 0x1p52, 0x1p52 + 1,
    ]
    var mismatches: [String] = []
    for (i, step) in steps.enumerated() {
      for v in values {
        let e = NavigationEvent(
          time: 1_700_000_000.25,
          kind: .progress(Self.progress(step: step, timeRemaining: v, value: v, discarded: step)))
        if EventLineWriterTests.bytes(e) != EventLineWriterTests.tree(e) {
          mismatches.append("\(step), \(v): \(EventLineWriterTests.bytes(e))")
        }
        // Below 10^15, which the tree writes as an integer (it writes larger ones as doubles).
        let seq = 999_999_999_999_999 / UInt64(i + 1)
        let stamped = EventLine(e, seq: seq)
        if String(decoding: stamped.bytes, as: UTF8.self)
          != EventLineTests.stamped(EventEncoder.object(e), seq)
        {
          mismatches.append("seq \(seq), \(step), \(v)")
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
  }

  @Test func aSeqPastTheDoublesIsWrittenInFull() {
    let e = NavigationEvent(
      time: 1_700_000_000,
      kind: .progress(Self.progress(step: 1, timeRemaining: 3, value: 2, discarded: 0)))
    let line = String(decoding: EventLine(e, seq: .max).bytes, as: UTF8.self)
    #expect(
      line.hasPrefix(
        #"{"class":"PROGRESS","time":"2023-11-14T22:13:20.000Z","seq":18446744073709551615,"#))
    #expect(line.hasSuffix("}\n"))
  }
}
