import GuidanceSettings

/// The speed the early prompts (prepare, approach) are timed at, and the recent speed it follows
/// a slowing vehicle by: held while the vehicle's speed stays within `leadSpeedBand` of it, taken
/// at once when faster, from the recent speed (averaged over `recentSpeedSeconds`) when slower.
///
/// The fixes feed it; without fixes the estimate's speeds feed it, once a second of the fix clock
/// as fixes at those speeds would, so a prompt from an estimate falls due where the same drive's
/// fixes would have put it (a vehicle that slowed from 33 to 29 m/s just before its fixes stopped
/// has its prompts timed at 29 m/s within seconds, not at 33 m/s for the rest of the outage).
struct LeadSpeed: Sendable, Equatable {
  /// The speed averaged over the last `recentSpeedSeconds` or so.
  var recent = 0.0
  /// The speed held, and the bounds of its band (``hold(_:_:)`` sets them, so a fix compares
  /// without working them out).
  private(set) var held = 0.0
  private var above = 0.0
  private var below = 0.0

  /// Takes the speed `v` (m/s) `dt` seconds after the last (0, or a gap over `speedGapLimit`,
  /// starts the average afresh).
  @inline(__always) mutating func note(_ v: Double, dt: Double, _ c: GuidanceConfiguration) {
    if dt > 0, dt <= c.speedGapLimit {
      recent += (v - recent) * dt / (c.recentSpeedSeconds + dt)
    } else {
      recent = v
    }
    if v > above {
      hold(v, c)
    } else if recent < below {
      hold(recent, c)
    }
  }

  /// The speed the early prompts are timed at for an estimate at `v`: the held one, unless `v`
  /// is faster than it by more than the band (a fix's speed is within it once taken).
  func at(_ v: Double) -> Double { v > above ? v : held }

  /// Holds `v` as the speed the early prompts are timed at.
  mutating func hold(_ v: Double, _ c: GuidanceConfiguration) {
    held = v
    above = v * (1 + c.leadSpeedBand)
    below = v * (1 - c.leadSpeedBand)
  }
}
