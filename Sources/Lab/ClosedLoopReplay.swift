public import Geodesy
public import Guidance
import GuidanceSettings
import Instructions
import NMEA
import Phrasebook
public import Rerouting
import RouteImporters
import Routes
import Wire

/// Replays a recorded closed-loop drive without a router or a daemon: the fixes as the
/// vehicle drove them (`drive.nmea`) through the guidance core, and each request the core
/// makes answered from the recording (`router.jsonl`), each answer handed over right after the
/// fix it followed in the daemon and at the time it did.
///
/// The input order is the daemon's paced replay's (``ReplaySilence`` before a fix, the fix, its
/// `REROUTE` if where rerouting stands changed, then the answers that came after it), so the
/// transcript is the daemon's `--json` output without `PROGRESS`, `SOURCE` and shutdown lines.
///
/// A core that asks for a route the recording does not have (another id, or the same id from
/// another origin), or that does not ask for one it has, makes the recording stale: the replay
/// stops with ``ScenarioError`` rather than inventing an answer.
public struct ClosedLoopReplay {
  /// What the core asks for and what the router answered, in the recording's order.
  struct Recording {
    var router: GuidanceCore.Router?
    var requests: [String: (request: RouteRequest, time: Double)] = [:]
    var order: [String] = []
    var answers:
      [(id: String, result: Result<RouteDocument, RouterFailure>, after: Double?, time: Double)] =
        []

    init(_ exchanges: [RouterExchange]) {
      for e in exchanges {
        switch e {
        case .router(let r): router = r
        case .request(let q, let time):
          requests[q.id] = (q, time)
          order.append(q.id)
        case .answer(let id, let result, let after, let time):
          answers.append((id, result, after, time))
        }
      }
    }
  }

  /// The transcript of `session` (the scenario's first route) driven by `fixes`, with the
  /// router of `exchanges`; `name` and `hint` go into the errors.
  ///
  /// - Throws: ``ScenarioError`` when the recording has no router line or is stale.
  public static func transcript(
    session: NavigationSession, fixes: [Fix], exchanges: [RouterExchange], name: String,
    hint: String
  ) throws(ScenarioError) -> [String] {
    let recording = Recording(exchanges)
    guard let router = recording.router else {
      throw ScenarioError("\(name): the router recording has no ROUTER line")
    }
    var core = GuidanceCore(session: session, router: router)
    var silence = ReplaySilence(lostAfter: session.configuration.gpsLostAfter)
    var lines: [String] = []
    var asked = Set<String>()
    var next = 0
    func stale(_ why: String) -> ScenarioError {
      ScenarioError("\(name): the recording is stale: \(why); record it again (\(hint))")
    }
    // `REROUTE` follows a fix's or an answer's events, never silence's (as in the engine).
    func publish(
      _ events: [NavigationEvent], _ effects: [GuidanceEffect], time: Double, status: Bool = true
    ) throws(ScenarioError) {
      for case .requestRoute(let q) in effects {
        guard let (recorded, _) = recording.requests[q.id] else {
          throw stale(
            "the core asks for route \(q.id) at \(UTCTime.iso8601(time)), which the recording "
              + "does not have")
        }
        guard recorded == q else {
          throw stale(
            "the core asks for route \(q.id) at \(UTCTime.iso8601(time)) from "
              + "\(q.origin.coordinate) (course \(q.origin.course.map { "\($0)" } ?? "none"), "
              + "speed \(q.origin.speed)), the recording from \(recorded.origin.coordinate) "
              + "(course \(recorded.origin.course.map { "\($0)" } ?? "none"), speed "
              + "\(recorded.origin.speed))")
        }
        asked.insert(q.id)
      }
      for e in events {
        if case .progress = e.kind { continue }
        lines.append(EventLine.text(.navigation(e)))
      }
      if status, let status = core.rerouteStatusChange(),
        let wire = ReroutingEvent.Status(rawValue: status.rawValue)
      {
        lines.append(EventLine.text(.rerouting(ReroutingEvent(time: time, status: wire))))
      }
    }
    func answer(after fix: Double?) throws(ScenarioError) {
      while next < recording.answers.count, recording.answers[next].after == fix {
        let a = recording.answers[next]
        next += 1
        guard asked.contains(a.id) else {
          throw stale(
            "the recording answers route \(a.id) after the fix of "
              + "\(fix.map(UTCTime.iso8601) ?? "none"), before the core asked for it")
        }
        let (events, effects) = core.update(
          .routerAnswered(id: a.id, result: a.result, time: a.time))
        try publish(events, effects, time: a.time)
      }
    }
    try answer(after: nil)
    var events: [NavigationEvent] = []
    var effects: [GuidanceEffect] = []
    for fix in fixes {
      if let t = silence.before(fix.time) {
        try publish(core.update(.silence(at: t)).events, [], time: t, status: false)
      }
      events.removeAll(keepingCapacity: true)
      effects.removeAll(keepingCapacity: true)
      core.update(.fix(fix), events: &events, effects: &effects)
      try publish(events, effects, time: fix.time)
      try answer(after: fix.time)
    }
    if next < recording.answers.count {
      let a = recording.answers[next]
      throw stale(
        "the recording answers route \(a.id) after the fix of "
          + "\(a.after.map(UTCTime.iso8601) ?? "none"), which the replay never took")
    }
    if let missing = recording.order.first(where: { !asked.contains($0) }) {
      throw stale("the recording asks for route \(missing), the core never did")
    }
    return lines
  }
}

extension ClosedLoopScenario {
  /// The recorded drive replayed through the guidance core with the recorded router's answers
  /// (``ClosedLoopReplay``): every event but `PROGRESS`, one JSON line each.
  public func transcript() throws -> [String] {
    guard let track, let routerRecording else {
      throw ScenarioError(
        "\(directory): no drive.nmea and router.jsonl yet (\(recordCommand))")
    }
    let language = try locale.map { l in
      guard let v = Language(rawValue: l) else {
        throw ScenarioError("\(directory): unknown locale \(l)")
      }
      return v
    }
    let unitSystem = try units.map { u in
      guard let v = UnitSystem(rawValue: u) else {
        throw ScenarioError("\(directory): unknown units \(u)")
      }
      return v
    }
    let document: RouteDocument
    do {
      document = try RouteImport.decode(routeFile, writer: { InstructionWriter(language: $0) })
    } catch {
      throw ScenarioError("\(routePath): \(error)")
    }
    let session = try NavigationSession(
      document: document, routeIndex: 0,
      phrasing: Phrasebook(language: language ?? .en, units: unitSystem ?? .metric))
    var reader = NMEAReader()
    let fixes = reader.feed(track) + reader.finish()
    let exchanges: [RouterExchange]
    do {
      exchanges = try RouterExchange.lines(routerRecording)
    } catch {
      throw ScenarioError("\(routerPath): \(error)")
    }
    return try ClosedLoopReplay.transcript(
      session: session, fixes: fixes, exchanges: exchanges, name: directory, hint: recordCommand)
  }

}
