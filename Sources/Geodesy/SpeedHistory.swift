// A vehicle's recent speeds, second by second: what dead reckoning carries on from and a
// snapshot keeps.

/// One second of fixes: its time (whole seconds since the Unix epoch) and the highest and lowest
/// speed in it (m/s).
public struct SpeedSecond: Sendable, Equatable {
  /// How many of the last seconds a session keeps (and a snapshot holds at most).
  public static let kept = 64

  public var time: Int
  public var high: Double
  public var low: Double

  public init(time: Int, high: Double, low: Double) {
    self.time = time
    self.high = high
    self.low = low
  }
}

/// The highest and lowest speed of each of the last ``seconds`` seconds of fixes, in a ring
/// written in place, read only when an outage begins or ends (the peak; whether steady).
public struct SpeedPeak: Sendable, Equatable {
  public static let seconds = SpeedSecond.kept
  private var ring = [Second](repeating: Second(at: .min, high: 0, low: 0), count: seconds)
  private var last: Int?  // the second of the newest speed noted
  private struct Second: Sendable, Equatable { var at: Int, high: Double, low: Double }

  /// The ring's slot for second `at` (negative seconds too).
  private static func slot(_ at: Int) -> Int { ((at % seconds) + seconds) % seconds }

  public init() {}

  public mutating func note(_ v: Double, time t: Double) {
    let now = Int((t.isFinite ? min(max(t, -1e15), 1e15) : 0).rounded(.down))
    let k = Self.slot(now)
    let same = ring[k].at == now
    ring[k] = Second(
      at: now, high: same ? max(ring[k].high, v) : v, low: same ? min(ring[k].low, v) : v)
    last = max(last ?? now, now)
  }

  /// The highest and lowest speed noted within `span` seconds of the newest (0 and ∞ before any).
  public func range(span: Double) -> (high: Double, low: Double) {
    guard let last else { return (0, .infinity) }
    var r = (high: -Double.infinity, low: Double.infinity)
    for at in max(last - Int(span.rounded(.up)), last - Self.seconds + 1)...last {
      let s = ring[Self.slot(at)]
      if s.at == at { r = (max(r.high, s.high), min(r.low, s.low)) }
    }
    return r
  }

  /// The highest speed noted within `span` seconds of the newest, 0 before any.
  public func speed(span: Double) -> Double { max(0, range(span: span).high) }

  /// The seconds noted within ``seconds`` of the newest, oldest first: what a snapshot saves.
  public var saved: [SpeedSecond] {
    guard let last else { return [] }
    return (last - Self.seconds + 1...last).compactMap { at in
      let s = ring[Self.slot(at)]
      return s.at == at ? SpeedSecond(time: at, high: s.high, low: s.low) : nil
    }
  }

  /// Takes back the seconds a snapshot saved (those with speeds no fix gives are left out).
  public mutating func resume(_ saved: [SpeedSecond]) {
    for s in saved where s.low.isFinite && s.high.isFinite && s.low >= 0 && s.high >= s.low {
      note(s.high, time: Double(s.time))
      note(s.low, time: Double(s.time))
    }
  }

  /// Whether every speed noted within `recent` seconds of the newest was within `fraction` of `v`.
  public func steady(at v: Double, fraction: Double, recent: Double) -> Bool {
    let r = range(span: recent)
    return last != nil && r.high <= v * (1 + fraction) && r.low >= v * (1 - fraction)
  }
}
