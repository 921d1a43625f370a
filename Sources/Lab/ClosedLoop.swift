public import Geodesy
public import JSON
import Phrasebook
public import Simulation
public import Wire

/// A closed-loop scenario's recipe (`scenario.json`'s `closedLoop` object): how the virtual
/// driver drives and which mistakes it makes.
public struct ClosedLoopRecipe: Sendable, Equatable {
  public var options = DriveOptions()
  public var mistakes: [DrivingMistake] = []
  /// Multiple of real time the drive runs at (the daemon's replay pacing and the driver's).
  public var speedUp = 10.0
  /// The OSM extract (`Tests/Valhalla/extracts/NAME.osm.pbf`) the router needs.
  public var extract: String?

  public init() {}

  /// Reads the `closedLoop` object; `nil` when `config` has none.
  public init?(config: JSONObject, directory: String) throws {
    guard let r = config["closedLoop"]?.objectValue else { return nil }
    options.profile = .town
    options.settle = 3
    options.dwell = 3
    if let v = r["speedKmh"]?.doubleValue { options.speed = v / 3.6 }
    if let v = r["profile"]?.stringValue {
      guard let p = SpeedProfile(rawValue: v) else {
        throw ScenarioError("\(directory): unknown profile \(v)")
      }
      options.profile = p
    }
    if let v = r["noise"]?.doubleValue { options.noise = v }
    if let v = r["seed"]?.doubleValue { options.seed = UInt64(v) }
    if let v = r["hz"]?.doubleValue { options.hz = v }
    if let v = r["settle"]?.doubleValue { options.settle = v }
    if let v = r["dwell"]?.doubleValue { options.dwell = v }
    if let v = r["speedUp"]?.doubleValue { speedUp = v }
    extract = r["extract"]?.stringValue
    for m in r["mistakes"]?.arrayValue ?? [] {
      guard let text = m.stringValue, let mistake = DrivingMistake(text) else {
        throw ScenarioError("\(directory): unknown mistake \(JSONWriter.string(m))")
      }
      mistakes.append(mistake)
    }
  }
}

/// What one closed-loop drive recorded (`run.jsonl`): the daemon's events as it published
/// them, the driver's truth and actions, each route's geometry and the ideal drive.
///
/// One JSON object per line: the daemon's events (`ROUTE`, `ANNOUNCE`, …, `PROGRESS` left
/// out) and the driver's own classes `RUN`, `IDEAL`, `TRUTH`, `DRIVER`, `GEOMETRY`.
public struct ClosedLoopRun: Sendable {
  public struct Event: Sendable {
    public var time: Double
    public var object: JSONObject
    /// The class of a daemon's event; `nil` for the driver's own lines.
    public var eventClass: EventClass? { object["class"]?.stringValue.flatMap(EventClass.init) }
  }
  /// A route the daemon guided along: its revision and each step's polyline.
  public struct Geometry: Sendable {
    public var revision: Int
    public var steps: [[Coordinate]]
    public var points: [Coordinate] { steps.flatMap { $0 } }

    public init(revision: Int, steps: [[Coordinate]]) {
      self.revision = revision
      self.steps = steps
    }
  }

  public var name = ""
  public var mistakes: [DrivingMistake] = []
  /// Cruising speed, metres per second.
  public var speed = 0.0
  public var speedUp = 1.0
  public var idealDistance = 0.0
  public var idealTime = 0.0
  public var destination = Coordinate(latitude: 0, longitude: 0)
  public var truth: [ClosedLoopDriver.Sample] = []
  public var actions: [ClosedLoopDriver.Action] = []
  public var geometries: [Geometry] = []
  public var events: [Event] = []

  public init() {}

