/// What a step's maneuver is, in the vocabulary of OSRM v5's `maneuver.type` and `modifier`.
///
/// Set when the router said it (Valhalla `type`, OSRM and Mapbox `maneuver`, GraphHopper
/// `sign`). Guidance words nothing from it: the instructions stay the text that is said. It
/// tells maneuvers apart that text cannot, such as a roundabout and the exit it names.
public struct RouteManeuver: Sendable, Hashable {
  /// The kind of maneuver (OSRM's `maneuver.type`).
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case depart
    case arrive
    case turn
    case newName = "new name"
    case `continue`
    case merge
    case onRamp = "on ramp"
    case offRamp = "off ramp"
    case fork
    case endOfRoad = "end of road"
    case roundabout
    case rotary
    case roundaboutTurn = "roundabout turn"
    case exitRoundabout = "exit roundabout"
    case exitRotary = "exit rotary"
    case notification
    case useLane = "use lane"

    /// Reads an OSRM `maneuver.type`; types OSRM may add later are turns, as its API asks.
    public init(osrmType: String) {
      self = Kind(rawValue: osrmType == "ramp" ? "on ramp" : osrmType) ?? .turn
    }

    /// Entering a roundabout or a rotary, whose exit is then left as part of this maneuver.
    public var entersRoundabout: Bool { self == .roundabout || self == .rotary }
    /// Leaving a roundabout or a rotary entered by the maneuver before.
    public var exitsRoundabout: Bool { self == .exitRoundabout || self == .exitRotary }
  }

  /// The direction of the maneuver (OSRM's `maneuver.modifier`).
  public enum Modifier: String, Sendable, Hashable, CaseIterable {
    case uturn
    case sharpRight = "sharp right"
    case right
    case slightRight = "slight right"
    case straight
    case slightLeft = "slight left"
    case left
    case sharpLeft = "sharp left"
  }

  public var kind: Kind
  public var modifier: Modifier?
  /// For a roundabout or a rotary: the number of the exit to take (1-based).
  public var exit: Int?
  /// For a roundabout or a rotary: metres from the entry (this step's maneuver) to the exit
  /// taken, along the next step's polyline, when the router gave the way round as a stretch of
  /// its own.
  public var exitDistance: Double?

  public init(
    kind: Kind, modifier: Modifier? = nil, exit: Int? = nil, exitDistance: Double? = nil
  ) {
    self.kind = kind
    self.modifier = modifier
    self.exit = exit
    self.exitDistance = exitDistance
  }

  /// The maneuver of an OSRM-vocabulary step (what every importer maps its router onto).
  package init(_ step: InstructionStep) {
    self.init(
      kind: Kind(osrmType: step.type), modifier: step.modifier.flatMap(Modifier.init(rawValue:)),
      exit: step.exit)
  }
}
