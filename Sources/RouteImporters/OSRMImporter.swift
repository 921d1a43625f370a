import Geodesy
public import Instructions
public import JSON
public import Routes

/// Converts an OSRM v5 `/route` response into a native route document.
///
/// Also reads the supersets of the same shape: Mapbox Directions v5 (`voiceInstructions`,
/// `bannerInstructions`, `voiceLocale`, incidents, foreign members) and Valhalla's
/// `format=osrm` output. Unknown members are ignored.
///
/// Mapping (the MapKit shift, as in ``ValhallaImporter``):
/// 1. Step 0 is the departure: 0 m, empty instructions, the first point of the first step.
/// 2. OSRM step k ≥ 1 of a leg gives one native step: its polyline and distance are those of
///    step k − 1 (the approach), its instructions describe step k's maneuver. Step k − 1 also
///    gives the transport type (`mode`; a ferry is `transit`) and the notices (intersection
///    classes `tunnel`, `toll`, `ferry`, and `toll_collection`, said once per run).
/// 3. Several legs: the `arrive` that ends a leg other than the last becomes a step with
///    `waypoint` n; the next leg's `depart` gets no step of its own.
/// 4. Instructions: `maneuver.instruction` when the router wrote text in the wanted language
///    (`route.voiceLocale`, else judged from the texts: Hangul is Korean, English openers such
///    as "Turn" are English); otherwise written by the ``InstructionWriter`` from the maneuver.
/// 5. A route without steps (`steps=false`) becomes a route line: one arrival step per leg.
///
/// Geometry: `polyline` (precision 5), `polyline6` or GeoJSON. The precision is never guessed:
/// a stated one (the `precision` parameter) is checked, otherwise both are tried, and the one
/// whose first point lies within ``maximumLocationGap`` of the first `maneuver.location` (or
/// `waypoints[0].location`) wins; when neither does the error says so, and when the location
/// only fits with latitude and longitude swapped the error says that.
public enum OSRMImporter {
  /// How far, in metres, the first geometry point may lie from the maneuver location it starts
  /// at before a decoding is refused.
  public static let maximumLocationGap = 25.0

  /// Parses bytes as JSON and converts the OSRM response they hold.
  public static func decode(
    _ bytes: some Collection<UInt8>, writer: InstructionWriter = InstructionWriter(language: .en),
    precision: Int? = nil
  ) throws(RouteDocumentError) -> RouteDocument {
    return try decode(RouteImport.parseJSON(bytes), writer: writer, precision: precision)
  }