  /// Reads the lines of a `run.jsonl`.
  public init(bytes: [UInt8]) throws {
    for line in bytes.split(separator: 0x0A) where !line.isEmpty {
      guard case .object(let o) = try JSONParser.parse(Array(line)) else { continue }
      let time = o["time"]?.stringValue.flatMap(UTCTime.parseISO8601) ?? 0
      switch o["class"]?.stringValue {
      case "RUN":
        name = o["name"]?.stringValue ?? ""
        speed = o["speed"]?.doubleValue ?? 0
        speedUp = o["speedUp"]?.doubleValue ?? 1
        mistakes = (o["mistakes"]?.arrayValue ?? []).compactMap {
          $0.stringValue.flatMap(DrivingMistake.init)
        }
      case "IDEAL":
        idealDistance = o["distance"]?.doubleValue ?? 0
        idealTime = o["seconds"]?.doubleValue ?? 0
        destination = Self.coordinate(o["destination"]) ?? destination
      case "TRUTH":
        guard let p = Self.coordinate(o["position"]) else { continue }
        truth.append(
          ClosedLoopDriver.Sample(
            time: time, position: p, speed: o["speed"]?.doubleValue ?? 0,
            course: o["course"]?.doubleValue ?? 0,
            revision: o["revision"]?.doubleValue.map { Int($0) },
            along: o["along"]?.doubleValue ?? 0))
      case "DRIVER":
        guard let k = o["action"]?.stringValue.flatMap(ClosedLoopDriver.Action.Kind.init) else {
          continue
        }
        actions.append(
          ClosedLoopDriver.Action(
            time: time, kind: k, mistake: o["mistake"]?.stringValue,
            revision: o["revision"]?.doubleValue.map { Int($0) }))
      case "GEOMETRY":
        let steps = (o["steps"]?.arrayValue ?? []).map { s in
          (s.arrayValue ?? []).compactMap(Self.coordinate)
        }
        geometries.append(
          Geometry(revision: Int(o["revision"]?.doubleValue ?? 0), steps: steps))
      default:
        events.append(Event(time: time, object: o))
      }
    }
  }

  /// The daemon's events among the lines of a run, as its `--json` output prints them
  /// (`seq` left out) and as a replay of the run gives them: no `PROGRESS`, `SOURCE`, or the
  /// shutdown `ERROR`, and none of the driver's own lines.
  public static func daemonTranscript(_ lines: [String]) -> [String] {
    lines.compactMap { line in
      guard let o = (try? JSONParser.parse(Array(line.utf8)))?.objectValue,
        let c = o["class"]?.stringValue.flatMap(EventClass.init),
        c != .progress, c != .source
      else { return nil }
      // `,"seq":N` follows the head (class and time hold no such text).
      let bytes = Array(line.utf8)
      let key = Array(#","seq":"#.utf8)
      guard bytes.count >= key.count,
        let start = (0...(bytes.count - key.count)).first(where: {
          bytes[$0..<($0 + key.count)].elementsEqual(key)
        })
      else { return line }
      var end = start + key.count
      while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
      return String(decoding: bytes[..<start] + bytes[end...], as: UTF8.self)
    }
  }

  static func coordinate(_ v: JSONValue?) -> Coordinate? {
    guard let a = v?.arrayValue, a.count == 2, let lat = a[0].doubleValue,
      let lon = a[1].doubleValue
    else { return nil }
    return Coordinate(latitude: lat, longitude: lon)
  }

  static func value(_ c: Coordinate) -> JSONValue {
    .array([
      .number((c.latitude * 1e7).rounded() / 1e7), .number((c.longitude * 1e7).rounded() / 1e7),
    ])
  }

  /// The `RUN` line.
  public static func header(
    name: String, speed: Double, speedUp: Double, mistakes: [DrivingMistake]
  ) -> String {
    JSONWriter.string(
      .object(
        JSONObject([
          ("class", "RUN"), ("name", .string(name)), ("speed", .number(speed)),
          ("speedUp", .number(speedUp)),
          ("mistakes", .array(mistakes.map { .string($0.description) })),
        ])))
  }

  /// The `IDEAL` line: the first route driven without mistakes.
  public static func ideal(distance: Double, seconds: Double, destination: Coordinate) -> String {
    JSONWriter.string(
      .object(
        JSONObject([
          ("class", "IDEAL"), ("distance", .number((distance * 10).rounded() / 10)),
          ("seconds", .number((seconds * 10).rounded() / 10)),
          ("destination", value(destination)),
        ])))
  }

  /// A `TRUTH` line.
  public static func line(_ s: ClosedLoopDriver.Sample) -> String {
    var o = JSONObject([
      ("class", "TRUTH"), ("time", .string(UTCTime.iso8601(s.time))),
      ("position", value(s.position)),
      ("speed", .number((s.speed * 100).rounded() / 100)),
      ("course", .number((s.course * 10).rounded() / 10)),
      ("along", .number((s.along * 10).rounded() / 10)),
    ])
    if let r = s.revision { o.append("revision", .number(Double(r))) }
    return JSONWriter.string(.object(o))
  }

  /// A `DRIVER` line.
  public static func line(_ a: ClosedLoopDriver.Action) -> String {
    var o = JSONObject([
      ("class", "DRIVER"), ("time", .string(UTCTime.iso8601(a.time))),
      ("action", .string(a.kind.rawValue)),
    ])
    if let m = a.mistake { o.append("mistake", .string(m)) }
    if let r = a.revision { o.append("revision", .number(Double(r))) }
    return JSONWriter.string(.object(o))
  }

  /// A `GEOMETRY` line.
  public static func line(_ g: Geometry) -> String {
    JSONWriter.string(
      .object(
        JSONObject([
          ("class", "GEOMETRY"), ("revision", .number(Double(g.revision))),
          ("steps", .array(g.steps.map { .array($0.map(value)) })),
        ])))
  }
}

/// How a closed-loop drive went: the figures of issue 14's goals.
public struct ClosedLoopScore: Sendable {
  /// A truth position this far from the route counts as off it, for the reroute delay.
  public static let offDistance = 50.0
  /// An announcement is for a maneuver already behind when the vehicle is this far past it.
  public static let passedMargin = 10.0
  /// Two maneuvers of different routes closer than this are the same physical maneuver.
  public static let sameManeuver = 15.0
  /// A truth position this close to a maneuver point drove through it (1 Hz at 50 km/h is
  /// 14 m between epochs).
  public static let passedThrough = 20.0
  /// Seconds a final announcement must come before its maneuver.
  public static let finalLeadMinimum = QualityScore.finalLeadMinimum
  /// The bar: the median reroute delay.
  public static let delayMedianMaximum = 5.0
  /// The bar: reroutes per mistake that leaves the route.
  public static let reroutesPerMistakeMaximum = 2

