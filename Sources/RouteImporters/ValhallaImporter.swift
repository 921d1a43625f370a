import Geodesy
public import Instructions
public import JSON
public import Routes

/// Converts a Valhalla native `/route` response into a native route document.
///
/// Valhalla, like OSRM and GraphHopper, puts each maneuver at the START of its stretch and ends
/// every leg with a 0 m arrive maneuver. The native document has MapKit's semantics instead: a
/// step's maneuver is at the END of its polyline. So the import shifts geometry and text by one:
///
/// 1. Step 0 is the departure: 0 m, empty instructions, one point (the first shape point).
/// 2. Valhalla maneuver k ≥ 1 of a leg gives one native step whose polyline is the shape of
///    maneuver k − 1 (`begin_shape_index`…`end_shape_index`), whose distance is the `length` of
///    maneuver k − 1 in metres (`trip.units` is kilometres or miles), and whose instructions are
///    maneuver k's `instruction` (Valhalla's text in the requested language, trailing white space
///    removed). The step's transport type and notice describe that stretch, so they come from
///    maneuver k − 1 as well.
/// 3. Several legs (intermediate `break` locations): the arrive maneuver that ends a leg other
///    than the last becomes a step with `waypoint` n (1-based, n = the leg's number). The next
///    leg's depart maneuver gets no step of its own: by rule 2 its shape is the approach of that
///    leg's first real maneuver. A route of L legs and M maneuvers has M − L + 1 steps, less
///    one per roundabout (rule 6).
/// 4. Ferries: a stretch is a ferry crossing when its maneuver has `ferry: true`, type 28
///    (enter ferry) or `travel_type: "ferry"`. That step is `transit` and carries the notice
///    "Ferry crossing" (Korean "페리 구간입니다"). The step that leads to the ferry keeps its
///    own mode and Valhalla's "Take the … Ferry." instruction; type 29 (exit ferry) ends it.
/// 5. Notices come from the flags of the stretch's maneuver: `ferry`, `toll`, `portions_toll`,
///    `tunnel`, `gate`, `rough`, `portions_unpaved`. A flag is noticed on the first step of a
///    run of consecutive steps that carry it, not repeated on each of them. Several notices are
///    joined ("Toll road; Tunnel"). The text is Korean when `trip.language` starts with "ko" and
///    English otherwise.
/// 6. Roundabouts: an exit maneuver (type 27) right after a roundabout (type 26) is folded into
///    it: the roundabout's stretch runs on to the next maneuver and its step carries the length
///    of the way round as `maneuver.exitDistance`; "Exit the roundabout onto …" is dropped.
///    Every step's `maneuver` is its Valhalla type in OSRM's words (``instructionStep(type:names:)``).
///
/// Route fields: `name` is the first street name of the two longest maneuvers with names,
/// in route order, joined by ", " (or "Valhalla route"); `distance`, `expectedTravelTime`,
/// `hasTolls` and `hasHighways` come from `trip.summary`; `transportType` is the mode that
/// covers most of the first leg (ferry stretches excluded); `advisoryNotices` are the texts of
/// `trip.warnings` plus a line each for `has_ferry` and `has_time_restrictions`. The source and
/// destination are the first and last `trip.locations` (the requested points, not the snapped
/// ones), named by their `name` or `street`, else "latitude, longitude". Every entry of
/// `alternates` becomes one more route.
///
/// Valhalla's `shape` is always polyline6, so it is decoded as such; where it starts says
/// nothing about the precision: Valhalla snaps each requested location to the nearest road it
/// may use, which can be kilometres away (a request point in a field or a harbour).
public enum ValhallaImporter {
  /// How far a leg's shape may differ in length from the leg's `summary.length`, as a
  /// fraction of it: a shape of another precision is ten times too long or too short.
  public static let shapeLengthTolerance = 0.2
  /// Legs shorter than this, in metres, are not checked: rounding dominates them.
  static let shortestCheckedLeg = 50.0