  /// Converts a parsed OSRM v5 response.
  ///
  /// - Parameters:
  ///   - value: the response.
  ///   - writer: writes instructions the router did not give in `writer.language`, and
  ///     chooses the language of notices.
  ///   - precision: the polyline precision (5 or 6) when the request is known; `nil` to
  ///     determine it from the maneuver locations.
  /// - Returns: a document that ``NativeRouteFormat`` accepts.
  /// - Throws: `routerError` for a response whose `code` is not `Ok`; `emptyRoutes` when there
  ///   is no route; `invalidPolyline` when the geometry fits no precision; otherwise an error
  ///   with the JSON path of the first problem.
  public static func decode(
    _ value: JSONValue, writer: InstructionWriter = InstructionWriter(language: .en),
    precision: Int? = nil
  ) throws(RouteDocumentError) -> RouteDocument {
    typealias R = JSONPathReader
    let root = try R.object(value, "")
    if let code = try R.optional(root, "code", "", R.string), code != "Ok" {
      var text = "OSRM error \(code)"
      if let m = try R.optional(root, "message", "", R.string), !m.isEmpty { text += ": \(m)" }
      throw RouteDocumentError(.routerError, path: "code", text)
    }
    let routeValues = try R.array(R.require(root, "routes", ""), "routes")
    guard !routeValues.isEmpty else {
      throw RouteDocumentError(.emptyRoutes, path: "routes", "the response has no route")
    }
    var waypoints: [(name: String, location: Coordinate)] = []
    if let wv = try R.optional(root, "waypoints", "", R.array) {
      for (i, w) in wv.enumerated() {
        let p = "waypoints[\(i)]"
        let o = try R.object(w, p)
        let name = try R.optional(o, "name", p, R.string) ?? ""
        let loc = try location(R.require(o, "location", p), R.join(p, "location"))
        waypoints.append((name, loc))
      }
    }
    var context = Context(
      writer: writer, precision: precision, referenceLocation: waypoints.first?.location)
    var routes: [Route] = []
    var firstStreets: [String] = []
    for (i, rv) in routeValues.enumerated() {
      let (route, streets) = try self.route(rv, "routes[\(i)]", &context)
      routes.append(route)
      if i == 0 { firstStreets = streets }
    }
    guard let start = routes[0].steps.first?.polyline.first,
      let end = routes[0].steps.last?.polyline.last
    else {
      throw RouteDocumentError(.emptyRoutes, path: "routes[0]", "the route has no points")
    }
    func place(_ w: (name: String, location: Coordinate)?, _ fallback: Coordinate, street: String?)
      -> Place
    {
      let c = w?.location ?? fallback
      let name = [w?.name, street].compactMap { $0 }.first { !$0.isEmpty }
      return Place(name: name ?? RouteImportSupport.coordinateName(c), coordinate: c)
    }
    return RouteDocument(
      source: place(waypoints.first, start, street: firstStreets.first),
      destination: place(
        waypoints.count > 1 ? waypoints.last : nil, end, street: firstStreets.last),
      routes: routes)
  }

  // MARK: - Geometry

  /// The geometry encoding, decided once per response.
  struct Context {
    var writer: InstructionWriter
    var precision: Int?
    var precisionChecked = false
    var referenceLocation: Coordinate?
  }

  private static func location(_ v: JSONValue, _ path: String) throws(RouteDocumentError)
    -> Coordinate
  {
    typealias R = JSONPathReader
    let a = try R.array(v, path)
    guard a.count >= 2 else {
      throw RouteDocumentError(.invalidCoordinate, path: path, "expected [longitude, latitude]")
    }
    return try RouteImportSupport.position(
      R.number(a[0], "\(path)[0]"), R.number(a[1], "\(path)[1]"), path: path)
  }

