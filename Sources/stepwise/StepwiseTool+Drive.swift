import CommandLineSupport
import Driver
import Glibc
import Lab
import POSIX
import RouteFiles
import Routes
import Simulation

extension StepwiseTool {
  static let driveUsage = """
    usage: stepwise drive DIR|ROUTE --router URL [OPTIONS]

    A virtual vehicle in a closed loop with stepwised: starts stepwised (--router URL, --socket,
    NMEA on its standard input through a pipe), follows every route it publishes, makes the
    scripted mistakes, and prints the closed-loop score. DIR is a closed-loop scenario
    (Simulations/closed-loop/NNN-name: its route and recipe).

      --router URL         the Valhalla both the daemon and the driver use
      --mistakes LIST      comma-separated: miss:STEP, wrong-exit:STEP, u-turn:METRES, ignore
                           (the first new route after a mistake), stop:METRES:SECONDS; @REV
                           after any but ignore makes it on the route of that revision
                           (miss:2@1: on the first new route)
      --speed KMH          cruising speed (default 50)
      --noise METRES       RMS position error (default 0)
      --seed N             random seed (default 1)
      --hz N               fixes per second (default 1)
      --speed-up X         multiple of real time (default 10)
      --record             write the drive to DIR/run.jsonl (scored by stepwise scenario score),
                           the fixes fed to stepwised to DIR/drive.nmea, its router's requests
                           and answers to DIR/router.jsonl (stepwised --record-router), and
                           their replay without a router to DIR/expected.jsonl (the golden of
                           stepwise scenario run), checked against the daemon's own events
      --output FILE        write the drive to FILE
      --stepwised PATH     the daemon (default: next to this stepwise)
      --socket PATH        the daemon's socket (default: a fresh one under /tmp)
      --locale, --units    passed to stepwised
    """