  /// Refuses a shape whose length does not fit the leg's stated length (what the response says
  /// independently of the shape), the one sign that it was not written as polyline6.
  static func checkShapeLength(
    _ shape: some Collection<Coordinate>, _ leg: JSONObject, _ path: String, metresPerUnit: Double
  ) throws(RouteDocumentError) {
    typealias R = JSONPathReader
    guard let summary = try R.optional(leg, "summary", path, R.object),
      let stated = try R.optional(summary, "length", R.join(path, "summary"), R.nonNegative)
    else { return }
    let expected = stated * metresPerUnit
    let length = RouteImportSupport.length(shape)
    guard expected > shortestCheckedLeg, abs(length - expected) > expected * shapeLengthTolerance
    else { return }
    throw RouteDocumentError(
      .invalidPolyline, path: R.join(path, "shape"),
      "precision 6 does not fit: the shape is \(formatMetres(length)) long but the leg's "
        + "summary.length is \(formatMetres(expected)); Valhalla's native shape is polyline6")
  }

  /// Parses bytes as JSON and converts the Valhalla response they hold.
  public static func decode(
    _ bytes: some Collection<UInt8>, writer: InstructionWriter? = nil
  ) throws(RouteDocumentError) -> RouteDocument {
    return try decode(RouteImport.parseJSON(bytes), writer: writer)
  }

  /// Converts a Valhalla native `/route` response (`trip.legs[].maneuvers`, polyline6 `shape`)
  /// into a native document.
  ///
  /// - Parameters:
  ///   - value: the parsed response.
  ///   - writer: the wanted language: when `trip.language` is another one, the
  ///     instructions are written from the maneuvers (type, street names, signs, roundabout exit)
  ///     in this language, and notices use it. `nil` keeps Valhalla's text and notices follow
  ///     `trip.language`. Legs without `maneuvers` (`/optimized_route`) become a route line with
  ///     one arrival step per leg.
  /// - Returns: a document that ``NativeRouteFormat`` accepts: continuous step polylines, step 0
  ///   the departure, waypoints numbered 1, 2, … in order.
  /// - Throws: `routerError` for a Valhalla error response (naming its code and text), and
  ///   otherwise an error with the JSON path of the first problem.
  public static func decode(_ value: JSONValue, writer: InstructionWriter? = nil)
    throws(RouteDocumentError) -> RouteDocument
  {
    typealias R = JSONPathReader
    let root = try R.object(value, "")
    if root["trip"] == nil, root["error_code"] != nil || root["error"] != nil {
      throw routerError(root)
    }
    let main = try trip(
      R.require(root, "trip", ""), "trip", fallbackLocations: nil, writer: writer)
    var routes = [main.route]
    if let alternates = try R.optional(root, "alternates", "", R.array) {
      for (i, a) in alternates.enumerated() {
        let ap = "alternates[\(i)]"
        let ao = try R.object(a, ap)
        let alt = try trip(
          R.require(ao, "trip", ap), "\(ap).trip", fallbackLocations: main.locations,
          writer: writer)
        routes.append(alt.route)
      }
    }
    guard let first = main.locations.first, let last = main.locations.last else {
      throw RouteDocumentError(.missingField, path: "trip.locations", "no locations")
    }
    return RouteDocument(source: first, destination: last, routes: routes)
  }

  // MARK: - Error responses

  private static func routerError(_ root: JSONObject) -> RouteDocumentError {
    var text = "Valhalla error"
    // A code that is no integer (the fuzzer sent 4.02e24) is left out rather than trapping.
    if case .number(let code) = root["error_code"], let n = Int(exactly: code) {
      text += " \(n)"
    }
    if case .string(let message) = root["error"] { text += ": \(message)" }
    if case .number(let status) = root["status_code"], let n = Int(exactly: status) {
      text += " (HTTP \(n)"
      if case .string(let s) = root["status"], !s.isEmpty { text += " \(s)" }
      text += ")"
    }
    return RouteDocumentError(.routerError, path: "", text)
  }

  // MARK: - Trips

