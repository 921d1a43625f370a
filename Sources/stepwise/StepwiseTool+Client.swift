import Client
import CommandLineSupport
import Glibc
import JSON
import POSIX
import Phrasebook
import RouteFiles
import RouteImporters
import Routes
import Wire

/// The `stepwise` commands that talk to a running `stepwised` over its socket
/// (`docs/protocol.md`): `watch`, `status`, `routes` (without a file), `select`, `load`,
/// `cancel`, `reroute`, `skip` and `speak`.
///
/// Exit statuses, the same for every one of them: 0 done; 1 the daemon refused or failed the
/// command, or the connection broke (its message on stderr); 2 a usage mistake or an unreadable
/// route file; 3 the socket cannot be reached.
extension StepwiseTool {
  /// The usage of each client command, printed by `stepwise COMMAND --help`.
  public static let clientUsages: [String: String] = [
    "watch": """
    usage: stepwise watch [--socket PATH] [--json] [--progress] [--classes A,B,...]
                          [--locale en|ko] [--units metric|imperial]

    Shows what stepwised is doing. On a terminal: a live view redrawn in place (instruction,
    distance to the maneuver, progress bar, distance and time left, ETA, route and GPS state).
    Otherwise one plain line per event (PROGRESS only with --progress). --json writes every
    line the daemon sends (VERSION, STATE, events) as it comes. --classes sends only those
    event classes (ROUTE, ANNOUNCE, STEP, PROGRESS, OFFROUTE, ONROUTE, ARRIVED, GPS, CANCELLED).
    Ends with status 0 when the daemon stops, 1 when it drops the connection.
    """,
    "status": """
    usage: stepwise status [--socket PATH] [--json] [--timeout SECONDS]

    Prints the state of guidance: route, step, distance left, ETA, route and GPS state.
    --json prints the STATE object.
    """,
    "routes": """
    usage: stepwise routes [--socket PATH] [--json] [--timeout SECONDS]
           stepwise routes ROUTE        (a file's alternatives; see stepwise --help)

    Lists the alternatives of the route document the daemon has loaded; * marks the one
    being followed. --json prints the REPLY object.
    """,
    "select": """
    usage: stepwise select N [--socket PATH] [--timeout SECONDS]

    Switches guidance to alternative N of the loaded document (see stepwise routes).
    Needs root, the daemon's user or its control group.
    """,
    "load": """
    usage: stepwise load ROUTE.json [--route-index N] [--socket PATH] [--timeout SECONDS]

    Sends a route document (any format stepwise reads) to the daemon, which guides along
    alternative N (default 0) from the next fix. Needs root, the daemon's user or its
    control group.
    """,
    "cancel": """
    usage: stepwise cancel [--socket PATH] [--timeout SECONDS]

    Stops guidance. Needs root, the daemon's user or its control group.
    """,
    "reroute": """
    usage: stepwise reroute [--socket PATH] [--timeout SECONDS] [--json]

    Asks the daemon's router (stepwised --router) for a new route from where the vehicle is,
    at the next fix. The new route comes as a ROUTE event (stepwise watch shows it). Needs
    root, the daemon's user or its control group. --json prints the REPLY object.
    """,
    "skip": """
    usage: stepwise skip [--socket PATH] [--timeout SECONDS] [--json]

    Drops the route's next waypoint and asks the daemon's router (stepwised --router) for a
    new route through the waypoints after it; each skip drops one more. The new route comes
    as a ROUTE event. Needs root, the daemon's user or its control group. --json prints the
    REPLY object.
    """,
    "speak": """
    usage: stepwise speak [--socket PATH] [--voice VOICE] [--espeak PATH] [--verbose]

    Says every announcement through espeak-ng, one at a time. Announcements that went stale
    while an earlier one was said are dropped (a passed maneuver, a newer announcement for the
    same step, a situation that is over). Without --voice, Korean text is said with the
    ko voice and anything else with en. The binary is --espeak PATH, else $STEPWISE_ESPEAK,
    else espeak-ng on $PATH. --verbose says on stderr what was said and dropped.
    """,
  ]

