import CommandLineSupport
import Commands
import Daemon
import Events
import Glibc
import Guidance
import GuidanceSettings
import Instructions
import POSIX
import Phrasebook
import Rerouting
import RouteFiles
import Router
import Routes
import Subscribers
import Uplink

/// The `stepwised` daemon's command line, parsed and run.
///
/// The executable only calls ``main(arguments:)`` and exits with its status. Every option is
/// parsed here, into the typed configurations of the library targets (``SocketOptions``,
/// ``UplinkConfiguration``, ``DaemonExtras``): they never see the command line.
public enum Stepwised {
  public static let usage = """
    usage: stepwised [--route ROUTE] [--route-index N] [--route-format FORMAT]
                     [--locale en|ko] [--units metric|imperial] [--json] [--progress]
                     [--quiet] [--replay-speed X | --fast] [--gpsd-device PATH]
                     [--socket PATH …] [--state-dir DIR] [--fresh] [--verbose]
                     [--no-speed-warnings] [--ahead KINDS | --no-ahead]
                     [--max-route-file BYTES] [--router URL [--router-api API]
                     [--router-timeout S] [--router-ca FILE] [--record-router FILE]]
                     [gpsd://HOST:PORT | TRACK | -]

    Guides along ROUTE and prints turn-by-turn events on standard output: readable
    lines, or with --json one JSON object per line (docs/events.md); --quiet prints
    nothing there. Errors and state changes go to standard error. SIGTERM or SIGINT
    end it cleanly; SIGHUP (or `stepwise reload`) re-reads ROUTE without dropping
    subscribers.

    Fixes come from gpsd (gpsd://HOST:PORT; the default is gpsd://localhost:2947), with
    reconnection, or from a recorded TRACK (- reads standard input): NMEA 0183 or a
    gpsd JSON capture (gpspipe -w, with or without -uu), told apart by content and
    replayed at the pace of its fix times (--replay-speed X, or --fast).
    --gpsd-device PATH watches one of gpsd's devices only.

    --max-route-file BYTES refuses a larger route file, at start and on reload
    (default 67108864, 64 MiB; at least 1024): it is read whole, and a document
    needs about five times its size in memory while it loads (docs/limits.md).

    Rerouting: with --router URL (http:// or https://), a vehicle that leaves its route
    gets a new one from that router: --router-api valhalla (the default), osrm or
    graphhopper; each request is bounded by --router-timeout S seconds (default 2);
    --router-ca FILE trusts that certificate authority for https. In a --fast replay the
    engine waits for each answer, so replays are deterministic; live it never waits.
    --record-router FILE writes each request and each answer, with the fix after which
    guidance took it, one JSON object per line (a closed-loop scenario's router.jsonl,
    which `stepwise scenario run` replays without a router).

    State: the route and the progress are saved in $STATE_DIRECTORY (under systemd) or
    --state-dir DIR. Without --route the saved route is resumed at its saved step; with
    the same --route after a crash, guidance resumes where it was (--fresh starts over).
    --no-speed-warnings says nothing when the vehicle drives over the route's speed
    limits (PROGRESS still carries the limit). --ahead KINDS says which road objects
    on the route ahead are announced as the vehicle nears them, a comma-separated list
    of tunnel, bridge, toll, crossing, ferry, border and camera (default
    tunnel,toll,crossing,ferry,border); --no-ahead announces none (PROGRESS still
    lists them).

    Subscribers (docs/protocol.md):
    \(SocketOptions.usage)
    Under systemd: Type=notify (READY=1, STATUS=, STOPPING=1, RELOADING=1), WATCHDOG=1
    while the engine runs, and the socket from stepwised.socket (FileDescriptorName=
    subscribers).
    """