  private struct Maneuver {
    var type: Int
    var instruction: String
    /// Length in the trip's units (kilometres or miles).
    var length: Double
    var begin: Int
    var end: Int
    var mode: TransportType
    var flags: [Flag]
    var streetNames: [String]
    /// The maneuver in OSRM's vocabulary, for writing it in another language.
    var step: InstructionStep
    /// For a roundabout whose exit maneuver was folded into it: the length of the way round
    /// (the roundabout's own stretch), in the trip's units.
    var exitLength: Double?
    /// The maneuver's `sign`, every element of it.
    var sign: RouteSign?

    var isFerry: Bool { flags.contains(.ferry) }
  }

  /// Maneuver flags that become step notices, in the order they are said.
  private enum Flag: CaseIterable {
    case ferry, toll, portionsToll, tunnel, gate, rough, portionsUnpaved

    func notice(korean: Bool) -> String {
      switch self {
      case .ferry: korean ? "페리 구간입니다" : "Ferry crossing"
      case .toll: korean ? "유료 도로 구간입니다" : "Toll road"
      case .portionsToll: korean ? "일부 유료 도로 구간입니다" : "Partly toll road"
      case .tunnel: korean ? "터널 구간입니다" : "Tunnel"
      case .gate: korean ? "차단기가 있는 구간입니다" : "Gate or barrier on this section"
      case .rough: korean ? "노면이 고르지 않은 구간입니다" : "Rough surface"
      case .portionsUnpaved: korean ? "일부 비포장 도로 구간입니다" : "Partly unpaved road"
      }
    }

    /// The Valhalla maneuver member that sets this flag.
    var key: String {
      switch self {
      case .ferry: "ferry"
      case .toll: "toll"
      case .portionsToll: "portions_toll"
      case .tunnel: "tunnel"
      case .gate: "gate"
      case .rough: "rough"
      case .portionsUnpaved: "portions_unpaved"
      }
    }
  }

