public import Commands
public import Events
import Glibc
public import Guidance
import POSIX
public import Routes
import Wire

/// What a daemon run did.
public struct DaemonReport: Sendable {
  public var source = SourceReport()
  /// Events published.
  public var events = 0
  /// The run ended on SIGTERM or SIGINT.
  public var signalled = false
  /// The subscriber socket could not be set up; nothing was guided.
  public var startFailure: (any Error)?
  /// The failure was an attachment's (``DaemonAttachment/start(_:)``), not the socket's.
  public var attachmentFailed = false
}

/// Runs guidance: a fix source feeding the engine, the engine publishing to its sinks (standard
/// output, the subscriber socket, attachments), the signal loop and the watchdog pinger.
///
/// ```
///   source queue ──EngineInputs──▶ engine (one task) ──EventPublisher──▶ sinks (own queues)
///   tick timer ────(.tick, live)──▶        ▲   (one-shot, armed by the engine)
///   signal task ── SIGTERM/SIGINT: stop ───┘
/// ```
///
/// The engine is the only owner of the session. Sources block only their own queues; sinks
/// queue what they receive and write it from their own queues; so neither output nor gpsd can
/// stall the other.
public enum Daemon {
  /// Guides `session` with the fixes of `source` until it ends or SIGTERM/SIGINT arrive.
  ///
  /// - Parameters:
  ///   - session: the session to guide, or `nil` to wait for a route from a command.
  ///   - source: the fixes.
  ///   - publisher: where events go; `output` is added to it, other sinks may join any time.
  ///   - output: standard output, drained before this returns.
  ///   - heartbeat: what the watchdog looks at.
  ///   - tickInterval: seconds between live ticks (silence checks on the fix clock) while the
  ///     vehicle is carried on by dead reckoning; otherwise a live engine ticks only once, when
  ///     GPS loss is due (``Engine/nextTick(interval:)``).
  ///   - extras: what runs beside guidance (state store, router, attachments).
  /// - Returns: how the run ended.
  public static func run(
    session: NavigationSession?, source: any FixSource,
    publisher: EventPublisher = EventPublisher(),
    output: StreamSink, heartbeat: EngineHeartbeat = EngineHeartbeat(), tickInterval: Double = 0.25,
    extras: DaemonExtras = DaemonExtras()
  ) async -> DaemonReport {
    let signals = await SignalWatcher.start([SIGTERM, SIGINT, SIGHUP])
    let inputs = EngineInputs()
    // Commands wait in the engine's inputs from the start: an attachment may deliver some as
    // it starts (the broker hands the uplink what it queued for the vehicle when it connects).
    extras.commands.connect(inputs)
    let stop = StopFlag()
    let sourceReport = LockedValue<SourceReport?>(nil)
    let signalled = StopFlag()
    publisher.add(output)
    var engine = Engine(session: session, publisher: publisher, heartbeat: heartbeat)
    engine.sourceName = source.name
    engine.makeSession = extras.makeSession
    engine.observer = extras.services
    engine.rerouter = extras.rerouter
    if let recorder = extras.routerRecorder { engine.recordRouter = { recorder.record($0) } }
    let services = extras.services
    let commands = extras.commandLimits.map {
      CommandService(configuration: $0, handler: extras.commands.handler, publisher: publisher)
    }
    if let commands {
      if let session {
        commands.setRouteDocument(session.document, selected: session.routeIndex)
      }
      engine.rerouted = { s in commands.setRouteDocument(s.document, selected: s.routeIndex) }
    }
    // The socket starts listening only once the signal sources are registered, so an early
    // SIGTERM can never find the process without its handlers.
    let stopServer: (@Sendable () -> Void)?
    do {
      stopServer = try commands.flatMap { try extras.startServer?($0) }
    } catch {
      signals.stop()
      var report = DaemonReport()
      report.startFailure = error
      return report
    }
    do {
      let context = DaemonAttachmentContext(
        stateDirectory: extras.services?.store?.directory, commands: commands)
      for attachment in extras.attachments { publisher.add(try attachment.start(context)) }
      // Progress is saved only after standard output and the attachments kept what came before.
      services?.keepFirst([output] + extras.attachments)
    } catch {
      commands?.stop()
      stopServer?()
      for attachment in extras.attachments { await attachment.stop() }
      signals.stop()
      var report = DaemonReport()
      report.startFailure = error
      report.attachmentFailed = true
      return report
    }
    // A resumed session's progress is written again with the route, never removed.
    if let session {
      services?.saveRoute(
        session.document, session.routeIndex, progress: session.snapshot,
        revision: session.routeRevision)
    }
    // Route loaded, socket listening, signal sources registered: ready (never waiting for a fix).
    services?.notifier.ready(
      status: source.isLive ? "waiting for gpsd" : "replaying \(source.name)")
    await withDiscardingTaskGroup { group in
      group.addTask {
        let r = await source.run(into: inputs, stop: stop)
        sourceReport.set(r)
        inputs.finish()
      }
      group.addTask {
        for await number in signals.signals {
          if number == SIGHUP {
            reload(extras, commands: commands, inputs: inputs)
            continue
          }
          logLine(6, "stepwised: \(number == SIGINT ? "SIGINT" : "SIGTERM"), stopping")
          services?.notifier.stopping()
          signalled.set()
          stop.set()
          inputs.finish()
          return
        }
      }
      if let interval = extras.watchdogInterval, let notifier = services?.notifier {
        // WATCHDOG=1 only when the engine handled the probe posted half an interval earlier:
        // a stuck engine stops the pings and systemd restarts the service.
        group.addTask {
          while !Task.isCancelled && !stop.isSet {
            let before = heartbeat.value
            inputs.yield(.probe)
            try? await Task.sleep(for: .milliseconds(Int(interval * 500)))
            if heartbeat.value > before { notifier.watchdog() }
          }
        }
      }
      // Live sources: one timer, armed by the engine only when a silence check is due (GPS
      // loss, dead reckoning); nothing periodic while idle.
      let ticks = source.isLive ? TickTimer(inputs: inputs, interval: tickInterval) : nil
      await engine.run(inputs, ticks: ticks)
      ticks?.cancel()
      stop.set()
      signals.stop()
      group.cancelAll()
    }
    commands?.stop()
    stopServer?()
    publisher.finish()
    for attachment in extras.attachments { await attachment.stop() }
    await output.drained()
    if let s = engine.session, let snapshot = s.snapshot {
      services?.saveAtExit(snapshot, of: s.document)
    }
    services?.flush()
    var report = DaemonReport()
    report.source = sourceReport.value ?? SourceReport()
    report.events = engine.events
    report.signalled = signalled.isSet
    return report
  }

