import Geodesy
import Guidance
public import Wire

/// The announcements `stepwise speak` still has to say, and the rules that drop those that went
/// stale while an earlier one was being spoken.
///
/// An announcement is dropped, when its turn comes, if
/// 1. its maneuver was passed: a `prepare`, `approach`, `now`, `continue`, `notice` or `mode`
///    announcement for step `s` once the step being travelled (from `STEP` and `PROGRESS`) is past
///    `s`; `depart` once past step 1;
/// 2. a newer maneuver announcement for the same step came ("in 300 m" replaces "in 800 m"), or a
///    newer `return` announcement (where the route is now);
/// 3. the vehicle is much closer than it says: less than half its `distance`, and more than
///    50 m closer, by the latest `PROGRESS` for that step;
/// 4. the situation it reports is over: `offroute` and `return` once back on the route,
///    `onroute` once off it again, a GPS loss once the GPS is back and the other way round;
/// 5. it is older than ``maximumAge`` seconds of fix time (a long backlog);
/// 6. guidance changed: a `ROUTE` (new route or alternative) or `CANCELLED` drops everything
///    queued.
///
/// `arrive` and `waypoint` announcements report what just happened and are only dropped by rules 5
/// and 6.
public struct AnnouncementQueue: Sendable {
  /// An announcement waiting to be said.
  public struct Entry: Sendable, Equatable {
    public var step: Int
    public var kind: String
    public var text: String
    public var distance: Double?
    public var id: String
    /// Fix time, seconds since 1970.
    public var time: Double?
  }

  /// Fix-time seconds after which an announcement is not said any more.
  public var maximumAge = 30.0
  private(set) var waiting: [Entry] = []
  /// The step being travelled.
  public private(set) var step: Int?
  private var distanceToManeuver: (step: Int, metres: Double)?
  private var onRoute = true
  private var gpsLost = false
  private var latestTime: Double?

  public init() {}

  /// Number of announcements waiting.
  public var count: Int { waiting.count }

  /// Folds a `STATE` object in (the situation when the client joined; nothing is queued).
  public mutating func start(from state: GuidanceState) {
    step = state.step
    onRoute = state.onRoute ?? true
    gpsLost = state.gps == .lost
    if let p = state.progress?.value { distanceToManeuver = (p.step, p.distanceToManeuver) }
    latestTime = state.time
  }

  /// Folds one event in: an `ANNOUNCE` is queued, anything else updates the situation.
  ///
  /// - Returns: the announcements dropped at once because the event ended guidance.
  @discardableResult
  public mutating func observe(_ event: Event) -> [Entry] {
    if let time = event.time { latestTime = max(latestTime ?? time, time) }
    switch event {
    case .navigation(let e):
      switch e.kind {
      case .announce(let a):
        guard !a.text.isEmpty else { return [] }
        waiting.append(
          Entry(
            step: a.step, kind: a.kind.rawValue, text: a.text, distance: a.distance, id: a.id,
            time: e.time))
      case .step(let s):
        step = s
      case .progress(let p, _):
        step = p.step
        distanceToManeuver = (p.step, p.distanceToManeuver)
        onRoute = p.onRoute
        gpsLost = false
      case .offRoute:
        onRoute = false
      case .onRoute:
        onRoute = true
      case .gps(let status):
        gpsLost = status == .lost
      case .route:
        return endGuidance()
      case .arrived:
        break
      }
    case .cancelled:
      return endGuidance()
    case .source, .rerouting:
      break
    }
    return []
  }

  /// Drops what is waiting: guidance ended or changed route.
  private mutating func endGuidance() -> [Entry] {
    let dropped = waiting
    waiting.removeAll()
    step = nil
    distanceToManeuver = nil
    onRoute = true
    gpsLost = false
    return dropped
  }

  /// Takes the next announcement worth saying.
  ///
  /// - Returns: the announcement (or `nil` when none is left) and those dropped on the way, each
  ///   with the reason.
  public mutating func next() -> (entry: Entry?, dropped: [(Entry, String)]) {
    var dropped: [(Entry, String)] = []
    while !waiting.isEmpty {
      let p = waiting.removeFirst()
      if let reason = staleness(p) {
        dropped.append((p, reason))
        continue
      }
      return (p, dropped)
    }
    return (nil, dropped)
  }

  static let maneuverKinds: Set<String> = ["prepare", "approach", "now"]
  static let stepKinds: Set<String> = ["prepare", "approach", "now", "continue", "notice", "mode"]

  /// Why `p` should not be said any more, or `nil` when it is still good.
  func staleness(_ p: Entry) -> String? {
    if let step {
      if Self.stepKinds.contains(p.kind) && step > p.step { return "step \(p.step) was passed" }
      if p.kind == "depart" && step > 1 { return "already on the way" }
    }
    if Self.maneuverKinds.contains(p.kind),
      waiting.contains(where: { $0.step == p.step && Self.maneuverKinds.contains($0.kind) })
    {
      return "a newer announcement for step \(p.step) follows"
    }
    if let said = p.distance, let now = distanceToManeuver, now.step == p.step,
      now.metres < said / 2, said - now.metres > 50
    {
      return "only \(Int(now.metres.rounded())) m are left"
    }
    switch p.kind {
    case "offroute" where onRoute: return "back on the route"
    case "return" where onRoute: return "back on the route"
    case "return" where waiting.contains(where: { $0.kind == "return" }):
      return "a newer direction to the route follows"
    case "onroute" where !onRoute: return "off the route again"
    case "gps" where p.id.hasSuffix(".lost") && !gpsLost: return "the GPS is back"
    case "gps" where p.id.hasSuffix(".acquired") && gpsLost: return "the GPS was lost again"
    default: break
    }
    if let t = p.time, let latest = latestTime, latest - t > maximumAge {
      return "more than \(Int(maximumAge)) s old"
    }
    return nil
  }
}
