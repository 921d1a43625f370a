import CommandLineSupport
import Geodesy
import JSON
import Lab
import POSIX
import Phrasebook
import RouteFiles
import Routes
import Simulation

/// The `stepwise` user tool: inspect and convert routes, simulate drives.
public enum StepwiseTool {
  public static let usage = """
    usage: stepwise COMMAND [OPTIONS]

    commands:
      routes ROUTE                         list the alternatives of a route document
      route show ROUTE [--route-index N]   print the step table of one alternative
      route convert ROUTE                  write the native route document on stdout
      route validate ROUTE                 check a route file; silent when it is fine
      instruction --locale LANG FILE...    the instruction of each osrm-text-instructions
                                           fixture, one line per file
      simulate ROUTE [OPTIONS]             drive a route and write NMEA on stdout
      reload [--pid PID]                   make stepwised re-read its route (SIGHUP)
      scenario run DIR... [--update]       replay scenarios and compare with their transcripts
      scenario make DIR...                 regenerate drive.nmea from the recipe, then
                                           the transcript
      scenario score DIR... [--markdown]   guidance quality figures per scenario and in total
                                           (a DIR with scenario.json is a scenario; other
                                           folders are walked; files are skipped)
      scenario score-drive ROUTE TRACK [--json]   replay a recorded drive (NMEA, gpsd capture
                                           or t,lat,lon CSV) against ROUTE, the path driven,
                                           and score it; exit 1 on a shortfall
      render DIR|TRACK [--route R] --output FILE.svg   draw a run: map and timeline
      drive DIR|ROUTE --router URL [--mistakes M,…]  a virtual vehicle in a closed loop with
                                           stepwised and a router (stepwise drive --help)
      fixes TRACK [--json] [--verbose]     the fixes of an NMEA log or gpsd capture, one per
                                           epoch (--json: gpsd TPV objects)
      fleet mqtt://HOST:PORT [--prefix P] [--json]   every vehicle's guidance from a fleet
                                           broker (stepwise fleet --help)
      send --mqtt URL --vehicle ID COMMAND  load ROUTE, select N, cancel or status to a
                                           vehicle through the broker; waits for the reply

    commands for a running stepwised:
    \(clientUsageSummary)

    common options: --route-format native|valhalla|osrm|graphhopper|gpx|geojson
                    --locale en|ko  --units metric|imperial

    simulate options:
      --route-index N      alternative to drive (default 0)
      --profile P          town|highway|cycling|walking: speeds, acceleration, turn
                           slowing by angle, standing jitter, speed-dependent course
                           noise (default: classic model, each step at its mode's speed)
      --speed KMH          cruising speed (default from the profile or transport type)
      --accel MPS2 --brake MPS2   acceleration and braking limits
      --speed-wander F     the driver's cruising speed wanders, RMS F of it (0.035 is
                           what real drives show; --speed-wander-correlation S, 10)
      --hz N               fixes per second, 1…10 (default 1)
      --noise METRES       RMS position error, a correlated random walk (default 0)
      --multipath METRES   multipath jumps of about this size, about one a minute
      --seed N             random seed (default 1)
      --start ISO8601      time of the first fix (default 2024-05-01T08:00:00Z)
      --dropout FROM:TO    no fix between these distances along the route (repeatable)
      --no-tunnels         keep the fix on steps whose notice mentions a tunnel
      --deviate-at METRES  leave the route there (with --deviate-angle DEG,
                           --deviate-length METRES, --rejoin)
      --stop-at METRES[:SECONDS] --stop-for SECONDS   stand still on the way (repeatable)
      --noise-correlation S  correlation time of the position error (default 20)
      --canyon FROM:TO:BIAS  a street canyon: positions BIAS metres beside the truth
                           (positive right) the receiver does not report (repeatable)
      --glitch-every S     single-fix jumps of 100–300 m, one every S seconds on average
      --gap AT:SECONDS     no fix for SECONDS from AT seconds after the first epoch
      --silence AT:SECONDS no epoch at all (an unplugged receiver) (both repeatable)
      --pull-out TURN[:RADIUS[:SPEED[:CIRCLE]]]  start beside the route and drive an arc
                           onto it (degrees, positive right; default radius 12 m, 4 m/s),
                           after CIRCLE seconds round the car park (6 m/s slowing to 1)
      --corner-cut METRES  cut every corner, as on a route of junction points
      --hdop H             the HDOP of every fix (default 0.9)
      --coast SECONDS      without sky, go on reporting the last fix carried on in a
                           straight line for that long (--coast-flagged: as estimates)
      --reacquire METRES   the first fix after 5 s or more without sky this far off,
                           the error halving every 2 s
      --settle SECONDS     standing time at the start (default 5); --dwell at the end
      --ends-moving        the recording ends as the vehicle passes the end at speed
      --talker XX          NMEA talker (default GP)
      --sentences LIST     RMC,VTG,GGA,GSA,GSV,GST (default RMC,GGA,GSA,GST)
      --format F           nmea (default) or gpsd-json (a gpspipe -w capture)
    """