  /// `stepwise drive`: one closed-loop drive against a real router; returns 1 when it misses
  /// a closed-loop bar.
  static func driveCommand(_ args: inout Arguments, _ out: OutputSink) throws -> Int32 {
    if args.flag("--help", "-h") {
      out.line(driveUsage)
      return 0
    }
    guard let router = try args.option("--router") else {
      throw UsageError("drive needs --router URL (a Valhalla)")
    }
    var mistakes: [DrivingMistake] = []
    for m in (try args.option("--mistakes"))?.split(separator: ",") ?? [] {
      guard let mistake = DrivingMistake(String(m)) else {
        throw UsageError("unknown mistake '\(m)' in --mistakes")
      }
      mistakes.append(mistake)
    }
    let speed = try args.number("--speed", in: 1...200)
    let noise = try args.number("--noise", in: 0...100)
    let seed = try args.integer("--seed")
    let hz = try args.number("--hz", in: 1...10)
    let speedUp = try args.number("--speed-up", in: 0.1...100)
    let record = args.flag("--record")
    let output = try args.option("--output")
    let daemonPath = try args.option("--stepwised") ?? sibling("stepwised")
    var socket = try args.option("--socket")
    let locale = try args.option("--locale")
    let units = try args.option("--units")
    let rest = try args.positionals()
    guard rest.count == 1 else { throw UsageError("drive needs one folder or route file") }
    let target = rest[0]

    var recipe = ClosedLoopRecipe()
    recipe.options.profile = .town
    recipe.options.settle = 3
    recipe.options.dwell = 3
    var routePath = target
    var scenario: ClosedLoopScenario?
    var daemonArguments: [String] = []
    if isDirectory(target) {
      let s = try ClosedLoopScenario(directory: target, read: { try readWholeFile($0) })
      scenario = s
      recipe = s.recipe
      routePath = s.routePath
      if let l = s.locale { daemonArguments += ["--locale", l] }
      if let u = s.units { daemonArguments += ["--units", u] }
    } else if record {
      throw UsageError("--record needs a closed-loop scenario folder")
    }
    if !mistakes.isEmpty { recipe.mistakes = mistakes }
    if let speed { recipe.options.speed = speed / 3.6 }
    if let noise { recipe.options.noise = noise }
    if let seed { recipe.options.seed = UInt64(seed) }
    if let hz { recipe.options.hz = hz }
    if let speedUp { recipe.speedUp = speedUp }
    if let locale { daemonArguments += ["--locale", locale] }
    if let units { daemonArguments += ["--units", units] }

    let document = try RouteFiles.load(routePath, format: nil, language: nil)
    let route = try document.route(at: 0)
    let scratch = socket == nil ? try temporaryDirectory() : nil
    defer { if let scratch { removeTemporary(scratch) } }
    if socket == nil, let scratch { socket = scratch + "/stepwised.sock" }
    var c = ClosedLoopDrive.Configuration(
      routePath: routePath, route: route, stepwised: daemonPath, routerURL: router,
      socketPath: socket ?? "")
    c.name = scenario?.name ?? routePath
    c.options = recipe.options
    c.mistakes = recipe.mistakes
    c.speedUp = recipe.speedUp
    c.daemonArguments = daemonArguments
    let recording = scratch.map { $0 + "/router.jsonl" } ?? socket.map { $0 + ".router.jsonl" }
    if record { c.routerRecording = recording }
    defer { if record, let recording { unlink(recording) } }
    let (lines, track) = try ClosedLoopDrive.run(c)
    let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
    if let output { try writeFileAtomically(output, bytes) }
    var replayed = true
    if record, var scenario, let recording {
      try writeFileAtomically(scenario.runPath, bytes)
      try writeFileAtomically(scenario.trackPath, Array(track.utf8))
      let exchanges = try readWholeFile(recording)
      try writeFileAtomically(scenario.routerPath, exchanges)
      scenario.track = Array(track.utf8)
      scenario.routerRecording = exchanges
      replayed = try checkReplay(scenario, lines: lines, out)
    }
    let score = ClosedLoopScore(try ClosedLoopRun(bytes: bytes), name: c.name)
    for l in ClosedLoopTable.text([score]) { out.line(l) }
    for n in score.notes { out.line("  \(n)") }
    return score.violations().isEmpty && replayed ? 0 : 1
  }

  /// Replays a drive just recorded without a router and checks that it gives what the daemon
  /// published (its events but `PROGRESS`, `SOURCE` and the shutdown `ERROR`, without `seq`);
  /// only then is the transcript written as the scenario's golden (`expected.jsonl`).
  static func checkReplay(_ scenario: ClosedLoopScenario, lines: [String], _ out: OutputSink)
    throws -> Bool
  {
    let replay = try scenario.transcript()
    let live = ClosedLoopRun.daemonTranscript(lines)
    if replay == live {
      try writeFileAtomically(
        scenario.expectedPath, Array((replay.joined(separator: "\n") + "\n").utf8))
      out.line(
        "\(scenario.directory): replayed without a router: \(replay.count) events, the daemon's")
      return true
    }
    out.line("\(scenario.directory): the replay without a router differs from the daemon's events:")
    out.line(transcriptDiff(expected: live, actual: replay))
    return false
  }

  /// A program installed next to this one.
  static func sibling(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return name }
    let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return name }
    return String(path[..<slash]) + "/" + name
  }

  static func isDirectory(_ path: String) -> Bool {
    var s = stat()
    return stat(path, &s) == 0 && (s.st_mode & S_IFMT) == S_IFDIR
  }

  static func temporaryDirectory() throws -> String {
    var template = Array("/tmp/stepwise-drive-XXXXXX".utf8CString)
    guard let p = mkdtemp(&template) else {
      throw DriveError(description: "\(SystemError(errno: errno, function: "mkdtemp"))")
    }
    return String(cString: p)
  }

  static func removeTemporary(_ directory: String) {
    unlink(directory + "/stepwised.sock")
    rmdir(directory)
  }
}