  public var name: String
  public var arrived = false
  /// Mistakes that take the vehicle off its route.
  public var mistakes = 0
  public var reroutes = 0
  /// Reroutes while the driver made no mistake.
  public var falseReroutes = 0
  /// The most reroutes one mistake caused.
  public var worstReroutesPerMistake = 0
  /// Metres and seconds more than the ideal drive (to within 20 m of the destination).
  public var extraDistance: Double?
  public var extraTime: Double?
  /// Per reroute: seconds from the first truth position 50 m off the replaced route to the new
  /// route's first announcement (reroutes before the vehicle was 50 m off have none).
  public var delays: [Double] = []
  /// Reroutes whose new route was said before the vehicle was 50 m off the old one (counted
  /// in ``delays`` as 0 s, an upper bound).
  public var early = 0
  /// Per mistake: seconds from leaving the route to the first announcement of the first new route.
  public var mistakeDelays: [Double] = []
  /// Final announcements less than ``finalLeadMinimum`` before their maneuver (a figure, not a bar
  /// of the closed loop: the open-loop scenarios hold announcement timing to it).
  public var late = 0
  /// Announcements said again: the same id, or the same tier of the same physical maneuver on
  /// another route.
  public var duplicates = 0
  /// Announcements for a maneuver the vehicle had already passed.
  public var passed = 0
  public var speed = 0.0
  public var notes: [String] = []

  public var delayMedian: Double? { median(delays) }

  /// Seconds within which the vehicle counts as at the destination.
  static let arrivalRadius = 20.0

  public init(name: String) { self.name = name }

