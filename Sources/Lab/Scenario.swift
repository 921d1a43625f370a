public import Geodesy
public import Guidance
import Instructions
import JSON
import NMEA
public import Phrasebook
import RouteImporters
public import Routes
public import Simulation
import Wire

/// One folder of `Simulations/`: a route, a track, the expected event transcript.
///
/// Layout (documented in `Simulations/README.md`): `route.json` (any supported route format),
/// `drive.nmea` (the track), `scenario.json` (locale, units, route index and the
/// `stepwise simulate` recipe the track was made with), `expected.jsonl` (every event but
/// `PROGRESS`, one JSON object per line) and `README.md`.
public struct Scenario: Sendable {
  public var directory: String
  public var document: RouteDocument
  public var routeIndex = 0
  public var language = Language.en
  public var units = UnitSystem.metric
  public var recipe: DriveOptions?
  /// NMEA talker and sentence types of the simulated track (recipe keys `talker`, `sentences`).
  public var talker = "GP"
  public var sentences = NMEAWriter.Sentence.classic
  public var description = ""
  /// Stretches in which the receiver says nothing at all, not even a no-fix epoch (recipe key
  /// `silences`: `[[at, seconds], …]` after the first epoch): a receiver unplugged, a gpsd
  /// that stopped sending.
  ///
  /// Replays report them as silence (``ReplaySilence``).
  public var silences: [ClosedRange<Double>] = []

  /// The committed track (`drive.nmea`), `nil` before `scenario make` wrote one.
  public var track: [UInt8]?
  /// The expected transcript file (`expected.jsonl`), `nil` before it was written.
  public var expectedFile: [UInt8]?

  public var routePath: String { directory + "/route.json" }
  public var trackPath: String { directory + "/drive.nmea" }
  public var expectedPath: String { directory + "/expected.jsonl" }

