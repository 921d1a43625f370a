import Geodesy
public import Guidance

/// The `class` of every event of the stream (`docs/events.md`): the one place their names are
/// written.
public enum EventClass: String, Sendable, Hashable, CaseIterable {
  case route = "ROUTE"
  case announce = "ANNOUNCE"
  case step = "STEP"
  case progress = "PROGRESS"
  case offRoute = "OFFROUTE"
  case onRoute = "ONROUTE"
  case arrived = "ARRIVED"
  case gps = "GPS"
  case source = "SOURCE"
  case reroute = "REROUTE"
  case cancelled = "CANCELLED"

  /// The classes a `watch` command may name, in documentation order (`REROUTE` is sent to every
  /// watcher and cannot be chosen).
  public static let watchable: [EventClass] = allCases.filter { $0 != .reroute }
}

/// One event of the stream: what the engine publishes, what standard output, the socket and the
/// fleet uplink carry, and what a client reads back.
///
/// It is encoded by one writer (``EventLine``, `EventLineWriter`) and decoded by one reader
/// (``init(object:)``), and folded into the `STATE` by one function (``GuidanceState/apply(_:seq:)``).
/// Adding a class is a case here, its members in the writer and the reader, and a test.
public enum Event: Sendable, Equatable {
  case navigation(NavigationEvent)
  case source(SourceEvent)
  /// Where rerouting stands changed (`REROUTE`). Standard output does not print it: guidance
  /// on standard output is the same with a router that is down as without one.
  case rerouting(ReroutingEvent)
  /// Guidance was stopped (`CANCELLED`); `time` is the last event's. Standard output does not
  /// print it: it is an answer to a subscriber's command, not something guidance did.
  case cancelled(time: Double?)

  /// The event's class.
  public var eventClass: EventClass {
    switch self {
    case .source: .source
    case .rerouting: .reroute
    case .cancelled: .cancelled
    case .navigation(let e):
      switch e.kind {
      case .route: .route
      case .announce: .announce
      case .step: .step
      case .progress: .progress
      case .offRoute: .offRoute
      case .onRoute: .onRoute
      case .arrived: .arrived
      case .gps: .gps
      }
    }
  }

  /// The event's `class` member.
  public var className: String { eventClass.rawValue }

  /// Seconds since the Unix epoch; `nil` only for a `CANCELLED` before any event.
  public var time: Double? {
    switch self {
    case .navigation(let e): e.time
    case .source(let s): s.time
    case .rerouting(let r): r.time
    case .cancelled(let t): t
    }
  }

  /// Whether standard output prints it (`REROUTE` and `CANCELLED` are for subscribers only).
  public var printed: Bool {
    switch self {
    case .navigation, .source: true
    case .rerouting, .cancelled: false
    }
  }
}

/// A change of the fix source's state (the `SOURCE` event): a live gpsd connection delivering
/// reports, or lost.
///
/// Replays of files have no `SOURCE` events.
public struct SourceEvent: Sendable, Equatable {
  public enum Status: String, Sendable, Hashable {
    case connected, disconnected
  }

  /// Seconds since the Unix epoch on the fix clock (the last fix time plus the time elapsed
  /// since it), or the system's UTC clock before the first fix.
  public var time: Double
  public var status: Status
  /// Where the fixes come from, such as `gpsd://127.0.0.1:2947`.
  public var source: String
  /// Why the connection ended, such as `end of stream`, when it did.
  public var reason: String?

  public init(time: Double, status: Status, source: String, reason: String? = nil) {
    self.time = time
    self.status = status
    self.source = source
    self.reason = reason
  }
}

/// A change of where rerouting stands (the `REROUTE` event, `stepwised --router` only).
public struct ReroutingEvent: Sendable, Equatable {
  public enum Status: String, Sendable, Hashable, CaseIterable {
    /// Nothing under way.
    case idle
    /// A request is out, or a new route waits for the deviation to be confirmed.
    case rerouting
    /// The router did not answer (down, draining, timed out).
    case noRouter
    /// The router found no road near the vehicle.
    case offNetwork
  }

  /// Fix time, seconds since the Unix epoch.
  public var time: Double
  public var status: Status

  public init(time: Double, status: Status) {
    self.time = time
    self.status = status
  }
}

extension Event {
  /// One readable line for people watching standard output.
  public var readableLine: String {
    let clock = time.map { String(UTCTime.iso8601($0).dropFirst(11).prefix(8)) } ?? "--:--:--"
    switch self {
    case .navigation(let event):
      switch event.kind {
      case .route(let r):
        return "\(clock) ROUTE     \(r.name): \(r.source) → \(r.destination), "
          + "\(Int(r.distance.rounded())) m, \(Int(r.expectedTravelTime.rounded())) s, "
          + "\(r.steps) steps\(r.hasTolls ? ", tolls" : "")"
      case .announce(let a):
        let pad = a.kind.rawValue.padding(8)
        return "\(clock) ANNOUNCE  [step \(a.step) \(pad)] \(a.text)"
      case .step(let s):
        return "\(clock) STEP      \(s)"
      case .progress(let p, _):
        return
          "\(clock) PROGRESS  step \(p.step), \(Int(p.distanceToManeuver.rounded())) m to maneuver, "
          + "\(Int(p.distanceRemaining.rounded())) m to go\(p.onRoute ? "" : " (off route)")"
      case .offRoute(let d, let reason):
        return "\(clock) OFFROUTE  \(Int(d.rounded())) m from the route"
          + (reason == .wrongWay ? ", the wrong way" : "")
      case .onRoute:
        return "\(clock) ONROUTE"
      case .arrived(let d):
        return "\(clock) ARRIVED   \(Int(d.rounded())) m from the end of the route"
      case .gps(let s):
        return "\(clock) GPS       \(s.rawValue)"
      }
    case .source(let s):
      let why = s.reason.map { " (\($0))" } ?? ""
      return "\(clock) SOURCE    \(s.status.rawValue) \(s.source)\(why)"
    case .rerouting(let r):
      return "\(clock) REROUTE   \(r.status.rawValue)"
    case .cancelled:
      return "\(clock) CANCELLED"
    }
  }
}

extension String {
  fileprivate func padding(_ n: Int) -> String {
    count >= n ? self : self + String(repeating: " ", count: n - count)
  }
}