  private static func trip(
    _ value: JSONValue, _ path: String, fallbackLocations: [Place]?, writer: InstructionWriter?
  ) throws(RouteDocumentError) -> (route: Route, locations: [Place]) {
    typealias R = JSONPathReader
    let t = try R.object(value, path)

    let metresPerUnit: Double
    switch try R.optional(t, "units", path, R.string) ?? "kilometers" {
    case "kilometers", "kilometres", "km": metresPerUnit = 1000
    case "miles", "mi": metresPerUnit = 1609.344
    case let other:
      throw RouteDocumentError(
        .invalidValue, path: R.join(path, "units"),
        "unknown units '\(other)' (expected kilometers or miles)")
    }
    let tripLanguage = Language(
      locale: try R.optional(t, "language", path, R.string) ?? "en-US")
    let korean = writer.map { $0.language == .ko } ?? (tripLanguage == .ko)
    // Valhalla's text is kept when it is in the wanted language.
    let rewriter = writer.flatMap { $0.language == tripLanguage ? nil : $0 }

    var locations: [Place] = []
    if let lv = try R.optional(t, "locations", path, R.array) {
      let lp = R.join(path, "locations")
      for (i, v) in lv.enumerated() {
        locations.append(try location(v, "\(lp)[\(i)]"))
      }
    } else if let fallbackLocations {
      locations = fallbackLocations
    }
    guard locations.count >= 2 else {
      throw RouteDocumentError(
        .missingField, path: R.join(path, "locations"),
        "a trip needs at least 2 locations (found \(locations.count))")
    }

    let sp = R.join(path, "summary")
    let summary = try R.object(R.require(t, "summary", path), sp)
    let length = try R.nonNegative(R.require(summary, "length", sp), R.join(sp, "length"))
    let time = try R.nonNegative(R.require(summary, "time", sp), R.join(sp, "time"))
    let hasToll = try R.optional(summary, "has_toll", sp, R.bool)
    let hasHighway = try R.optional(summary, "has_highway", sp, R.bool)
    let hasFerry = try R.optional(summary, "has_ferry", sp, R.bool) ?? false
    let hasTimeRestrictions =
      try R.optional(summary, "has_time_restrictions", sp, R.bool) ?? false

    let legsPath = R.join(path, "legs")
    let legValues = try R.array(R.require(t, "legs", path), legsPath)
    guard !legValues.isEmpty else {
      throw RouteDocumentError(.emptyRoutes, path: legsPath, "the trip has no legs")
    }

    if legValues.allSatisfy({ (try? R.object($0, "")["maneuvers"]) == nil }) {
      return try lineTrip(
        t, path, legValues, locations: locations, metresPerUnit: metresPerUnit, length: length,
        time: time, writer: writer ?? InstructionWriter(language: korean ? .ko : .en))
    }

    var steps: [RouteStep] = []
    var allManeuvers: [Maneuver] = []
    var mainMode: TransportType = .automobile
    var previousFlags: [Flag] = []
    var previousEnd: Coordinate?
    for (legIndex, legValue) in legValues.enumerated() {
      let lp = "\(legsPath)[\(legIndex)]"
      let leg = try R.object(legValue, lp)
      let shapePath = R.join(lp, "shape")
      let shape: RoutePolyline
      do throws(RouteDocumentError) {
        shape = try Polyline.decodeFixedPoint(
          R.string(R.require(leg, "shape", lp), shapePath), precision: 6)
      } catch {
        throw error.code == .invalidPolyline
          ? RouteDocumentError(
            error.code, path: shapePath, "not a polyline6 string: \(error.message)")
          : error
      }
      guard !shape.isEmpty else {
        throw RouteDocumentError(.invalidPolyline, path: shapePath, "the shape has no points")
      }
      try checkShapeLength(shape, leg, lp, metresPerUnit: metresPerUnit)

      let legManeuvers = try legManeuvers(leg, lp, shape: shape)
      if legIndex == 0 { mainMode = self.mainMode(legManeuvers) }
      allManeuvers += legManeuvers
      let maneuvers = foldingRoundaboutExits(legManeuvers)

      // The leg's first stretch must start where the previous leg's last stretch ended.
      let legStart = shape[maneuvers[0].begin]
      if legIndex == 0 {
        steps.append(
          RouteStep(
            instructions: "", distance: 0, transportType: mainMode, polyline: [legStart],
            maneuver: RouteManeuver(maneuvers[0].step), sign: maneuvers[0].sign))
      } else if let previousEnd {
        let gap = previousEnd.distance(to: legStart)
        guard gap <= NativeRouteFormat.continuityTolerance else {
          throw RouteDocumentError(
            .discontinuousPolyline, path: shapePath,
            "leg \(legIndex) starts \(formatMetres(gap)) from where leg \(legIndex - 1) ended")
        }
      }

      let isLastLeg = legIndex == legValues.count - 1
      for k in 1..<maneuvers.count {
        let stretch = maneuvers[k - 1]
        let maneuver = maneuvers[k]
        var polyline = RoutePolyline(shape[stretch.begin...stretch.end])
        if polyline.count == 1 { polyline.append(polyline[0]) }
        let newFlags = stretch.flags.filter { !previousFlags.contains($0) }
        previousFlags = stretch.flags
        let notice =
          newFlags.isEmpty
          ? nil : newFlags.map { $0.notice(korean: korean) }.joined(separator: korean ? ". " : "; ")
        let waypoint = !isLastLeg && k == maneuvers.count - 1 ? legIndex + 1 : nil
        var instructions = trimmingTrailingWhitespace(maneuver.instruction)
        if let rewriter {
          let options = InstructionOptions(legIndex: legIndex, legCount: legValues.count)
          instructions = try rewriter.instruction(for: maneuver.step, options: options)
        }
        if waypoint != nil { instructions = waypointWording(instructions, korean: korean) }
        var kind = RouteManeuver(maneuver.step)
        kind.exitDistance = maneuver.exitLength.map { $0 * metresPerUnit }
        steps.append(
          RouteStep(
            instructions: instructions, notice: notice,
            distance: stretch.length * metresPerUnit,
            transportType: stretch.isFerry ? .transit : stretch.mode, polyline: polyline,
            waypoint: waypoint, maneuver: kind, sign: maneuver.sign))
      }
      previousEnd = steps.last?.polyline.last
    }

    var advisories: [String] = []
    if let warnings = try R.optional(t, "warnings", path, R.array) {
      let wp = R.join(path, "warnings")
      for (i, w) in warnings.enumerated() {
        let p = "\(wp)[\(i)]"
        let o = try R.object(w, p)
        let text = try R.optional(o, "text", p, R.string) ?? ""
        let description = try R.optional(o, "description", p, R.string) ?? ""
        if !text.isEmpty || !description.isEmpty {
          advisories.append(text.isEmpty ? description : text)
        } else if let code = try R.optional(o, "code", p, R.integer) {
          advisories.append("Valhalla warning \(code)")
        }
      }
    }
    if hasFerry {
      advisories.append(
        korean ? "경로에 페리 구간이 포함되어 있습니다." : "This route includes a ferry crossing.")
    }
    if hasTimeRestrictions {
      advisories.append(
        korean ? "경로에 시간 제한 구간이 있습니다." : "This route has time-restricted roads.")
    }

    let route = Route(
      name: routeName(allManeuvers), distance: length * metresPerUnit, expectedTravelTime: time,
      transportType: mainMode,
      hasTolls: hasToll ?? allManeuvers.contains { $0.flags.contains(.toll) },
      hasHighways: hasHighway ?? false, advisoryNotices: advisories, steps: steps)
    return (route, nameUnnamedLocations(locations, allManeuvers))
  }