  /// Decodes a step or route geometry; `reference` is where it must start (the maneuver).
  static func geometry(
    _ v: JSONValue, _ path: String, reference: Coordinate?, _ context: inout Context
  ) throws(RouteDocumentError) -> [Coordinate] {
    typealias R = JSONPathReader
    switch v {
    case .string(let encoded):
      if let p = context.precision, context.precisionChecked || reference == nil {
        return try decodePolyline(encoded, p, path)
      }
      guard let reference else {
        throw RouteDocumentError(
          .invalidPolyline, path: path,
          "cannot tell polyline5 from polyline6: no maneuver or waypoint location to check "
            + "against (give the precision)")
      }
      let candidates = context.precision.map { [$0] } ?? [5, 6]
      var tried: [String] = []
      for p in candidates {
        guard let points = try? Polyline.decode(encoded, precision: p), let first = points.first
        else {
          tried.append("precision \(p) does not decode")
          continue
        }
        let gap = first.distance(to: reference)
        if gap <= maximumLocationGap {
          context.precision = p
          context.precisionChecked = true
          return points
        }
        let swapped = Coordinate(latitude: reference.longitude, longitude: reference.latitude)
        if swapped.isValid && first.distance(to: swapped) <= maximumLocationGap {
          throw RouteDocumentError(
            .invalidCoordinate, path: path,
            "the geometry starts at \(first), which is the maneuver location with latitude and "
              + "longitude swapped: locations must be [longitude, latitude]")
        }
        tried.append(
          "precision \(p) starts at \(first), \(RouteImportSupport.formatMetres(gap)) away")
      }
      throw RouteDocumentError(
        .invalidPolyline, path: path,
        "the polyline fits neither precision: "
          + (context.precision != nil ? "the stated " : "") + tried.joined(separator: "; ")
          + "; the maneuver is at \(reference) (more than "
          + "\(RouteImportSupport.formatMetres(maximumLocationGap)) off)")
    case .object(let o):
      let type = try R.optional(o, "type", path, R.string)
      guard type == "LineString" else {
        throw RouteDocumentError(
          .invalidValue, path: R.join(path, "type"),
          "expected a GeoJSON LineString, found \(type ?? "no type")")
      }
      let cp = R.join(path, "coordinates")
      let coords = try R.array(R.require(o, "coordinates", path), cp)
      var points: [Coordinate] = []
      points.reserveCapacity(coords.count)
      for (i, c) in coords.enumerated() {
        points.append(try location(c, "\(cp)[\(i)]"))
      }
      if let reference, let first = points.first,
        first.distance(to: reference) > maximumLocationGap
      {
        let swapped = Coordinate(latitude: first.longitude, longitude: first.latitude)
        let hint =
          swapped.isValid && swapped.distance(to: reference) <= maximumLocationGap
          ? ": the positions look like [latitude, longitude]; GeoJSON wants [longitude, latitude]"
          : ""
        throw RouteDocumentError(
          .invalidCoordinate, path: "\(cp)[0]",
          "the geometry starts \(RouteImportSupport.formatMetres(first.distance(to: reference))) "
            + "from the maneuver location\(hint)")
      }
      return points
    default:
      throw JSONPathReader.wrongType(v, "a polyline string or a GeoJSON LineString", path)
    }
  }

  private static func decodePolyline(_ s: String, _ p: Int, _ path: String)
    throws(RouteDocumentError) -> [Coordinate]
  {
    do {
      return try Polyline.decode(s, precision: p)
    } catch {
      throw RouteDocumentError(
        error.code, path: path, "not a precision-\(p) polyline: \(error.message)")
    }
  }

  // MARK: - Routes

  private struct Step {
    var instruction: InstructionStep
    var text: String?
    var distance: Double
    var mode: TransportType?
    var flags: [RouteImportSupport.Notice]
    var polyline: [Coordinate]
    var classes: [String]
    var path: String
    /// For a roundabout whose exit step was folded into it: the length of the way round.
    var exitDistance: Double?
    /// The lanes at the maneuver (`intersections[0].lanes`).
    var lanes: [RouteLane] = []
    /// The maneuver's sign: `exits`, `destinations`, `ref`, `rotary_name`.
    var sign: RouteSign?
    /// The road along `polyline`, by point index.
    var road = StepRoad()
  }

  /// What a step says about its road, by index into its polyline.
  struct StepRoad {
    /// Lanes at the intersections after the first.
    var lanes: [(point: Int, lanes: [RouteLane])] = []
    var objects: [(kind: RoadObject.Kind, from: Int, to: Int, name: String?)] = []
    /// `annotation.maxspeed` of each segment of the polyline, or empty.
    var limits: [SpeedLimit] = []
  }

