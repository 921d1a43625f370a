public import Events
import Geodesy
import Glibc
public import Guidance
import POSIX
import Rerouting
import Router
public import Routes
import Synchronization
import Wire

/// A counter the engine bumps for every input it handles, for a watchdog that must tell a stuck
/// engine from a quiet GPS (systemd's `WATCHDOG=1` goes out only while it moves).
public final class EngineHeartbeat: Sendable {
  private let counter = Atomic<UInt64>(0)
  public init() {}
  /// The number of inputs handled so far.
  public var value: UInt64 { counter.load(ordering: .relaxed) }
  func bump() { counter.add(1, ordering: .relaxed) }
}

/// The one owner of the guidance session: takes inputs in order, calls the session, and
/// publishes what it returns.
///
/// No actor wraps the session: a single loop gives ordering for free and has no reentrancy.
/// Everything else talks to the engine through its input stream (fix sources, the live
/// ticker, the socket's commands, router answers and the watchdog's probe) and listens through
/// the ``EventPublisher``.
public struct Engine {
  /// The pure core: the session and when to reroute; the engine carries out its effects.
  private var core: GuidanceCore
  /// The session being guided; `nil` after a `cancel`.
  public var session: NavigationSession? { core.session }
  /// Builds a session for an alternative of a document (select, load, reload).
  public var makeSession: (@Sendable (RouteDocument, Int) throws -> NavigationSession)?
  /// Told after every input and every change of session (state saving, systemd status).
  public var observer: (any EngineObserver)?
  /// Asks a router for a new route when the vehicle leaves its route; `nil`: no router.
  public var rerouter: Rerouter? {
    didSet { core = GuidanceCore(session: core.session, router: rerouter?.core) }
  }
  /// The input stream, once running: router answers come back through it.
  private var inputs: EngineInputs?
  /// In a `--fast` replay, the request the engine waits for before its next input, with the
  /// time of the fix that asked, and the fixes of its batch not yet handled.
  private var awaiting: (request: RouteRequest, time: Double)?
  private var deferred: ArraySlice<Fix> = []
  /// Told when a reroute replaced the session's route (the socket's `routes` follows it).
  public var rerouted: (@Sendable (NavigationSession) -> Void)?
  /// Told each request the core makes and each answer it takes (`--record-router`).
  public var recordRouter: (@Sendable (RouterExchange) -> Void)?
  /// The time of the last fix the core took: a recorded answer came right after it.
  private var lastFix: Double?
  public let publisher: EventPublisher
  public let heartbeat: EngineHeartbeat
  /// Where `SOURCE` events say the fixes come from.
  public var sourceName = ""
  private let clock: any PacingClock
  private let utcNow: @Sendable () -> Double
  /// The fix clock: the newest epoch's time and the monotonic time it arrived.
  private var anchor: (fixTime: Double, monotonic: Double)?
  /// Events published so far.
  public private(set) var events = 0
  /// Watchdog probes handled.
  private var probes = 0
  #if DEBUG
    private static let stallAfterProbes: Int? = getenv("STEPWISE_TEST_STALL_AFTER_PROBES").flatMap {
      Int(String(cString: $0))
    }
  #endif
  /// The document of a cancelled session, for a later `select`.
  private var lastDocument: RouteDocument?
  /// The events of a batch of fixes, kept to reuse its storage.
  private var batch: [NavigationEvent] = []
  /// The revision of the newest route applied (``NavigationSession/routeRevision``).
  private var revision: Int

  public init(
    session: NavigationSession?, publisher: EventPublisher,
    heartbeat: EngineHeartbeat = EngineHeartbeat(),
    clock: any PacingClock = SystemClock(), utcNow: @escaping @Sendable () -> Double = UTCClock.now
  ) {
    core = GuidanceCore(session: session, router: nil)
    revision = session?.routeRevision ?? 0
    self.publisher = publisher
    self.heartbeat = heartbeat
    self.clock = clock
    self.utcNow = utcNow
  }