  /// Valhalla words the end of every leg as the arrival at "your destination"; at an
  /// intermediate waypoint that would announce the end of the trip too early, so the word
  /// becomes "waypoint" ("경유지" in Korean).
  static func waypointWording(_ text: String, korean: Bool) -> String {
    if korean { return text.replacing("목적지", with: "경유지") }
    return text.replacing("destination", with: "waypoint")
  }

  /// Names the source after the street the trip starts on and the destination after the last
  /// named street, when the request gave them no names, so the departure says "Depart from
  /// Fleet Street" rather than a pair of coordinates; coordinates remain the last resort.
  private static func nameUnnamedLocations(_ locations: [Place], _ maneuvers: [Maneuver])
    -> [Place]
  {
    var out = locations
    let streets = maneuvers.compactMap { $0.streetNames.first { !$0.isEmpty } }
    for i in out.indices where out[i].name.isEmpty {
      let street = i == 0 ? streets.first : (i == out.count - 1 ? streets.last : nil)
      out[i].name =
        street
        ?? "\(formatDegrees(out[i].coordinate.latitude)), \(formatDegrees(out[i].coordinate.longitude))"
    }
    return out
  }

  /// The leg's maneuvers with each exit-roundabout maneuver (type 27) folded into the
  /// roundabout (type 26) before it.
  ///
  /// One maneuver that names the exit, whose stretch runs round the roundabout and on to the
  /// next maneuver. Valhalla's separate "Exit the roundabout" repeats what the roundabout already
  /// said, at a point no driver needs telling.
  private static func foldingRoundaboutExits(_ maneuvers: [Maneuver]) -> [Maneuver] {
    RouteImportSupport.folding(maneuvers) { round, m in
      guard m.type == 27, round.type == 26, round.exitLength == nil else { return false }
      let flags = round.flags
      round.exitLength = round.length
      round.length += m.length
      round.end = m.end
      round.flags = Flag.allCases.filter { flags.contains($0) || m.flags.contains($0) }
      round.sign = RouteSign.joined(round.sign, m.sign)
      return true
    }
  }

