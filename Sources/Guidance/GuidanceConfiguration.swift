public import Routes

/// Tunable thresholds of the guidance engine. The defaults are the product's behaviour; tests
/// and the scenario lab may change them.
public struct GuidanceConfiguration: Sendable, Equatable {
  /// Lateral distance from the route, in metres, beyond which a fix counts as off-route evidence
  /// (the larger of this and `offRouteAccuracyFactor` × the fix's accuracy).
  public var offRouteMinimumDistance = 25.0
  /// The same within 40 m of a maneuver point, where a wrong turn must be caught quickly.
  public var offRouteNearManeuverDistance = 15.0
  /// Multiplier of the fix's 68 % accuracy for the off-route distance.
  public var offRouteAccuracyFactor = 2.5
  /// Consecutive off-route fixes needed to declare "off route".
  public var offRouteFixes = 3
  /// Seconds of consecutive off-route evidence needed too.
  public var offRouteSeconds = 2.0
  /// Fraction of the off-route distance under which a fix counts towards "back on route".
  public var onRouteHysteresis = 0.5
  /// Consecutive good fixes needed to be back on route.
  public var onRouteFixes = 2
  /// Consecutive fixes moving against the route (course more than 120° off) needed to declare
  /// "off route" while close to the line: the vehicle turned around.
  public var wrongWayFixes = 5
  /// Minimum seconds between two spoken off-route warnings (the event is still sent).
  public var offRouteAnnouncementInterval = 30.0
  /// Seconds without a valid fix after which the GPS counts as lost.
  public var gpsLostAfter = 5.0
  /// Speed in m/s above which the course over ground is trusted for matching.
  public var trustCourseAbove = 2.5
  /// Speed in m/s below which the vehicle counts as standing.
  public var standingBelow = 0.8
  /// Accuracy (68 %, metres) assumed when a fix carries neither an error estimate nor HDOP.
  public var defaultAccuracy = 8.0
  /// Metres of accuracy per unit of HDOP when only HDOP is known (user range error, 68 %).
  public var hdopToMetres = 4.0
  /// Two maneuvers closer than this many seconds (at the current speed) are said together.
  public var thenMergeSeconds = 12.0
  /// Seconds of reaction time before the maneuver that the final prompt must leave, on top of
  /// the time it takes to say it.
  public var nowLeadSeconds = 3.5
  /// Seconds before the maneuver of the "approach" prompt.
  public var approachLeadSeconds = 20.0
  /// Seconds before the maneuver of the early "prepare" prompt.
  public var prepareLeadSeconds = 60.0
  /// A prompt tier is skipped when the next tier would follow within this many seconds.
  public var minimumGapSeconds = 6.0

  public init() {}

  /// Per-mode distance limits of the prompt tiers, in metres, and the slowest speed assumed.
  public struct ModeLimits: Sendable, Equatable {
    /// Speed floor in m/s used for timing, so a standing vehicle still gets its prompts.
    public var minimumSpeed: Double
    public var prepareMinimum: Double
    public var prepareMaximum: Double
    public var approachMinimum: Double
    public var approachMaximum: Double
    public var nowMinimum: Double
    /// Radius around the destination within which arrival is declared, metres.
    public var arrivalRadius: Double
    /// Steps longer than this (metres) get a "continue for …" prompt when they start.
    public var continueMinimum: Double
  }

  /// Limits per transport type: walking and cycling need much shorter leads than driving.
  public func limits(for mode: TransportType) -> ModeLimits {
    switch mode {
    case .automobile, .transit:
      ModeLimits(
        minimumSpeed: 6, prepareMinimum: 400, prepareMaximum: 2000, approachMinimum: 120,
        approachMaximum: 800, nowMinimum: 25, arrivalRadius: 15, continueMinimum: 2000)
    case .cycling:
      ModeLimits(
        minimumSpeed: 3, prepareMinimum: 150, prepareMaximum: 500, approachMinimum: 50,
        approachMaximum: 200, nowMinimum: 12, arrivalRadius: 12, continueMinimum: 1000)
    case .walking:
      ModeLimits(
        minimumSpeed: 1.2, prepareMinimum: 100, prepareMaximum: 250, approachMinimum: 30,
        approachMaximum: 80, nowMinimum: 8, arrivalRadius: 10, continueMinimum: 500)
    }
  }
}
