import Geodesy

extension SimulatedDrive {
  /// Removes every epoch that falls in one of `silences` (seconds after `start`).
  ///
  /// That is a receiver that says nothing at all, not even a no-fix epoch (unplugged, or a gpsd
  /// that stopped sending). The truth is kept: the vehicle drove on.
  public mutating func silence(_ silences: [ClosedRange<Double>], after start: Double) {
    guard !silences.isEmpty else { return }
    let kept = fixes.indices.filter { i in
      !silences.contains { $0.contains(fixes[i].time - start) }
    }
    fixes = kept.map { fixes[$0] }
    sigmas = kept.map { sigmas[$0] }
  }
}