  /// Reads and checks a leg's maneuvers against its decoded shape.
  private static func legManeuvers(
    _ leg: JSONObject, _ path: String, shape: RoutePolyline
  ) throws(RouteDocumentError) -> [Maneuver] {
    typealias R = JSONPathReader
    let mp = R.join(path, "maneuvers")
    let values = try R.array(R.require(leg, "maneuvers", path), mp)
    guard values.count >= 2 else {
      throw RouteDocumentError(
        .invalidValue, path: mp,
        "a leg needs a depart and an arrive maneuver (found \(values.count) maneuvers)")
    }
    var maneuvers: [Maneuver] = []
    maneuvers.reserveCapacity(values.count)
    for (i, v) in values.enumerated() {
      let p = "\(mp)[\(i)]"
      let o = try R.object(v, p)
      let type = try R.optional(o, "type", p, R.integer) ?? 0
      guard let instruction = try R.optional(o, "instruction", p, R.string) else {
        throw RouteDocumentError(
          .missingField, path: R.join(p, "instruction"),
          "missing required field 'instruction' (request directions_type \"instructions\")")
      }
      let length = try R.nonNegative(R.require(o, "length", p), R.join(p, "length"))
      let begin = try R.integer(
        R.require(o, "begin_shape_index", p), R.join(p, "begin_shape_index"))
      let end = try R.integer(R.require(o, "end_shape_index", p), R.join(p, "end_shape_index"))
      guard shape.indices.contains(begin) else {
        throw RouteDocumentError(
          .invalidValue, path: R.join(p, "begin_shape_index"),
          "shape index \(begin) is out of range (the shape has \(shape.count) points)")
      }
      guard shape.indices.contains(end) else {
        throw RouteDocumentError(
          .invalidValue, path: R.join(p, "end_shape_index"),
          "shape index \(end) is out of range (the shape has \(shape.count) points)")
      }
      guard begin <= end else {
        throw RouteDocumentError(
          .invalidValue, path: R.join(p, "end_shape_index"),
          "end_shape_index \(end) is before begin_shape_index \(begin)")
      }
      if let previous = maneuvers.last, previous.end != begin {
        throw RouteDocumentError(
          .invalidValue, path: R.join(p, "begin_shape_index"),
          "maneuver \(i) begins at shape index \(begin) but maneuver \(i - 1) ends at "
            + "\(previous.end); maneuvers must tile the shape")
      }

      let mode: TransportType
      switch try R.optional(o, "travel_mode", p, R.string) {
      case "drive": mode = .automobile
      case "pedestrian": mode = .walking
      case "bicycle": mode = .cycling
      case "transit": mode = .transit
      case nil: mode = maneuvers.last?.mode ?? .automobile  // older Valhalla omits it
      case let other?:
        throw RouteDocumentError(
          .invalidValue, path: R.join(p, "travel_mode"),
          "unknown travel_mode '\(other)' (expected drive, pedestrian, bicycle or transit)")
      }
      var flags: [Flag] = []
      for flag in Flag.allCases {
        var set = try R.optional(o, flag.key, p, R.bool) ?? false
        if flag == .ferry {
          let travelType = try R.optional(o, "travel_type", p, R.string)
          set = set || type == 28 || travelType == "ferry"
        }
        if set { flags.append(flag) }
      }
      var names: [String] = []
      if let sv = try R.optional(o, "street_names", p, R.array) {
        for (k, n) in sv.enumerated() {
          names.append(try R.string(n, "\(R.join(p, "street_names"))[\(k)]"))
        }
      }
      var step = instructionStep(type: type, names: names)
      step.bearingAfter = try R.optional(o, "bearing_after", p, R.number)
      step.exit = try R.optional(o, "roundabout_exit_count", p, R.integer)
      var routeSign: RouteSign?
      if let sign = try R.optional(o, "sign", p, R.object) {
        let read = try self.sign(sign, R.join(p, "sign"))
        routeSign = read.elements.isEmpty ? nil : read
        let exits = read.exitNumbers
        let toward = read.toward + read.branches
        if !exits.isEmpty { step.exits = exits.joined(separator: ";") }
        if !toward.isEmpty { step.destinations = toward.joined(separator: ",") }
      }
      if mode == .walking { step.mode = "walking" }
      maneuvers.append(
        Maneuver(
          type: type, instruction: instruction, length: length, begin: begin, end: end,
          mode: mode, flags: flags, streetNames: names, step: step, sign: routeSign))
    }
    return maneuvers
  }

