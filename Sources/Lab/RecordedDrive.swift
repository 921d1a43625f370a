public import Geodesy
public import Guidance
import Matching
import NMEA
public import Phrasebook
import RouteShape
public import Routes
public import Simulation

/// A recorded drive (real fixes) replayed against a route that is the path driven, and scored
/// with the scenarios' measures (``QualityScore``).
///
/// A real track has no simulator's truth, so one is derived from the fixes: each valid fix is
/// carried onto the route at the point that best fits both its position and where its speed
/// takes it from the last one (the distance to the route plus a quarter of the metres from that
/// expected point along the route), never more than 20 m behind the last one nor more than 40 m
/// plus twice the metres its speed covers ahead (the first fix within 200 m of the start), and
/// counts as on the route; the truth never goes backwards. When that point costs over 30, the
/// truth was left behind, and it catches up at the first point within 2 km ahead that is within
/// 30 m of the fix. Because the route is the path driven,
/// every off-route event is false.
public struct RecordedDrive: Sendable {
  public var document: RouteDocument
  public var routeIndex: Int
  public var phrasing: Phrasebook
  public var fixes: [Fix]

  public init(document: RouteDocument, routeIndex: Int = 0, phrasing: Phrasebook, fixes: [Fix]) {
    self.document = document
    self.routeIndex = routeIndex
    self.phrasing = phrasing
    self.fixes = fixes
  }

  /// Replays the fixes through the pure pipeline, with the daemon's replay rule for silence,
  /// as ``Scenario/events()`` does.
  public func events() throws -> [NavigationEvent] {
    var s = try NavigationSession(document: document, routeIndex: routeIndex, phrasing: phrasing)
    return s.replay(fixes)
  }

  /// The truth derived from the fixes (see the type's description).
  public func truth() throws -> SimulatedDrive {
    let geometry = RouteGeometry(route: try document.route(at: routeIndex))
    let cumulative = geometry.cumulative
    var along = 0.0
    var segment = 0
    var lastTime: Double?
    var truth: [TruthSample] = []
    for fix in fixes {
      guard fix.isValid, let c = fix.coordinate else { continue }
      let dt = lastTime.map { max(1, fix.time - $0) } ?? 0
      let covered = (fix.speed ?? Self.fastest) * dt
      let expected = along + (fix.speed ?? 0) * dt
      let from = along - Self.behind
      let to = lastTime == nil ? Self.firstAhead : along + Self.ahead + 2 * covered
      while segment + 1 < geometry.segmentCount && cumulative[segment + 1] < from { segment += 1 }
      var best: (cost: Double, along: Double)?
      var i = segment
      while i < geometry.segmentCount && cumulative[i] <= to {
        let p = project(c, ontoSegmentFrom: geometry.points[i], to: geometry.points[i + 1])
        let s = cumulative[i] + p.fraction * (cumulative[i + 1] - cumulative[i])
        let cost = p.distance + Self.alongWeight * abs(s - expected)
        if s >= from, s <= to, best.map({ cost < $0.cost }) ?? true { best = (cost, s) }
        i += 1
      }
      if let best { along = max(along, best.along) }
      // Left behind (a loop the route misses, a stop the match did not follow): catch up at the
      // first point ahead that is close to the fix.
      if best.map({ $0.cost > Self.lost }) ?? true, lastTime != nil {
        var k = segment
        while k < geometry.segmentCount && cumulative[k] <= along + Self.catchUp {
          let p = project(c, ontoSegmentFrom: geometry.points[k], to: geometry.points[k + 1])
          let s = cumulative[k] + p.fraction * (cumulative[k + 1] - cumulative[k])
          if s > along, p.distance <= Self.lost {
            along = s
            break
          }
          k += 1
        }
      }
      lastTime = fix.time
      truth.append(
        TruthSample(
          recorded: c, time: fix.time, distanceAlong: along, speed: fix.speed ?? 0,
          course: fix.course ?? 0))
    }
    return SimulatedDrive(recordedTruth: truth, fixes: fixes)
  }

  static let behind = 20.0
  static let ahead = 40.0
  static let firstAhead = 200.0
  static let fastest = 70.0
  static let alongWeight = 0.25
  static let lost = 30.0
  static let catchUp = 2000.0

  /// Replays and scores the drive.
  public func score(name: String) throws -> RecordedDriveScore {
    let events = try events()
    let quality = QualityScore(
      name: name, route: try document.route(at: routeIndex), events: events,
      truth: try truth(), options: nil)
    let first = events.lazy.compactMap { e -> Announcement? in
      if case .announce(let a) = e.kind { return a }
      return nil
    }.first
    return RecordedDriveScore(
      quality: quality, departureFirst: first?.kind == .depart,
      offRoute: events.filter { if case .offRoute = $0.kind { true } else { false } }.count)
  }