  public init(_ run: ClosedLoopRun, name: String) {
    self.name = name
    speed = run.speed
    mistakes = run.mistakes.filter(\.leavesRoute).count
    let t0 = run.truth.first?.time ?? 0
    func clock(_ t: Double) -> String { NMEAWriter.fixed(t - t0, 1) + " s" }
    var lines: [Int: Polyline] = [:]
    var ends: [Int: [Double]] = [:]
    for g in run.geometries {
      let line = Polyline(g.points)
      lines[g.revision] = line
      // Maneuver k is at the end of step k's polyline.
      var along: [Double] = []
      var d = 0.0
      for s in g.steps {
        d += Polyline(s).length
        along.append(d)
      }
      ends[g.revision] = along
    }
    // The routes in force: the ROUTE events in order (revision = their rank).
    let routeIndices = run.events.indices.filter { run.events[$0].eventClass == .route }
    reroutes = max(0, routeIndices.count - 1)
    arrived = run.events.contains { $0.eventClass == .arrived }

    // Extra distance and time, to within the arrival radius of the destination.
    if let first = run.truth.firstIndex(where: { $0.speed > 0 }),
      let end = run.truth.firstIndex(where: {
        $0.position.distance(to: run.destination) <= Self.arrivalRadius
      }), end > first
    {
      var d = 0.0
      for i in (first + 1)...end {
        d += run.truth[i - 1].position.distance(to: run.truth[i].position)
      }
      extraDistance = d - run.idealDistance
      extraTime = run.truth[end].time - run.truth[first].time - run.idealTime
    }

    func revision(_ o: JSONObject) -> Int {
      guard let id = o["id"]?.stringValue else { return 0 }
      for part in id.split(separator: ".") where part.first == "v" {
        if let n = Int(part.dropFirst()) { return n }
      }
      return 0
    }
    func sample(at t: Double) -> ClosedLoopDriver.Sample? {
      run.truth.last { $0.time <= t + 1e-6 }
    }

    // Mistakes: from the driver's mistake to the route it next follows.
    var spans: [(from: Double, to: Double, text: String)] = []
    for (i, a) in run.actions.enumerated() where a.kind == .mistake {
      let end = run.actions[(i + 1)...].first { $0.kind == .follow }?.time ?? .infinity
      spans.append((a.time, end, a.mistake ?? ""))
    }
    var perMistake = [Int](repeating: 0, count: spans.count)
    for (k, index) in routeIndices.enumerated() where k >= 1 {
      let t = run.events[index].time
      guard let m = spans.firstIndex(where: { $0.from <= t && t <= $0.to }) else {
        falseReroutes += 1
        notes.append("reroute \(k) at \(clock(t)) without a mistake")
        continue
      }
      perMistake[m] += 1
      // The new route's first announcement.
      let announcement = run.events[(index + 1)...].first {
        $0.eventClass == .announce && revision($0.object) == k
      }
      guard let said = announcement?.time else {
        notes.append("reroute \(k) at \(clock(t)): its route was never announced")
        continue
      }
      if perMistake[m] == 1 { mistakeDelays.append(said - spans[m].from) }
      // The first truth position 50 m off the replaced route before the new route was said and
      // taken (a new route that came sooner, or a U-turn along the route, has none).
      let from = run.events[routeIndices[k - 1]].time
      if let old = lines[k - 1],
        let far = run.truth.first(where: {
          $0.time >= from && $0.time <= said && $0.revision != k
            && old.locate($0.position, near: 0, within: .infinity).offset >= Self.offDistance
        })
      {
        delays.append(said - far.time)
      } else if !spans[m].text.hasPrefix("u-turn") {
        // Said before the vehicle was 50 m off: at most 0 s. A U-turn drives back along the
        // route and is never 50 m off it.
        delays.append(0)
        early += 1
      }
    }
    worstReroutesPerMistake = perMistake.max() ?? 0
    for (m, n) in perMistake.enumerated() where n > Self.reroutesPerMistakeMaximum {
      notes.append("\(spans[m].text) caused \(n) reroutes")
    }

    // Announcements: duplicates, passed maneuvers, late final announcements.
    var ids = Set<String>()
    var said: [(kind: String, point: Coordinate, revision: Int, time: Double)] = []
    for e in run.events where e.eventClass == .announce {
      let o = e.object
      let id = o["id"]?.stringValue ?? ""
      let kind = o["kind"]?.stringValue ?? ""
      if !ids.insert(id).inserted {
        duplicates += 1
        notes.append("\(id) said twice (\(clock(e.time)))")
      }
      let v = revision(o)
      guard let step = o["step"]?.doubleValue.map({ Int($0) }), step >= 1,
        let along = ends[v], step < along.count, let line = lines[v],
        ["prepare", "approach", "now", "reroute"].contains(kind)
      else { continue }
      let maneuver = along[step]
      let point = line.point(at: maneuver)
      if kind != "reroute" {
        // The same tier of a maneuver of an earlier route that the vehicle has not driven
        // through since (one it passed and comes back to round a loop is a new maneuver).
        if said.contains(where: { p in
          p.kind == kind && p.revision != v && p.point.distance(to: point) < Self.sameManeuver
            && !run.truth.contains {
              $0.time > p.time && $0.time < e.time
                && $0.position.distance(to: p.point) < Self.passedThrough
            }
        }) {
          duplicates += 1
          notes.append(
            "\(id) repeats a \(kind) announcement of an earlier route (\(clock(e.time)))")
        }
        said.append((kind, point, v, e.time))
      }
      if let here = sample(at: e.time), here.revision == v,
        here.along > maneuver + Self.passedMargin
      {
        passed += 1
        notes.append(
          "\(id) at \(clock(e.time)) for a maneuver \(Int(here.along - maneuver)) m behind")
        continue
      }
      if kind == "now",
        let reached = run.truth.first(where: {
          $0.time >= e.time && $0.revision == v && $0.along >= maneuver
        }), reached.time - e.time < Self.finalLeadMinimum
      {
        late += 1
        notes.append(
          "\(id) at \(clock(e.time)) only \(NMEAWriter.fixed(reached.time - e.time, 1)) s ahead")
      }
    }
    if !arrived { notes.append("never arrived") }
  }