  /// The leg's steps with each `exit roundabout` / `exit rotary` folded into the `roundabout` /
  /// `rotary` before it (its distance and geometry joined, its own maneuver dropped).
  ///
  /// One step that names the exit, as Mapbox gives it. A separate exit step would be announced
  /// as a maneuver of its own, repeating the roundabout's exit where no driver needs telling.
  private static func foldingRoundaboutExits(_ steps: [Step]) -> [Step] {
    RouteImportSupport.folding(steps) { round, step in
      guard RouteManeuver.Kind(osrmType: step.instruction.type).exitsRoundabout,
        RouteManeuver.Kind(osrmType: round.instruction.type).entersRoundabout,
        round.exitDistance == nil
      else { return false }
      let last = round
      round.exitDistance = last.distance
      round.distance += step.distance
      round.polyline +=
        step.polyline.first == last.polyline.last ? step.polyline.dropFirst() : step.polyline[...]
      round.flags += step.flags.filter { !last.flags.contains($0) }
      round.classes += step.classes.filter { !last.classes.contains($0) }
      // The exit step's points follow the roundabout's (less the one they share).
      let shift = last.polyline.count - (step.polyline.first == last.polyline.last ? 1 : 0)
      round.sign = RouteSign.joined(last.sign, step.sign)
      if !step.lanes.isEmpty { round.road.lanes.append((shift, step.lanes)) }
      round.road.lanes += step.road.lanes.map { ($0.point + shift, $0.lanes) }
      round.road.objects += step.road.objects.map {
        ($0.kind, $0.from + shift, $0.to + shift, $0.name)
      }
      if shift == last.polyline.count - 1 && !last.road.limits.isEmpty
        && !step.road.limits.isEmpty
      {
        round.road.limits += step.road.limits
      } else {
        round.road.limits = []
      }
      return true
    }
  }

  private static func route(_ value: JSONValue, _ path: String, _ context: inout Context)
    throws(RouteDocumentError) -> (Route, [String])
  {
    typealias R = JSONPathReader
    let o = try R.object(value, path)
    let distance = try R.nonNegative(R.require(o, "distance", path), R.join(path, "distance"))
    let duration = try R.nonNegative(R.require(o, "duration", path), R.join(path, "duration"))
    let legsPath = R.join(path, "legs")
    let legValues = try R.array(R.require(o, "legs", path), legsPath)
    guard !legValues.isEmpty else {
      throw RouteDocumentError(.emptyRoutes, path: legsPath, "the route has no legs")
    }
    var legs: [[Step]] = []
    var summaries: [String] = []
    var advisories: [String] = []
    for (l, lv) in legValues.enumerated() {
      let lp = "\(legsPath)[\(l)]"
      let leg = try R.object(lv, lp)
      if let s = try R.optional(leg, "summary", lp, R.string), !s.isEmpty { summaries.append(s) }
      if let incidents = try R.optional(leg, "incidents", lp, R.array) {
        for (i, inc) in incidents.enumerated() {
          let ip = "\(R.join(lp, "incidents"))[\(i)]"
          if case .object(let io) = inc,
            let d = try R.optional(io, "description", ip, R.string), !d.isEmpty,
            !advisories.contains(d)
          {
            advisories.append(d)
          }
        }
      }
      let sp = R.join(lp, "steps")
      let stepValues = try R.optional(leg, "steps", lp, R.array) ?? []
      var steps: [Step] = []
      for (k, sv) in stepValues.enumerated() {
        steps.append(try step(sv, "\(sp)[\(k)]", &context))
      }
      try spreadSpeedLimits(leg, lp, over: &steps)
      if !stepValues.isEmpty && stepValues.count < 2 {
        throw RouteDocumentError(
          .invalidValue, path: sp,
          "a leg needs a depart and an arrive step (found \(stepValues.count))")
      }
      legs.append(steps)
    }

    let language = context.writer.language
    let allSteps = legs.flatMap { $0 }
    let mainMode = self.mainMode(allSteps)
    let hasTolls = allSteps.contains { $0.classes.contains("toll") }
    let hasHighways = allSteps.contains { $0.classes.contains("motorway") }
    if allSteps.contains(where: { $0.flags.contains(.ferry) }) {
      advisories.append(RouteImportSupport.ferryAdvisory(language))
    }
    if allSteps.contains(where: { $0.classes.contains("restricted") }) {
      advisories.append(
        language == .ko
          ? "경로에 통행이 제한된 도로가 있습니다." : "This route uses roads with restricted access.")
    }

    let steps: [RouteStep]
    var road = RouteRoad()
    if allSteps.isEmpty {
      // steps=false: the overview geometry is all there is.
      guard let gv = o["geometry"], gv != .null else {
        throw RouteDocumentError(
          .missingField, path: R.join(path, "geometry"),
          "the route has neither steps nor a geometry (request steps=true or overview=full)")
      }
      let line = try geometry(
        gv, R.join(path, "geometry"), reference: context.referenceLocation, &context)
      steps = try RouteImportSupport.lineSteps(
        legs: [line], writer: context.writer, mode: .automobile, lengths: [distance])
    } else {
      (steps, road) = try shiftedSteps(
        legs.map(foldingRoundaboutExits), writer: context.writer,
        textLanguage: textLanguage(o, allSteps), mainMode: mainMode)
    }
    let name =
      summaries.isEmpty
      ? (streetsByLength(allSteps).isEmpty
        ? "OSRM route" : streetsByLength(allSteps).joined(separator: ", "))
      : summaries.joined(separator: "; ")
    let streets = allSteps.map(\.instruction.name).filter { !$0.isEmpty }
    return (
      Route(
        name: name, distance: distance, expectedTravelTime: duration, transportType: mainMode,
        hasTolls: hasTolls, hasHighways: hasHighways, advisoryNotices: advisories, steps: steps,
        road: road),
      streets
    )
  }

