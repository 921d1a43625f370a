/// The timed samples of the last `span` seconds, oldest first, in a ring.
///
/// Trimmed only when read (far less often than written) or when a slot is needed; it doubles
/// only when every slot holds a sample within the span. ``window`` is what a list trimmed on
/// every sample would hold.
struct SampleRing<Value> {
  typealias Sample = (time: Double, value: Value)
  /// 2ⁿ slots or none: `kept` samples from `head` on; the window ends at `now`, `span` long.
  private var slots: [Sample] = []
  private var head = 0
  private var kept = 0
  private var now = -Double.infinity
  private var span = 0.0

  init() {}

  @inline(__always)
  private func slot(_ position: Int) -> Int { (head &+ position) & (slots.count &- 1) }

  /// Ends the window at `now`, `span` seconds long; a sample later than `now` (the clock went
  /// back) is dropped.
  @inline(__always)
  mutating func advance(to now: Double, span: Double) {
    if now < self.now { dropOutOfWindow() }
    while kept > 0, slots[slot(kept &- 1)].time > now { kept &-= 1 }
    self.now = now
    self.span = span
  }

  /// Adds a sample at the newest end (its time is the one advanced to).
  @inline(__always)
  mutating func append(_ time: Double, _ value: Value) {
    if kept == slots.count {
      if kept > 0, now - slots[head].time > span {
        head = slot(1)
        kept &-= 1
      } else {
        grow(filler: (time, value))
      }
    }
    slots[slot(kept)] = (time, value)
    kept &+= 1
  }

  /// Before the clock goes back: drops what is out of the window, or a later window takes it back.
  @inline(never)
  private mutating func dropOutOfWindow() {
    while kept > 0, now - slots[head].time > span {
      head = slot(1)
      kept -= 1
    }
  }

  /// Every slot holds a sample within the span: doubles the slots (`filler` in those not yet
  /// written), the samples in order from the first.
  @inline(never)
  private mutating func grow(filler: Sample) {
    var grown = [Sample](repeating: filler, count: Swift.max(8, slots.count * 2))
    for i in 0..<kept { grown[i] = slots[slot(i)] }
    slots = grown
    head = 0
  }

  mutating func removeAll() { kept = 0 }  // every sample; the slots stay

  /// The samples within the span of the newest time advanced to, oldest first.
  var window: Window {
    var skip = 0
    while skip < kept, now - slots[slot(skip)].time > span { skip += 1 }
    return Window(ring: self, first: skip)
  }

  /// The samples of ``window``: a view of the ring, allocating nothing.
  struct Window: RandomAccessCollection {
    fileprivate let ring: SampleRing
    fileprivate let first: Int

    var startIndex: Int { 0 }
    var endIndex: Int { ring.kept - first }

    subscript(position: Int) -> Sample {
      precondition(position >= 0 && position < endIndex, "SampleRing.Window index out of range")
      return ring.slots[ring.slot(first + position)]
    }
  }
}

extension SampleRing: Sendable where Value: Sendable {}