  /// The bars this drive misses, as readable phrases (empty: it meets them all).
  public func violations() -> [String] {
    var out: [String] = []
    if !arrived { out.append("did not arrive") }
    if worstReroutesPerMistake > Self.reroutesPerMistakeMaximum {
      out.append("\(worstReroutesPerMistake) reroutes for one mistake")
    }
    if falseReroutes > 0 { out.append("\(falseReroutes) false reroutes") }
    if duplicates > 0 { out.append("\(duplicates) duplicate announcements") }
    if passed > 0 { out.append("\(passed) announcements for passed maneuvers") }
    if mistakes > 0 && reroutes == 0 { out.append("no reroute") }
    return out
  }
}

/// The closed-loop table: one row per drive and the medians over all.
public enum ClosedLoopTable {
  public static let headings = [
    "drive", "arrived", "mistakes", "reroutes", "max per mistake", "false reroutes",
    "extra m", "extra s", "50 m off → announcement s", "before 50 m", "mistake → announcement s",
    "late",
    "duplicates",
    "passed",
  ]

  public static func row(_ s: ClosedLoopScore) -> [String] {
    func f(_ v: Double?, _ d: Int = 1) -> String { v.map { NMEAWriter.fixed($0, d) } ?? "–" }
    return [
      s.name, s.arrived ? "yes" : "no", String(s.mistakes), String(s.reroutes),
      String(s.worstReroutesPerMistake), String(s.falseReroutes), f(s.extraDistance, 0),
      f(s.extraTime), s.delays.map { f($0) }.joined(separator: " ").ifEmpty("–"), String(s.early),
      s.mistakeDelays.map { f($0) }.joined(separator: " ").ifEmpty("–"), String(s.late),
      String(s.duplicates), String(s.passed),
    ]
  }

  /// The median of every drive's reroute delays.
  public static func delayMedian(_ scores: [ClosedLoopScore]) -> Double? {
    median(scores.flatMap(\.delays))
  }

  public static func text(_ scores: [ClosedLoopScore]) -> [String] {
    TextColumns.lines(rows(scores), rightAligned: Set(1..<headings.count))
  }

  /// The table as Markdown rows.
  public static func markdown(_ scores: [ClosedLoopScore]) -> [String] {
    let all = rows(scores)
    func line(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }
    return [line(all[0]), line(all[0].map { _ in "---" })] + all.dropFirst().map(line)
  }