  private static func step(_ value: JSONValue, _ path: String, _ context: inout Context)
    throws(RouteDocumentError) -> Step
  {
    typealias R = JSONPathReader
    let o = try R.object(value, path)
    let instruction = try InstructionStep(osrmStep: value, path: path)
    let mp = R.join(path, "maneuver")
    let m = try R.object(R.require(o, "maneuver", path), mp)
    let maneuverLocation = try R.optional(m, "location", mp, location)
    let gp = R.join(path, "geometry")
    let reference = maneuverLocation ?? context.referenceLocation
    let polyline = try geometry(R.require(o, "geometry", path), gp, reference: reference, &context)
    guard !polyline.isEmpty else {
      throw RouteDocumentError(.invalidPolyline, path: gp, "the step geometry has no points")
    }
    var classes: [String] = []
    var flags: [RouteImportSupport.Notice] = []
    var lanes: [RouteLane] = []
    var road = StepRoad()
    if let iv = try R.optional(o, "intersections", path, R.array) {
      // Each intersection's point on the polyline, found in order.
      var points: [Int] = []
      var intersectionClasses: [[String]] = []
      var tunnelNames: [String?] = []
      for (i, x) in iv.enumerated() {
        let ip = "\(R.join(path, "intersections"))[\(i)]"
        let io = try R.object(x, ip)
        let here = try R.optional(io, "location", ip, location)
        let point = here.map { nearestPoint(polyline, to: $0, from: points.last ?? 0) } ?? 0
        points.append(point)
        var these: [String] = []
        if let cv = try R.optional(io, "classes", ip, R.array) {
          for (c, cls) in cv.enumerated() {
            let name = try R.string(cls, "\(R.join(ip, "classes"))[\(c)]")
            if !classes.contains(name) { classes.append(name) }
            these.append(name)
          }
        }
        intersectionClasses.append(these)
        tunnelNames.append(try R.optional(io, "tunnel_name", ip, R.string))
        if let lv = try R.optional(io, "lanes", ip, R.array) {
          let intersectionLanes = try self.lanes(lv, R.join(ip, "lanes"))
          if i == 0 {
            lanes = intersectionLanes
          } else {
            road.lanes.append((point, intersectionLanes))
          }
        }
        if let tc = io["toll_collection"] {
          if !flags.contains(.tollBooth) { flags.append(.tollBooth) }
          let name = try R.optional(
            R.object(tc, R.join(ip, "toll_collection")), "name", ip, R.string)
          road.objects.append((.tollBooth, point, point, name))
        }
        if try R.optional(io, "railway_crossing", ip, R.bool) == true {
          road.objects.append((.levelCrossing, point, point, nil))
        }
      }
      // A class holds from its intersection to the next one (or the end of the step).
      for (i, these) in intersectionClasses.enumerated() {
        let to = i + 1 < points.count ? points[i + 1] : polyline.count - 1
        for (cls, kind) in [
          ("tunnel", RoadObject.Kind.tunnel), ("toll", .tollRoad), ("ferry", .ferry),
        ]
        where these.contains(cls) && to > points[i] {
          road.objects.append((kind, points[i], to, kind == .tunnel ? tunnelNames[i] : nil))
        }
      }
      road.objects.sort { $0.from < $1.from }
    }
    if classes.contains("tunnel") { flags.append(.tunnel) }
    if classes.contains("toll") { flags.append(.toll) }
    if classes.contains("ferry") || instruction.mode == "ferry" { flags.append(.ferry) }
    let text = try R.optional(m, "instruction", mp, R.string)
    return Step(
      instruction: instruction, text: text,
      distance: try R.nonNegative(R.require(o, "distance", path), R.join(path, "distance")),
      mode: RouteImportSupport.transportType(osrmMode: instruction.mode), flags: flags,
      polyline: polyline, classes: classes, path: path, lanes: lanes,
      sign: sign(instruction), road: road)
  }