  /// Every command, as the usage and the man page list them.
  public static let commands = [
    "routes", "route", "instruction", "simulate", "reload", "scenario", "render", "fixes", "drive",
    "watch", "status", "select", "load", "cancel", "reroute", "skip", "speak",
  ]

  /// Runs `stepwise` with `arguments` (without the program name); returns the exit status.
  public static func main(arguments: [String]) -> Int32 {
    var args = Arguments(arguments)
    let out = OutputSink.standardOutput
    defer { out.flush() }
    do {
      guard let command = args.subcommand() else {
        if args.flag("--help", "-h") {
          out.line(usage)
          return 0
        }
        throw UsageError("a command is required")
      }
      switch command {
      case "routes":
        if routesAsksDaemon(args) { return runClient("routes", &args) }
        try routes(&args, out)
      case "watch", "status", "select", "load", "cancel", "reroute", "skip", "speak":
        return runClient(command, &args)
      case "route":
        switch args.subcommand() {
        case "show": try show(&args, out)
        case "convert": try convert(&args, out)
        case "validate": _ = try loadRoute(&args)
        case let other?: throw UsageError("unknown route command '\(other)'")
        case nil: throw UsageError("route needs a command: show, convert or validate")
        }
      case "simulate":
        try simulateCommand(&args, out)
      case "scenario":
        return try scenario(&args, out)
      case "reload":
        return try reload(&args, out)
      case "instruction":
        return try instruction(&args, out)
      case "render":
        try renderCommand(&args, out)
      case "drive":
        return try driveCommand(&args, out)
      case "fixes":
        try fixesCommand(&args, out)
      case "help":
        out.line(usage)
      default:
        throw UsageError("unknown command '\(command)'")
      }
      if let failure = out.failed {
        logLine(3, "stepwise: \(failure)")
        return 1
      }
      return 0
    } catch let e as UsageError {
      logLine(3, "stepwise: \(e)")
      logLine(3, usage)
      return 2
    } catch let e as RouteFileError {
      logLine(3, "stepwise: cannot load the route: \(e)")
      return 2
    } catch let e as RouteDocumentError {
      logLine(3, "stepwise: \(e)")
      return 2
    } catch {
      logLine(3, "stepwise: \(error)")
      return 1
    }
  }

  static func loadRoute(_ args: inout Arguments) throws -> (
    RouteDocument, CommonOptions
  ) {
    var common = try CommonOptions.parse(&args)
    let rest = try args.positionals()
    guard rest.count == 1 || (rest.isEmpty && common.routePath != nil) else {
      throw UsageError(rest.isEmpty ? "a route file is required" : "only one route file is allowed")
    }
    let path = rest.first ?? common.routePath ?? "-"
    common.routePath = path
    let document = try RouteFiles.load(path, format: common.routeFormat, language: common.locale)
    common.language = common.locale ?? RouteFiles.language(of: document) ?? .en
    return (document, common)
  }

  /// `stepwise routes`: the alternatives, like the summary rows of the MapKit note's table.
  static func routes(_ args: inout Arguments, _ out: OutputSink) throws {
    let (doc, common) = try loadRoute(&args)
    let book = Phrasebook(language: common.language, units: common.units)
    out.line("\(doc.source.name) → \(doc.destination.name)")
    var rows: [[String]] = [["#", "time", "distance", "tolls", "name"]]
    for (i, r) in doc.routes.enumerated() {
      rows.append([
        String(i), book.displayDuration(r.expectedTravelTime), book.displayDistance(r.distance),
        r.hasTolls ? (common.language == .ko ? "유료" : "tolls") : "", r.name,
      ])
    }
    for line in TextColumns.lines(rows, rightAligned: [0, 1, 2]) { out.line(line) }
  }

  /// `stepwise route show`: the departure row, then each step's distance and instructions.
  static func show(_ args: inout Arguments, _ out: OutputSink) throws {
    let (doc, common) = try loadRoute(&args)
    let route = try doc.route(at: common.routeIndex)
    let book = Phrasebook(language: common.language, units: common.units)
    out.line(
      "\(route.name): \(book.displayDuration(route.expectedTravelTime)), "
        + "\(book.displayDistance(route.distance))"
        + (route.hasTolls ? (common.language == .ko ? ", 유료 도로" : ", tolls") : ""))
    for notice in route.advisoryNotices { out.line("! \(notice)") }
    var rows: [[String]] = []
    for (i, step) in route.steps.enumerated() {
      var mode = step.transportType.rawValue
      if i > 0 && step.transportType == route.steps[i - 1].transportType { mode = "" }
      if step.isDeparture {
        rows.append([String(i), book.departLabel, doc.source.name, mode])
      } else {
        var text = step.instructions
        if let n = step.notice, !n.isEmpty { text += " [\(n)]" }
        rows.append([String(i), book.displayDistance(step.distance), text, mode])
      }
      let sign = step.sign.map { $0.line(common.language) } ?? ""
      if !sign.isEmpty { rows.append(["", "", "  " + sign, ""]) }
      if !step.lanes.isEmpty { rows.append(["", "", "  " + RouteLane.picture(step.lanes), ""]) }
    }
    for line in TextColumns.lines(rows, rightAligned: [0, 1]) { out.line(line) }
    showRoad(route.road, book, common.language, out)
  }