  /// The commands handled here.
  public static let clientCommands: Set<String> = [
    "watch", "status", "select", "load", "cancel", "reroute", "skip", "speak",
  ]

  /// Common lines for the client commands, for the tool's usage.
  public static let clientUsageSummary = """
      watch [--json]                       live view of the daemon's guidance
      status                               the daemon's state of guidance
      routes                               alternatives of the daemon's route (no file given)
      select N                             switch the daemon to alternative N
      load ROUTE [--route-index N]         send a route document to the daemon
      cancel                               stop guidance
      reroute                              ask the daemon's router for a new route now
      skip                                 drop the next waypoint and reroute without it
      speak [--voice VOICE]                say the announcements through espeak-ng
      (each takes --socket PATH; default $STEPWISE_SOCKET or /run/stepwised.sock)
    """

  /// Whether `stepwise routes` with `args` asks the daemon: when `--socket` is given or no route
  /// file is (neither a positional nor `--route`).
  public static func routesAsksDaemon(_ args: Arguments) -> Bool {
    var probe = args
    if case .some(.some) = try? probe.option("--socket") { return true }
    if case .some(.some) = try? probe.option("--route") { return false }
    _ = probe.flag("--help", "-h", "--json")
    _ = try? probe.option("--timeout")
    _ = try? CommonOptions.parse(&probe)
    let rest = (try? probe.positionals()) ?? ["?"]
    return rest.isEmpty
  }

  /// Runs one client command; returns the exit status.
  public static func runClient(_ command: String, _ args: inout Arguments) -> Int32 {
    let out = OutputSink.standardOutput
    defer { out.flush() }
    let usage = clientUsages[command] ?? ""
    if args.flag("--help", "-h") {
      out.line(usage)
      return 0
    }
    do {
      let socket = DaemonConnection.resolvePath(try args.option("--socket"))
      switch command {
      case "watch": return try watch(&args, socket, out)
      case "status": try status(&args, socket, out)
      case "routes": try daemonRoutes(&args, socket, out)
      case "select": try select(&args, socket)
      case "load": try load(&args, socket)
      case "cancel": try cancel(&args, socket)
      case "reroute": try reroute(&args, socket, out, command: .reroute)
      case "skip": try reroute(&args, socket, out, command: .skip)
      case "speak": return try speak(&args, socket)
      default: throw UsageError("unknown command '\(command)'")
      }
      return 0
    } catch let e as UsageError {
      logLine(3, "stepwise \(command): \(e)")
      logLine(3, usage)
      return ClientError.Status.usage.rawValue
    } catch let e as ClientError {
      out.flush()
      logLine(3, "stepwise \(command): \(e.message)")
      return e.status.rawValue
    } catch let e as RouteFileError {
      logLine(3, "stepwise \(command): cannot load the route: \(e)")
      return ClientError.Status.usage.rawValue
    } catch let e as RouteDocumentError {
      logLine(3, "stepwise \(command): \(e)")
      return ClientError.Status.usage.rawValue
    } catch {
      logLine(3, "stepwise \(command): \(error)")
      return ClientError.Status.refused.rawValue
    }
  }

  private static func timeout(_ args: inout Arguments, default value: Double) throws(UsageError)
    -> Double
  {
    try args.number("--timeout", in: 0.1...86_400) ?? value
  }

  /// Connects, reads the greeting, turns events off, sends `command` and returns the `REPLY`.
  private static func ask(_ socket: String, _ command: Command, timeout: Double) throws(ClientError)
    -> JSONObject
  {
    let connection = try DaemonConnection(path: socket)
    _ = try connection.handshake(timeout: timeout)
    try connection.send(CommandRequest(.watch(WatchRequest(enable: false)), id: "quiet"))
    return try connection.request(CommandRequest(command), timeout: timeout)
  }

