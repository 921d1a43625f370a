import Geodesy
import Glibc
import JSON
import Routes
import TestSupport
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
        let stamped = EventLine(.navigation(e), seq: seq)
        if String(decoding: stamped.bytes, as: UTF8.self)
          != EventLineTests.stamped(ReferenceEventEncoder.object(e), seq)
        {
          mismatches.append("seq \(seq), \(step), \(v)")
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
  }

  /// Values of every size a drive gives and more: coordinates, metres, seconds, speeds and
  /// courses, negative, tiny and with trailing zeros after rounding.
  @Test func randomValuesAreWrittenAsTheTreeWouldBe() {
    var rng = Xorshift(x: 0x2545_F491_4F6C_DD1D)
    var mismatches: [String] = []
    for _ in 0..<20_000 {
      func draw() -> Double {
        let magnitude = Double(rng.below(16)) - 6  // 10^-6 … 10^9
        var v = Double.random(in: 0..<10, using: &rng) * pow(10, magnitude)
        switch rng.below(4) {
        case 0: v = (v * 10).rounded() / 10  // a value that is already rounded
        case 1: v = -v
        default: break
        }
        return v
      }
      let p = Progress(
        step: rng.below(500), distanceToManeuver: draw(), distanceRemaining: draw(),
        timeRemaining: abs(draw()), distanceAlong: draw(), onRoute: rng.below(2) == 0,
        raw: Coordinate(
          latitude: Double.random(in: -90...90, using: &rng),
          longitude: Double.random(in: -180...180, using: &rng)),
        matched: Coordinate(
          latitude: (Double.random(in: -90...90, using: &rng) * 1e4).rounded() / 1e4,
          longitude: Double.random(in: -180...180, using: &rng)),
        distanceFromRoute: abs(draw()), speed: rng.below(5) == 0 ? nil : abs(draw()),
        course: rng.below(5) == 0 ? nil : Double.random(in: 0..<360, using: &rng),
        discardedFixes: rng.below(3))
      let e = NavigationEvent(
        time: 1_700_000_000 + Double(rng.below(100_000_000)) / 1000, kind: .progress(p))
      if EventLineWriterTests.bytes(e) != EventLineWriterTests.tree(e) {
        mismatches.append("\(EventLineWriterTests.bytes(e))")
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.count): \(mismatches.prefix(3))")
  }

  @Test func aSeqPastTheDoublesIsWrittenInFull() {
    let e = NavigationEvent(
      time: 1_700_000_000,
      kind: .progress(Self.progress(step: 1, timeRemaining: 3, value: 2, discarded: 0)))
    let line = String(decoding: EventLine(.navigation(e), seq: .max).bytes, as: UTF8.self)
    #expect(
      line.hasPrefix(
        #"{"class":"PROGRESS","time":"2023-11-14T22:13:20.000Z","seq":18446744073709551615,"#))
    #expect(line.hasSuffix("}\n"))
  }
}
