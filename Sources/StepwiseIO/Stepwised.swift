import GPSD
import Guidance
import Phrasebook
import Routes

/// The `stepwised` daemon's command line, parsed and run. The executable only calls
/// ``main(arguments:)`` and exits with its status.
public enum Stepwised {
  public static let usage = """
    usage: stepwised --route ROUTE [--route-index N] [--route-format FORMAT]
                     [--locale en|ko] [--units metric|imperial] [--json] [--progress]
                     [--replay-speed X | --fast] [--gpsd-device PATH] [--verbose]
                     [gpsd://HOST:PORT | TRACK | -]

    Guides along ROUTE and prints turn-by-turn events on standard output: readable
    lines, or with --json one JSON object per line (docs/events.md). Errors and state
    changes go to standard error. SIGTERM or SIGINT end it cleanly.

    Fixes come from gpsd (gpsd://HOST:PORT; the default is gpsd://localhost:2947), with
    reconnection, or from a recorded TRACK (- reads standard input): NMEA 0183 or a
    gpsd JSON capture (gpspipe -w, with or without -uu), told apart by content and
    replayed at the pace of its fix times (--replay-speed X, or --fast).
    --gpsd-device PATH watches one of gpsd's devices only.
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
      OutputSink.standardOutput.line(usage)
      OutputSink.standardOutput.flush()
      return ExitStatus.success.rawValue
    }
    do {
      let common = try CommonOptions.parse(&args)
      let json = args.flag("--json")
      let progress = args.flag("--progress")
      let fast = args.flag("--fast")
      let verbose = args.flag("--verbose", "-v")
      let speed = try args.number("--replay-speed", in: 0.001...1_000_000)
      let device = try args.option("--gpsd-device")
      if fast && speed != nil { throw UsageError("--fast and --replay-speed exclude each other") }
      let inputs = try args.positionals()
      guard let routePath = common.routePath else { throw UsageError("--route is required") }
      guard inputs.count <= 1 else { throw UsageError("only one source can be given") }
      let live = try GPSDAddress(parsing: inputs.first ?? GPSDAddress.default.description)
      if live != nil && (fast || speed != nil) {
        throw UsageError("--fast and --replay-speed apply to recorded tracks, not to gpsd")
      }
      if live == nil && device != nil { throw UsageError("--gpsd-device applies to gpsd sources only") }
      let document = try RouteFiles.load(routePath, format: common.routeFormat)
      let session = try NavigationSession(
        document: document, routeIndex: common.routeIndex,
        phrasing: Phrasebook(language: common.language, units: common.units))
      let output = StreamSink(fd: 1, format: json ? .json : .readable(progress: progress))
      let source: any FixSource
      if let live {
        source = GPSDSource(address: live, device: device, verbose: verbose)
      } else {
        source = TrackReplaySource(
          input: try TrackInput(path: inputs[0]), speed: fast ? nil : (speed ?? 1),
          lostAfter: session.configuration.gpsLostAfter, verbose: verbose, output: output)
      }
      let report = await Daemon.run(session: session, source: source, output: output)
      if let failure = output.failure {
        logLine(3, "stepwised: cannot write the events: \(failure)")
        return ExitStatus.failure.rawValue
      }
      if report.source.failed { return ExitStatus.failure.rawValue }
      if verbose, let s = report.source.statistics {
        logLine(
          6, "stepwised: \(report.source.epochs) epochs, \(report.source.fixes) fixes, \(report.events) events; \(s)")
      }
      return ExitStatus.success.rawValue
    } catch let e as UsageError {
      logLine(3, "stepwised: \(e)")
      logLine(3, usage)
      return ExitStatus.invalidArgument.rawValue
    } catch let e as RouteFileError {
      logLine(3, "stepwised: cannot load the route: \(e)")
      return ExitStatus.invalidArgument.rawValue
    } catch let e as RouteDocumentError {
      logLine(3, "stepwised: \(routeErrorPrefix(e))\(e)")
      return ExitStatus.invalidArgument.rawValue
    } catch {
      logLine(3, "stepwised: \(error)")
      return ExitStatus.failure.rawValue
    }
  }

  private static func routeErrorPrefix(_ e: RouteDocumentError) -> String {
    e.code == .routeIndexOutOfRange ? "" : "cannot load the route: "
  }
}

/// Options shared by `stepwised` and the `stepwise` commands that take a route.
public struct CommonOptions {
  public var routePath: String?
  public var routeIndex = 0
  public var routeFormat: RouteFileFormat?
  public var language = Language.en
  public var units = UnitSystem.metric

  public static func parse(_ args: inout Arguments) throws(UsageError) -> CommonOptions {
    var o = CommonOptions()
    o.routePath = try args.option("--route")
    o.routeIndex = try args.integer("--route-index") ?? 0
    o.routeFormat = try args.option("--route-format", as: RouteFileFormat.self)
    o.language = try args.option("--locale", as: Language.self) ?? .en
    o.units = try args.option("--units", as: UnitSystem.self) ?? .metric
    return o
  }
}
