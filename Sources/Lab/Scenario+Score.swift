import Geodesy
public import Guidance
import Matching
import Phrasebook
import RouteShape
public import Routes
public import Simulation

/// How well guidance did on one drive, measured against where the vehicle really was.
///
/// The truth comes from the simulator: re-running a scenario's recipe gives the vehicle's true
/// position at every epoch, so the scorer knows when each maneuver point was reached, when the
/// vehicle left the route and where it stopped. A committed real track has no truth, and the
/// figures that need it are `nil`.
public struct QualityScore: Sendable {
  /// One departure from the route in the truth: the vehicle went at least
  /// ``QualityScore/deviationMinimum`` metres away.
  public struct Departure: Sendable, Equatable {
    /// Time of the last epoch on the route before leaving, seconds since the Unix epoch.
    public var left: Double
    /// Time of the off-route event, `nil` when none came.
    public var reported: Double?
    /// Metres driven from leaving to the event.
    public var metres: Double?
    /// Time of the first epoch ``QualityScore/deviationMinimum`` metres or more from the route.
    public var far: Double = 0
    /// Seconds from leaving to the event.
    public var seconds: Double? { reported.map { $0 - left } }
    /// Seconds from being ``QualityScore/deviationMinimum`` metres off to the event (negative
    /// when reported before).
    public var secondsAfterFar: Double? { reported.map { $0 - far } }
  }

  /// A truth stretch off the route counts as a deviation to report once it goes this far away.
  public static let deviationMinimum = 50.0
  /// Seconds a final announcement must come before its maneuver: about a second to hear the end of
  /// it and two to act, at any speed.
  public static let finalLeadMinimum = 3.0

  public var name: String
  /// Whether the simulator's truth is known (the scenario has a recipe).
  public var hasTruth: Bool
  /// Whether the route is driven (an automobile route), where the lead-time bar applies.
  public var driving: Bool
  /// GPS noise of the recipe, metres.
  public var noise: Double?
  /// Maneuvers (arrival excluded) the vehicle reached; with no truth, those with an announcement.
  public var maneuvers = 0
  /// Maneuvers whose final announcement came before the vehicle reached the maneuver point.
  public var finalBefore: Int?
  /// Seconds from each maneuver's final announcement to reaching it (negative when late).
  public var leadTimes: [Double] = []
  /// The same for maneuvers whose final announcement is their own, not the "then" part of the
  /// previous maneuver's (a pair said as one unit is timed by its first maneuver).
  public var ownLeadTimes: [Double] = []
  /// Maneuvers that got an earlier announcement besides the final one.
  public var withEarlier = 0
  /// Whether the departure was announced.
  public var departureAnnounced = false
  /// Announcements made more than once (the same id again).
  public var duplicates = 0
  /// Off-route events while the vehicle was on the route.
  public var falseOffRoute: Int?
  public var departures: [Departure] = []
  /// Straight-line metres from the truth to the route's end when arrival was announced.
  public var arrivalError: Double?
  /// Whether the drive is expected to arrive (it does not when it leaves for good).
  public var arrivalExpected = true
  /// Steps the vehicle travelled whose start was never reported.
  public var skippedSteps: Int?
  /// Readable notes on each failing maneuver or event, for tuning.
  public var notes: [String] = []

  /// Final-announcement lead median over maneuvers with a final announcement of their own, seconds.
  public var leadMedian: Double? { median(ownLeadTimes) }
  /// Shortest final-announcement lead, seconds.
  public var leadMinimum: Double? { leadTimes.min() }
  /// Maneuvers reached whose final announcement came less than ``finalLeadMinimum`` before them
  /// (late ones included).
  public var shortLeads: Int { leadTimes.filter { $0 < Self.finalLeadMinimum }.count }
  /// Worst delay from being ``deviationMinimum`` metres off to the off-route event, seconds.
  public var worstDelayAfterFar: Double? {
    guard !departures.isEmpty else { return nil }
    return departures.map { $0.secondsAfterFar ?? .infinity }.max()
  }
  /// Worst off-route delay, seconds and metres.
  public var worstDelay: (seconds: Double, metres: Double)? {
    let reported = departures.compactMap { d in d.seconds.map { ($0, d.metres ?? 0) } }
    guard !reported.isEmpty, departures.allSatisfy({ $0.reported != nil }) else {
      return departures.isEmpty ? nil : (.infinity, .infinity)
    }
    return reported.max { $0.0 < $1.0 }
  }
}