  /// The speed limits and road objects of `stepwise route show`, with where they are.
  static func showRoad(
    _ road: RouteRoad, _ book: Phrasebook, _ language: Language, _ out: OutputSink
  ) {
    var rows: [[String]] = []
    for span in road.speedLimits {
      rows.append([
        book.displayDistance(span.start), book.displayDistance(span.end), span.limit.text(language),
      ])
    }
    for object in road.objects {
      var text = object.kind.rawValue
      if !object.isPoint { text += " " + book.displayDistance(object.length) }
      if let name = object.name { text += " (\(name))" }
      rows.append([
        book.displayDistance(object.start), object.isPoint ? "" : book.displayDistance(object.end),
        text,
      ])
    }
    for guidance in road.lanes {
      rows.append([book.displayDistance(guidance.at), "", RouteLane.picture(guidance.lanes)])
    }
    guard !rows.isEmpty else { return }
    out.line(language == .ko ? "도로:" : "Road:")
    for line in TextColumns.lines(rows, rightAligned: [0, 1]) { out.line(line) }
  }

  /// `stepwise route convert`: the native document, pretty-printed.
  static func convert(_ args: inout Arguments, _ out: OutputSink) throws {
    let (doc, _) = try loadRoute(&args)
    var text = JSONWriter.prettyString(NativeRouteFormat.encode(doc))
    if text.hasSuffix("\n") { text.removeLast() }
    out.line(text)
  }

  /// `stepwise scenario run|make`: returns 1 when a transcript differs.
  static func scenario(_ args: inout Arguments, _ out: OutputSink) throws -> Int32 {
    let verb = args.subcommand()
    if verb == "score" { return try scoreCommand(&args, out) }
    if verb == "score-drive" { return try scoreDriveCommand(&args, out) }
    let update = args.flag("--update")
    let dirs = try args.positionals()
    guard let verb, verb == "run" || verb == "make" else {
      throw UsageError("scenario needs a command: run, make, score or score-drive")
    }
    guard !dirs.isEmpty else { throw UsageError("scenario \(verb) needs at least one folder") }
    var failures = 0
    var skipped = 0
    let scenarios = try ScenarioFolders.expand(dirs)
    for dir in scenarios {
      let actual: [String]
      let expected: [String]?
      let expectedPath: String
      if let config = try? readWholeFile(dir + "/scenario.json"),
        ClosedLoopScenario.isClosedLoop(config)
      {
        // Replayed from its recording, without a router; made only by driving it again.
        let scenario = try ClosedLoopScenario(directory: dir, read: { try readWholeFile($0) })
        if verb == "make" {
          out.line("\(dir): skipped (closed loop: \(scenario.recordCommand))")
          skipped += 1
          continue
        }
        do {
          actual = try scenario.transcript()
        } catch let error as ScenarioError {
          // A stale recording fails this scenario, not the rest of the suite.
          out.line("\(dir): FAIL (\(error))")
          failures += 1
          continue
        }
        expected = scenario.expected()
        expectedPath = scenario.expectedPath
      } else {
        var scenario = try Scenario(directory: dir)
        if verb == "make" {
          let track = try scenario.simulatedTrack()
          try writeFileAtomically(scenario.trackPath, Array(track.utf8))
          // The transcript is of the track just written, not of the one read before it.
          scenario = try Scenario(directory: dir)
        }
        actual = try scenario.transcript()
        expected = scenario.expected()
        expectedPath = scenario.expectedPath
      }
      if verb == "make" || update {
        try writeFileAtomically(expectedPath, Array((actual.joined(separator: "\n") + "\n").utf8))
        out.line("\(dir): wrote \(actual.count) events")
        continue
      }
      guard let expected else {
        out.line("\(dir): FAIL (no expected.jsonl; run with --update)")
        failures += 1
        continue
      }
      if expected == actual {
        out.line("\(dir): ok (\(actual.count) events)")
      } else {
        failures += 1
        out.line("\(dir): FAIL")
        out.line(transcriptDiff(expected: expected, actual: actual))
      }
    }
    if verb == "run" && !update {
      out.line("\(scenarios.count - failures) passed, \(failures) failed")
    } else if skipped > 0 {
      out.line("\(skipped) closed-loop skipped")
    }
    return failures == 0 ? 0 : 1
  }
}