  /// The members of a maneuver's `sign` that list elements, and the kind each gives.
  static let signMembers: [(key: String, kind: RouteSign.Kind)] = [
    ("exit_number_elements", .exitNumber), ("exit_branch_elements", .branch),
    ("exit_toward_elements", .toward), ("exit_name_elements", .exitName),
    ("guide_branch_elements", .guideBranch), ("guide_toward_elements", .guideToward),
    ("junction_name_elements", .junctionName),
  ]

  /// Every element of a maneuver's `sign` with its text and `is_route_number`.
  private static func sign(_ sign: JSONObject, _ path: String) throws(RouteDocumentError)
    -> RouteSign
  {
    typealias R = JSONPathReader
    var elements: [RouteSign.Element] = []
    for (key, kind) in signMembers {
      guard let a = try R.optional(sign, key, path, R.array) else { continue }
      for (k, e) in a.enumerated() {
        let ep = "\(R.join(path, key))[\(k)]"
        let eo = try R.object(e, ep)
        guard let text = try R.optional(eo, "text", ep, R.string) else { continue }
        let routeNumber = try R.optional(eo, "is_route_number", ep, R.bool) ?? false
        elements.append(RouteSign.Element(kind, text, isRouteNumber: routeNumber))
      }
    }
    return RouteSign(elements)
  }

  private static func location(_ v: JSONValue, _ path: String) throws(RouteDocumentError)
    -> Place
  {
    typealias R = JSONPathReader
    let o = try R.object(v, path)
    let lat = try R.number(R.require(o, "lat", path), R.join(path, "lat"))
    let lon = try R.number(R.require(o, "lon", path), R.join(path, "lon"))
    let c = Coordinate(latitude: lat, longitude: lon)
    guard c.isValid else {
      throw RouteDocumentError(
        .invalidCoordinate, path: path, "\(c) is outside −90…90 / −180…180")
    }
    let name =
      try [R.optional(o, "name", path, R.string), R.optional(o, "street", path, R.string)]
      .compactMap { $0.map(trimmingTrailingWhitespace) }.first { !$0.isEmpty }
    // An unnamed location is named after its street once the maneuvers are known (see
    // `nameUnnamedLocations`); an empty name marks it until then.
    return Place(name: name ?? "", coordinate: c)
  }

  /// A Valhalla maneuver type in OSRM's vocabulary (the cross-walk of `docs/instructions.md`).
  static func instructionStep(type: Int, names: [String]) -> InstructionStep {
    let (osrmType, modifier): (String, String?) =
      switch type {
      case 1: ("depart", nil)
      case 2: ("depart", "right")
      case 3: ("depart", "left")
      case 4: ("arrive", nil)
      case 5: ("arrive", "right")
      case 6: ("arrive", "left")
      case 7, 8: ("new name", "straight")
      case 9: ("turn", "slight right")
      case 10: ("turn", "right")
      case 11: ("turn", "sharp right")
      case 12, 13: ("continue", "uturn")
      case 14: ("turn", "sharp left")
      case 15: ("turn", "left")
      case 16: ("turn", "slight left")
      case 17: ("on ramp", "straight")
      case 18: ("on ramp", "right")
      case 19: ("on ramp", "left")
      case 20: ("off ramp", "slight right")
      case 21: ("off ramp", "slight left")
      case 22: ("fork", "straight")
      case 23: ("fork", "slight right")
      case 24: ("fork", "slight left")
      case 25: ("merge", "straight")
      case 26: ("roundabout", "straight")
      case 27: ("exit roundabout", "straight")
      case 28, 29: ("notification", "straight")
      case 37: ("merge", "slight right")
      case 38: ("merge", "slight left")
      default: ("turn", "straight")
      }
    var step = InstructionStep(type: osrmType, modifier: modifier, name: names.first ?? "")
    if type == 28 { step.mode = "ferry" }
    return step
  }

