/// One lane of the road at a maneuver, as the router gave it (OSRM's `intersections[].lanes`,
/// Mapbox's and Valhalla's `format=osrm` with `active` and `valid_indication`).
///
/// A step's lanes are listed from the left of the road to the right, as every router and
/// OpenStreetMap's `turn:lanes` list them.
public struct RouteLane: Sendable, Hashable {
  /// What a lane's markings allow, in the words of OSRM's `indications` (the arrows painted on
  /// it, OpenStreetMap's `turn:lanes` values).
  public enum Indication: String, Sendable, Hashable, CaseIterable {
    case none
    case uturn
    case sharpRight = "sharp right"
    case right
    case slightRight = "slight right"
    case straight
    case slightLeft = "slight left"
    case left
    case sharpLeft = "sharp left"
    case mergeToLeft = "merge to left"
    case mergeToRight = "merge to right"

    /// Reads an indication in the words of OSRM and Mapbox ("slight right") or of
    /// OpenStreetMap's `turn:lanes` ("slight_right", "through", "reverse"); `nil` for a word
    /// neither uses.
    public init?(word: String) {
      switch word {
      case "through": self = .straight
      case "reverse": self = .uturn
      case "": self = .none
      default:
        guard let i = Indication(rawValue: word.replacing("_", with: " ")) else { return nil }
        self = i
      }
    }
  }

  /// The markings of the lane (`[.none]` for a lane without any).
  public var indications: [Indication]
  /// Whether the lane can be taken for the maneuver (OSRM's `valid`).
  public var valid: Bool
  /// Whether the router prefers this lane for the maneuver, among the valid ones (Mapbox's and
  /// Valhalla's `active`); `nil` when the router does not say.
  public var active: Bool?
  /// The indication of this lane the maneuver follows (`valid_indication`), when the router
  /// says.
  public var validIndication: Indication?

  public init(
    indications: [Indication], valid: Bool, active: Bool? = nil, validIndication: Indication? = nil
  ) {
    self.indications = indications
    self.valid = valid
    self.active = active
    self.validIndication = validIndication
  }

  /// Whether the lane is one to use: active when the router marks active lanes, valid
  /// otherwise.
  public var isPreferred: Bool { active ?? valid }
}

/// The lanes at an intersection along the route that is not a maneuver (OSRM gives lanes at
/// every intersection with lane markings, and a maneuver's step keeps only the ones at its own
/// intersection): where it is, in metres along the route, and its lanes from left to right.
public struct RouteLaneGuidance: Sendable, Hashable {
  /// Metres along the route from its start (along the step polylines) to the intersection.
  public var at: Double
  public var lanes: [RouteLane]

  public init(at: Double, lanes: [RouteLane]) {
    self.at = at
    self.lanes = lanes
  }
}
