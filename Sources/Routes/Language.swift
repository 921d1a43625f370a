/// A language the daemon speaks and writes in: its announcements (`Phrasebook`) and the
/// instructions it writes for imported routes (``InstructionWriter``).
///
/// The raw values are ISO 639-1 codes, as used on the command line and in the wire protocol.
public enum Language: String, Sendable, CaseIterable {
  /// English (United States spelling: "meters", "kilometers").
  case en
  /// Korean, in the polite register of Korean navigation voices (합쇼체 and 해요체).
  case ko

  /// The language of a locale tag such as `ko-KR`, `en_US` or `ko`, or `nil` when it is
  /// neither English nor Korean.
  public init?(locale: String) {
    let primary = locale.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first
    switch primary.map(String.init) {
    case "en": self = .en
    case "ko": self = .ko
    default: return nil
    }
  }
}
