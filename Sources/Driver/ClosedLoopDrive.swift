import Client
import Geodesy
import Glibc
import Instructions
import JSON
import Lab
import POSIX
import Phrasebook
import Rerouting
import Router
public import Routes
public import Simulation
import Wire

/// A closed-loop drive: `stepwised` as a child, reading the virtual vehicle's NMEA on its
/// standard input through a pipe, and the vehicle following every route the daemon publishes
/// on its socket.
///
/// Time: the driver writes each epoch when it is due on the wall clock (its fix time divided
/// by ``Configuration/speedUp``), and the daemon replays standard input paced at the same
/// speed, so the router's real latency (a reply comes back as the engine's input, on the fix
/// clock) and the daemon's pacing are what they would be live; at a speed-up above 1 a reply
/// that takes longer than one epoch's wall time arrives one fix later, so the figures err on the
/// slow side, never the fast one.
public struct ClosedLoopDrive {
  public struct Configuration: Sendable {
    public var name = "drive"
    public var routePath: String
    public var route: Route
    public var stepwised: String
    public var routerURL: String
    public var speedUp = 10.0
    public var options = DriveOptions()
    public var mistakes: [DrivingMistake] = []
    /// More `stepwised` options (`--locale ko`, `--units imperial`, …).
    public var daemonArguments: [String] = []
    /// Where the daemon's socket goes.
    public var socketPath: String
    /// Fix-time seconds after which a drive that has not arrived is stopped.
    public var timeLimit: Double
    /// Where the daemon records its router's requests and answers (`--record-router`), if
    /// anywhere.
    public var routerRecording: String?

    public init(
      routePath: String, route: Route, stepwised: String, routerURL: String, socketPath: String
    ) {
      self.routePath = routePath
      self.route = route
      self.stepwised = stepwised
      self.routerURL = routerURL
      self.socketPath = socketPath
      timeLimit = 3 * route.expectedTravelTime + 300
    }
  }

  /// Seconds the daemon gets to create its socket, and to end after its input ended.
  static let startTimeout = 10.0
  static let endTimeout = 10.0
  /// Seconds a `routes` request may take, and how often it is asked before giving up.
  static let requestTimeout = 5.0
  static let requestAttempts = 3