  /// Loads the scenario in `directory`, whose files `read` returns by path (it throws for a
  /// file that cannot be read; the track and the transcript may be missing).
  public init(directory: String, read: (String) throws -> [UInt8]) throws {
    self.directory = directory
    do {
      document = try RouteImport.decode(
        try read(directory + "/route.json"),
        writer: { InstructionWriter(language: $0) })
    } catch let error as RouteDocumentError {
      throw ScenarioError("\(directory)/route.json: \(error)")
    }
    track = try? read(directory + "/drive.nmea")
    expectedFile = try? read(directory + "/expected.jsonl")
    let config = try JSONParser.parse(read(directory + "/scenario.json"))
    guard case .object(let o) = config else {
      throw ScenarioError("\(directory)/scenario.json: expected a JSON object")
    }
    if let v = o["locale"]?.stringValue {
      guard let l = Language(rawValue: v) else {
        throw ScenarioError("\(directory): unknown locale \(v)")
      }
      language = l
    }
    if let v = o["units"]?.stringValue {
      guard let u = UnitSystem(rawValue: v) else {
        throw ScenarioError("\(directory): unknown units \(v)")
      }
      units = u
    }
    routeIndex = Int(o["routeIndex"]?.doubleValue ?? 0)
    description = o["description"]?.stringValue ?? ""
    if let r = o["simulate"]?.objectValue {
      recipe = try Self.recipe(r, directory)
      if let t = r["talker"]?.stringValue {
        guard t.utf8.count == 2, t.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
          throw ScenarioError("\(directory): talker must be two capital letters")
        }
        talker = t
      }
      for g in r["silences"]?.arrayValue ?? [] {
        guard let a = g.arrayValue, a.count == 2, let at = a[0].doubleValue,
          let d = a[1].doubleValue, d >= 0
        else { throw ScenarioError("\(directory): silences are [at, seconds] pairs") }
        silences.append(at...(at + d))
      }
      if let list = r["sentences"]?.arrayValue {
        let names = list.compactMap(\.stringValue).joined(separator: ",")
        guard let chosen = NMEAWriter.Sentence.list(names), !chosen.isEmpty else {
          throw ScenarioError("\(directory): unknown sentence in \(names)")
        }
        sentences = chosen
      }
    }
  }

  static func recipe(_ r: JSONObject, _ dir: String) throws -> DriveOptions {
    var o = DriveOptions()
    if let v = r["speedKmh"]?.doubleValue { o.speed = v / 3.6 }
    if let v = r["profile"]?.stringValue {
      guard let p = SpeedProfile(rawValue: v) else {
        throw ScenarioError("\(dir): unknown profile \(v)")
      }
      o.profile = p
    }
    if let v = r["accel"]?.doubleValue { o.acceleration = v }
    if let v = r["brake"]?.doubleValue { o.braking = v }
    if let v = r["speedWander"]?.doubleValue { o.speedWander = v }
    if let v = r["speedWanderCorrelation"]?.doubleValue { o.speedWanderCorrelation = v }
    if let v = r["multipath"]?.doubleValue { o.multipath = v }
    if let v = r["tunnels"]?.boolValue { o.tunnels = v }
    if let v = r["dwell"]?.doubleValue { o.dwell = v }
    if let v = r["endsMoving"]?.boolValue { o.endsMoving = v }
    if let v = r["hz"]?.doubleValue { o.hz = v }
    if let v = r["noise"]?.doubleValue { o.noise = v }
    if let v = r["noiseCorrelation"]?.doubleValue { o.noiseCorrelation = v }
    if let v = r["seed"]?.doubleValue { o.seed = UInt64(v) }
    if let v = r["settle"]?.doubleValue { o.settle = v }
    if let v = r["start"]?.stringValue {
      guard let t = UTCTime.parseISO8601(v) else {
        throw ScenarioError("\(dir): bad start time \(v)")
      }
      o.start = t
    }
    for d in r["dropouts"]?.arrayValue ?? [] {
      guard let a = d.arrayValue, a.count == 2, let f = a[0].doubleValue, let t = a[1].doubleValue
      else { throw ScenarioError("\(dir): dropouts are [from, to] pairs") }
      o.dropouts.append(f...t)
    }
    for s in r["stops"]?.arrayValue ?? [] {
      guard let a = s.arrayValue, a.count == 2, let at = a[0].doubleValue, let d = a[1].doubleValue
      else { throw ScenarioError("\(dir): stops are [at, seconds] pairs") }
      o.stops.append(Stop(at: at, duration: d))
    }
    for c in r["canyons"]?.arrayValue ?? [] {
      guard let a = c.arrayValue, a.count == 3, let f = a[0].doubleValue,
        let t = a[1].doubleValue, let b = a[2].doubleValue
      else { throw ScenarioError("\(dir): canyons are [from, to, bias] triples") }
      o.canyons.append(Canyon(from: f, to: t, bias: b))
    }
    for g in r["gaps"]?.arrayValue ?? [] {
      guard let a = g.arrayValue, a.count == 2, let at = a[0].doubleValue,
        let d = a[1].doubleValue, d >= 0
      else { throw ScenarioError("\(dir): gaps are [at, seconds] pairs") }
      o.gaps.append(at...(at + d))
    }
    if let v = r["glitchEvery"]?.doubleValue { o.glitchEvery = v }
    if let v = r["cornerCut"]?.doubleValue { o.cornerCut = v }
    if let v = r["hdop"]?.doubleValue { o.hdop = v }
    if let v = r["coast"]?.doubleValue { o.coast = v }
    if let v = r["coastFlagged"]?.boolValue { o.coastFlagged = v }
    if let v = r["reacquire"]?.doubleValue { o.reacquire = v }
    if let p = r["pullOut"]?.objectValue {
      let d = PullOut()
      o.pullOut = PullOut(
        turn: p["turn"]?.doubleValue ?? d.turn, radius: p["radius"]?.doubleValue ?? d.radius,
        speed: p["speed"]?.doubleValue ?? d.speed, circle: p["circle"]?.doubleValue ?? d.circle)
    }
    for c in r["shortcuts"]?.arrayValue ?? [] {
      guard let o2 = c.objectValue, let f = o2["from"]?.doubleValue, let t = o2["to"]?.doubleValue,
        t > f
      else { throw ScenarioError("\(dir): shortcuts are {from, to, speed, bulge} with to > from") }
      let d = Shortcut(from: f, to: t)
      o.shortcuts.append(
        Shortcut(
          from: f, to: t, speed: o2["speed"]?.doubleValue ?? d.speed,
          bulge: o2["bulge"]?.doubleValue ?? d.bulge, via: o2["via"]?.doubleValue))
    }
    if let d = r["deviation"]?.objectValue {
      o.deviation = Deviation(
        at: d["at"]?.doubleValue ?? 0, angle: d["angle"]?.doubleValue ?? 60,
        length: d["length"]?.doubleValue ?? 200, rejoin: d["rejoin"]?.boolValue ?? true)
    }
    return o
  }

  /// A fresh session for this scenario.
  public func session() throws -> NavigationSession {
    try NavigationSession(
      document: document, routeIndex: routeIndex,
      phrasing: Phrasebook(language: language, units: units))
  }

  /// The fixes of the committed track.
  public func trackFixes() throws -> [Fix] {
    guard let bytes = track else { throw ScenarioError("\(trackPath): no track yet") }
    var reader = NMEAReader()
    return reader.feed(bytes) + reader.finish()
  }

  /// Replays the track through the pure pipeline, with the daemon's replay rule for silence
  /// (``ReplaySilence``), and returns every event, `PROGRESS` included.
  public func events() throws -> [NavigationEvent] {
    var s = try session()
    return s.replay(try trackFixes())
  }

  /// Replays the track through the pure pipeline and returns the transcript lines.
  public func transcript() throws -> [String] {
    try events().compactMap { e in
      if case .progress = e.kind { return nil }
      return EventLine.text(.navigation(e))
    }
  }

  /// The simulator's drive for the recipe (the truth behind the track), or `nil` without one.
  public func simulatedDrive() throws -> SimulatedDrive? {
    guard let recipe else { return nil }
    return DriveSimulator.drive(try document.route(at: routeIndex), options: recipe)
  }

  /// The expected transcript, or `nil` when the file does not exist yet.
  public func expected() -> [String]? {
    guard let bytes = expectedFile else { return nil }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// Regenerates `drive.nmea` from the recipe.
  public func simulatedTrack() throws -> String {
    guard let recipe else {
      throw ScenarioError("\(directory): scenario.json has no simulate recipe")
    }
    let route = try document.route(at: routeIndex)
    var drive = DriveSimulator.drive(route, options: recipe)
    drive.silence(silences, after: recipe.start)
    var header = ["Name: \(directory.split(separator: "/").last.map(String.init) ?? directory)"]
    if !description.isEmpty { header.append("Description: \(description)") }
    header.append("Source: stepwise simulate (recipe in scenario.json)")
    return drive.nmea(talker: talker, sentences: sentences, header: header)
  }
}

/// A readable line diff (unified style, no context limits) between two transcripts.
public func transcriptDiff(expected: [String], actual: [String]) -> String {
  let n = expected.count
  let m = actual.count
  var lcs = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
  for i in stride(from: n - 1, through: 0, by: -1) {
    for j in stride(from: m - 1, through: 0, by: -1) {
      lcs[i][j] =
        expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
    }
  }
  var out: [String] = ["--- expected", "+++ actual"]
  var i = 0
  var j = 0
  var context: String?
  while i < n || j < m {
    if i < n && j < m && expected[i] == actual[j] {
      context = "  " + expected[i]
      i += 1
      j += 1
    } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
      if let c = context {
        out.append(c)
        context = nil
      }
      out.append("+ " + actual[j])
      j += 1
    } else {
      if let c = context {
        out.append(c)
        context = nil
      }
      out.append("- " + expected[i])
      i += 1
    }
  }
  return out.joined(separator: "\n")
}

/// A scenario folder whose files do not make a scenario.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