  static func status(_ args: inout Arguments, _ socket: String, _ out: OutputSink) throws {
    let json = args.flag("--json")
    let common = try CommonOptions.parse(&args)
    let wait = try timeout(&args, default: 10)
    guard try args.positionals().isEmpty else { throw UsageError("status takes no arguments") }
    let reply = try ask(socket, .status, timeout: wait)
    guard let stateObject = reply["state"]?.objectValue else {
      throw ClientError(.refused, "stepwised sent no state")
    }
    if json {
      out.line(JSONWriter.string(.object(stateObject)))
      return
    }
    var view = WatchView(phrasebook: Phrasebook(language: common.language, units: common.units))
    view.state = GuidanceState(stateObject: stateObject) ?? GuidanceState()
    for line in view.screen(width: 100) { out.line(line) }
  }

  static func daemonRoutes(_ args: inout Arguments, _ socket: String, _ out: OutputSink) throws {
    let json = args.flag("--json")
    let common = try CommonOptions.parse(&args)
    let wait = try timeout(&args, default: 10)
    guard try args.positionals().isEmpty else {
      throw UsageError("routes with --socket takes no route file")
    }
    let reply = try ask(socket, .routes(steps: false), timeout: wait)
    if json {
      out.line(JSONWriter.string(.object(reply)))
      return
    }
    let book = Phrasebook(language: common.language, units: common.units)
    out.line("\(reply["source"]?.stringValue ?? "?") → \(reply["destination"]?.stringValue ?? "?")")
    let selected = reply["selected"]?.doubleValue.map { Int($0) }
    var rows: [[String]] = [["", "#", "time", "distance", "tolls", "name"]]
    for r in reply["routes"]?.arrayValue ?? [] {
      let i = Int(r["index"]?.doubleValue ?? -1)
      rows.append([
        i == selected ? "*" : "", String(i),
        book.displayDuration(r["expectedTravelTime"]?.doubleValue ?? 0),
        book.displayDistance(r["distance"]?.doubleValue ?? 0),
        r["hasTolls"]?.boolValue == true ? (common.language == .ko ? "유료" : "tolls") : "",
        r["name"]?.stringValue ?? "",
      ])
    }
    for line in TextColumns.lines(rows, rightAligned: [1, 2, 3]) { out.line(line) }
  }

  static func select(_ args: inout Arguments, _ socket: String) throws {
    let wait = try timeout(&args, default: 10)
    let rest = try args.positionals()
    guard rest.count == 1, let n = Int(rest[0]), n >= 0 else {
      throw UsageError(
        rest.isEmpty
          ? "select needs the alternative's number"
          : "invalid alternative '\(rest.joined(separator: " "))'")
    }
    _ = try ask(socket, .select(routeIndex: n), timeout: wait)
  }

