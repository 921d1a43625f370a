import Geodesy
public import GuidanceSettings

/// Where the route lies, seen from a vehicle off it.
public enum ReturnDirection: Sendable, Hashable {
  /// Relative to the vehicle's course, when the course can be trusted: within 45° of it.
  case ahead
  /// More than 135° from the course.
  case behind
  case left
  case right
  /// Without a trusted course (standing, creeping): the compass point towards the route.
  case compass(CompassPoint)

  /// The direction of a point at `bearing` (degrees from true north) from a vehicle heading
  /// `course` (or with no trusted course).
  public init(bearing: Double, course: Double?) {
    guard let course, course.isFinite, bearing.isFinite else {
      self = .compass(CompassPoint(bearing: bearing))
      return
    }
    var relative = (bearing - course).truncatingRemainder(dividingBy: 360)
    if relative > 180 { relative -= 360 } else if relative <= -180 { relative += 360 }
    switch abs(relative) {
    case ...ReturnConfiguration.aheadDegrees: self = .ahead
    case ReturnConfiguration.behindDegrees...: self = .behind
    default: self = relative > 0 ? .right : .left
    }
  }
}

/// One of the eight points of the compass.
public enum CompassPoint: String, Sendable, Hashable, CaseIterable {
  case north, northEast, east, southEast, south, southWest, west, northWest

  /// The point nearest to `bearing` (degrees clockwise from true north).
  public init(bearing: Double) {
    let b = bearing.isFinite ? normalizedBearing(bearing) : 0
    let index = Int(((b + 22.5) / 45).rounded(.down)) % 8
    self = Self.allCases[index]
  }
}

/// When and what to say to bring a vehicle that left its route back to it: where the route is
/// (distance and side, or compass point, to its nearest point ahead of where the vehicle left
/// it), and "turn around when possible" once the vehicle is moving away from it.
///
/// Pure and deterministic: fed one observation per fix off the route, asked when an announcement is
/// due. The first announcement is due at once, repetitions with growing spacing, a bounded number
/// of them.
public struct ReturnGuide: Sendable, Equatable {
  /// What one fix off the route shows.
  public struct Observation: Sendable, Equatable {
    /// Fix time, seconds since the Unix epoch.
    public var time: Double
    /// Metres from the vehicle to the nearest point of the route ahead.
    public var distance: Double
    /// Bearing from the vehicle to that point, degrees from true north.
    public var bearing: Double
    /// The vehicle's course when trusted (moving), else `nil`.
    public var course: Double?

    public init(time: Double, distance: Double, bearing: Double, course: Double?) {
      self.time = time
      self.distance = distance
      self.bearing = bearing
      self.course = course
    }
  }

  public let configuration: ReturnConfiguration
  /// Time of the first observation since leaving the route.
  public private(set) var since: Double?
  /// The latest observation.
  public private(set) var latest: Observation?
  /// `return` announcements made since leaving the route.
  public private(set) var announcements = 0
  private var lastAnnouncement: Double?
  private var nextDue: Double?
  /// Fixes in a row with the route behind, and the distance at the first of them.
  private var awayStreak = 0
  private var awayStart = 0.0
  /// The vehicle is moving away from the route and has not been told to turn around for it.
  private var turnAroundPending = false

  public init(configuration: ReturnConfiguration = ReturnConfiguration()) {
    self.configuration = configuration
  }

  /// Everything that shapes the next `return` announcements, for a restart that must say what an
  /// uninterrupted drive says (saved with the session's progress).
  public struct Progress: Sendable, Equatable {
    public var since: Double?
    public var latest: Observation?
    public var announcements: Int
    public var lastAnnouncement: Double?
    public var nextDue: Double?
    public var awayStreak: Int
    public var awayStart: Double
    public var turnAroundPending: Bool

    public init(
      since: Double?, latest: Observation?, announcements: Int, lastAnnouncement: Double?,
      nextDue: Double?,
      awayStreak: Int, awayStart: Double, turnAroundPending: Bool
    ) {
      self.since = since
      self.latest = latest
      self.announcements = announcements
      self.lastAnnouncement = lastAnnouncement
      self.nextDue = nextDue
      self.awayStreak = awayStreak
      self.awayStart = awayStart
      self.turnAroundPending = turnAroundPending
    }
  }

  /// The state to save.
  public var progress: Progress {
    Progress(
      since: since, latest: latest, announcements: announcements,
      lastAnnouncement: lastAnnouncement,
      nextDue: nextDue,
      awayStreak: awayStreak, awayStart: awayStart, turnAroundPending: turnAroundPending)
  }

  /// A guide that goes on from saved `progress`.
  public init(configuration: ReturnConfiguration = ReturnConfiguration(), progress: Progress) {
    self.configuration = configuration
    since = progress.since
    latest = progress.latest
    announcements = max(0, progress.announcements)
    lastAnnouncement = progress.lastAnnouncement
    nextDue = progress.nextDue
    awayStreak = max(0, progress.awayStreak)
    awayStart = progress.awayStart.isFinite ? progress.awayStart : 0
    turnAroundPending = progress.turnAroundPending
  }

  /// Whether the vehicle is moving away from the route (see ``ReturnConfiguration/awayFixes``).
  public var movingAway: Bool { awayStreak >= configuration.awayFixes && grown }

  private var grown: Bool {
    (latest?.distance ?? 0) - awayStart >= configuration.awayGrowth
  }

  /// Takes one fix off the route.
  public mutating func observe(_ o: Observation) {
    guard o.time.isFinite, o.distance.isFinite else { return }
    if since == nil { since = o.time }
    let wasAway = movingAway
    latest = o
    if case .behind = ReturnDirection(bearing: o.bearing, course: o.course) {
      if awayStreak == 0 { awayStart = o.distance }
      awayStreak += 1
    } else {
      awayStreak = 0
      turnAroundPending = false
    }
    if movingAway && !wasAway { turnAroundPending = true }
  }

  /// A return announcement: metres to the route, which way it lies, whether to turn round.
  public struct Prompt: Sendable, Equatable {
    public var distance: Double
    public var direction: ReturnDirection
    public var turnAround: Bool

    public init(distance: Double, direction: ReturnDirection, turnAround: Bool) {
      self.distance = distance
      self.direction = direction
      self.turnAround = turnAround
    }
  }

  /// What to say now, at the latest observation, if an announcement is due; marks it said.
  public mutating func due() -> Prompt? {
    guard let o = latest, announcements < configuration.announcementLimit,
      o.distance >= configuration.quietWithin
    else { return nil }
    if let last = lastAnnouncement, o.time - last < configuration.minimumGap { return nil }
    let turnAround = turnAroundPending || movingAway
    guard turnAroundPending || nextDue.map({ o.time >= $0 }) ?? true else { return nil }
    turnAroundPending = false
    announcements += 1
    lastAnnouncement = o.time
    nextDue = o.time + spacing(after: announcements)
    return Prompt(
      distance: o.distance,
      direction: turnAround ? .behind : ReturnDirection(bearing: o.bearing, course: o.course),
      turnAround: turnAround)
  }

  /// Seconds from the `n`-th announcement to the next one.
  private func spacing(after n: Int) -> Double {
    var s = configuration.firstSpacing
    for _ in 1..<max(1, n) { s *= 2 }
    return min(s, configuration.longestSpacing)
  }
}