func median(_ values: [Double]) -> Double? {
  guard !values.isEmpty else { return nil }
  let v = values.sorted()
  let n = v.count
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
}

extension QualityScore {
  /// Scores `events` of a drive along `route`, with the simulator's `drive` as the truth when
  /// known.
  public init(
    name: String, route: Route, events: [NavigationEvent], truth drive: SimulatedDrive?,
    options: DriveOptions?
  ) {
    self.name = name
    hasTruth = drive != nil
    driving = route.transportType == .automobile
    noise = options?.noise
    let geometry = RouteGeometry(route: route)
    let last = route.steps.count - 1
    var announcements: [(time: Double, a: Announcement)] = []
    var seen = Set<String>()
    var started = Set<Int>()
    var offRoute: [Double] = []
    var arrival: Double?
    for e in events {
      switch e.kind {
      case .announce(let a):
        if a.kind == .depart { departureAnnounced = true }
        if !seen.insert(a.id).inserted {
          duplicates += 1
          notes.append("duplicate announcement \(a.id) at \(clock(e.time, events)) s")
        }
        announcements.append((e.time, a))
      case .step(let s): started.insert(s)
      case .offRoute: offRoute.append(e.time)
      case .arrived: if arrival == nil { arrival = e.time }
      default: break
      }
    }
    func announcementTimes(_ m: Int) -> [Double] {
      announcementList(m).map(\.time)
    }
    func announcementList(_ m: Int) -> [(time: Double, a: Announcement)] {
      announcements.filter { p in
        if p.a.step == m && [.prepare, .approach, .now].contains(p.a.kind) { return true }
        return [.approach, .now].contains(p.a.kind) && p.a.thenSteps.contains(m)
      }
    }
    guard let drive else {
      for m in 1..<max(1, last) {
        let times = announcementTimes(m)
        guard !times.isEmpty else { continue }
        maneuvers += 1
        if times.count > 1 { withEarlier += 1 }
      }
      return
    }
    let truth = drive.truth
    let t0 = truth.first?.time ?? 0
    func rel(_ t: Double) -> String { NMEAWriter.fixed(t - t0, 1) }
    func reaching(_ s: Double) -> Double? {
      truth.first { $0.offset == 0 && $0.distanceAlong >= s - 0.01 }?.time
    }
    func truthAt(_ t: Double) -> TruthSample? {
      var lo = 0
      var hi = truth.count - 1
      guard hi >= 0 else { return nil }
      while lo < hi {
        let mid = (lo + hi) / 2
        if truth[mid].time < t - 0.005 { lo = mid + 1 } else { hi = mid }
      }
      return truth[lo]
    }

    // Departures from the route and the off-route events.
    var stretches: [(start: Int, end: Int)] = []
    var i = 0
    while i < truth.count {
      guard truth[i].offset > 0 else {
        i += 1
        continue
      }
      var j = i
      while j + 1 < truth.count && truth[j + 1].offset > 0 { j += 1 }
      if truth[i...j].contains(where: { $0.offset >= Self.deviationMinimum }) {
        stretches.append((i, j))
      }
      i = j + 1
    }
    // Maneuvers: the final announcement before the point, its lead, an earlier announcement.
    var before = 0
    for m in 1..<max(1, last) {
      // A maneuver the vehicle cut across (turning round before it) was never driven.
      guard let reached = reaching(geometry.stepEnd[m]), !drive.skips(geometry.stepEnd[m]) else {
        continue
      }
      maneuvers += 1
      let times = announcementTimes(m)
      guard let final = times.max() else {
        notes.append("maneuver \(m) (\(route.steps[m].instructions)) never announced")
        continue
      }
      if times.count > 1 { withEarlier += 1 }
      let lead = reached - final
      // A detour between the announcement and the maneuver says nothing about announcement timing.
      let detoured = stretches.contains {
        truth[$0.start].time > final && truth[$0.start].time < reached
      }
      if !detoured {
        leadTimes.append(lead)
        let own = announcementList(m).last { $0.time == final }.map { $0.a.step == m } ?? true
        if own { ownLeadTimes.append(lead) }
      }
      if lead > 0 {
        before += 1
      }
      if lead < Self.finalLeadMinimum {
        notes.append(
          "maneuver \(m) (\(route.steps[m].instructions)): final announcement at \(rel(final)) s, "
            + "reached at \(rel(reached)) s")
      }
    }
    finalBefore = before

    var explained = Set<Int>()
    for st in stretches {
      let leftIndex = max(0, st.start - 1)
      let left = truth[leftIndex].time
      let endTime = truth[st.end].time + 5
      let hit = offRoute.enumerated().first { $0.element >= left && $0.element <= endTime }
      var d = Departure(left: left, reported: hit?.element, metres: nil)
      d.far = truth[st.start...st.end].first { $0.offset >= Self.deviationMinimum }?.time ?? left
      if let hit {
        explained.insert(hit.offset)
        var metres = 0.0
        var k = leftIndex
        while k + 1 < truth.count && truth[k + 1].time <= hit.element + 0.005 {
          metres += truth[k].position.distance(to: truth[k + 1].position)
          k += 1
        }
        d.metres = metres
      } else {
        notes.append("left the route at \(rel(left)) s: no off-route event")
      }
      departures.append(d)
    }
    // Off-route events inside a stretch but after the first one are not false either.
    var falseCount = 0
    for (k, t) in offRoute.enumerated() where !explained.contains(k) {
      let inside = stretches.contains { st in
        t >= truth[max(0, st.start - 1)].time && t <= truth[st.end].time + 5
      }
      if !inside {
        falseCount += 1
        let off = truthAt(t).map { NMEAWriter.fixed($0.offset, 1) } ?? "?"
        notes.append("false off-route at \(rel(t)) s (truth \(off) m from the route)")
      }
    }
    falseOffRoute = falseCount

    // Arrival.
    arrivalExpected = options?.deviation.map(\.rejoin) ?? true
    let end = geometry.points[geometry.points.count - 1]
    if let arrival, let at = truthAt(arrival) {
      arrivalError = at.position.distance(to: end)
    } else if arrivalExpected {
      notes.append("no arrival")
    }

    // Steps travelled but never started.
    var skipped = 0
    for s in 1...max(1, last) {
      let startS = geometry.stepEnd[s - 1]
      // Travelled: well into the step on the route (not just past its start before leaving).
      let travelled =
        truth.contains { $0.offset == 0 && $0.distanceAlong > startS + 15 }
        || (s == 1 && !truth.isEmpty)
      if travelled && !started.contains(s) {
        skipped += 1
        notes.append("step \(s) travelled but never started")
      }
    }
    skippedSteps = skipped
  }