  /// The index of the point of `polyline`, from `start` on, nearest to `c` (an intersection is
  /// one of its step's points).
  private static func nearestPoint(_ polyline: [Coordinate], to c: Coordinate, from start: Int)
    -> Int
  {
    var best = start
    var bestDistance = Double.infinity
    for i in start..<polyline.count {
      let d = polyline[i].distance(to: c)
      if d < bestDistance {
        best = i
        bestDistance = d
      }
      if d == 0 { break }
    }
    return best
  }

  /// An intersection's `lanes`, with every member a router gives.
  ///
  /// OSRM's `indications` and `valid`, Mapbox's and Valhalla's `active` and
  /// `valid_indication`. An indication word no router uses is left out.
  static func lanes(_ values: [JSONValue], _ path: String) throws(RouteDocumentError)
    -> [RouteLane]
  {
    typealias R = JSONPathReader
    var out: [RouteLane] = []
    out.reserveCapacity(values.count)
    for (i, v) in values.enumerated() {
      let lp = "\(path)[\(i)]"
      let lo = try R.object(v, lp)
      var indications: [RouteLane.Indication] = []
      if let words = try R.optional(lo, "indications", lp, R.array) {
        for (k, w) in words.enumerated() {
          let word = try R.string(w, "\(R.join(lp, "indications"))[\(k)]")
          if let indication = RouteLane.Indication(word: word) { indications.append(indication) }
        }
      }
      out.append(
        RouteLane(
          indications: indications, valid: try R.optional(lo, "valid", lp, R.bool) ?? false,
          active: try R.optional(lo, "active", lp, R.bool),
          validIndication: try R.optional(lo, "valid_indication", lp, R.string).flatMap(
            RouteLane.Indication.init(word:))))
    }
    return out
  }

  /// A step's sign: its `exits` (";"-separated), its `destinations` (OSRM writes the refs, a
  /// colon, then the places: "D 6007: Nice, Monaco"; without a colon all are places), the
  /// `ref`s of its road and the `rotary_name`.
  static func sign(_ step: InstructionStep) -> RouteSign? {
    func split(_ s: Substring, _ separator: Character) -> [String] {
      s.split(separator: separator).map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
    }
    var elements: [RouteSign.Element] = []
    if let exits = step.exits {
      elements += split(exits[...], ";").map { .init(.exitNumber, $0) }
    }
    if let d = step.destinations {
      if let colon = d.firstRange(of: ": ") {
        elements += split(d[..<colon.lowerBound], ",").map { .init(.branch, $0) }
        elements += split(d[colon.upperBound...], ",").map { .init(.toward, $0) }
      } else {
        elements += split(d[...], ",").map { .init(.toward, $0) }
      }
    }
    if let ref = step.ref { elements += split(ref[...], ";").map { .init(.ref, $0) } }
    if let rotary = step.rotaryName, !rotary.isEmpty {
      elements.append(.init(.roundaboutName, rotary))
    }
    return elements.isEmpty ? nil : RouteSign(elements)
  }

