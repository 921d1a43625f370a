import Glibc

/// The system's UTC clock, for the rare event that has no fix time yet.
public enum UTCClock {
  /// Seconds since 1970-01-01T00:00:00Z.
  ///
  /// The corresponding C function is `clock_gettime` (`CLOCK_REALTIME`).
  public static let now: @Sendable () -> Double = {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }
}