  /// Drives: plans the mistakes' roads with the router, starts the daemon, drives until
  /// arrival (or the time limit), ends the daemon.
  ///
  /// - Returns: the lines of the run (`run.jsonl`, `ClosedLoopRun`) and the NMEA the daemon
  ///   was fed (`drive.nmea`).
  public static func run(_ c: Configuration) throws -> (lines: [String], track: String) {
    let router = try RouterClient(
      baseURL: c.routerURL, api: .valhalla, timeout: 5, writer: InstructionWriter(language: .en))
    defer { router.close() }
    let firstSteps = c.route.steps.map(\.polyline)
    let first = firstSteps.flatMap { $0 }
    var detours: [Detour] = []
    for m in c.mistakes where m.revision == 0 && needsRouter(m) {
      detours.append(try WrongWays.detour(m, route: c.route, router: router))
    }
    var lines = [
      ClosedLoopRun.header(
        name: c.name, speed: c.options.speed ?? (c.options.profile ?? .town).cruise,
        speedUp: c.speedUp, mistakes: c.mistakes),
      idealLine(c),
    ]
    var driver = ClosedLoopDriver(
      route: first, options: c.options, detours: detours, mistakes: c.mistakes)
    var track = "# Name: \(c.name)\n# Source: stepwise drive (the fixes fed to stepwised)\n"

    let daemon = try DaemonChild(c)
    defer { daemon.end() }
    let connection = try connect(c.socketPath, daemon: daemon)
    _ = try connection.handshake(timeout: startTimeout)

    let clock = SystemClock()
    let wallStart = clock.now()
    let fixStart = driver.time
    var revisions = 0
    var recorded = 0
    var pending: [ReceivedLine] = []
    func take(_ line: ReceivedLine) throws {
      // The events but PROGRESS; not the protocol's replies.
      guard let eventClass = ReceivedEvent(object: line.object)?.event.eventClass,
        eventClass != .progress
      else { return }
      lines.append(String(decoding: line.bytes, as: UTF8.self))
      guard eventClass == .route else { return }
      let revision = line.object["revision"]?.doubleValue.map { Int($0) } ?? revisions
      revisions += 1
      let steps = try geometry(connection, expecting: line.object) { pending.append($0) }
      lines.append(ClosedLoopRun.line(ClosedLoopRun.Geometry(revision: revision, steps: steps)))
      guard revision > 0 else { return }
      // The wrong ways of the mistakes made on this route, found now that it is known.
      var later: [Detour] = []
      for m in c.mistakes where m.revision == revision && needsRouter(m) {
        later.append(
          try WrongWays.detour(
            m, steps: steps, transportType: c.route.transportType, router: router))
      }
      driver.offered(revision: revision, route: steps.flatMap { $0 }, detours: later)
    }
    while !driver.finished && driver.time - fixStart < c.timeLimit {
      // Read what the daemon says until the next epoch is due.
      let due = wallStart + (driver.time - fixStart) / c.speedUp
      while true {
        while !pending.isEmpty { try take(pending.removeFirst()) }
        let left = due - clock.now()
        if left <= 0 && !connection.hasBufferedLine { break }
        guard let line = try connection.next(timeout: max(0, left)) else {
          if connection.ended { throw DriveError(description: "stepwised closed its socket") }
          break
        }
        try take(line)
      }
      let (sample, fix, sigma) = driver.step()
      lines.append(ClosedLoopRun.line(sample))
      // What the driver did: routes taken or ignored on the way here, a mistake begun now.
      for a in driver.actions[recorded...] { lines.append(ClosedLoopRun.line(a)) }
      recorded = driver.actions.count
      var epoch = NMEAWriter.epoch(fix, talker: "GP", sigma: sigma)
      // A ZDA a hundredth of a second later closes the epoch, so the daemon takes the fix now
      // rather than when the next epoch begins (an epoch of ZDA alone is never emitted).
      epoch += zda(fix.time + 0.01)
      track += epoch
      guard daemon.write(Array(epoch.utf8)) else {
        throw DriveError(description: "stepwised stopped reading its input")
      }
    }
    // The end of the input ends the replay: read the daemon's last events until it closes.
    daemon.closeInput()
    let deadline = clock.now() + endTimeout
    while clock.now() < deadline {
      while !pending.isEmpty { try take(pending.removeFirst()) }
      guard let line = try? connection.next(timeout: deadline - clock.now()) else { break }
      try take(line)
    }
    return (lines, track)
  }

  /// Whether `mistake` drives a wrong way the router has to find (a missed turn, a wrong exit).
  static func needsRouter(_ mistake: DrivingMistake) -> Bool {
    switch mistake.base {
    case .missTurn, .wrongExit: true
    default: false
    }
  }

  /// The `IDEAL` line: the first route driven by the open-loop simulator without noise or
  /// mistakes, to within the arrival radius of its end.
  static func idealLine(_ c: Configuration) -> String {
    var o = c.options
    o.noise = 0
    o.deviation = nil
    o.stops = []
    let drive = DriveSimulator.drive(c.route, options: o)
    let points = c.route.steps.flatMap(\.polyline)
    let end = points.last ?? Coordinate(latitude: 0, longitude: 0)
    let start = drive.truth.first { $0.speed > 0 }?.time ?? 0
    let there = drive.truth.first { $0.position.distance(to: end) <= 20 }?.time ?? start
    return ClosedLoopRun.ideal(
      distance: Polyline(points).length, seconds: there - start, destination: end)
  }

  /// Connects to the daemon's socket once it exists.
  static func connect(_ path: String, daemon: DaemonChild) throws -> DaemonConnection {
    let clock = SystemClock()
    let deadline = clock.now() + startTimeout
    while true {
      do {
        return try DaemonConnection(path: path)
      } catch {
        guard daemon.running, clock.now() < deadline else {
          throw DriveError(description: "stepwised never listened on \(path): \(error)")
        }
        // Start-up only: nothing else to wait on before the daemon binds its socket.
        clock.sleep(until: clock.now() + 0.02)
      }
    }
  }

