public import JSON

/// A maneuver in the vocabulary of OSRM v5 steps, which the instruction writer turns into text.
///
/// Every importer maps its router's maneuvers onto this shape (OSRM and Mapbox directly,
/// GraphHopper signs and Valhalla types through the cross-walk in `docs/instructions.md`).
public struct InstructionStep: Sendable, Equatable {
  /// `maneuver.type`: `depart`, `turn`, `new name`, `roundabout`, `arrive`, … Unknown types are
  /// written as `turn`.
  public var type: String
  /// `maneuver.modifier`: `left`, `slight right`, `uturn`, …; required except for depart and
  /// arrive.
  public var modifier: String?
  /// `maneuver.exit`: the roundabout exit to take (1-based).
  public var exit: Int?
  /// `maneuver.bearing_after`, in degrees clockwise from true north (0…360).
  public var bearingAfter: Double?
  /// The name of the way travelled after the maneuver; may be empty.
  public var name: String
  /// Route numbers, `;`-separated ("A 1; E 45").
  public var ref: String?
  /// Signposted destinations, "ref1, ref2: dest1, dest2".
  public var destinations: String?
  /// Exit numbers, `;`-separated ("4A;4B").
  public var exits: String?
  /// The name of the junction ("Shibuya Crossing").
  public var junctionName: String?
  /// The name of a rotary ("Place de l'Étoile").
  public var rotaryName: String?
  /// The mode after the maneuver (`driving`, `ferry`, …).
  public var mode: String?
  /// `left` or `right`: the side of the road traffic keeps to.
  public var drivingSide: String?
  /// For `use lane`: whether each lane of the first intersection is valid, left to right.
  public var laneValidity: [Bool]?

  /// Creates a maneuver description; only `type` is required.
  public init(
    type: String, modifier: String? = nil, exit: Int? = nil, bearingAfter: Double? = nil,
    name: String = "", ref: String? = nil, destinations: String? = nil, exits: String? = nil,
    junctionName: String? = nil, rotaryName: String? = nil, mode: String? = nil,
    drivingSide: String? = nil, laneValidity: [Bool]? = nil
  ) {
    self.type = type
    self.modifier = modifier
    self.exit = exit
    self.bearingAfter = bearingAfter
    self.name = name
    self.ref = ref
    self.destinations = destinations
    self.exits = exits
    self.junctionName = junctionName
    self.rotaryName = rotaryName
    self.mode = mode
    self.drivingSide = drivingSide
    self.laneValidity = laneValidity
  }

  /// Reads an OSRM v5 `RouteStep` object (the members the writer uses; others are ignored).
  ///
  /// - Parameters:
  ///   - value: the step object.
  ///   - path: its JSON path, for error messages (`routes[0].legs[0].steps[3]`).
  /// - Throws: `RouteDocumentError` with the path of a missing `maneuver.type` or a member of
  ///   the wrong type.
  public init(osrmStep value: JSONValue, path: String) throws(RouteDocumentError) {
    typealias R = JSONPathReader
    let o = try R.object(value, path)
    let mp = R.join(path, "maneuver")
    let m = try R.object(R.require(o, "maneuver", path), mp)
    self.init(type: try R.string(R.require(m, "type", mp), R.join(mp, "type")))
    modifier = try R.optional(m, "modifier", mp, R.string)
    exit = try R.optional(m, "exit", mp, R.integer)
    bearingAfter = try R.optional(m, "bearing_after", mp, R.number)
    name = try R.optional(o, "name", path, R.string) ?? ""
    ref = try R.optional(o, "ref", path, R.string)
    destinations = try R.optional(o, "destinations", path, R.string)
    exits = try R.optional(o, "exits", path, R.string)
    junctionName = try R.optional(o, "junction_name", path, R.string)
    rotaryName = try R.optional(o, "rotary_name", path, R.string)
    mode = try R.optional(o, "mode", path, R.string)
    drivingSide = try R.optional(o, "driving_side", path, R.string)
    if let iv = try R.optional(o, "intersections", path, R.array), let first = iv.first {
      let ip = R.join(path, "intersections") + "[0]"
      let io = try R.object(first, ip)
      if let lanes = try R.optional(io, "lanes", ip, R.array) {
        var valid: [Bool] = []
        for (i, lane) in lanes.enumerated() {
          let lp = "\(R.join(ip, "lanes"))[\(i)]"
          valid.append(try R.optional(R.object(lane, lp), "valid", lp, R.bool) ?? false)
        }
        laneValidity = valid
      }
    }
  }
}

/// What the instruction depends on beyond the step itself: the leg and the road classes.
public struct InstructionOptions: Sendable, Equatable {
  /// 0-based index of the leg this step belongs to.
  public var legIndex: Int?
  /// Number of legs of the route.
  public var legCount: Int?
  /// The name of the waypoint an intermediate arrival reaches.
  public var waypointName: String?
  /// Classes of the road after the maneuver (`motorway`, `toll`, `ferry`, …).
  public var classes: [String]

  /// Creates options; all are optional.
  public init(
    legIndex: Int? = nil, legCount: Int? = nil, waypointName: String? = nil,
    classes: [String] = []
  ) {
    self.legIndex = legIndex
    self.legCount = legCount
    self.waypointName = waypointName
    self.classes = classes
  }

  /// Reads an osrm-text-instructions fixture's `options` object.
  public init(fixtureOptions value: JSONValue, path: String) throws(RouteDocumentError) {
    typealias R = JSONPathReader
    let o = try R.object(value, path)
    self.init(
      legIndex: try R.optional(o, "legIndex", path, R.integer),
      legCount: try R.optional(o, "legCount", path, R.integer),
      waypointName: try R.optional(o, "waypointName", path, R.string))
    if let cv = try R.optional(o, "classes", path, R.array) {
      for (i, c) in cv.enumerated() {
        classes.append(try R.string(c, "\(R.join(path, "classes"))[\(i)]"))
      }
    }
  }
}