  /// A trip whose legs carry only a shape (`/optimized_route`): a route line.
  private static func lineTrip(
    _ t: JSONObject, _ path: String, _ legValues: [JSONValue], locations: [Place],
    metresPerUnit: Double, length: Double, time: Double, writer: InstructionWriter
  ) throws(RouteDocumentError) -> (route: Route, locations: [Place]) {
    typealias R = JSONPathReader
    var shapes: [[Coordinate]] = []
    var lengths: [Double] = []
    for (i, lv) in legValues.enumerated() {
      let lp = "\(R.join(path, "legs"))[\(i)]"
      let leg = try R.object(lv, lp)
      let sp = R.join(lp, "shape")
      let shape: [Coordinate]
      do throws(RouteDocumentError) {
        shape = try Polyline.decode(R.string(R.require(leg, "shape", lp), sp), precision: 6)
      } catch {
        throw RouteDocumentError(error.code, path: sp, "not a polyline6 string: \(error.message)")
      }
      try checkShapeLength(shape, leg, lp, metresPerUnit: metresPerUnit)
      shapes.append(shape)
      if let summary = try R.optional(leg, "summary", lp, R.object),
        let l = try R.optional(summary, "length", R.join(lp, "summary"), R.nonNegative)
      {
        lengths.append(l * metresPerUnit)
      }
    }
    let steps = try RouteImportSupport.lineSteps(
      legs: shapes, writer: writer, mode: .automobile,
      lengths: lengths.count == shapes.count ? lengths : nil)
    var named = locations
    for i in named.indices where named[i].name.isEmpty {
      named[i].name = RouteImportSupport.coordinateName(named[i].coordinate)
    }
    let route = Route(
      name: "Valhalla route", distance: length * metresPerUnit, expectedTravelTime: time,
      transportType: .automobile, steps: steps)
    return (route, named)
  }

  // MARK: - Route-level fields

  /// The mode that covers the greatest length of the leg, ferries excluded (ties: the first).
  private static func mainMode(_ maneuvers: [Maneuver]) -> TransportType {
    var totals: [(mode: TransportType, length: Double)] = []
    for m in maneuvers where !m.isFerry {
      if let i = totals.firstIndex(where: { $0.mode == m.mode }) {
        totals[i].length += m.length
      } else {
        totals.append((m.mode, m.length))
      }
    }
    guard var best = totals.first else { return .transit }
    for t in totals.dropFirst() where t.length > best.length { best = t }
    return best.mode
  }

  /// The first street names of the two longest named maneuvers, in route order.
  private static func routeName(_ maneuvers: [Maneuver]) -> String {
    let named = maneuvers.enumerated().compactMap { (i, m) -> (Int, String, Double)? in
      guard let n = m.streetNames.first(where: { !$0.isEmpty }) else { return nil }
      return (i, n, m.length)
    }
    // Longest first; route order among equal lengths.
    let byLength = named.sorted { $0.2 != $1.2 ? $0.2 > $1.2 : $0.0 < $1.0 }
    guard let longest = byLength.first else { return "Valhalla route" }
    var picked = [longest]
    if let second = byLength.first(where: { $0.1 != longest.1 }) { picked.append(second) }
    return picked.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: ", ")
  }

  // MARK: - Text helpers

  private static func trimmingTrailingWhitespace(_ s: String) -> String {
    var end = s.endIndex
    while end > s.startIndex, s[s.index(before: end)].isWhitespace {
      end = s.index(before: end)
    }
    return String(s[..<end])
  }

  /// Degrees with at most 6 decimals, in the shortest form ("47.1459").
  private static func formatDegrees(_ d: Double) -> String {
    let r = (d * 1_000_000).rounded() / 1_000_000
    return r == r.rounded() ? "\(Int(r))" : "\(r)"
  }

  private static func formatMetres(_ m: Double) -> String {
    m < 10
      ? "\((m * 10).rounded() / 10) m"
      : m < 10_000 ? "\(Int(m.rounded())) m" : "\((m / 100).rounded() / 10) km"
  }
}
