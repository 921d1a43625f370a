import Glibc

/// A monotonic clock the replay paces itself by.
///
/// Injected so tests never sleep.
public protocol PacingClock: Sendable {
  /// Seconds on a monotonic scale.
  func now() -> Double
  /// Blocks until `now() >= deadline`.
  func sleep(until deadline: Double)
}

/// The system's monotonic clock.
///
/// The corresponding C functions are `clock_gettime` and
/// `clock_nanosleep`.
public struct SystemClock: PacingClock {
  public init() {}

  public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  public func sleep(until deadline: Double) {
    var ts = timespec()
    ts.tv_sec = Int(deadline.rounded(.down))
    ts.tv_nsec = Int((deadline - deadline.rounded(.down)) * 1e9)
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
  }
}
