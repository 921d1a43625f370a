public import Routes

/// Tunable thresholds of the guidance engine.
///
/// The defaults are the product's behaviour; tests and the scenario lab may change them.
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
  /// Two maneuvers closer than this many seconds (at the current speed), or than
  /// `thenMergeNowMinimums` final-announcement distances of the mode, are said together.
  public var thenMergeSeconds = 12.0
  public var thenMergeNowMinimums = 2.0
  /// Seconds of reaction time before the maneuver that the final announcement must leave, on top of
  /// the time it takes to say it.
  public var nowLeadSeconds = 3.5
  /// The shortest lead a final announcement may have, seconds: one to hear its end, two to act.
  ///
  /// A maneuver said in the previous one's final announcement and closer than this gets no
  /// announcement of its own.
  public var finalLeadSeconds = 3.0
  /// Seconds before the maneuver of the "approach" announcement.
  public var approachLeadSeconds = 20.0
  /// Seconds before the maneuver of the early "prepare" announcement.
  public var prepareLeadSeconds = 60.0
  /// An announcement tier is skipped when the next tier would follow within this many seconds.
  public var minimumGapSeconds = 6.0

  // Matching: the window of the route searched for each fix, and the weights of the match.

  /// Metres behind the last match searched on the route (plus `windowAccuracyBehind` × the
  /// accuracy): a noisy fix can fall a little behind a vehicle that only moves forwards.
  public var windowBehind = 15.0
  public var windowAccuracyBehind = 2.0
  /// The window reaches `windowAheadFactor` × the distance the vehicle can have covered since the
  /// last fix (at least 2 m/s, at least a second), plus `windowAheadMargin` metres and
  /// `windowAccuracyAhead` × the accuracy: an accelerating vehicle must stay inside it.
  public var windowAheadFactor = 1.5
  public var windowAheadMargin = 20.0
  public var windowAccuracyAhead = 3.0
  /// After a gap, the window also ends where the vehicle can have got at the most.
  ///
  /// That is from the speed it had to the one its first fix back reports (each `gapSpeedMargin`
  /// m/s faster, for a speed's error), speeding up at `gapAcceleration` and braking at
  /// `gapBraking` m/s² at the most (a hard start and hard braking: no car on a road does more),
  /// plus the margins above. A vehicle back creeping 12 s after it braked to 8 m/s for a turn is
  /// not 330 m on, where a loop of the route comes back beside that turn.
  public var gapAcceleration = 4.0
  public var gapBraking = 8.0
  public var gapSpeedMargin = 2.0
  /// Speed (m/s) the search windows assume at least: a creeping or standing vehicle still
  /// moves at walking pace between fixes, as far as the window is concerned.
  public var windowMinimumSpeed = 2.0
  /// Speed (m/s) at least credited to a vehicle off the route for how far it may have gone.
  public var offRouteMinimumSpeed = 1.0
  /// After a restart the vehicle may have driven on meanwhile: the window reaches this far
  /// behind (plus twice the accuracy), and ahead at least motorway speed (40 m/s) times the gap
  /// plus 200 m.
  public var reacquireBehind = 50.0
  public var reacquireSpeed = 40.0
  public var reacquireMargin = 200.0
  /// Smallest lateral standard deviation of a match, metres: road width and map error, which no
  /// receiver accuracy removes.
  public var minimumLateralSigma = 4.0
  /// Along-route standard deviation of the prediction: this many metres, plus the fraction of
  /// the distance covered since the last fix (speed changes), plus the accuracy.
  public var alongSigma = 10.0
  public var alongSigmaTravel = 0.3
  /// Metres from a maneuver point within which the tighter `offRouteNearManeuverDistance`
  /// applies (Mapbox's maneuver zone is 40 m).
  public var maneuverZone = 40.0
  /// Degrees between course and route above which a close fix counts as going the wrong way:
  /// well beyond any course noise at speed, short of a U-turn.
  public var wrongWayDegrees = 120.0
  /// Degrees off the matched segment beyond which a course counts as driving back along the route.
  ///
  /// `WrongWayRule` needs `wrongWayOppositeFixes` such fixes at `wrongWayMinimumSpeed` m/s or
  /// more, over `wrongWayDistance` metres, without a fix along the route between. Below that
  /// speed (walking, creeping, noise) a receiver's course is too rough to tell.
  public var wrongWayOppositeDegrees = 150.0
  public var wrongWayMinimumSpeed = 4.0
  public var wrongWayOppositeFixes = 2
  public var wrongWayDistance = 40.0
  /// Degrees between course and route under which a close fix counts towards "back on
  /// route": a vehicle rejoining drives along the route, not across it.
  public var rejoinHeadingDegrees = 60.0
  /// Off route, the distance the vehicle may have gone along the route since leaving, as
  /// multiples of its speed: `offTravelFactor` when leaving after a gap (time since the last
  /// match), `rejoinTravelFactor` for the search, plus `rejoinMargin` metres and
  /// `windowAccuracyAhead` × the accuracy, at most `rejoinReach` metres; the search starts
  /// `rejoinBehind` metres (plus twice the accuracy) behind where it left.
  public var offTravelFactor = 1.5
  public var rejoinTravelFactor = 1.2
  public var rejoinMargin = 50.0
  public var rejoinReach = 20_000.0
  public var rejoinBehind = 100.0

  /// Metres of the route ahead of the match searched for a vehicle that met it again after
  /// cutting across a part of it (turning round before a U-turn's tip, creeping across a small
  /// loop; ``RouteShortcut``), and the consecutive fixes that must place it there: a car park's
  /// or a block's loop is shorter; a longer part of the route is a road to guide the driver
  /// along, and turning round that long before a U-turn's tip is a wrong way.
  public var shortcutReach = 150.0
  public var shortcutFixes = 2
  /// Below `trustCourseAbove`, the course is the direction in which the fixes moved over the
  /// last `movementDistance` metres, if they did within `movementSeconds` (over 6 m, a
  /// receiver's slowly drifting error turns a course by a few degrees, not the half turn that
  /// tells the way back from the way out).
  ///
  /// Only over a straight stretch: the directions of its two halves differ by at most
  /// `movementStraightness` degrees (a chord across a corner is no course); never for a vehicle
  /// standing.
  public var movementDistance = 6.0
  public var movementSeconds = 10.0
  public var movementStraightness = 30.0
  // Speed, accuracy and timing of the receiver.

  /// Longest gap (seconds) between fixes used for speed and prediction: a longer one is a
  /// restart, not a drive.
  public var longestGap = 900.0
  /// Weight of the newest figure in the speed estimated from positions (without a reported
  /// speed) and in the average fix interval: smooths single bad fixes.
  public var positionSpeedWeight = 0.5
  public var fixIntervalWeight = 0.2
  /// Longest gap (seconds) over which speed is estimated from two positions, and over which
  /// the fix interval is averaged.
  public var speedGapLimit = 5.0
  public var intervalGapLimit = 10.0
  /// The fraction of the held speed within which the early prompts keep being timed at it.
  ///
  /// The early prompts (prepare, approach) are timed at a speed held while the vehicle's stays
  /// within this fraction of it: a prompt a minute ahead falls due at one distance, not wherever
  /// the speed's wobbles put it. A faster vehicle's speed is taken at once; a slower one's from
  /// the recent speed (0: the speed of the moment, as the final prompt always is). Without fixes
  /// the estimate's speed, once a second, takes the fixes' place.
  public var leadSpeedBand = 0.1
  /// Time constant (seconds) of the recent speed, the speed of the last fixes averaged: a
  /// vehicle slowing down hears its early prompts where the speed it came with puts them.
  public var recentSpeedSeconds = 15.0
  /// Smallest accuracy believed from an error estimate, and from HDOP, metres.
  public var minimumReportedAccuracy = 1.0
  public var minimumHDOPAccuracy = 2.0

  /// Smallest accuracy (68 %, metres) believed at all: what consumer receivers achieve in
  /// cities.
  ///
  /// Their own estimates (GST, HDOP) leave out multipath and often claim 2–4 m.
  public var accuracyFloor = 5.0

  // Real receivers: steady courses, canyon bias, corners of coarse geometry, glitches.

  /// A course is steady when every course of the last `steadyCourseSeconds` (at least half
  /// of that span known) lies within `steadyCourseSpread` degrees of it: a vehicle on a road
  /// turns slowly, one pulling out of a car park or standing does not.
  ///
  /// Only a steady course may choose where a first or re-acquired fix lies on the route.
  public var steadyCourseSeconds = 2.0
  public var steadyCourseSpread = 20.0
  /// Largest steady offset from the route (metres) taken for receiver bias rather than for
  /// another road: street-canyon multipath puts fixes 10–40 m beside the road for tens of
  /// seconds.
  public var maximumBias = 45.0
  /// A fix beyond the off-route distance is a deviation when its distance from the route
  /// grew by `deviationGrowth` metres over the last `deviationGrowthSeconds` (a vehicle
  /// leaving at 20° at 36 km/h gains 7 m in 2 s; a canyon bias drifts by a few metres), or
  /// when its course disagrees by more than `deviationHeadingDegrees` with every bearing the
  /// route takes within `chordZone` metres (course noise at speed is under 10°).
  public var deviationGrowth = 6.0
  public var deviationGrowthSeconds = 2.0
  /// The share of that growth the vehicle's own course must explain (its speed times the cosine
  /// of its angle to the way from its match to the fix, over the same seconds) for the growth to
  /// be the vehicle's: a vehicle leaving is carried away by its course, a receiver's bias
  /// drifting is not.
  public var deviationCourseShare = 0.5
  public var deviationHeadingDegrees = 35.0
  /// Metres before and after the match whose bearings a course may follow: a route of
  /// junction points runs as chords, and a vehicle rounding a corner sweeps through every
  /// bearing between the chords on either side, up to 30 m off them.
  public var chordZone = 60.0
  /// Metres off the chords a vehicle rounding a maneuver's corner may be (junction-point
  /// geometry cuts corners by 20–30 m), and the degrees it must have turned the way the route
  /// turns to count as rounding it (course noise at speed is under 10°).
  public var cornerAllowance = 30.0
  public var cornerTurnDegrees = 15.0
  /// A fix farther from the last one than the vehicle can have gone is a glitch, discarded:
  /// speed plus `glitchAcceleration` m/s² of acceleration over the interval, plus the larger
  /// of `glitchMinimum` metres and `glitchAccuracyFactor` × the accuracy (the two fixes'
  /// errors).
  ///
  /// At most `glitchStreak` fixes in a row are discarded: a receiver that stays where it jumped was
  /// wrong before, not now.
  public var glitchAcceleration = 4.0
  public var glitchMinimum = 60.0
  public var glitchAccuracyFactor = 4.0
  public var glitchStreak = 2
  /// How far an echo of the receiver's last fix may stray from where it puts the vehicle.
  ///
  /// A receiver that lost the sky and carries its last fix on in a straight line (a "dead
  /// reckoning timeout": the same speed and course, each position where they take that fix)
  /// tells nothing new, and where the road curves away its positions leave the route: once an
  /// echo's match lies `echoTolerance` metres plus `echoToleranceShare` of its distance from
  /// that fix farther from the route than the fix was, the echoes after it are epochs without a
  /// position (what rounding a course to a whole degree, 0.9 %, and a speed to a hundredth of a knot
  /// leave, and the first seconds into a curve). Only at a trusted speed (`trustCourseAbove`):
  /// a receiver standing repeats itself too.
  ///
  /// A receiver that reports exact motion (a simulator, a test rig, a track drawn along the
  /// route) repeats itself wherever its path is straight, with sky: once its fixes at a trusted
  /// speed have lain within `exactLateral` metres of the route's line for `exactSeconds` on end,
  /// a run of echoes that leaves the route is where the vehicle goes, off the route. Receivers
  /// measuring real vehicles beside a road's drawn line cross it: on the eight real drives of
  /// docs/notebook/outages.md, at most 4 s within 10 cm; the scenarios with noise, 2 s; the
  /// exact sources of the tests, 35 s and more before their departures.
  public var echoTolerance = 1.0
  public var echoToleranceShare = 0.01
  public var exactLateral = 0.1
  public var exactSeconds = 10.0

  // Dead reckoning through a stretch without fixes.

  /// Seconds between estimates of a vehicle without fixes, and how long after its last matched
  /// fix the first comes (at least 1.5 fix intervals: a slow receiver is not a lost one).
  public var reckonStep = 1.0
  public var reckonStart = 2.0
  /// A live engine's silence at time t estimates only up to t minus this many seconds: an
  /// epoch for an earlier time may still be on its way, and a replay would have handled it first.
  public var reckonSettle = 1.0
  /// Seconds after the fixes return in which the position reported never steps back.
  public var reckonSettleWindow = 10.0
  /// Seconds without fixes after which where the vehicle is is a guess.
  ///
  /// The last estimate is held (the position reported waits there for the vehicle) after a
  /// stretch without fixes of up to `reckonHoldOutageSeconds`; after a longer one only when the
  /// vehicle reaches it within `reckonHoldSeconds`, or the fix is reported at once. No heads-up
  /// of a slow vehicle falls due after it either.
  public var reckonHoldOutageSeconds = 120.0
  public var reckonHoldSeconds = 30.0
  /// A prompt an estimate made is said again when due once the fixes come back with the
  /// vehicle over this many times as far from the maneuver as the prompt's lead, and
  /// `reckonRepeatMargin` metres farther: it was said that much too early (a vehicle that slowed
  /// or stood in the dark), and a final prompt minutes before a turn is no prompt.
  public var reckonRepeatFactor = 2.0
  public var reckonRepeatMargin = 50.0
  /// The final prompts of a vehicle without fixes slower than its highest speed of the last
  /// `reckonPeakSeconds` of fixes (braking for a maneuver, slowed by traffic) are timed for one
  /// that speeds up to it again at this many m/s², unless it was steady (below); the position
  /// keeps the speed the vehicle had.
  public var reckonAcceleration = 1.0
  public var reckonPeakSeconds = 20.0
  /// A vehicle still speeding up when its fixes stopped (pulling away from a stop: its speed
  /// rose to the last fix's by more than `reckonSteadyFraction` within `reckonRisingSeconds`)
  /// is taken to go back to the speed it drove at before it stopped, its highest of the last
  /// `reckonResumeSeconds`.
  public var reckonRisingSeconds = 3.0
  public var reckonResumeSeconds = 60.0
  /// A vehicle whose speed stayed within this fraction of the last fix's for the last
  /// `reckonSteadySeconds` has its final prompts timed at it too (until the estimate passes a
  /// maneuver).
  public var reckonSteadyFraction = 0.1
  public var reckonSteadySeconds = 5.0
  /// Speed (m/s) above which the estimate passes a maneuver once it is `reckonPastManeuver`
  /// metres beyond it; slower, it waits at the maneuver for fixes.
  public var reckonPassSpeed = 8.0
  public var reckonPastManeuver = 10.0
  /// Maneuvers the estimate may pass in one stretch without fixes, and the heads-ups of a slow
  /// vehicle, or of one the estimate waits with at a maneuver, may name.
  ///
  /// Beyond them it stops at the next maneuver: nothing says which way the vehicle went at a
  /// junction it cannot see, nor, for a vehicle that may be standing, how far it got.
  public var reckonManeuvers = 2
  /// Announcements without fixes are timed this much earlier per second without fixes, up to
  /// `reckonEarlySeconds` (a vehicle that sped up in the dark must not hear them late).
  public var reckonEarlyRate = 0.05
  public var reckonEarlySeconds = 1.0

  // Arrival.

  /// The arrival radius grows with the distance covered between fixes (this fraction of it),
  /// up to `arrivalRadiusLimit` metres, so a fast vehicle cannot pass the end between fixes.
  public var arrivalIntervalFraction = 0.6
  public var arrivalRadiusLimit = 25.0
  /// Seconds the fixes must stay within the arrival radius, as consecutive fixes (at least two,
  /// at 1 Hz two): one noisy fix is not an arrival, nor are two of a 2 or 5 Hz receiver a
  /// fraction of a second apart, whose errors are the same.
  public var arrivalSeconds = 1.0
  /// Metres short of the route's end that count as having passed it.
  public var arrivalEndTolerance = 0.5

  // Announcements.

  /// Fastest average planned speed believed, m/s (about 145 km/h): a route with a bogus
  /// travel time must not time announcements for a jet.
  public var plannedSpeedLimit = 40.0
  /// Fraction of the route's planned average speed used as a floor for announcement timing on steps
  /// travelled the route's main way: a vehicle slowed by a turn speeds up again.
  public var plannedSpeedFraction = 0.8
  /// An announcement falls due this fraction of the distance covered between two fixes (the
  /// interval counted up to `announcementIntervalLimit` seconds) early, so the fix after the ideal
  /// point is not too late.
  public var announcementMarginFraction = 0.5
  public var announcementIntervalLimit = 2.0
  /// Multiple of the fix's accuracy (one-sigma radial) by which the final announcement comes early:
  /// the matched position may lag the vehicle by the along-track one sigma, 1/√2 of it.
  public var announcementAccuracyFactor = 0.5.squareRoot()
  /// Seconds beyond the prepare lead at which announcements are worked out at all (a cheap check
  /// for most fixes).
  public var announcementHorizonSeconds = 15.0
  /// An early announcement within this multiple of `minimumGapSeconds` after an announcement for
  /// the same maneuver is left out: it would repeat what was just said.
  public var earlyAfterAnnouncementGaps = 1.5
  /// A maneuver already said as the "then" of the previous announcement and closer than this many
  /// metres gets no announcement of its own: it would only come too late.
  public var mergedReachedDistance = 5.0
  /// A "continue for …" is said only when the step runs on at least this many seconds beyond
  /// the prepare lead.
  public var continueBeyondPrepareSeconds = 30.0
  /// The `return` announcements that lead a vehicle off its route back to it.
  public var returning = ReturnConfiguration()
  /// Overspeed warnings (`speed` announcements) where the route carries speed limits.
  public var speedWarnings = true
  /// The tolerance above a limit before a warning: the larger of this fraction of the limit
  /// and `speedWarningMargin` m/s (10 % or 5 km/h: 55 km/h at 50, 99 km/h at 90).
  public var speedWarningFraction = 0.10
  public var speedWarningMargin = 5 / 3.6
  /// Seconds the speed must stay above the limit plus the tolerance before the warning, so a
  /// single noisy fix makes none (at one fix a second the warning comes within 2 s).
  public var speedWarningAfter = 1.0
  /// Seconds the speed must stay below the limit itself before another excursion is warned
  /// of: no chatter at the threshold.
  public var speedWarningRearmSeconds = 3.0
  /// Speeds above this (m/s), or changing faster than `speedWarningAcceleration` m/s² from the
  /// fix before, are doubtful and warned of never.
  public var speedWarningPlausible = 90.0
  public var speedWarningAcceleration = 8.0
  /// No warning within this many seconds of a maneuver announcement, nor while it would not be
  /// over this many seconds before the maneuver ahead's final announcement is due (its lead):
  /// a warning never talks over a maneuver's final prompt (it waits).
  public var speedWarningQuietSeconds = 6.0
  /// The kinds of road object announced as the vehicle nears them (`ahead` announcements).
  ///
  /// Empty: none. Bridges are left out by default (in towns there is one every few hundred
  /// metres and nothing to do about them), and so are speed cameras (warning of them is
  /// against the law in some countries: Switzerland, France, Germany).
  public var aheadKinds: Set<RoadObject.Kind> = [
    .tunnel, .tollRoad, .tollBooth, .levelCrossing, .ferry, .border,
  ]
  /// Tunnels shorter than this (metres) are not announced: an underpass.
  public var aheadTunnelMinimumLength = 100.0
  /// An `ahead` announcement ends at least this many seconds before its object, or is not made
  /// (never late).
  public var aheadMinimumLeadSeconds = 5.0
  /// Whether a road object whose `ahead` announcement would have to wait for a maneuver is said
  /// as a clause of that maneuver's prompt instead ("…, then a tunnel of 2.3 kilometers").
  public var aheadFolding = true
  /// No `ahead` announcement within this many seconds of a maneuver announcement, nor while it
  /// would not end this many seconds before the maneuver ahead's final prompt falls due.
  public var aheadQuietSeconds = 6.0
  /// Objects of one kind whose start lies within this many metres of the previous one's end
  /// are one object (routers split a tunnel or a toll road at every intersection in it).
  public var aheadMergeGap = 10.0
  /// The objects `PROGRESS`'s `ahead` lists at most.
  public var aheadListLength = 3

  public init() {}

  /// The `--ahead` names of road-object kinds, and the kinds each stands for.
  public static let aheadNames: [(name: String, kinds: [RoadObject.Kind])] = [
    ("tunnel", [.tunnel]), ("bridge", [.bridge]), ("toll", [.tollRoad, .tollBooth]),
    ("crossing", [.levelCrossing]), ("ferry", [.ferry]), ("border", [.border]),
    ("camera", [.speedCamera]),
  ]

  /// The kinds a comma-separated list of ``aheadNames`` names ("tunnel,toll"), or an error
  /// naming the first word that is none of them.
  public static func aheadKinds(parsing list: String) -> Result<
    Set<RoadObject.Kind>, AheadKindError
  > {
    var kinds: Set<RoadObject.Kind> = []
    for word in list.split(separator: ",", omittingEmptySubsequences: false) {
      let name = word.filter { !$0.isWhitespace }
      guard let entry = aheadNames.first(where: { $0.name == name }) else {
        return .failure(AheadKindError(word: name))
      }
      kinds.formUnion(entry.kinds)
    }
    return .success(kinds)
  }

  /// Per-mode distance limits of the announcement tiers, in metres, and the slowest speed assumed.
  public struct ModeLimits: Sendable, Equatable {
    /// Speed floor in m/s used for timing, so a standing vehicle still gets its announcements.
    public var minimumSpeed: Double
    public var prepareMinimum: Double
    public var prepareMaximum: Double
    public var approachMinimum: Double
    public var approachMaximum: Double
    public var nowMinimum: Double
    /// Radius around the destination within which arrival is declared, metres.
    public var arrivalRadius: Double
    /// Steps longer than this (metres) get a "continue for …" announcement when they start.
    public var continueMinimum: Double
  }

  /// Metres a vehicle at `speed` m/s (at least `reckonPassSpeed`) covers in
  /// `reckonHoldSeconds`: how far behind an estimate, or a maneuver it passed, a vehicle whose
  /// fixes came back may be and still be held there.
  public func holdDistance(speed: Double) -> Double {
    max(speed, reckonPassSpeed) * reckonHoldSeconds
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

/// A word of an `--ahead` list that names no kind of road object.
public struct AheadKindError: Error, Sendable, Equatable, CustomStringConvertible {
  public var word: String
  public var description: String {
    "unknown kind \"\(word)\" in --ahead (known: "
      + GuidanceConfiguration.aheadNames.map(\.name).joined(separator: ", ") + ")"
  }
}

/// The tuning of the `return` announcements that guide a vehicle off its route back to it.
public struct ReturnConfiguration: Sendable, Equatable {
  /// A route point within this many degrees of the course is "ahead", beyond `behindDegrees`
  /// "behind"; between them it is to the side.
  ///
  /// Quadrants are what a driver reads at a glance.
  public static let aheadDegrees = 45.0
  public static let behindDegrees = 135.0

  /// Metres of the route ahead of where the vehicle left it searched for the nearest point: a
  /// bounded window (the cost per fix does not grow with the route), far enough for any
  /// detour a driver would still want to be led back from.
  public var searchAhead = 5_000.0
  /// Seconds between the first `return` announcement and its first repetition; each later
  /// repetition waits twice as long as the one before, up to `longestSpacing` seconds, and
  /// no more than `announcementLimit` announcements are made for one departure from the route: a driver
  /// who goes elsewhere on purpose is not nagged.
  public var firstSpacing = 15.0
  public var longestSpacing = 120.0
  public var announcementLimit = 6
  /// "Turn around when possible" comes once the route has been behind the vehicle for
  /// `awayFixes` fixes in a row and the distance to it grew by `awayGrowth` metres over them
  /// (more than a noisy fix moves it): the driver is moving away from it.
  public var awayFixes = 3
  public var awayGrowth = 10.0
  /// An announcement that falls due within this many seconds of the previous `return` announcement waits
  /// for a later fix: two directions in a row would only overlap.
  public var minimumGap = 6.0
  /// Nothing is said while the route is closer than this many metres: the vehicle is about
  /// to rejoin it, a fix or two away, and a direction would come after the fact.
  public var quietWithin = 20.0

  public init() {}
}