  /// The quality bar of the scenario suite; returns what this drive misses of it.
  ///
  /// The departure announced; every maneuver's final announcement at least
  /// ``finalLeadMinimum`` before the maneuver; a median final-announcement lead of 4–10 s on
  /// driven routes; no duplicate announcement; no false off-route event with noise up to 15 m;
  /// every departure from the route reported within 5 s; arrival within 25 m; no skipped step.
  public func violations() -> [String] {
    guard hasTruth else { return [] }
    var out: [String] = []
    if !departureAnnounced { out.append("departure never announced") }
    if let f = finalBefore, f < maneuvers {
      out.append("final announcement before the maneuver: \(f) of \(maneuvers)")
    }
    if shortLeads > 0 {
      out.append(
        "\(shortLeads) final announcements under \(NMEAWriter.fixed(Self.finalLeadMinimum, 0)) s before "
          + "the maneuver")
    }
    if driving, let m = leadMedian, !(4...10).contains(m) {
      out.append("median final-announcement lead \(NMEAWriter.fixed(m, 1)) s (bar 4–10 s)")
    }
    if duplicates > 0 { out.append("\(duplicates) duplicate announcements") }
    if let f = falseOffRoute, f > 0, (noise ?? 0) <= 15 {
      out.append("\(f) false off-route events")
    }
    for d in departures {
      guard let s = d.seconds else {
        out.append("departure at \(NMEAWriter.fixed(d.left, 1)) never reported")
        continue
      }
      if let f = d.secondsAfterFar, f > 5 {
        out.append(
          "off-route \(NMEAWriter.fixed(f, 1)) s after being "
            + "\(NMEAWriter.fixed(Self.deviationMinimum, 0)) m off (bar 5 s; \(NMEAWriter.fixed(s, 1)) s after leaving)"
        )
      }
    }
    if arrivalExpected {
      if let a = arrivalError {
        if a > 25 { out.append("arrival \(NMEAWriter.fixed(a, 1)) m from the end (bar 25 m)") }
      } else {
        out.append("no arrival")
      }
    }
    if let s = skippedSteps, s > 0 { out.append("\(s) skipped steps") }
    return out
  }
}

