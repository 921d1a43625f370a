import Guidance
import POSIX

/// Maps receiver time to the monotonic clock for paced replays.
struct Pacer {
  let speed: Double?
  let clock: any PacingClock
  private var origin: (fixTime: Double, monotonic: Double)?
  private var silence: ReplaySilence

  init(speed: Double?, clock: any PacingClock, lostAfter: Double) {
    self.speed = speed
    self.clock = clock
    silence = ReplaySilence(lostAfter: lostAfter)
  }

  /// Sleeps until the epoch at `time` is due.
  ///
  /// When silence is to be reported first (``ReplaySilence``), sleeps only until it is due and
  /// returns its time, so the caller can report it on time; the caller then calls
  /// ``waitAgain(for:)``.
  mutating func wait(for time: Double) -> Double? {
    guard let speed, speed > 0 else { return nil }
    let quiet = silence.before(time)
    guard let o = origin else {
      origin = (time, clock.now())
      return nil
    }
    if let quiet {
      clock.sleep(until: o.monotonic + (quiet - o.fixTime) / speed)
      return quiet
    }
    clock.sleep(until: o.monotonic + (time - o.fixTime) / speed)
    return nil
  }

  mutating func waitAgain(for time: Double) {
    guard let speed, speed > 0, let o = origin else { return }
    clock.sleep(until: o.monotonic + (time - o.fixTime) / speed)
  }
}