  /// Handles every input until the stream ends.
  ///
  /// `ticks`, for a live source, is the timer that posts `.tick` when the engine asks
  ///   for one (``nextTick(interval:)``); armed after every input, and never periodic while
  ///   nothing can happen.
  public mutating func run(_ inputs: EngineInputs, ticks: TickTimer? = nil) async {
    self.inputs = inputs
    for await input in inputs.stream {
      handle(input)
      await settleRouteRequest()
      inputs.consumed(input)
      if let ticks { ticks.arm(at: nextTick(interval: ticks.interval), now: clock.now()) }
    }
  }

  /// When a live engine next needs a `.tick` (monotonic seconds, on the engine's clock), or
  /// `nil` when no silence can change anything: the session says when
  /// (``NavigationSession/nextSilenceCheck(now:)``: the loss, a heads-up), the engine maps it to
  /// its clock, ticking every `interval` seconds while dead reckoning needs it.
  public func nextTick(interval: Double) -> Double? {
    guard let s = session, let a = anchor else { return nil }
    let now = clock.now()
    let fixNow = a.fixTime + max(0, now - a.monotonic)
    guard let check = s.nextSilenceCheck(now: fixNow) else { return nil }
    let due = check.due.map { a.monotonic + ($0 - a.fixTime) }
    if check.periodic { return min(now + interval, due ?? .infinity) }
    return due
  }

  /// In a `--fast` replay, awaits the answer to the request the last input made and handles it
  /// (timed as the fix that asked), then the rest of that input's fixes.
  private mutating func settleRouteRequest() async {
    while let (request, time) = awaiting, let r = rerouter {
      awaiting = nil
      let answer = await r.answer(request)
      answered(answer, time: time)
      if !deferred.isEmpty {
        let rest = Array(deferred)
        deferred = []
        handle(.fixes(rest))
      }
    }
  }

  /// Handles one input, synchronously.
  public mutating func handle(_ input: EngineInput) {
    heartbeat.bump()
    switch input {
    case .fix(let fix):
      advanceAnchor(to: fix.time)
      if session != nil {
        var list: [NavigationEvent] = []
        var effects: [GuidanceEffect] = []
        core.update(.fix(fix), events: &list, effects: &effects)
        lastFix = fix.time
        carry(effects, time: fix.time)
        publish(list)
        publishRerouting(time: fix.time)
      }
    case .fixes(let fixes):
      var list = batch
      list.removeAll(keepingCapacity: true)
      batch = []
      var effects: [GuidanceEffect] = []
      var newest = -Double.infinity
      for (k, fix) in fixes.enumerated() {
        newest = max(newest, fix.time)
        core.update(.fix(fix), events: &list, effects: &effects)
        lastFix = fix.time
        if !effects.isEmpty {
          carry(effects, time: fix.time)
          effects.removeAll()
          // Waiting for the router: the rest of the batch comes after its answer.
          if awaiting != nil {
            deferred = fixes[(k + 1)...]
            break
          }
        }
      }
      if !fixes.isEmpty { advanceAnchor(to: newest) }
      publish(list)
      batch = list
      if !fixes.isEmpty { publishRerouting(time: newest) }
    case .silence(let time):
      if session != nil { publish(core.update(.silence(at: time)).events) }
    case .tick:
      if let now = fixClockNow(), session != nil { publish(core.update(.silence(at: now)).events) }
    case .source(let status, let reason):
      let event = SourceEvent(
        time: fixClockNow() ?? utcNow(), status: status, source: sourceName, reason: reason)
      events += 1
      publisher.publish(.source(event))
      observer?.sourceChanged(status)
    case .command(let command, let reply):
      do {
        switch command {
        case .select(let index):
          guard let document = session?.document ?? lastDocument else {
            throw WireError(.noRoute, "no route is loaded")
          }
          core.replace(try build(document, index, .select))
        case .load(let document, let index):
          core.replace(try build(document, index, .load))
        case .reload(let document, let index):
          core.replace(try build(document, index, .reload))
        case .cancel:
          if let s = session { lastDocument = s.document }
          core.replace(nil)
        case .reroute:
          guard session != nil else { throw WireError(.noRoute, "no route is being followed") }
          guard rerouter != nil else {
            throw WireError(.unavailable, "reroute: this daemon has no router (--router URL)")
          }
          core.rerouteNow()
          reply(.success(()))
          return
        case .skip:
          guard session != nil else { throw WireError(.noRoute, "no route is being followed") }
          guard rerouter != nil else {
            throw WireError(.unavailable, "skip: this daemon has no router (--router URL)")
          }
          guard core.skipNextWaypoint() else {
            throw WireError(
              .noWaypoint, "skip: the route has no waypoint left before its destination")
          }
          reply(.success(()))
          return
        }
        observer?.sessionChanged(session)
        reply(.success(()))
      } catch {
        reply(.failure(error))
      }
      return
    case .routed(let answer):
      answered(answer, time: fixClockNow() ?? utcNow())
    case .probe:
      probes += 1
      #if DEBUG
        // Test hook (debug builds only): simulate an engine that hangs, to prove the watchdog
        // then stops pinging.
        if let n = Self.stallAfterProbes, probes >= n {
          while true { sleep(3600) }
        }
      #endif
      return
    }
    if let s = session { observer?.handled(s) }
  }