  /// Exit statuses, after the LSB init-script conventions that daemon(7) refers to.
  public enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case invalidArgument = 2
  }

  /// Runs the daemon with `arguments` (without the program name) and returns the exit status.
  public static func main(arguments: [String]) async -> Int32 {
    var args = Arguments(arguments)
    if args.flag("--help", "-h") {
      OutputSink.standardOutput.line([usage, UplinkConfiguration.usage].joined(separator: "\n"))
      OutputSink.standardOutput.flush()
      return ExitStatus.success.rawValue
    }
    do {
      let common = try CommonOptions.parse(&args)
      let maximumRouteFile =
        try args.integer("--max-route-file", minimum: 1024) ?? RouteFiles.defaultMaximumFileSize
      var socketOptions = try SocketOptions.parse(&args)
      let stateDirOption = try args.option("--state-dir")
      let fresh = args.flag("--fresh")
      var configured = GuidanceConfiguration()
      configured.speedWarnings = !args.flag("--no-speed-warnings")
      let noAhead = args.flag("--no-ahead")
      if let list = try args.option("--ahead") {
        if noAhead { throw UsageError("--ahead and --no-ahead exclude each other") }
        switch GuidanceConfiguration.aheadKinds(parsing: list) {
        case .success(let kinds): configured.aheadKinds = kinds
        case .failure(let e): throw UsageError(e.description)
        }
      } else if noAhead {
        configured.aheadKinds = []
      }
      let guidance = configured
      let quiet = args.flag("--quiet", "-q")
      let json = args.flag("--json")
      let progress = args.flag("--progress")
      let fast = args.flag("--fast")
      let verbose = args.flag("--verbose", "-v")
      let speed = try args.number("--replay-speed", in: 0.001...1_000_000)
      let device = try args.option("--gpsd-device")
      // What runs beside guidance: the fleet uplink (Uplink, which opens libmosquitto).
      let uplink = try UplinkConfiguration.parse(&args).map { MQTTUplink($0) }
      let attached: [any DaemonAttachment] = uplink.map { [$0] } ?? []
      let routerURL = try args.option("--router")
      let routerAPI = try args.option("--router-api", as: RouterAPI.self)
      let routerTimeout = try args.number("--router-timeout", in: 0.05...600)
      let routerCA = try args.option("--router-ca")
      let recordRouter = try args.option("--record-router")
      if routerURL == nil
        && (routerAPI != nil || routerTimeout != nil || routerCA != nil || recordRouter != nil)
      {
        throw UsageError(
          "--router-api, --router-timeout, --router-ca and --record-router need --router URL")
      }
      if fast && speed != nil { throw UsageError("--fast and --replay-speed exclude each other") }
      let inputs = try args.positionals()
      guard inputs.count <= 1 else { throw UsageError("only one source can be given") }
      let live: GPSDAddress?
      do {
        live = try GPSDAddress(parsing: inputs.first ?? GPSDAddress.default.description)
      } catch {
        throw UsageError(error.description)
      }
      if live != nil && (fast || speed != nil) {
        throw UsageError("--fast and --replay-speed apply to recorded tracks, not to gpsd")
      }
      if live == nil && device != nil {
        throw UsageError("--gpsd-device applies to gpsd sources only")
      }

      // A --fast replay starts reading and decoding its track now, while the route loads, so
      // the two overlap on two cores. A track that cannot be opened yet is opened (and its
      // error reported) later, as without the head start.
      var prefetched: (input: TrackInput, prefetch: TrackPrefetch)?
      if live == nil, fast, !verbose, let path = inputs.first,
        let input = try? TrackInput(path: path)
      {
        let name = path == "-" ? "standard input" : path
        prefetched = (input, TrackPrefetch(input: input, name: name))
      }
      defer { prefetched?.prefetch.cancel() }
      let store = StateStore.directory(fallback: stateDirOption).map(StateStore.init(directory:))
      do {
        try store?.createDirectory()
      } catch {
        logLine(
          4, "stepwised: cannot create the state directory (\(error)); guidance goes on without it"
        )
      }
      let (_, session, routeFile, phrasebook) = try startingRoute(
        common: common, store: store, fresh: fresh, maximumRouteFile: maximumRouteFile,
        configuration: guidance)
      HeapRelease.now()
      let makeSession: @Sendable (RouteDocument, Int) throws -> NavigationSession = { doc, index in
        try NavigationSession(
          document: doc, routeIndex: index, phrasing: phrasebook, configuration: guidance)
      }

      // The subscriber socket: handed over by systemd (FileDescriptorName=subscribers), or bound.
      let activation = SocketActivation.take()
      let activated = try activation.subscriberSocket(named: "subscribers")
      if activated != nil && socketOptions == nil {
        socketOptions = SocketOptions(path: "/run/stepwised.sock")
      }
      var extras = DaemonExtras()
      extras.makeSession = makeSession
      extras.watchdogInterval = SystemdNotifier.watchdogInterval()
      extras.services = DaemonServices(
        notifier: SystemdNotifier(), store: store, routeFile: routeFile, phrasebook: phrasebook)
      if let routeFile {
        let format = common.routeFormat
        let language = phrasebook.language
        let index = session.routeIndex
        extras.reloadRoute = {
          (
            try RouteFiles.load(
              routeFile, format: format, language: language, maximumSize: maximumRouteFile),
            index
          )
        }
      }
      extras.attachments = attached
      if let routerURL {
        let client: RouterClient
        do {
          client = try RouterClient(
            baseURL: routerURL, api: routerAPI ?? .valhalla, timeout: routerTimeout ?? 2,
            writer: InstructionWriter(language: phrasebook.language), caFile: routerCA)
        } catch {
          throw UsageError("--router: \(error)")
        }
        let rerouter = Rerouter(
          client: client, waits: live == nil && fast, language: phrasebook.language,
          units: phrasebook.units)
        extras.rerouter = rerouter
        if let recordRouter {
          do {
            extras.routerRecorder = try RouterRecorder(path: recordRouter, router: rerouter.core)
          } catch {
            throw UsageError("--record-router: \(error)")
          }
        }
      }
      // One command service for the socket and for attachments that take commands.
      if let socketOptions {
        extras.commandLimits = socketOptions.commandLimits
        extras.startServer = { service in
          let server = try SubscriberServer.start(
            socketOptions, listeningDescriptor: activated, service: service)
          return { server.shutdown() }
        }
      } else if attached.contains(where: \.takesCommands) {
        extras.commandLimits = CommandService.Configuration()
      }

      let output = StreamSink(
        fd: quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : 1,
        format: json ? .json : .readable(progress: progress), lossless: live == nil)
      let source: any FixSource
      if let live {
        source = GPSDSource(address: live, device: device, verbose: verbose)
      } else {
        source = TrackReplaySource(
          input: try prefetched?.input ?? TrackInput(path: inputs[0]),
          speed: fast ? nil : (speed ?? 1),
          lostAfter: session.configuration.gpsLostAfter, verbose: verbose, output: output,
          prefetch: prefetched?.prefetch)
      }
      let report = await Daemon.run(
        session: session, source: source, output: output, extras: extras)
      if let failure = report.startFailure {
        logLine(
          3,
          report.attachmentFailed
            ? "stepwised: \(failure)" : "stepwised: cannot open the subscriber socket: \(failure)")
        return ExitStatus.failure.rawValue
      }
      if let failure = output.failure {
        logLine(3, "stepwised: cannot write the events: \(failure)")
        return ExitStatus.failure.rawValue
      }
      if report.source.failed { return ExitStatus.failure.rawValue }
      if verbose, let s = report.source.statistics {
        logLine(
          6,
          "stepwised: \(report.source.epochs) epochs, \(report.source.fixes) fixes, \(report.events) events; \(s)"
        )
      }
      return ExitStatus.success.rawValue
    } catch let e as UsageError {
      logLine(3, "stepwised: \(e)")
      logLine(3, usage)
      return ExitStatus.invalidArgument.rawValue
    } catch let e as RouteFileError {
      let hint = e.sizeLimit == nil ? "" : " (--max-route-file BYTES raises the limit)"
      logLine(3, "stepwised: cannot load the route: \(e)\(hint)")
      return ExitStatus.invalidArgument.rawValue
    } catch let e as RouteDocumentError {
      logLine(3, "stepwised: \(routeErrorPrefix(e))\(e)")
      return ExitStatus.invalidArgument.rawValue
    } catch let e as SocketActivationError {
      logLine(3, "stepwised: socket activation: \(e)")
      return ExitStatus.invalidArgument.rawValue
    } catch {
      logLine(3, "stepwised: \(error)")
      return ExitStatus.failure.rawValue
    }
  }

  /// The route to guide along: `--route` (resumed where a crash left it, unless `--fresh`), or
  /// without `--route` the route saved in the state directory, resumed at its saved step; and
  /// the phrasebook, in `--locale` or else the route's own language.
  private static func startingRoute(
    common: CommonOptions, store: StateStore?, fresh: Bool, maximumRouteFile: Int,
    configuration: GuidanceConfiguration
  ) throws -> (RouteDocument, NavigationSession, String?, Phrasebook) {
    func phrasing(_ document: RouteDocument) -> Phrasebook {
      Phrasebook(
        language: common.locale ?? RouteFiles.language(of: document) ?? .en, units: common.units)
    }
    let saved: StateStore.Saved?
    if let store, !fresh {
      let (result, problem) = store.load()
      if let problem { logLine(4, "stepwised: \(problem)") }
      switch result {
      case .success(let s): saved = s
      case .failure(.missing): saved = nil
      case .failure(let p):
        logLine(4, "stepwised: \(p)")
        saved = nil
      }
    } else {
      saved = nil
    }
    func resume(_ document: RouteDocument, _ s: StateStore.Saved) -> NavigationSession? {
      guard let snapshot = s.snapshot, !snapshot.arrived else { return nil }
      guard
        var session = try? NavigationSession(
          document: document, resuming: snapshot, phrasing: phrasing(document),
          configuration: configuration)
      else {
        logLine(4, "stepwised: the saved progress does not fit the route; starting afresh")
        return nil
      }
      session.routeRevision = s.revision
      logLine(
        5,
        "stepwised: resuming \(s.revision > 0 ? "the rerouted route " : "")at step "
          + "\(snapshot.currentStep) of \(session.route.steps.count - 1)")
      return session
    }
    if let routePath = common.routePath {
      let document = try RouteFiles.load(
        routePath, format: common.routeFormat, language: common.locale,
        maximumSize: maximumRouteFile)
      _ = try document.route(at: common.routeIndex)
      let book = phrasing(document)
      // A crash on a rerouted route resumes the new route (--fresh starts the file's over).
      if let s = saved, s.routeFile == routePath, s.revision > 0,
        let resumed = resume(s.document, s)
      {
        return (s.document, resumed, routePath, phrasing(s.document))
      }
      if let s = saved, s.routeFile == routePath, s.routeIndex == common.routeIndex,
        StateStore.fingerprint(s.document, s.routeIndex)
          == StateStore.fingerprint(document, common.routeIndex),
        let resumed = resume(document, s)
      {
        return (document, resumed, routePath, book)
      }
      let session = try NavigationSession(
        document: document, routeIndex: common.routeIndex, phrasing: book,
        configuration: configuration)
      return (document, session, routePath, book)
    }
    guard let s = saved else {
      throw UsageError(
        store == nil
          ? "--route is required"
          : "--route is required (no saved route in \(store?.directory ?? ""))")
    }
    let book = phrasing(s.document)
    if let resumed = resume(s.document, s) { return (s.document, resumed, s.routeFile, book) }
    let session = try NavigationSession(
      document: s.document, routeIndex: s.routeIndex, phrasing: book,
      configuration: configuration)
    return (s.document, session, s.routeFile, book)
  }

  private static func routeErrorPrefix(_ e: RouteDocumentError) -> String {
    e.code == .routeIndexOutOfRange ? "" : "cannot load the route: "
  }
}
