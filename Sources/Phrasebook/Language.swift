/// The units distances are said and shown in.
///
/// Durations are unaffected; they are always seconds, minutes and hours.
public enum UnitSystem: String, Sendable, CaseIterable {
  /// Metres and kilometres.
  case metric
  /// US customary: feet below a tenth of a mile, miles above.
  case imperial
}