  /// Fixes from a `t,lat,lon` CSV, with speed and course from the fixes either side.
  ///
  /// The times are relative seconds counted from `start` (seconds since the Unix epoch); a
  /// header line and extra columns are allowed.
  public static func csvFixes(_ bytes: [UInt8], start: Double) throws -> [Fix] {
    var points: [(t: Double, c: Coordinate)] = []
    for (n, line) in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
      .enumerated()
    {
      let cells = line.split(separator: ",").map { $0.trimmingCharacters() }
      guard cells.count >= 3, let t = Double(cells[0]), let la = Double(cells[1]),
        let lo = Double(cells[2])
      else {
        if n == 0 || line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
        throw ScenarioError("line \(n + 1): expected t,lat,lon")
      }
      guard (-90...90).contains(la), (-180...180).contains(lo) else {
        throw ScenarioError("line \(n + 1): latitude or longitude out of range")
      }
      points.append((t, Coordinate(latitude: la, longitude: lo)))
    }
    return points.indices.map { i in
      let a = points[max(0, i - 1)]
      let b = points[min(points.count - 1, i + 1)]
      let d = a.c.distance(to: b.c)
      let speed = d / max(b.t - a.t, 1e-6)
      return Fix(
        time: start + points[i].t, coordinate: points[i].c, speed: speed,
        course: d > 0.5 ? a.c.bearing(to: b.c) : nil, hdop: 1.5, satellites: 8)
    }
  }
}

/// The real-drive bar (issue 35's, and the real-drive scorer's): every maneuver prompted (its own
/// announcement or the "then" clause of the one before) at least ``leadMinimum`` seconds before
/// it is reached, the departure said first, no off-route at all, arrival within 25 m.
public struct RecordedDriveScore: Sendable {
  public var quality: QualityScore
  public var departureFirst: Bool
  public var offRoute: Int

  /// Seconds a final prompt must come before its maneuver on a real drive.
  public static let leadMinimum = 2.0
  public static let arrivalMaximum = 25.0

  /// Maneuvers reached that were never prompted before they were reached.
  public var unprompted: Int { quality.maneuvers - quality.leadTimes.filter { $0 > 0 }.count }
  /// Maneuvers prompted, but under ``leadMinimum`` before them.
  public var shortLeads: Int { quality.leadTimes.filter { $0 > 0 && $0 < Self.leadMinimum }.count }

  /// What the drive misses of the bar; empty when clean.
  public func violations() -> [String] {
    var out: [String] = []
    if !departureFirst { out.append("the first prompt is not the departure") }
    if unprompted > 0 {
      out.append("\(unprompted)/\(quality.maneuvers) maneuvers never prompted before reached")
    }
    if shortLeads > 0 {
      out.append("\(shortLeads) final prompts under \(NMEAWriter.fixed(Self.leadMinimum, 0)) s")
    }
    if offRoute > 0 { out.append("\(offRoute) false off-route") }
    if let a = quality.arrivalError {
      if a > Self.arrivalMaximum { out.append("arrival \(NMEAWriter.fixed(a, 1)) m from the end") }
    } else {
      out.append("no arrival")
    }
    return out
  }

  /// The one-line verdict.
  public var verdict: String {
    let q = quality
    let prompted = q.maneuvers - unprompted
    let summary =
      "\(prompted)/\(q.maneuvers) maneuvers prompted, min final lead "
      + (q.leadMinimum.map { NMEAWriter.fixed($0, 1) } ?? "-")
      + " s, \(offRoute) off-route, arrival "
      + (q.arrivalError.map { NMEAWriter.fixed($0, 1) + " m" } ?? "never")
    let v = violations()
    return v.isEmpty
      ? "\(q.name): clean: \(summary)" : "\(q.name): FAIL \(v.joined(separator: "; ")) [\(summary)]"
  }
}

extension Substring {
  fileprivate func trimmingCharacters() -> Substring {
    var s = self
    while s.first?.isWhitespace == true { s.removeFirst() }
    while s.last?.isWhitespace == true { s.removeLast() }
    return s
  }
}

extension RecordedDrive {
  /// Whether a track is a `t,lat,lon` CSV: its first line that is neither empty nor a `#`
  /// comment is neither NMEA (`$`, `!`) nor a gpsd report (`{`), and has commas.
  public static func isCSV(_ bytes: [UInt8]) -> Bool {
    for line in String(decoding: bytes.prefix(4096), as: UTF8.self).split(
      whereSeparator: \.isNewline)
    {
      let l = line.trimmingCharacters()
      guard let first = l.first, first != "#" else { continue }
      return first != "$" && first != "!" && !l.contains("{") && l.contains(",")
    }
    return false
  }
}