  /// The steps of the route the daemon follows now (the `routes` command with geometry),
  /// checked against the `ROUTE` event just received: asked again (at most ``requestAttempts``
  /// times) while the reply still describes the route before.
  static func geometry(
    _ connection: DaemonConnection, expecting route: JSONObject,
    onEvent: (ReceivedLine) -> Void
  ) throws -> [[Coordinate]] {
    var found = 0
    for _ in 0..<requestAttempts {
      let reply = try connection.request(
        CommandRequest(.routes(steps: true, geometry: true)), timeout: requestTimeout,
        onEvent: onEvent)
      let selected = Int(reply["selected"]?.doubleValue ?? 0)
      guard let routes = reply["routes"]?.arrayValue, routes.indices.contains(selected),
        let list = routes[selected].objectValue?["stepList"]?.arrayValue
      else { throw DriveError(description: "stepwised's routes reply has no steps") }
      found = list.count
      if let n = route["steps"]?.doubleValue, Int(n) != list.count { continue }
      return list.map { step in
        (step.objectValue?["polyline"]?.arrayValue ?? []).compactMap { p in
          guard let o = p.objectValue, let lat = o["latitude"]?.doubleValue,
            let lon = o["longitude"]?.doubleValue
          else { return nil }
          return Coordinate(latitude: lat, longitude: lon)
        }
      }
    }
    throw DriveError(
      description: "stepwised's routes reply has \(found) steps, its ROUTE "
        + "\(Int(route["steps"]?.doubleValue ?? 0))")
  }

  /// A ZDA sentence at `time`.
  static func zda(_ time: Double) -> String {
    let day = Int((time / 86400).rounded(.down))
    let (y, m, d) = UTCTime.civil(days: day)
    let centis = Int(((time - Double(day) * 86400) * 100).rounded())
    let s = centis / 100
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let clock = two(s / 3600) + two(s / 60 % 60) + two(s % 60) + "." + two(centis % 100)
    return NMEAWriter.frame("GPZDA,\(clock),\(two(d)),\(two(m)),\(y),00,00")
  }
}

/// Why a closed-loop drive stopped.
public struct DriveError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(description: String) { self.description = description }
}

/// `stepwised` started for a drive: its standard input is the write end of a pipe this
/// process owns, its standard output goes to /dev/null (the events come through the socket).
final class DaemonChild {
  let pid: pid_t
  private var input: Int32

  init(_ c: ClosedLoopDrive.Configuration) throws {
    var arguments = [
      c.stepwised, "--route", c.routePath, "--json", "--router", c.routerURL, "--socket",
      c.socketPath, "--replay-speed", NMEAWriter.fixed(c.speedUp, 3),
    ]
    if let path = c.routerRecording { arguments += ["--record-router", path] }
    arguments += c.daemonArguments + ["-"]
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else {
      throw DriveError(description: "\(SystemError(errno: errno, function: "pipe"))")
    }
    // Neither end is inherited as such: the child gets the read end as its standard input.
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
    argv.append(nil)
    defer { for p in argv { free(p) } }
    var child: pid_t = 0
    let r = posix_spawn(&child, c.stepwised, &actions, nil, argv, environ)
    close(fds[0])
    guard r == 0 else {
      close(fds[1])
      throw DriveError(
        description: "cannot run \(c.stepwised): \(SystemError(errno: r, function: "posix_spawn"))")
    }
    pid = child
    input = fds[1]
    // A daemon that stops reading must not kill the driver: the write fails instead.
    signal(SIGPIPE, SIG_IGN)
  }

  var running: Bool { kill(pid, 0) == 0 }

  /// Writes all of `bytes` to the daemon's standard input; false when it stopped reading.
  func write(_ bytes: [UInt8]) -> Bool {
    do {
      try writeAll(input, bytes, subject: "the daemon's input")
      return true
    } catch {
      return false
    }
  }

  func closeInput() {
    if input >= 0 { close(input) }
    input = -1
  }

  /// Ends the daemon: its input closed, it ends by itself; if it has not within the end
  /// timeout, SIGTERM, then SIGKILL.
  func end() {
    closeInput()
    let clock = SystemClock()
    for (signal, wait) in [(Int32(0), ClosedLoopDrive.endTimeout), (SIGTERM, 2), (SIGKILL, 2)] {
      if signal != 0 { kill(pid, signal) }
      let deadline = clock.now() + wait
      var status: Int32 = 0
      while clock.now() < deadline {
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid || (r < 0 && errno != EINTR) { return }
        // Shutting down only: a child has no descriptor to wait on.
        clock.sleep(until: clock.now() + 0.02)
      }
    }
  }
}
