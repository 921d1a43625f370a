import func Glibc.sin

/// The satellites a simulated receiver sees: a fixed constellation of twelve that turns slowly
/// across the sky, nine of them used in the fix (the PRNs the GSA sentence lists).
public enum SatelliteSky {
  /// One satellite in view.
  public struct Satellite: Sendable, Equatable {
    public var prn: Int
    /// Degrees above the horizon.
    public var elevation: Int
    /// Degrees clockwise from true north.
    public var azimuth: Int
    /// Signal-to-noise ratio, dB-Hz.
    public var snr: Int
    public var used: Bool
  }

  private static let constellation: [(prn: Int, elevation: Int, azimuth: Int, snr: Int)] = [
    (2, 62, 41, 44), (5, 35, 122, 40), (7, 48, 287, 42), (9, 21, 201, 36), (13, 74, 330, 45),
    (16, 28, 75, 38), (20, 40, 160, 41), (26, 17, 251, 33), (30, 55, 12, 43), (11, 8, 310, 24),
    (15, 6, 95, 22), (23, 4, 180, 20),
  ]
  private static let used: Set<Int> = [2, 5, 7, 9, 13, 16, 20, 26, 30]

  /// The sky at `time` (seconds since the Unix epoch): azimuths drift by about 30° an hour,
  /// signal strengths wobble by a few dB.
  ///
  /// The same time always gives the same sky.
  public static func view(at time: Double) -> [Satellite] {
    let drift = (time / 120).truncatingRemainder(dividingBy: 360)
    return constellation.map { c in
      let wobble = 2.5 * sin(time / 7 + Double(c.prn))
      return Satellite(
        prn: c.prn, elevation: c.elevation,
        azimuth: (c.azimuth + Int(drift)) % 360,
        snr: max(10, c.snr + Int(wobble.rounded())), used: used.contains(c.prn))
    }
  }
}