extension RecordedDrive {
  /// The fixes of an NMEA track, read as the scenarios read theirs.
  public static func nmeaFixes(_ bytes: [UInt8]) -> [Fix] {
    var reader = NMEAReader()
    return reader.feed(bytes) + reader.finish()
  }
}

extension RecordedDrive {
  /// One outage cut out of a recorded drive, and how guidance went through it.
  public struct Outage: Sendable {
    /// Seconds after the drive's first fix, and how long.
    public var at: Double
    public var length: Double
    /// The maneuver the outage was placed around (`nil`: placed by time alone).
    public var maneuver: Int?
    /// Seconds from the last fix before the cut to the first after it: longer than `length`
    /// when the cut joins a gap of the drive's own.
    public var blind: Double
    public var score: OutageScore
  }

  /// Outages of each of `lengths` seconds cut out of the drive (every fix inside becomes an
  /// epoch without a fix, as a receiver in a tunnel reports): at `count` points spread evenly
  /// over the drive, and around every maneuver, one ending halfway to it in time (the maneuver
  /// inside the outage) and one ending 3 s before it (the maneuver right after), each scored
  /// against the drive without it (``OutageScore``) with the truth derived from all the fixes.
  public func outages(count: Int, lengths: [Double]) throws -> [Outage] {
    let truth = try truth().truth
    let valid = fixes.filter(\.isValid)
    guard let first = valid.first?.time, let last = valid.last?.time else { return [] }
    let geometry = RouteGeometry(route: try document.route(at: routeIndex))
    var reached: [(Int, Double)] = []
    for m in 1..<max(1, geometry.stepEnd.count - 1) {
      if let t = truth.first(where: { $0.distanceAlong >= geometry.stepEnd[m] - 0.01 })?.time {
        reached.append((m, t))
      }
    }
    var out: [Outage] = []
    for length in lengths {
      // Not over the departure nor the arrival: 20 s of fixes before and after.
      let earliest = first + 20
      let latest = last - 20 - length
      guard latest > earliest else { continue }
      var starts: [(Double, Int?)] = []
      for k in 0..<max(0, count) {
        starts.append((earliest + (latest - earliest) * Double(k) / Double(max(1, count - 1)), nil))
      }
      for (m, t) in reached {
        starts.append((t - length / 2, m))
        starts.append((t - 3 - length, m))
      }
      for (at, maneuver) in starts where at >= earliest && at <= latest {
        // Inside the drive's own gap it cuts nothing: that outage is the drive's, not a cut's.
        guard var cut = try outage(at: at - first, length: length, truth: truth) else { continue }
        cut.maneuver = maneuver
        out.append(cut)
      }
    }
    return out
  }

  /// One outage of `length` seconds cut out of the drive `at` seconds after its first valid fix.
  ///
  /// Scored as ``outages(count:lengths:)`` scores each; `nil` when it cuts no fix (inside a gap
  /// of the drive's own, or beyond its ends). `truth` is ``truth()``'s, when already made.
  public func outage(at: Double, length: Double, truth: [TruthSample]? = nil) throws -> Outage? {
    let valid = fixes.filter(\.isValid)
    guard let window = window(at: at, length: length) else { return nil }
    guard valid.contains(where: { window.contains($0.time) }) else { return nil }
    let score = try OutageScore(
      document: document, routeIndex: routeIndex, phrasing: phrasing, plain: fixes,
      dark: darkFixes(window), truth: try truth ?? self.truth().truth, outage: window)
    let before = valid.last { $0.time < window.lowerBound }?.time ?? window.lowerBound
    let after = valid.first { $0.time > window.upperBound }?.time ?? window.upperBound
    return Outage(at: at, length: length, maneuver: nil, blind: after - before, score: score)
  }

  /// The drive's fixes with every one inside `window` (fix-clock seconds) an epoch without a
  /// fix, as a receiver in a tunnel reports.
  public func darkFixes(_ window: ClosedRange<Double>) -> [Fix] {
    fixes.map { f in window.contains(f.time) ? Fix.noFix(time: f.time) : f }
  }

  /// What guidance says through an outage of `length` seconds `at` seconds after the drive's
  /// first valid fix (replayed as ``events()`` replays the whole drive).
  public func events(outageAt at: Double, length: Double) throws -> [NavigationEvent] {
    guard let window = window(at: at, length: length) else { return try events() }
    var s = try NavigationSession(document: document, routeIndex: routeIndex, phrasing: phrasing)
    return s.replay(darkFixes(window))
  }

  /// Fix-clock seconds of an outage of `length` seconds `at` seconds after the first valid fix.
  private func window(at: Double, length: Double) -> ClosedRange<Double>? {
    fixes.first(where: \.isValid).map { ($0.time + at)...($0.time + at + length) }
  }
}
