/// A language the daemon speaks and writes in.
///
/// The raw values are ISO 639-1 codes, as used on the command line and in the wire protocol.
public enum Language: String, Sendable, CaseIterable {
  /// English (United States spelling: "meters", "kilometers").
  case en
  /// Korean, in the polite register of Korean navigation voices (합쇼체 and 해요체).
  case ko
}

/// The units distances are said and shown in.
///
/// Durations are unaffected; they are always seconds, minutes and hours.
public enum UnitSystem: String, Sendable, CaseIterable {
  /// Metres and kilometres.
  case metric
  /// US customary: feet below a tenth of a mile, miles above.
  case imperial
}
