import POSIX

/// Maps receiver time to the monotonic clock for paced replays.
struct Pacer {
  let speed: Double?
  let clock: any PacingClock
  let lostAfter: Double
  private var origin: (fixTime: Double, monotonic: Double)?
  private var lastTime: Double?

  init(speed: Double?, clock: any PacingClock, lostAfter: Double) {
    self.speed = speed
    self.clock = clock
    self.lostAfter = lostAfter
  }

  /// Sleeps until the epoch at `time` is due.
  ///
  /// When a gap longer than the GPS-loss limit comes first, sleeps only until the loss is due and
  /// returns its time, so the caller can report it on time; the caller then calls
  /// ``waitAgain(for:)``.
  mutating func wait(for time: Double) -> Double? {
    guard let speed, speed > 0 else { return nil }
    defer { lastTime = max(lastTime ?? time, time) }
    guard let o = origin else {
      origin = (time, clock.now())
      return nil
    }
    if let last = lastTime, time - last > lostAfter {
      clock.sleep(until: o.monotonic + (last + lostAfter - o.fixTime) / speed)
      return last + lostAfter
    }
    clock.sleep(until: o.monotonic + (time - o.fixTime) / speed)
    return nil
  }

  mutating func waitAgain(for time: Double) {
    guard let speed, speed > 0, let o = origin else { return }
    clock.sleep(until: o.monotonic + (time - o.fixTime) / speed)
  }
}
