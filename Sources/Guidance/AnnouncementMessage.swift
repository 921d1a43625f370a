public import Returning
public import Routes

/// What the engine wants said, before it is put into words.
///
/// The engine decides *when* and *what*; a ``Phrasing`` (the `Phrasebook` module) decides the
/// words, in the user's language and units.
public enum AnnouncementMessage: Sendable, Equatable {
  /// Departure from the source. `tolls` when the route has tolls; `advisories` are the route's
  /// `advisoryNotices`, said once here.
  case depart(source: String, tolls: Bool, advisories: [String])
  /// A maneuver announcement. `distance` (metres to the maneuver) is `nil` for the final "now"
  /// announcement. `then` carries the instructions of a maneuver that follows too closely to get
  /// its own early announcement (the next step's: ``Announcement/thenSteps``); read back from an
  /// event line it is empty, the clause's words being in the announcement's `text`. `road`
  /// carries the lanes and the sign the announcement may say (`nil`: the instructions alone).
  case maneuver(
    instructions: String, distance: Double?, then: String?, road: ManeuverRoad? = nil)
  /// The destination was reached.
  case arrive(destination: String)
  /// An intermediate waypoint (1-based) was reached; guidance goes on.
  case waypoint(number: Int)
  /// A step's notice or another free-text warning.
  case notice(String)
  /// The way of travelling changes with the step now starting.
  case modeChange(TransportType)
  /// A long step starts: follow the road for `distance` metres.
  case continueFor(distance: Double)
  /// The vehicle left the route; `distance` is how far from it, in metres.
  case offRoute(distance: Double)
  /// The vehicle is back on the route.
  case backOnRoute
  /// A new route replaced the one the vehicle left: its next maneuver, `distance` metres
  /// ahead ("New route. In 200 meters, turn right onto …").
  case newRoute(instructions: String, distance: Double)
  /// Off the route with no new route to be had: the route's nearest point ahead is `distance`
  /// metres away in `direction`; `turnAround` once the vehicle is moving away from it ("Turn
  /// around when possible. The route is 300 meters behind you.").
  case returnToRoute(distance: Double, direction: ReturnDirection, turnAround: Bool)
  /// The vehicle is driving faster than the posted limit (`value` in `unit`) plus a tolerance.
  case overspeed(limit: Double, unit: SpeedLimit.Unit)
  /// A road object `distance` metres ahead on the route; `length` (metres) for a stretch
  /// ("In 500 meters, a tunnel of 2.3 kilometers.").
  case ahead(RoadObject.Kind, distance: Double, length: Double?)
  /// No valid fix for a while.
  case gpsLost
  /// Valid fixes again after a loss.
  case gpsAcquired
}

extension Announcement {
  /// The steps whose maneuvers the announcement's "then" clause says besides `step`'s.
  ///
  /// That is the maneuver right after, when it follows too closely to get its own early
  /// announcement ("…, then turn right onto …"). Empty without such a clause.
  ///
  /// A client that heard these steps said knows their maneuvers were announced (the `then`
  /// member of an `ANNOUNCE`).
  public var thenSteps: [Int] {
    guard case .maneuver(_, _, _?, _) = message else { return [] }
    return [step + 1]
  }
}

/// The road a maneuver announcement may say besides its instructions.
///
/// The lanes to use and the sign. The engine picks them (which maneuver's lanes, on which prompt); a ``Phrasing`` says a
/// lane clause only when the preferred lanes are a strict, non-empty subset of two or more
/// lanes, and the sign only when the instructions do not already say it.
public struct ManeuverRoad: Sendable, Equatable {
  /// The lanes from left to right (empty: no lane clause).
  public var lanes: [RouteLane]
  /// Whether `lanes` are those of the `then` maneuver rather than of the main one.
  public var lanesForThen: Bool
  /// The main maneuver's sign.
  public var sign: RouteSign?
  /// A road object said with the maneuver because its own `ahead` announcement would have had
  /// to wait for it (``AheadClause``).
  public var ahead: AheadClause?

  public init(
    lanes: [RouteLane], lanesForThen: Bool = false, sign: RouteSign? = nil,
    ahead: AheadClause? = nil
  ) {
    self.lanes = lanes
    self.lanesForThen = lanesForThen
    self.sign = sign
    self.ahead = ahead
  }

  /// Whether there is nothing to say.
  public var isEmpty: Bool { lanes.isEmpty && sign == nil && ahead == nil }
}

/// A road object said as a clause of a maneuver prompt.
///
/// Its own announcement would have fallen within `aheadQuietSeconds` of the prompt, or where it
/// waits for the maneuver to be passed (and may come too late to be said at all). "Turn right onto X, then a tunnel of 2.3
/// kilometers." when it begins after the maneuver, "… In 300 meters, a toll booth." otherwise.
public struct AheadClause: Sendable, Equatable {
  public var kind: RoadObject.Kind
  /// Metres from the vehicle to the object's start when the prompt is made.
  public var distance: Double
  /// The stretch's length in metres (`nil` for a point).
  public var length: Double?
  /// Whether the object begins after the maneuver.
  public var afterManeuver: Bool

  public init(kind: RoadObject.Kind, distance: Double, length: Double?, afterManeuver: Bool) {
    self.kind = kind
    self.distance = distance
    self.length = length
    self.afterManeuver = afterManeuver
  }
}

/// Puts messages into words.
///
/// Implemented by `Phrasebook`.
public protocol Phrasing: Sendable {
  /// The text a voice would say for `message`.
  func text(for message: AnnouncementMessage) -> String
  /// About how long a voice takes to say `text`, in seconds; the engine starts announcements that
  /// much earlier so they end before the maneuver.
  func speechDuration(of text: String) -> Double
  /// `speechDuration(of: text(for: message))`; a phrasing may measure it without building
  /// the text (the engine asks for it on every fix near a maneuver).
  func speechDuration(for message: AnnouncementMessage) -> Double
  /// A number two distances share exactly when a maneuver announcement says them alike ("In
  /// 400 meters" for 380 and 410 m), or `nil` when the phrasing cannot tell. The engine then
  /// reuses the speech duration it measured for one distance for the other.
  func spokenDistanceKey(_ metres: Double) -> Int?
}

extension Phrasing {
  public func speechDuration(for message: AnnouncementMessage) -> Double {
    speechDuration(of: text(for: message))
  }

  public func spokenDistanceKey(_ metres: Double) -> Int? { nil }
}

extension ManeuverRoad {
  /// Whether `lanes` call for a lane clause.
  ///
  /// Two or more lanes, and the preferred ones a strict, non-empty subset of them. Never when every lane is fine (or none is).
  public static func advises(_ lanes: [RouteLane]) -> Bool {
    guard lanes.count >= 2 else { return false }
    let preferred = lanes.count { $0.isPreferred }
    return preferred > 0 && preferred < lanes.count
  }

  /// The share of `lanes` that are preferred: the smaller, the narrower the advice.
  static func share(_ lanes: [RouteLane]) -> Double {
    Double(lanes.count { $0.isPreferred }) / Double(max(1, lanes.count))
  }
}
