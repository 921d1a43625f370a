public import Geodesy
import GuidanceSettings

/// When a replay says that nothing arrived: the one rule of every replay (the daemon's paced and
/// `--fast` replays, the scenario lab), so a track gives the same events at any pace.
///
/// A live engine is woken by its ticks while the source is quiet; a replay has only the
/// capture's times. When the next epoch comes more than `lostAfter` seconds after the newest one
/// before it, the replay reports silence (``NavigationSession/silence(at:)``) at that epoch's
/// time plus `lostAfter`, the moment a live engine would have found the GPS lost, and only then
/// hands over the epoch.
public struct ReplaySilence: Sendable, Equatable {
  /// Seconds without any epoch after which the GPS counts as lost (the session's
  /// `gpsLostAfter`).
  public let lostAfter: Double
  private var newest: Double?

  public init(lostAfter: Double) {
    self.lostAfter = lostAfter
  }

  /// The fix time at which silence is to be reported before the epoch at `time`, if any.
  public mutating func before(_ time: Double) -> Double? {
    defer { newest = max(newest ?? time, time) }
    guard let last = newest, time - last > lostAfter else { return nil }
    return last + lostAfter
  }
}

extension NavigationSession {
  /// Replays recorded epochs as the daemon's replays deliver them: each epoch, preceded by the
  /// silence ``ReplaySilence`` reports before it.
  ///
  /// Returns every event.
  public mutating func replay(_ fixes: some Sequence<Fix>) -> [NavigationEvent] {
    var silence = ReplaySilence(lostAfter: configuration.gpsLostAfter)
    var events: [NavigationEvent] = []
    for fix in fixes {
      if let t = silence.before(fix.time) { events += self.silence(at: t) }
      events += ingest(fix)
    }
    return events
  }
}
