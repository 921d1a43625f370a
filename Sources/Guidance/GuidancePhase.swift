/// Where a guidance session stands.
///
/// One value at a time, so no combination of flags can say two contradictory things.
///
/// Whether the GPS is lost is not a phase: a fix can go missing in any of them, and coming back
/// returns to the same phase. Rerouting is not a phase of the session either: when to ask and
/// whether to use an answer is ``RerouteController``'s (target Rerouting), which keeps its own
/// status; the session only learns that its route was replaced.
///
/// The data that only one phase uses (the on-route evidence of an arrival, the off-route
/// search) still lives beside the phase in ``NavigationSession``, not in its cases.
public enum GuidancePhase: String, Sendable, Hashable, CaseIterable {
  /// No valid fix has come yet: the departure is still to be made.
  case acquiring
  /// Departed from beside the route (a car park, a driveway): heading to the route, neither on
  /// it nor off it, until the vehicle joins it.
  case joining
  /// Departed, and the vehicle is on the route: matched fix by fix.
  case onRoute
  /// Departed, and the vehicle left the route: searched for where it may rejoin.
  case offRoute
  /// The destination is reached: nothing more happens.
  case arrived

  /// Whether the departure was made (guidance is under way or over).
  public var departed: Bool {
    switch self {
    case .acquiring: false
    case .joining, .onRoute, .offRoute, .arrived: true
    }
  }
}

/// Which announcements of one step were already made.
///
/// Saved in the progress file, one number per step: the raw values are an on-disk format and
/// never change meaning. A new flag takes a new bit; ``passed`` (every bit) marks a step that is
/// behind the vehicle, as every version so far has written it.
public struct AnnouncementFlags: OptionSet, Sendable, Hashable, ExpressibleByIntegerLiteral {
  public let rawValue: UInt8

  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public init(integerLiteral value: UInt8) { self.rawValue = value }

  /// Bit 0 (1): the early "prepare" announcement was made, or skipped for good.
  public static let prepare = AnnouncementFlags(rawValue: 1)
  /// Bit 1 (2): the "approach" announcement.
  public static let approach = AnnouncementFlags(rawValue: 2)
  /// Bit 2 (4): the final "now" announcement.
  public static let now = AnnouncementFlags(rawValue: 4)
  /// Bit 3 (8): what belongs to the start of the step (mode change, notice, "continue for …").
  public static let stepStarted = AnnouncementFlags(rawValue: 8)
  /// Bit 4 (16): the maneuver was said as the "then" part of the previous step's announcement.
  public static let merged = AnnouncementFlags(rawValue: 16)
  /// Bit 5 (32): that "then" part was in the previous step's final announcement.
  public static let mergedFinal = AnnouncementFlags(rawValue: 32)
  /// 255: the step is behind the vehicle; nothing more is said for it.
  public static let passed = AnnouncementFlags(rawValue: 0xFF)
}