  /// Gives each step its share of the leg's `annotation.maxspeed`.
  ///
  /// The annotation has one entry per segment of the leg's geometry, which the steps'
  /// geometries tile, sharing their end points. When the counts do not fit (a router that
  /// annotates otherwise), no step gets any: nothing is guessed. Valhalla gives the closing
  /// arrive step two equal points and no entry for them.
  private static func spreadSpeedLimits(_ leg: JSONObject, _ path: String, over steps: inout [Step])
    throws(RouteDocumentError)
  {
    typealias R = JSONPathReader
    guard let annotation = try R.optional(leg, "annotation", path, R.object),
      let values = try R.optional(annotation, "maxspeed", R.join(path, "annotation"), R.array)
    else { return }
    let ap = R.join(R.join(path, "annotation"), "maxspeed")
    var limits: [SpeedLimit] = []
    limits.reserveCapacity(values.count)
    for (i, v) in values.enumerated() {
      let p = "\(ap)[\(i)]"
      let o = try R.object(v, p)
      if try R.optional(o, "none", p, R.bool) == true {
        limits.append(.none)
      } else if let speed = try R.optional(o, "speed", p, R.number) {
        let unit = try R.optional(o, "unit", p, R.string) ?? "km/h"
        guard let u = SpeedLimit.Unit(rawValue: unit) else {
          throw RouteDocumentError(
            .invalidValue, path: R.join(p, "unit"),
            "unknown speed unit '\(unit)' (expected km/h or mph)")
        }
        limits.append(speed > 0 ? .limit(speed, u) : .unknown)
      } else {
        limits.append(.unknown)
      }
    }
    var counts = steps.map { max($0.polyline.count - 1, 0) }
    if let last = steps.last, counts.reduce(0, +) != limits.count,
      RouteImportSupport.length(last.polyline) == 0
    {
      counts[counts.count - 1] = 0
    }
    guard counts.reduce(0, +) == limits.count else { return }
    var next = 0
    for i in steps.indices {
      steps[i].road.limits = Array(limits[next..<(next + counts[i])])
      next += counts[i]
    }
  }

  /// The language of the route's own instruction texts, or `nil` when it has none or they are
  /// in a language Stepwise does not write.
  private static func textLanguage(_ route: JSONObject, _ steps: [Step]) -> Language? {
    let texts = steps.compactMap(\.text)
    guard !texts.isEmpty else { return nil }
    if case .string(let locale) = route["voiceLocale"] {
      return Language(locale: locale)
    }
    return RouteImportSupport.detectLanguage(texts)
  }

