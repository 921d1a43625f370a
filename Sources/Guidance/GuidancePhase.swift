import Returning

/// Where a guidance session stands: the tag of the session's ``SessionState``, as saved in the
/// progress file and shown to the edge.
///
/// One value at a time, so no combination of flags can say two contradictory things.
///
/// Whether the GPS is lost is not a phase: a fix can go missing in any of them, and coming back
/// returns to the same phase. Rerouting is not a phase of the session either: when to ask and
/// whether to use an answer is ``RerouteController``'s (target Rerouting), which keeps its own
/// status; the session only learns that its route was replaced.
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

/// The session's phase with the data valid only in it: how guidance begins before the first
/// fix, the evidence of an arrival on the route, the search for the route off it.
///
/// What every phase needs (the matched position, the fixes' timing, the announcements made) is
/// the session's own.
enum SessionState: Sendable {
  case acquiring(Start)
  /// Heading to the route from beside it; `reacquiring` as in ``OnRoute``.
  case joining(reacquiring: Bool)
  case onRoute(OnRoute)
  /// Off the route, the data in a box (``modifyOffRoute(_:)``): the state stays a few bytes,
  /// which the questions asked of the phase on every fix copy.
  case offRoute(Box<OffRoute>)
  case arrived

  /// A payload held out of line: shared by copies of a session, never changed while shared.
  final class Box<Value: Sendable>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  /// How the first match begins guidance.
  enum Start: Sendable {
    /// A new trip: the departure is announced.
    case departure
    /// A route that replaced another while driving: no departure, and a "new route"
    /// announcement when `announced`.
    case newRoute(announced: Bool)
  }

  struct OnRoute: Sendable {
    /// When the fixes began to stay within the arrival radius (`nil`: the last is not).
    var arrivalSince: Double?
    /// Resumed from a snapshot and not matched since: the first fix may be far ahead of the
    /// saved position.
    var reacquiring = false
  }

  struct OffRoute: Sendable {
    /// Metres along the route where the vehicle left it: the rejoin search starts there.
    var anchor: Double
    /// Metres the vehicle may have travelled since leaving (bounds the rejoin search).
    var travel: Double
    /// Leads the vehicle back to the route (`return` announcements).
    var guide: ReturnGuide
    var reacquiring = false
  }

  var phase: GuidancePhase {
    switch self {
    case .acquiring: .acquiring
    case .joining: .joining
    case .onRoute: .onRoute
    case .offRoute: .offRoute
    case .arrived: .arrived
    }
  }

  /// Resumed and not matched on the route since (``OnRoute/reacquiring``).
  var reacquiring: Bool {
    switch self {
    case .joining(let r): r
    case .onRoute(let o): o.reacquiring
    case .offRoute(let o): o.value.reacquiring
    case .acquiring, .arrived: false
    }
  }

  /// Runs `body` on the off-route data in place (`nil` when not off the route): the box is
  /// copied first only when another session shares it.
  mutating func modifyOffRoute<R>(_ body: (inout OffRoute) -> R) -> R? {
    guard case .offRoute(var box) = self else { return nil }
    self = .arrived  // a placeholder, so that `box` is its only reference
    if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
    defer { self = .offRoute(box) }
    return body(&box.value)
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
  /// Bit 6 (64): prompts an estimate made too early were taken back (the fixes came back far
  /// behind it); said again, their ids name the GPS loss.
  public static let reopened = AnnouncementFlags(rawValue: 64)
  /// Bit 7 (128): an approach or final prompt that names the maneuver was said: its own, or the
  /// previous one's with it as its "then" (not only skipped, nor only its early prompt).
  public static let spoken = AnnouncementFlags(rawValue: 128)
  /// 255: the step is behind the vehicle; nothing more is said for it.
  public static let passed = AnnouncementFlags(rawValue: 0xFF)
}