  /// SIGHUP: re-reads the route file and starts guiding along it, keeping every subscriber.
  private static func reload(
    _ extras: DaemonExtras, commands: CommandService?, inputs: EngineInputs
  ) {
    let notifier = extras.services?.notifier
    notifier?.reloading()
    guard let load = extras.reloadRoute else {
      logLine(5, "stepwised: SIGHUP: no route file to re-read")
      notifier?.ready(status: "reload: nothing to re-read")
      return
    }
    do {
      let (document, index) = try load()
      inputs.yield(
        .command(
          .reload(document, routeIndex: index),
          reply: { result in
            switch result {
            case .success:
              commands?.setRouteDocument(document, selected: index)
              logLine(6, "stepwised: SIGHUP: route re-read")
            case .failure(let e):
              logLine(3, "stepwised: SIGHUP: \(e); guidance goes on unchanged")
            }
            notifier?.ready(status: "route reloaded")
          }))
    } catch {
      logLine(
        3, "stepwised: SIGHUP: cannot re-read the route: \(error); guidance goes on unchanged")
      notifier?.ready(status: "reload failed, guidance unchanged")
    }
  }
}

/// The optional parts of a daemon run: commands, the socket, systemd, state, reloads.
public struct DaemonExtras: Sendable {
  /// The limits of the run's ``CommandService``, when commands are taken (by the socket or an
  /// attachment): the run makes one, on its publisher, that hands guidance commands to the
  /// engine through ``commands``.
  public var commandLimits: CommandService.Configuration?
  /// Starts the subscriber socket on the run's command service; returns what shuts it down.
  ///
  /// Called after the signal handlers are in place, and only with ``commandLimits``.
  public var startServer: (@Sendable (CommandService) throws -> @Sendable () -> Void)?
  public var services: DaemonServices?
  /// Builds a session for `select`, `load` and reloads.
  public var makeSession: (@Sendable (RouteDocument, Int) throws -> NavigationSession)?
  /// Re-reads the route file for SIGHUP.
  public var reloadRoute: (@Sendable () throws -> (RouteDocument, Int))?
  /// systemd's watchdog interval in seconds, when it wants pings.
  public var watchdogInterval: Double?
  /// Carries the command service's guidance commands into the engine once it runs.
  public var commands = CommandRelay()
  /// Asks a router for a new route when the vehicle leaves its route.
  public var rerouter: Rerouter?
  /// Records the router's requests and answers (`--record-router FILE`).
  public var routerRecorder: RouterRecorder?
  /// Runs beside guidance and receives its events (the fleet uplink).
  public var attachments: [any DaemonAttachment] = []

  public init() {}
}

/// Hands guidance commands to the engine's input stream, where they wait until the engine
/// runs; before it is connected to one, they are refused as `unavailable`.
///
/// ``Daemon/run(session:source:publisher:output:heartbeat:tickInterval:extras:)`` gives
/// ``handler`` to the run's ``CommandService``.
public final class CommandRelay: Sendable {
  private let inputs = Locked<EngineInputs?>(nil)

  public init() {}

  func connect(_ inputs: EngineInputs) { self.inputs.withLock { $0 = inputs } }

  /// The handler for the server.
  public var handler: GuidanceCommandHandler {
    { [self] command, reply in
      guard let inputs = self.inputs.withLock({ $0 }) else {
        reply(.failure(WireError(.unavailable, "guidance is not running yet")))
        return
      }
      inputs.yield(.command(command, reply: reply))
    }
  }
}