  private static func shiftedSteps(
    _ legs: [[Step]], writer: InstructionWriter, textLanguage: Language?,
    mainMode: TransportType
  ) throws(RouteDocumentError) -> ([RouteStep], RouteRoad) {
    let language = writer.language
    var steps: [RouteStep] = []
    var previousFlags: [RouteImportSupport.Notice] = []
    var road = RouteRoadBuilder()
    var along = 0.0
    for (l, leg) in legs.enumerated() {
      guard let first = leg.first else {
        throw RouteDocumentError(
          .missingField, path: "legs[\(l)].steps", "a leg without steps among legs with steps")
      }
      if l == 0 {
        steps.append(
          RouteStep(
            instructions: "", distance: 0, transportType: first.mode ?? mainMode,
            polyline: [first.polyline[0]], maneuver: RouteManeuver(first.instruction),
            lanes: first.lanes, sign: first.sign))
      } else if !first.lanes.isEmpty {
        // A later leg's depart has no step of its own.
        road.addLanes(first.lanes, at: along)
      }
      let isLastLeg = l == legs.count - 1
      for k in 1..<leg.count {
        let stretch = leg[k - 1]
        let maneuver = leg[k]
        var polyline = stretch.polyline
        if polyline.count == 1 { polyline.append(polyline[0]) }
        // Make the chain exact where the router rounds (OSRM repeats the point).
        if let previous = steps.last?.polyline.last, let head = polyline.first,
          head != previous, head.distance(to: previous) <= NativeRouteFormat.continuityTolerance
        {
          polyline[0] = previous
        }
        let waypoint = !isLastLeg && k == leg.count - 1 ? l + 1 : nil
        var text: String
        if let t = maneuver.text, !t.isEmpty, textLanguage == language {
          text = t.trimmingSpaces()
        } else {
          let options = InstructionOptions(
            legIndex: l, legCount: legs.count, classes: maneuver.classes)
          do {
            text = try writer.instruction(for: maneuver.instruction, options: options)
          } catch {
            throw RouteDocumentError(
              error.code, path: "\(maneuver.path).\(error.path)", error.message)
          }
        }
        if waypoint != nil { text = RouteImportSupport.waypointWording(text, language: language) }
        let notice = RouteImportSupport.noticeText(
          stretch.flags, previous: previousFlags, language: language)
        previousFlags = stretch.flags
        let mode: TransportType =
          stretch.flags.contains(.ferry) ? .transit : (stretch.mode ?? mainMode)
        var kind = RouteManeuver(maneuver.instruction)
        kind.exitDistance = maneuver.exitDistance
        steps.append(
          RouteStep(
            instructions: text, notice: notice, distance: stretch.distance, transportType: mode,
            polyline: polyline, waypoint: waypoint, maneuver: kind, lanes: maneuver.lanes,
            sign: maneuver.sign))
        let offsets = RouteRoadBuilder.offsets(polyline, from: along)
        stretch.road.add(to: &road, offsets)
        along = offsets.last ?? along
      }
    }
    return (steps, road.road)
  }

  /// The mode covering the greatest distance, ferries excluded.
  private static func mainMode(_ steps: [Step]) -> TransportType {
    var totals: [(TransportType, Double)] = []
    for s in steps where !s.flags.contains(.ferry) {
      guard let m = s.mode else { continue }
      if let i = totals.firstIndex(where: { $0.0 == m }) {
        totals[i].1 += s.distance
      } else {
        totals.append((m, s.distance))
      }
    }
    return totals.max { $0.1 < $1.1 }?.0 ?? .automobile
  }

  /// The names of the two longest named steps, in route order.
  private static func streetsByLength(_ steps: [Step]) -> [String] {
    let named = steps.enumerated().filter { !$0.element.instruction.name.isEmpty }
    let sorted = named.sorted { $0.element.distance > $1.element.distance }
    guard let first = sorted.first else { return [] }
    var picked = [first]
    if let second = sorted.first(where: {
      $0.element.instruction.name != first.element.instruction.name
    }) {
      picked.append(second)
    }
    return picked.sorted { $0.offset < $1.offset }.map(\.element.instruction.name)
  }
}

extension OSRMImporter.StepRoad {
  /// Adds this stretch's road to `road`, its points at `offsets` metres along the route.
  func add(to road: inout RouteRoadBuilder, _ offsets: [Double]) {
    for (i, limit) in limits.enumerated() where i + 1 < offsets.count {
      road.addLimit(limit, from: offsets[i], to: offsets[i + 1])
    }
    for o in objects where o.to < offsets.count {
      road.addObject(o.kind, from: offsets[o.from], to: offsets[o.to], name: o.name)
    }
    for (point, lanes) in self.lanes where point < offsets.count {
      road.addLanes(lanes, at: offsets[point])
    }
  }
}
