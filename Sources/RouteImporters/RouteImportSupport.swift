import Geodesy
import Instructions
import Routes

/// Pieces shared by the router importers: notices, route lines, names and language detection.
enum RouteImportSupport {
  /// `items` with every item that `absorb` merges into the one kept before it dropped.
  ///
  /// `absorb(&kept, next)` either merges `next` into `kept` and returns `true`, or leaves `kept`
  /// as it is and returns `false` (then `next` is kept): how the importers fold a roundabout's
  /// exit maneuver into the roundabout.
  static func folding<T>(_ items: [T], _ absorb: (inout T, T) -> Bool) -> [T] {
    var out: [T] = []
    out.reserveCapacity(items.count)
    for item in items where out.isEmpty || !absorb(&out[out.count - 1], item) {
      out.append(item)
    }
    return out
  }

  /// A step notice an importer gives for what the router marks on a stretch.
  enum Notice: CaseIterable {
    case ferry, toll, tollBooth, tunnel

    func text(_ language: Language) -> String {
      let korean = language == .ko
      switch self {
      case .ferry: return korean ? "페리 구간입니다" : "Ferry crossing"
      case .toll: return korean ? "유료 도로 구간입니다" : "Toll road"
      case .tollBooth: return korean ? "요금소가 있습니다" : "Toll booth ahead"
      case .tunnel: return korean ? "터널 구간입니다" : "Tunnel"
      }
    }
  }

  /// Joins the notices that are new on this stretch (not on the previous one), or `nil`.
  static func noticeText(
    _ flags: [Notice], previous: [Notice], language: Language
  ) -> String? {
    let new = Notice.allCases.filter { flags.contains($0) && !previous.contains($0) }
    guard !new.isEmpty else { return nil }
    return new.map { $0.text(language) }.joined(separator: language == .ko ? ". " : "; ")
  }

  static func ferryAdvisory(_ language: Language) -> String {
    language == .ko ? "경로에 페리 구간이 포함되어 있습니다." : "This route includes a ferry crossing."
  }

  /// Intermediate arrivals speak of the waypoint, not the destination ("경유지" in Korean).
  static func waypointWording(_ text: String, language: Language) -> String {
    language == .ko
      ? text.replacing("목적지", with: "경유지") : text.replacing("destination", with: "waypoint")
  }

  /// Guesses the language of router texts: Korean when they contain Hangul, English when most
  /// start with a word English instructions start with, otherwise `nil` (another language).
  static func detectLanguage(_ texts: [String]) -> Language? {
    let nonEmpty = texts.filter { !$0.isEmpty }
    guard !nonEmpty.isEmpty else { return nil }
    if nonEmpty.contains(where: {
      $0.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
    }) {
      return .ko
    }
    let english = nonEmpty.filter { text in
      let first = text.lowercased().split(whereSeparator: { !$0.isLetter }).first.map(String.init)
      return first.map(englishOpeners.contains) ?? false
    }
    return english.count * 2 >= nonEmpty.count ? .en : nil
  }

  private static let englishOpeners: Set<String> = [
    "head", "drive", "walk", "bike", "cycle", "turn", "continue", "keep", "take", "merge",
    "enter", "exit", "make", "go", "bear", "you", "your", "arrive", "stay", "at", "in", "board",
    "use", "follow", "leave", "start", "depart", "proceed", "cross", "ride", "get", "the",
    "destination", "waypoint", "u",
  ]

  /// The OSRM `mode` of a step as a transport type (`nil` for an unknown mode).
  static func transportType(osrmMode mode: String?) -> TransportType? {
    switch mode {
    case "driving": .automobile
    case "walking": .walking
    case "cycling", "pushing bike": .cycling
    case "ferry", "train", "transit": .transit
    default: nil
    }
  }

  /// Length of a polyline in metres.
  static func length(_ points: some Collection<Coordinate>) -> Double {
    zip(points, points.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
  }

  /// A route that is only a line (per leg): the departure, then one step per leg whose
  /// maneuver is the arrival at the leg's end (a waypoint for every leg but the last).
  ///
  /// - Parameters:
  ///   - legs: each leg's points; consecutive legs should meet.
  ///   - writer: writes the arrival instructions.
  ///   - mode: the transport type of every step.
  ///   - lengths: each leg's length in metres from the source, or `nil` to measure the line.
  /// - Returns: the steps, departure first.
  /// - Throws: `missingField` when there is no point at all.
  static func lineSteps(
    legs: [[Coordinate]], writer: InstructionWriter, mode: TransportType, lengths: [Double]? = nil
  ) throws(RouteDocumentError) -> [RouteStep] {
    guard let start = legs.first?.first else {
      throw RouteDocumentError(.missingField, path: "", "the route has no points")
    }
    var steps = [RouteStep(instructions: "", distance: 0, transportType: mode, polyline: [start])]
    var previousEnd = start
    for (i, leg) in legs.enumerated() {
      var polyline = leg
      if let first = polyline.first, first != previousEnd { polyline.insert(previousEnd, at: 0) }
      if polyline.count == 1 { polyline.append(polyline[0]) }
      let isLast = i == legs.count - 1
      let options = InstructionOptions(legIndex: i, legCount: legs.count)
      var text = try writer.instruction(for: InstructionStep(type: "arrive"), options: options)
      if !isLast { text = waypointWording(text, language: writer.language) }
      steps.append(
        RouteStep(
          instructions: text, distance: lengths?[i] ?? length(polyline), transportType: mode,
          polyline: polyline, waypoint: isLast ? nil : i + 1))
      previousEnd = polyline[polyline.count - 1]
    }
    return steps
  }

  /// "latitude, longitude" with at most 6 decimals, for places the router does not name.
  static func coordinateName(_ c: Coordinate) -> String {
    "\(formatDegrees(c.latitude)), \(formatDegrees(c.longitude))"
  }

  static func formatDegrees(_ d: Double) -> String {
    let r = (d * 1_000_000).rounded() / 1_000_000
    return r == r.rounded() ? "\(Int(r))" : "\(r)"
  }

  static func formatMetres(_ m: Double) -> String {
    m < 10
      ? "\((m * 10).rounded() / 10) m"
      : m < 10_000 ? "\(Int(m.rounded())) m" : "\((m / 100).rounded() / 10) km"
  }

  /// A coordinate from a GeoJSON-style `[longitude, latitude, …]` position, checked for range;
  /// an out-of-range latitude that would fit as a longitude is reported as swapped axes.
  static func position(_ lon: Double, _ lat: Double, path: String) throws(RouteDocumentError)
    -> Coordinate
  {
    let c = Coordinate(latitude: lat, longitude: lon)
    guard c.isValid else {
      let swapped = Coordinate(latitude: lon, longitude: lat)
      throw RouteDocumentError(
        .invalidCoordinate, path: path,
        "[\(lon), \(lat)] is outside −180…180 / −90…90"
          + (swapped.isValid
            ? "; the axes look swapped: positions must be [longitude, latitude]" : ""))
    }
    return c
  }

  /// The mean expected speed, in metres per second, used when a file has no times.
  static func assumedSpeed(_ mode: TransportType) -> Double {
    switch mode {
    case .automobile: 50 / 3.6
    case .walking: 5 / 3.6
    case .cycling: 15 / 3.6
    case .transit: 30 / 3.6
    }
  }

  /// The median distance, in metres, between corresponding points of two lines sampled at the
  /// same indexes; used to tell whether a decoding matches a reference point.
  static func gap(_ a: Coordinate, _ b: Coordinate) -> Double { a.distance(to: b) }
}
