/// The samples of a sliding window, oldest first: appended at the back, dropped from either end.
///
/// A ring over one array: dropping a sample moves an index, and appending reuses a dropped
/// sample's slot, so a window that keeps about the same number of samples allocates nothing per
/// sample (an array trimmed with `removeFirst` or `removeAll(where:)` moves every sample kept).
/// The array grows only when the window holds more samples than ever before.
struct SampleRing<Element>: RandomAccessCollection {
  /// The slots; those outside the window hold stale samples, overwritten before they are read.
  private var slots: [Element] = []
  /// The slot of the oldest sample.
  private var head = 0
  private(set) var count = 0

  init() {}

  var startIndex: Int { 0 }
  var endIndex: Int { count }

  @inline(__always)
  subscript(position: Int) -> Element {
    precondition(position >= 0 && position < count, "SampleRing index out of range")
    return slots[slot(position)]
  }

  /// The slot of the sample at `position` (0 ..< count).
  @inline(__always)
  private func slot(_ position: Int) -> Int {
    let i = head + position
    return i < slots.count ? i : i - slots.count
  }

  @inline(__always)
  mutating func append(_ element: Element) {
    if count < slots.count {
      slots[slot(count)] = element
      count += 1
    } else {
      grow(with: element)
    }
  }

  /// Full: puts the samples in order from the first slot, and adds one.
  @inline(never)
  private mutating func grow(with element: Element) {
    if head != 0 {
      slots = Array(self)
      head = 0
    }
    slots.append(element)
    count += 1
  }

  /// Drops samples from the front while `predicate` holds for the oldest.
  @inline(__always)
  mutating func removeFirst(while predicate: (Element) throws -> Bool) rethrows {
    while count > 0, try predicate(slots[head]) {
      head = head + 1 < slots.count ? head + 1 : 0
      count -= 1
    }
  }

  /// Drops samples from the back while `predicate` holds for the newest.
  @inline(__always)
  mutating func removeLast(while predicate: (Element) throws -> Bool) rethrows {
    while count > 0, try predicate(slots[slot(count - 1)]) { count -= 1 }
  }

  /// Keeps the samples of the last `span` seconds up to `now` (`time` gives a sample's time).
  ///
  /// For samples appended in time order this is
  /// `removeAll { now - time($0) > span || time($0) > now }`: what that drops lies at the ends.
  @inline(__always)
  mutating func keep(span: Double, upTo now: Double, time: (Element) -> Double) {
    removeLast { time($0) > now }
    removeFirst { now - time($0) > span }
  }

  /// Drops every sample, keeping the slots.
  mutating func removeAll() {
    head = 0
    count = 0
  }
}

extension SampleRing: Sendable where Element: Sendable {}