private func clock(_ t: Double, _ events: [NavigationEvent]) -> String {
  NMEAWriter.fixed(t - (events.first?.time ?? t), 1)
}

extension Scenario {
  /// Scores the committed track against the simulator's truth (re-simulated from the recipe).
  public func score() throws -> QualityScore {
    let route = try document.route(at: routeIndex)
    let name = directory.split(separator: "/").last.map(String.init) ?? directory
    return QualityScore(
      name: name, route: route, events: try events(), truth: try simulatedDrive(),
      options: recipe)
  }
}

/// The score table: one row per scenario and a total row, as text or Markdown.
public enum QualityTable {
  /// Column headings.
  public static let headings = [
    "scenario", "departed", "maneuvers", "final before %", "final < 3 s", "lead median s",
    "lead min s", "earlier %",
    "duplicates", "false off-route", "off-route delay s", "off-route delay m",
    "delay after 50 m s", "arrival error m",
    "skipped steps",
  ]

  /// The cells of one score's row.
  public static func row(_ s: QualityScore) -> [String] {
    let na = "n/a"
    func f(_ v: Double?, _ d: Int = 1) -> String { v.map { NMEAWriter.fixed($0, d) } ?? "–" }
    func pct(_ n: Int?, _ of: Int) -> String {
      guard let n else { return na }
      return of == 0 ? "–" : NMEAWriter.fixed(100 * Double(n) / Double(of), 0)
    }
    let delay = s.worstDelay
    let delayS = delay.map { $0.seconds.isFinite ? f($0.seconds) : "missed" }
    let delayM = delay.map { $0.metres.isFinite ? f($0.metres, 0) : "missed" }
    return [
      s.name, s.departureAnnounced ? "yes" : "no", String(s.maneuvers),
      pct(s.finalBefore, s.maneuvers), s.hasTruth ? String(s.shortLeads) : na,
      s.hasTruth ? f(s.leadMedian) : na, s.hasTruth ? f(s.leadMinimum) : na,
      pct(s.withEarlier, s.maneuvers), String(s.duplicates),
      s.falseOffRoute.map(String.init) ?? na,
      s.hasTruth ? (delayS ?? "–") : na, s.hasTruth ? (delayM ?? "–") : na,
      s.hasTruth
        ? (s.worstDelayAfterFar.map { $0.isFinite ? f($0) : "missed" } ?? "–") : na,
      s.hasTruth ? (s.arrivalExpected ? f(s.arrivalError) : "–") : na,
      s.skippedSteps.map(String.init) ?? na,
    ]
  }

