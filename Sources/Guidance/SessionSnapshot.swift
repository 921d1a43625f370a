public import Geodesy
import GuidanceSettings
public import Returning

/// What a restarted daemon needs to continue where this session was, without announcing
/// again what was already announced.
public struct SessionSnapshot: Sendable, Equatable {
  public var routeIndex: Int
  /// Metres along the route.
  public var distanceAlong: Double
  public var currentStep: Int
  /// Per step, which announcements were already made.
  public var said: [AnnouncementFlags]
  /// On the route, off it or arrived (a snapshot exists only once departed).
  public var phase: GuidancePhase
  public var offRoute: Bool { phase == .offRoute }
  public var arrived: Bool { phase == .arrived }
  /// Time of the last valid fix, seconds since the Unix epoch.
  public var lastFixTime: Double?
  /// Speed at the last valid fix, metres per second.
  public var speed: Double
  /// The recent speed, and the speed held that times the early prompts (``speed`` when not
  /// saved).
  public var recentSpeed: Double?
  public var leadSpeed: Double?
  /// Time (seconds since the Unix epoch) and step of the last maneuver announcement: an early
  /// announcement right after it is not made, across a restart too.
  public var lastAnnouncementTime: Double?
  public var lastAnnouncementStep: Int?
  /// Whether the GPS was lost (its loss already announced), and the losses and departures
  /// from the route so far, which number the `gps` and `offroute` announcement ids.
  public var gpsLost: Bool
  public var gpsLossCount: Int
  public var offRouteCount: Int
  /// Time of the last input handled, a fix or not, seconds since the Unix epoch: a resumed
  /// session skips inputs up to it (they were handled before the restart).
  public var lastInputTime: Double?
  /// Time of the last fix that moved the matched position, and the maneuvers passed by dead
  /// reckoning since: a restart inside a tunnel keeps timing the announcements ahead.
  public var lastMatchTime: Double?
  public var reckonedSteps: Int
  /// Off the route: what of the guidance back to it was said (`nil` on the route).
  public var returning: ReturnGuide.Progress?
  /// Without fixes: the heads-ups of a slow vehicle (`nil` when none are under way), and the
  /// last maneuver heads-ups named, whose final prompt is not said too late.
  public var headsUp: HeadsUpProgress?
  public var headsUpThrough = 0
  /// The highest and lowest speed of each of the last seconds of fixes: what a vehicle that
  /// loses its fixes is taken to drive on at.
  public var speeds: [SpeedSecond] = []
  /// When the last maneuver was passed (seconds since the Unix epoch): a vehicle that lost its
  /// fixes soon after one slowed for it, and is taken to speed up again.
  public var stepTime: Double?

  public init(
    routeIndex: Int, distanceAlong: Double, currentStep: Int, said: [AnnouncementFlags],
    phase: GuidancePhase, lastFixTime: Double?, speed: Double,
    lastAnnouncementTime: Double? = nil,
    lastAnnouncementStep: Int? = nil, gpsLost: Bool = false, gpsLossCount: Int = 0,
    offRouteCount: Int = 0, lastInputTime: Double? = nil, lastMatchTime: Double? = nil,
    reckonedSteps: Int = 0, returning: ReturnGuide.Progress? = nil, recentSpeed: Double? = nil,
    leadSpeed: Double? = nil, headsUp: HeadsUpProgress? = nil, headsUpThrough: Int = 0,
    speeds: [SpeedSecond] = [], stepTime: Double? = nil
  ) {
    self.speeds = speeds
    self.stepTime = stepTime
    self.headsUp = headsUp
    self.headsUpThrough = headsUpThrough
    self.returning = returning
    self.recentSpeed = recentSpeed
    self.leadSpeed = leadSpeed
    self.routeIndex = routeIndex
    self.distanceAlong = distanceAlong
    self.currentStep = currentStep
    self.said = said
    self.phase = phase
    self.lastFixTime = lastFixTime
    self.speed = speed
    self.lastAnnouncementTime = lastAnnouncementTime
    self.lastAnnouncementStep = lastAnnouncementStep
    self.gpsLost = gpsLost
    self.gpsLossCount = gpsLossCount
    self.offRouteCount = offRouteCount
    self.lastInputTime = lastInputTime
    self.lastMatchTime = lastMatchTime
    self.reckonedSteps = reckonedSteps
  }

  /// A snapshot in the terms of the first progress format: arrived wins over off route, and
  /// neither means on the route.
  public init(
    routeIndex: Int, distanceAlong: Double, currentStep: Int, said: [AnnouncementFlags],
    offRoute: Bool, arrived: Bool, lastFixTime: Double?, speed: Double,
    lastAnnouncementTime: Double? = nil, lastAnnouncementStep: Int? = nil, gpsLost: Bool = false,
    gpsLossCount: Int = 0, offRouteCount: Int = 0, lastInputTime: Double? = nil,
    lastMatchTime: Double? = nil, reckonedSteps: Int = 0
  ) {
    self.init(
      routeIndex: routeIndex, distanceAlong: distanceAlong, currentStep: currentStep,
      said: said, phase: arrived ? .arrived : offRoute ? .offRoute : .onRoute,
      lastFixTime: lastFixTime, speed: speed, lastAnnouncementTime: lastAnnouncementTime,
      lastAnnouncementStep: lastAnnouncementStep, gpsLost: gpsLost, gpsLossCount: gpsLossCount,
      offRouteCount: offRouteCount, lastInputTime: lastInputTime,
      lastMatchTime: lastMatchTime, reckonedSteps: reckonedSteps)
  }
}

extension SessionState {
  /// The state a session resumed from `snapshot` starts in: its saved phase (or on the route),
  /// not matched since (``OnRoute/reacquiring``), off it searching from the saved position.
  init(resuming snapshot: SessionSnapshot, returning: ReturnConfiguration) {
    switch snapshot.phase {
    case .joining: self = .joining(reacquiring: true)
    case .offRoute:
      let guide =
        snapshot.returning.map { ReturnGuide(configuration: returning, progress: $0) }
        ?? ReturnGuide(configuration: returning)
      self = .offRoute(
        Box(.init(anchor: snapshot.distanceAlong, travel: 0, guide: guide, reacquiring: true)))
    case .arrived: self = .arrived
    case .acquiring, .onRoute: self = .onRoute(.init(reacquiring: true))
    }
  }
}

/// The heads-ups of a slow vehicle without fixes, as saved (README, "Heads-ups"): where it may
/// have got since its last match, what they said, and when the next falls due.
public struct HeadsUpProgress: Sendable, Equatable {
  /// The last match (seconds since the Unix epoch, metres along), the speed there and the speed
  /// the vehicle may drive at (m/s).
  public var since: Double
  public var along: Double
  public var speed: Double
  public var cruise: Double
  /// The step it was in, the last maneuver named (0: none), how many no prompt named before.
  public var step: Int
  public var through: Int
  public var named: Int
  /// Whether the next is the recap due as the fixes were lost.
  public var recap: Bool
  /// When the next falls due (`nil`: none will).
  public var next: Double?

  public init(
    since: Double, along: Double, speed: Double, cruise: Double, step: Int, through: Int,
    named: Int, recap: Bool, next: Double?
  ) {
    self.since = since
    self.along = along
    self.speed = speed
    self.cruise = cruise
    self.step = step
    self.through = through
    self.named = named
    self.recap = recap
    self.next = next
  }
}