  static func rows(_ scores: [ClosedLoopScore]) -> [[String]] {
    var rows = [headings] + scores.map(row)
    let all = scores.flatMap(\.delays)
    let fromMistake = scores.flatMap(\.mistakeDelays)
    rows.append([
      "total", "\(scores.filter(\.arrived).count)/\(scores.count)",
      String(scores.reduce(0) { $0 + $1.mistakes }), String(scores.reduce(0) { $0 + $1.reroutes }),
      String(scores.map(\.worstReroutesPerMistake).max() ?? 0),
      String(scores.reduce(0) { $0 + $1.falseReroutes }), "", "",
      median(all).map { "median " + NMEAWriter.fixed($0, 1) } ?? "–",
      String(scores.reduce(0) { $0 + $1.early }),
      median(fromMistake).map { "median " + NMEAWriter.fixed($0, 1) } ?? "–",
      String(scores.reduce(0) { $0 + $1.late }), String(scores.reduce(0) { $0 + $1.duplicates }),
      String(scores.reduce(0) { $0 + $1.passed }),
    ])
    return rows
  }
}

extension String {
  fileprivate func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}

/// A closed-loop scenario folder (`Simulations/closed-loop/cNN-name`): `route.json` (the first
/// route), `scenario.json` (`description`, `locale`, `units` and the `closedLoop` recipe),
/// `run.jsonl` (the last recorded drive), and from that drive `drive.nmea` (the fixes as the
/// vehicle drove them), `router.jsonl` (the router's requests and answers) and `expected.jsonl`
/// (the transcript their replay gives), all written by `stepwise drive DIR --router URL
/// --record`; and `README.md`.
public struct ClosedLoopScenario: Sendable {
  public var directory: String
  public var description = ""
  public var locale: String?
  public var units: String?
  public var recipe: ClosedLoopRecipe
  /// The recorded drive, `nil` before one was recorded.
  public var run: ClosedLoopRun?
  /// The recorded fixes (`drive.nmea`), router (`router.jsonl`) and transcript
  /// (`expected.jsonl`), each `nil` before it was recorded.
  public var track: [UInt8]?
  public var routerRecording: [UInt8]?
  public var expectedFile: [UInt8]?
  /// The first route's document (`route.json`).
  public var routeFile: [UInt8]

  public var routePath: String { directory + "/route.json" }
  public var runPath: String { directory + "/run.jsonl" }
  public var trackPath: String { directory + "/drive.nmea" }
  public var routerPath: String { directory + "/router.jsonl" }
  public var expectedPath: String { directory + "/expected.jsonl" }
  public var name: String { directory.split(separator: "/").last.map(String.init) ?? directory }
  /// How to record the drive again.
  public var recordCommand: String { "stepwise drive \(directory) --router URL --record" }

  /// Whether `config` (a `scenario.json`) describes a closed-loop scenario.
  public static func isClosedLoop(_ config: [UInt8]) -> Bool {
    (try? JSONParser.parse(config))?.objectValue?["closedLoop"] != nil
  }

  /// Loads the folder at `directory`, whose files `read` returns by path.
  public init(directory: String, read: (String) throws -> [UInt8]) throws {
    self.directory = directory
    let config = try JSONParser.parse(read(directory + "/scenario.json"))
    guard case .object(let o) = config,
      let recipe = try ClosedLoopRecipe(config: o, directory: directory)
    else { throw ScenarioError("\(directory)/scenario.json: no closedLoop recipe") }
    self.recipe = recipe
    description = o["description"]?.stringValue ?? ""
    locale = o["locale"]?.stringValue
    units = o["units"]?.stringValue
    routeFile = try read(directory + "/route.json")
    if let bytes = try? read(directory + "/run.jsonl") { run = try ClosedLoopRun(bytes: bytes) }
    track = try? read(directory + "/drive.nmea")
    routerRecording = try? read(directory + "/router.jsonl")
    expectedFile = try? read(directory + "/expected.jsonl")
  }

  /// The score of the recorded drive.
  public func score() throws -> ClosedLoopScore {
    guard let run else {
      throw ScenarioError("\(directory): no run.jsonl yet (\(recordCommand))")
    }
    return ClosedLoopScore(run, name: name)
  }

  /// The expected transcript, or `nil` when the file does not exist yet.
  public func expected() -> [String]? {
    guard let bytes = expectedFile else { return nil }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}