  /// The total over several scores: sums of counts, percentages over all maneuvers, the median
  /// and minimum over all leads, the worst delay and arrival error.
  public static func total(_ scores: [QualityScore]) -> QualityScore {
    var t = QualityScore(name: "total", hasTruth: true, driving: false)
    t.departureAnnounced = scores.allSatisfy(\.departureAnnounced)
    let known = scores.filter(\.hasTruth)
    t.maneuvers = known.reduce(0) { $0 + $1.maneuvers }
    t.finalBefore = known.reduce(0) { $0 + ($1.finalBefore ?? 0) }
    t.leadTimes = known.flatMap(\.leadTimes)
    t.ownLeadTimes = known.flatMap(\.ownLeadTimes)
    t.withEarlier = known.reduce(0) { $0 + $1.withEarlier }
    t.duplicates = scores.reduce(0) { $0 + $1.duplicates }
    t.falseOffRoute = known.reduce(0) { $0 + ($1.falseOffRoute ?? 0) }
    t.departures = known.flatMap(\.departures)
    t.arrivalError = known.compactMap(\.arrivalError).max()
    t.skippedSteps = known.reduce(0) { $0 + ($1.skippedSteps ?? 0) }
    return t
  }

  /// The table as aligned text lines.
  public static func text(_ scores: [QualityScore]) -> [String] {
    let rows = [headings] + scores.map(row) + [row(total(scores))]
    return TextColumns.lines(rows, rightAligned: Set(1..<headings.count)) + footnotes(scores)
  }

  /// The table as a Markdown document (the body of `docs/quality.md`).
  public static func markdown(_ scores: [QualityScore], command: String) -> [String] {
    var out = [
      "# Guidance quality", "",
      "Generated by `\(command)`; do not edit by hand.", "",
      "Figures per scenario of `Simulations/`, measured against the simulator's truth (the recipe is",
      "re-run to know where the vehicle really was). \"departed\": whether the departure was announced;",
      "\"final before %\": maneuvers whose last announcement came before the vehicle reached the maneuver",
      "point; \"final < 3 s\": maneuvers whose last announcement came less than 3 s before it (the bar is",
      "none); \"lead\": seconds from that announcement to the point (the median over maneuvers with a",
      "final announcement of their own: one said only as the \"then\" of the previous maneuver's final",
      "announcement is timed with it); \"earlier %\": maneuvers that also got an earlier announcement;",
      "\"off-route delay\": from the last epoch on the route to the off-route event (worst departure), in",
      "seconds and metres driven; \"delay after 50 m\": from the first epoch 50 m off the route to the",
      "event (the bar: at most 5 s); \"arrival error\": metres from the true position to the route's end",
      "when arrival was announced. The total row sums counts, takes percentages and the lead median",
      "over all maneuvers, and the worst delay and arrival error.", "",
      "| " + headings.joined(separator: " | ") + " |",
      "|" + headings.map { _ in "---" }.joined(separator: "|") + "|",
    ]
    for r in scores.map(row) + [row(total(scores))] {
      out.append("| " + r.joined(separator: " | ") + " |")
    }
    let notes = footnotes(scores)
    if !notes.isEmpty {
      out.append("")
      out += notes.map { "- " + $0.trimmingPrefix("  ") }
    }
    return out
  }

  static func footnotes(_ scores: [QualityScore]) -> [String] {
    var out: [String] = []
    for s in scores where !s.hasTruth {
      out.append(
        "  \(s.name): a committed track without a recipe, so there is no truth: final-announcement %, "
          + "lead times, false off-route, off-route delay, arrival error and skipped steps cannot "
          + "be known (maneuvers and earlier % count announced maneuvers only).")
    }
    for s in scores {
      let v = s.violations()
      if !v.isEmpty { out.append("  \(s.name) below the bar: " + v.joined(separator: "; ")) }
    }
    return out
  }
}

extension QualityScore {
  init(name: String, hasTruth: Bool, driving: Bool) {
    self.name = name
    self.hasTruth = hasTruth
    self.driving = driving
  }
}

extension String {
  fileprivate func trimmingPrefix(_ p: String) -> String {
    hasPrefix(p) ? String(dropFirst(p.count)) : self
  }
}
