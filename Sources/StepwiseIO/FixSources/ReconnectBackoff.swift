/// Delays between reconnection attempts: exponential, capped, with jitter.
///
/// The n-th delay is `min(cap, initial × 2ⁿ)` scaled by a random factor in [0.5, 1) ("equal
/// jitter"), so boxes that lost the same gpsd do not retry in step. A connection that delivered
/// data resets it.
public struct ReconnectBackoff: Sendable, Equatable {
  /// Seconds before the first retry, before jitter.
  public var initial: Double
  /// Seconds the delay never exceeds.
  public var cap: Double
  private var attempt = 0

  /// The defaults keep the promise to resume within 2 s of gpsd delivering again: a retry at
  /// least every second, plus one receiver cycle for the first fix.
  public init(initial: Double = 0.1, cap: Double = 1.0) {
    self.initial = initial
    self.cap = cap
  }

  /// The next delay in seconds; `random` is uniform in [0, 1).
  public mutating func next(random: Double) -> Double {
    let base = min(cap, initial * Double(1 << min(attempt, 20)))
    attempt += 1
    return base * (0.5 + 0.5 * min(max(random, 0), 1))
  }

  /// Starts again from the initial delay.
  public mutating func reset() { attempt = 0 }
}