  /// The router's answer, at `time` on the fix clock.
  private mutating func answered(_ answer: RouterAnswer, time: Double) {
    guard rerouter != nil, session != nil else { return }
    recordRouter?(.answer(id: answer.id, result: answer.result, after: lastFix, time: time))
    let (list, effects) = core.update(
      .routerAnswered(id: answer.id, result: answer.result, time: time))
    carry(effects, time: time)
    publish(list)
    publishRerouting(time: time)
  }

  /// Carries out the core's effects.
  private mutating func carry(_ effects: [GuidanceEffect], time: Double) {
    for effect in effects {
      switch effect {
      case .requestRoute(let request):
        guard let r = rerouter else { continue }
        recordRouter?(.request(request, time: time))
        if r.waits {
          awaiting = (request, time)
        } else {
          let inputs = self.inputs
          r.client.send(request) { answer in inputs?.yield(.routed(answer)) }
        }
      case .routeReplaced:
        guard let next = session else { continue }
        revision = max(revision, next.routeRevision)
        observer?.sessionChanged(next)
        rerouted?(next)
      case .routerFailed(let failure, let first):
        if first, let r = rerouter {
          logLine(4, "stepwised: router \(r.client.baseURL): \(failure)")
        }
      case .routerRecovered:
        logLine(5, "stepwised: the router answers again")
      case .routeUnusable(let why):
        logLine(4, "stepwised: the router's route is not usable: \(why)")
      }
    }
  }

  /// Moves the fix clock to `time` when it is the newest fix time so far.
  private mutating func advanceAnchor(to time: Double) {
    if anchor == nil || time >= (anchor?.fixTime ?? 0) { anchor = (time, clock.now()) }
  }

  /// A session for another route: the next revision, published with `reason`.
  private mutating func build(_ document: RouteDocument, _ index: Int, _ reason: RouteReason)
    throws -> NavigationSession
  {
    guard let makeSession else { throw WireError(.unavailable, "this engine cannot change routes") }
    var next = try makeSession(document, index)
    revision += 1
    next.routeRevision = revision
    next.routeReason = reason
    return next
  }

  /// The current time on the fix clock, once a fix has come: seconds since 1970.
  public func fixClockNow() -> Double? {
    guard let a = anchor else { return nil }
    return a.fixTime + max(0, clock.now() - a.monotonic)
  }

  /// Publishes `REROUTE` when where rerouting stands changed (the watch view shows it).
  private mutating func publishRerouting(time: Double) {
    guard rerouter != nil, let status = core.rerouteStatusChange(),
      let wire = ReroutingEvent.Status(rawValue: status.rawValue)
    else { return }
    events += 1
    publisher.publish(.rerouting(ReroutingEvent(time: time, status: wire)))
  }

  private mutating func publish(_ list: [NavigationEvent]) {
    guard !list.isEmpty else { return }
    events += list.count
    publisher.publish(list)
  }
}

/// Watches the engine from the outside: saving state, reporting status.
///
/// Called on the engine's task; implementations must return at once (hand slow work to their own
/// queue).
public protocol EngineObserver: AnyObject, Sendable {
  /// After an input changed the session.
  func handled(_ session: NavigationSession)
  /// After `select`, `load`, `cancel` or a reload (`nil`: guidance stopped).
  func sessionChanged(_ session: NavigationSession?)
  /// The live source connected or disconnected.
  func sourceChanged(_ status: SourceEvent.Status)
}
