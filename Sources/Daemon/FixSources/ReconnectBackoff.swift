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

  /// The defaults keep the promise to resume within 2 s of gpsd returning: a retry at least
  /// every 0.5 s, then gpsd's own first position (about 1.0-1.1 s after it starts, one
  /// receiver cycle) and the epoch merger's 0.3 s settle.
  ///
  /// (With a 1 s cap, guidance came back
  /// 1.8-2.4 s after gpsd returned at real time.) A refused connection on a dead gpsd costs
  /// next to nothing, two to four times a second.
  public init(initial: Double = 0.1, cap: Double = 0.5) {
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