  static func load(_ args: inout Arguments, _ socket: String) throws {
    let index = try args.integer("--route-index") ?? 0
    let format = try args.option("--route-format", as: RouteFileFormat.self)
    let wait = try timeout(&args, default: 30)
    let rest = try args.positionals()
    guard rest.count == 1 else {
      throw UsageError(rest.isEmpty ? "load needs a route file" : "load takes one route file")
    }
    let bytes: [UInt8]
    do {
      bytes = try readWholeFile(rest[0])
    } catch {
      throw RouteFileError(path: rest[0], underlying: nil, message: "cannot read: \(error)")
    }
    // Check it here first: a mistake in the file is the user's, and is best said before sending.
    let document = try RouteFiles.decode(bytes, name: rest[0], format: format)
    _ = try document.route(at: index)
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes)
    } catch {
      throw RouteFileError(path: rest[0], underlying: nil, message: "not valid JSON: \(error)")
    }
    _ = try ask(socket, .load(document: value, routeIndex: index), timeout: wait)
  }

  static func cancel(_ args: inout Arguments, _ socket: String) throws {
    let wait = try timeout(&args, default: 10)
    guard try args.positionals().isEmpty else { throw UsageError("cancel takes no arguments") }
    _ = try ask(socket, .cancel, timeout: wait)
  }

  /// `stepwise reroute` and `stepwise skip`: sends `command` and says what the daemon does,
  /// or why it will not.
  static func reroute(
    _ args: inout Arguments, _ socket: String, _ out: OutputSink, command: Command
  ) throws {
    let json = args.flag("--json")
    let wait = try timeout(&args, default: 10)
    guard try args.positionals().isEmpty else {
      throw UsageError("\(command.name) takes no arguments")
    }
    let reply: JSONObject
    do {
      reply = try ask(socket, command, timeout: wait)
    } catch let e {
      throw ClientError(e.status, refusal(e, command: command), code: e.code)
    }
    if json {
      out.line(JSONWriter.string(.object(reply)))
    } else if command == .skip {
      out.line("Skipping the next waypoint: the new route comes as a ROUTE event.")
    } else {
      out.line("Asking the router for a new route: it comes as a ROUTE event.")
    }
  }

  /// The daemon's message for a refused `reroute` or `skip` (no router, nothing guided, no
  /// waypoint left, not permitted) without the command's name, which the tool's prefix says.
  static func refusal(_ e: ClientError, command: Command) -> String {
    let prefix = "\(command.name): "
    return e.message.hasPrefix(prefix) ? String(e.message.dropFirst(prefix.count)) : e.message
  }

  /// `stepwise watch`: returns 0 when the daemon stops, 1 when the connection is dropped.
  static func watch(_ args: inout Arguments, _ socket: String, _ out: OutputSink) throws -> Int32 {
    let json = args.flag("--json")
    let progress = args.flag("--progress")
    let common = try CommonOptions.parse(&args)
    var classes: [String]?
    if let list = try args.option("--classes") {
      let names = list.split(separator: ",").map { String($0).uppercased() }
      for n in names where !CommandRequest.watchableClasses.contains(n) {
        throw UsageError(
          "unknown class '\(n)' (known: \(CommandRequest.watchableClasses.joined(separator: ", ")))"
        )
      }
      classes = names
    }
    guard try args.positionals().isEmpty else { throw UsageError("watch takes no arguments") }

    let connection = try DaemonConnection(path: socket)
    let terminal = !json && isatty(1) != 0
    var view = WatchView(phrasebook: Phrasebook(language: common.language, units: common.units))
    var drawn = 0

    func draw() {
      let lines = view.screen(width: terminalWidth())
      var text = ""
      if drawn > 1 { text += "\u{1B}[\(drawn - 1)F" } else if drawn == 1 { text += "\r" }
      for (i, l) in lines.enumerated() {
        text += "\u{1B}[2K" + l + (i < lines.count - 1 ? "\n" : "")
      }
      text += "\u{1B}[J"
      writeToTerminal(text, out)
      drawn = lines.count
    }

    view.state = try connection.handshake().state
    if json {
      for line in connection.greeting { out.line(String(decoding: line.bytes, as: UTF8.self)) }
      out.flush()
    } else if !terminal, let line = WatchView.plainLine(view.state.object, progress: progress) {
      out.line(line)
      out.flush()
    }
    if let classes {
      try connection.send(CommandRequest(.watch(WatchRequest(classes: classes)), id: "watch"))
    }
    if terminal {
      try connection.send(CommandRequest(.routes(steps: true), id: "steps"))
      draw()
    }
    while true {
      guard let line = try connection.next(timeout: nil) else {
        if terminal { out.line("") }
        out.flush()
        logLine(3, "stepwise watch: stepwised closed the connection")
        return ClientError.Status.refused.rawValue
      }
      let o = line.object
      switch line.className {
      case "REPLY":
        if o["id"] == .string("steps") {
          let routes = o["routes"]?.arrayValue ?? []
          let selected = o["selected"]?.doubleValue.map { Int($0) }
          view.steps =
            routes.first { $0["index"]?.doubleValue.map { Int($0) } == selected }?["stepList"]?
            .arrayValue?.compactMap(\.objectValue) ?? []
        }
        continue
      case "ERROR":
        guard let e = WireError(object: o) else { continue }
        if e.command != nil { continue }  // an answer to our own command (no route yet)
        if terminal { out.line("") }
        out.flush()
        logLine(e.code == .shutdown ? 6 : 3, "stepwise watch: \(e.message)")
        return e.code == .shutdown ? 0 : ClientError.Status.refused.rawValue
      default:
        break
      }
      let received = ReceivedEvent(object: o)
      if let received { view.state.apply(received) }
      if json {
        out.line(String(decoding: line.bytes, as: UTF8.self))
        if !connection.hasBufferedLine { out.flush() }
      } else if terminal {
        if received?.event.eventClass == .route {
          view.steps = []
          try connection.send(CommandRequest(.routes(steps: true), id: "steps"))
        }
        if !connection.hasBufferedLine { draw() }
      } else if let text = WatchView.plainLine(o, progress: progress) {
        out.line(text)
        if !connection.hasBufferedLine { out.flush() }
      }
    }
  }

  /// `stepwise speak`: returns 0 when the daemon stops, 1 when the connection is dropped.
  static func speak(_ args: inout Arguments, _ socket: String) throws -> Int32 {
    let voice = try args.option("--voice")
    let espeak = try args.option("--espeak")
    let verbose = args.flag("--verbose", "-v")
    guard try args.positionals().isEmpty else { throw UsageError("speak takes no arguments") }
    let synthesizer = SpeechSynthesizer(
      executable: try SpeechSynthesizer.locate(espeak), voice: voice)
    let connection = try DaemonConnection(path: socket)
    var queue = AnnouncementQueue()
    queue.start(from: try connection.handshake().state)
    func report(_ dropped: [(AnnouncementQueue.Entry, String)]) {
      guard verbose else { return }
      for (p, why) in dropped { logLine(7, "dropped (\(why)): \(p.text)") }
    }
    var failures = 0
    var status: Int32?
    while true {
      if let code = synthesizer.reap(), code != 0 {
        failures += 1
        if failures == 1 {
          logLine(4, "stepwise speak: \(synthesizer.executable) exited with status \(code)")
        }
      }
      if !synthesizer.isSpeaking && status == nil {
        let (announcement, dropped) = queue.next()
        report(dropped)
        if let announcement {
          if verbose {
            logLine(
              7, "saying (\(synthesizer.voice(for: announcement.text))): \(announcement.text)")
          }
          try synthesizer.say(announcement.text)
        }
      }
      if let status {
        // The daemon is gone: finish the message being said, say nothing more.
        _ = synthesizer.reap(block: true)
        return status
      }
      guard let line = try connection.next(timeout: synthesizer.isSpeaking ? 0.02 : nil) else {
        if connection.ended {
          logLine(3, "stepwise speak: stepwised closed the connection")
          status = ClientError.Status.refused.rawValue
        }
        continue
      }
      if line.className == "ERROR", let e = WireError(object: line.object), e.command == nil {
        logLine(e.code == .shutdown ? 6 : 3, "stepwise speak: \(e.message)")
        status = e.code == .shutdown ? 0 : ClientError.Status.refused.rawValue
        continue
      }
      guard let received = ReceivedEvent(object: line.object) else { continue }
      report(queue.observe(received.event).map { ($0, "guidance changed") })
    }
  }

  /// Writes `text` to standard output at once, after what `out` holds.
  ///
  /// The corresponding C function is `write`.
  private static func writeToTerminal(_ text: String, _ out: OutputSink) {
    out.flush()
    try? writeAll(1, Array(text.utf8), subject: "stdout")
  }

  /// Columns of the terminal on standard output (80 when unknown).
  ///
  /// The corresponding C function is `ioctl` with `TIOCGWINSZ`.
  private static func terminalWidth() -> Int {
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 { return Int(size.ws_col) }
    return 80
  }
}
