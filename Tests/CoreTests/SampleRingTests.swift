import TestSupport
import Testing

@testable import Guidance

/// The ring trimmed only when read holds what a list trimmed on every sample would.
struct SampleRingTests {
  /// The list the ring replaces: after each advance, the samples within `span` of `now` and
  /// none later than it.
  struct SlidingList {
    var samples: [(time: Double, value: Int)] = []
    mutating func advance(to now: Double, span: Double) {
      samples.removeAll { $0.time > now || now - $0.time > span }
    }
  }

  @Test(arguments: [1, 2, 3, 4] as [UInt64])
  func theWindowIsTheSlidingList(seed: UInt64) {
    var random = Xorshift(x: seed)
    var ring = SampleRing<Int>()
    var list = SlidingList()
    var time = 0.0
    var largest = 0
    for n in 0..<5_000 {
      // Mostly forward at 1 Hz to 20 Hz, sometimes a pause, a jump back or a cleared run.
      let roll = random.below(100)
      if roll < 3 {
        time -= Double(random.below(30))
      } else if roll < 6 {
        time += Double(random.below(60))
      } else {
        time += 1 / Double(1 + random.below(20))
      }
      ring.advance(to: time, span: 10)
      list.advance(to: time, span: 10)
      if roll == 99 {
        ring.removeAll()
        list.samples.removeAll()
      } else if roll % 7 != 0 {
        ring.append(time, n)
        list.samples.append((time, n))
      }
      let window = ring.window
      #expect(window.map(\.value) == list.samples.map(\.value), "sample \(n)")
      #expect(window.map(\.time) == list.samples.map(\.time), "sample \(n)")
      largest = max(largest, list.samples.count)
    }
    // Spans held far more samples than the first 8 slots: the ring grew and kept them all.
    #expect(largest > 32)
  }
}
