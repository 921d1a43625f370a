import Foundation
import JSON
import TestSupport
import Testing

// End-to-end tests against a real gpsd, started through gpsfake, and replays of gpsd captures.
// Every process runs in its own session (process group) and is ended with SIGKILL to the group
// by its id; each test has its own TMPDIR and port, and removes both when it ends.

/// A process started in its own session, with output to files.
final class SpawnedProcess {
  let pid: pid_t
  let stdoutPath: String
  let stderrPath: String
  private(set) var status: Int32?

  /// Starts `argv` in a new session (`setsid`), so `pid` is also its process group.
  init(_ argv: [String], environment: [String: String], stdoutPath: String, stderrPath: String)
    throws
  {
    self.stdoutPath = stdoutPath
    self.stderrPath = stderrPath
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    Self.closeInheritedDescriptors(&actions)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // POSIX_SPAWN_SETSID (glibc ≥ 2.26) is not imported into Swift: 0x80.
    posix_spawnattr_setflags(&attributes, Int16(0x80))
    let env = environment.map { "\($0.key)=\($0.value)" }
    var cArgs = argv.map { strdup($0) } + [nil]
    var cEnv = env.map { strdup($0) } + [nil]
    defer {
      for p in cArgs { free(p) }
      for p in cEnv { free(p) }
    }
    var child: pid_t = 0
    let r = posix_spawn(&child, argv[0], &actions, &attributes, &cArgs, &cEnv)
    guard r == 0 else { throw POSIXError(POSIXErrorCode(rawValue: r) ?? .EINVAL) }
    pid = child
  }

  /// Closes every descriptor from 3 up in the child, whether or not the test process marked it
  /// close-on-exec.
  ///
  /// Foundation opens the temporary file of `write(toFile:atomically:)` without `O_CLOEXEC`.
  /// A gpsd, broker or TLS server started while another test wrote a script that way held the
  /// script open for writing as long as it ran, so running the script failed with `ETXTBSY`
  /// (the fake `espeak-ng` of `ClientTests`, 4 runs in about 330 under AddressSanitizer).
  /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) is not imported into Swift: it is
  /// looked up, and without it nothing is closed, as before.
  private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom =
      @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard
      let symbol = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
  }

  /// Whether it still runs (reaps it when it ended).
  var isRunning: Bool {
    if status != nil { return false }
    var s: Int32 = 0
    let r = waitpid(pid, &s, WNOHANG)
    if r == pid {
      status = s
      return false
    }
    return r == 0
  }

  /// Waits up to `timeout` seconds for the exit; returns the exit status, or nil.
  func wait(timeout: Double) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while isRunning && Date() < deadline { usleep(10_000) }
    guard let s = status else { return nil }
    return (s & 0x7f) == 0 ? (s >> 8) & 0xff : 128 + (s & 0x7f)
  }

  func signal(_ number: Int32) { if status == nil { kill(pid, number) } }

  /// Ends the whole process group with SIGKILL and reaps the leader.
  func killGroup() {
    kill(-pid, SIGKILL)
    _ = wait(timeout: 5)
  }

  var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
  var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

/// A TCP port on 127.0.0.1 that nobody listens on right now, below the kernel's range of
/// ephemeral ports, and never the same twice in one test run.
///
/// Ports come from a counter that starts at a place given by the process id, each one bound
/// once to see that it is free. A port from `bind` to port 0 was an ephemeral one: between
/// closing it and the server binding it, an outgoing connection of another test could take it
/// as its source port, and `valhalla_service` died of "Address already in use" (a full
/// `swift test`, ClosedLoopDriveTests).
func freeLoopbackPort() throws -> Int {
  let ephemeral =
    (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
    .flatMap { Int($0.split(whereSeparator: \.isWhitespace).first ?? "") } ?? 32768
  let low = 10_000
  let high = max(low + 1_000, ephemeral)
  for _ in 0..<(high - low) {
    let port = portCounter.withLock { next -> Int in
      if next < low || next >= high { next = low + Int(getpid()) % (high - low) }
      defer { next += 1 }
      return next
    }
    if try portIsFree(port) { return port }
  }
  throw POSIXError(.EADDRINUSE)
}

private let portCounter = NSLockedInt()

/// An `Int` behind a lock.
private final class NSLockedInt: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func withLock<T>(_ body: (inout Int) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}

/// Whether `port` on 127.0.0.1 can be bound now.
private func portIsFree(_ port: Int) throws -> Bool {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { throw POSIXError(.EIO) }
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = UInt16(port).bigEndian
  let length = socklen_t(MemoryLayout<sockaddr_in>.size)
  return withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
  }
}

/// Whether something accepts connections on 127.0.0.1:`port`.
func isListening(_ port: Int) -> Bool {
  guard let fd = connectLoopback(port) else { return false }
  close(fd)
  return true
}

/// A TCP connection to 127.0.0.1:`port` (close-on-exec; the caller closes it), or `nil`.
func connectLoopback(_ port: Int) -> Int32? {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
  guard fd >= 0 else { return nil }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = UInt16(port).bigEndian
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
    }
  }
  guard connected else {
    close(fd)
    return nil
  }
  return fd
}

/// Polls `condition` every 20 ms for up to `timeout` seconds.
@discardableResult
func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while Date() < deadline {
    if condition() { return true }
    usleep(20_000)
  }
  return condition()
}

/// The announcements of a JSON transcript as "step kind" strings, in order.
func announcements(_ transcript: String, excludingKinds: Set<String> = []) -> [String] {
  transcript.split(separator: "\n").compactMap { line -> String? in
    guard let o = try? JSONParser.parse(String(line)), o["class"]?.stringValue == "ANNOUNCE",
      let kind = o["kind"]?.stringValue, !excludingKinds.contains(kind),
      let step = o["step"]?.doubleValue
    else { return nil }
    return "\(Int(step)) \(kind)"
  }
}

/// The `class` (and `status`, where there is one) of each line, in order.
func classes(_ transcript: String) -> [String] {
  transcript.split(separator: "\n").compactMap { line -> String? in
    guard let o = try? JSONParser.parse(String(line)), let c = o["class"]?.stringValue else {
      return nil
    }
    return o["status"]?.stringValue.map { "\(c) \($0)" } ?? c
  }
}

let gpsfakeInstalled =
  FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake")
  && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
  && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

@Suite(
  .blocking, .serialized, .timeLimit(.minutes(5)),
  .requires(gpsfakeInstalled, "gpsfake is not installed"))
struct GPSDEndToEndTests {
  static let scenario = "Simulations/003-missed-turn-and-return"
  /// Seconds between sentences: 4 sentences per epoch make 131 epochs last about 21 s.
  static let sentenceDelay = "0.04"

  /// Starts gpsfake on `port` replaying `track`, in its own session, and waits for the port.
  static func gpsfake(_ track: String, port: Int, scratch: ScratchDirectory, tag: String) throws
    -> SpawnedProcess
  {
    let p = try SpawnedProcess(
      [
        "/usr/bin/python3", "/usr/bin/gpsfake", "-1", "-q", "-c", sentenceDelay, "-W", "15", "-P",
        "\(port)", track,
      ],
      environment: ["TMPDIR": scratch.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
      stdoutPath: scratch.file("gpsfake-\(tag).out"), stderrPath: scratch.file("gpsfake-\(tag).err")
    )
    guard waitUntil(timeout: 10, { isListening(port) }) else {
      p.killGroup()
      throw POSIXError(.ETIMEDOUT)
    }
    return p
  }

  static func stepwised(_ arguments: [String], scratch: ScratchDirectory) throws -> SpawnedProcess {
    let binary = try #require(productPath("stepwised"), "stepwised is not built")
    return try SpawnedProcess(
      [binary, "--route", repositoryFile("\(scenario)/route.json"), "--json"] + arguments,
      environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file("stepwised.out"),
      stderrPath: scratch.file("stepwised.err"))
  }

  static func directReplay(_ track: String) throws -> String {
    let r = try runTool(
      "stepwised", ["--route", "\(scenario)/route.json", "--fast", "--json", track])
    #expect(r.status == 0, "\(r.stderr)")
    return r.stdout
  }

  /// The scenario's route driven by `stepwise simulate` with `flaws` (and a 20-s standing
  /// start: gpsd swallows the first epochs while it learns the receiver's cycle, and guidance
  /// must start from a standstill in both runs), served by gpsfake and guided live by stepwised
  /// up to the arrival: the track, the daemon's output and its standard error.
  static func liveDrive(_ flaws: [String], scratch: ScratchDirectory) throws -> (
    track: String, live: String, stderr: String
  ) {
    let port = try freeLoopbackPort()
    let sim = try runTool(
      "stepwise",
      ["simulate", "\(scenario)/route.json", "--settle", "20", "--noise", "5", "--seed", "2"]
        + flaws)
    let track = scratch.file("drive.nmea")
    try Data(sim.stdout.utf8).write(to: URL(fileURLWithPath: track))
    let gpsd = try gpsfake(track, port: port, scratch: scratch, tag: "1")
    defer { gpsd.killGroup() }
    let daemon = try stepwised(["gpsd://127.0.0.1:\(port)"], scratch: scratch)
    defer { daemon.killGroup() }
    #expect(
      waitUntil(timeout: 60) { daemon.stdout.contains(#""class":"ARRIVED""#) }, "\(daemon.stderr)")
    daemon.signal(SIGTERM)
    #expect(daemon.wait(timeout: 10) == 0)
    return (track, daemon.stdout, daemon.stderr)
  }

  @Test func liveGuidanceFromGpsdAnnouncesWhatTheNMEAReplayAnnounces() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (track, live, stderr) = try Self.liveDrive(
      ["--deviate-at", "430", "--deviate-angle", "0", "--deviate-length", "200", "--rejoin"],
      scratch: scratch)
    let direct = try Self.directReplay(track)
    #expect(announcements(live) == announcements(direct))
    #expect(classes(live).first == "SOURCE connected")
    #expect(
      classes(live).filter { !$0.hasPrefix("PROGRESS") && !$0.hasPrefix("SOURCE") }
        == classes(direct).filter { !$0.hasPrefix("PROGRESS") })
    #expect(stderr.contains("connected to gpsd 3."), "\(stderr)")
  }

  @Test func aReceiverCoastingPastTheTurnThroughGpsdIsGPSLossNotOffRoute() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // The sky lost 50 m before the right turn; the receiver goes on for 12 s reporting its last
    // fix carried straight on past the turn, as ordinary fixes (gpsd passes them on as such).
    let (track, live, _) = try Self.liveDrive(
      ["--dropout", "380:700", "--coast", "12"], scratch: scratch)
    #expect(!classes(live).contains { $0.hasPrefix("OFFROUTE") }, "\(live)")
    #expect(live.contains(#""class":"GPS","time":"#) && live.contains(#""status":"lost""#))
    #expect(announcements(live) == announcements(try Self.directReplay(track)))
  }

  @Test func gpsdKilledMidDriveAndRestartedGuidanceResumesWithoutRepeatingAnnouncements() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // The drive in two parts: up to 08:00:59, then from 08:01:05 (the new gpsd loses a few
    // epochs more while it starts).
    let lines = String(
      decoding: readBytes(repositoryFile("\(Self.scenario)/drive.nmea")), as: UTF8.self
    )
    // ("\r\n" is one Character, so one line break.)
    .split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    func time(_ l: Substring) -> Int? {
      guard l.hasPrefix("$GP"), l.count > 13, l.dropFirst(3).prefix(3) != "GSA" else { return nil }
      return Int(l.dropFirst(7).prefix(6))
    }
    var partA: [Substring] = []
    var partB: [Substring] = []
    var current = 0
    for l in lines {
      if let t = time(l) { current = t }
      if l.hasPrefix("#") {
        partA.append(l)
        partB.append(l)
      } else if current < 80100 {
        partA.append(l)
      } else if current >= 80105 {
        partB.append(l)
      }
    }
    try partA.joined(separator: "\r\n").write(
      toFile: scratch.file("a.nmea"), atomically: true, encoding: .utf8)
    try partB.joined(separator: "\r\n").write(
      toFile: scratch.file("b.nmea"), atomically: true, encoding: .utf8)

    let port = try freeLoopbackPort()
    let first = try Self.gpsfake(scratch.file("a.nmea"), port: port, scratch: scratch, tag: "a")
    defer { first.killGroup() }
    let daemon = try Self.stepwised(["gpsd://127.0.0.1:\(port)"], scratch: scratch)
    defer { daemon.killGroup() }
    #expect(
      waitUntil(timeout: 30) { daemon.stdout.contains(#""time":"2024-05-01T08:00:59.000Z""#) },
      "\(daemon.stderr)")
    first.killGroup()
    #expect(waitUntil(timeout: 5) { daemon.stdout.contains(#""status":"disconnected""#) })
    let second = try Self.gpsfake(scratch.file("b.nmea"), port: port, scratch: scratch, tag: "b")
    defer { second.killGroup() }
    let listening = Date()
    #expect(
      waitUntil(timeout: 5) {
        classes(daemon.stdout).filter { $0 == "SOURCE connected" }.count == 2
      })
    let reconnect = Date().timeIntervalSince(listening)
    #expect(reconnect < 2, "reconnected \(reconnect) s after gpsd was back")
    // The first fix after the gap (gpsfake needs about a second to feed its new pty).
    #expect(
      waitUntil(timeout: 10) {
        daemon.stdout.contains(#""class":"GPS","time":"#)
          && daemon.stdout.contains(#""status":"acquired""#)
      })
    let resumed = Date().timeIntervalSince(listening)
    #expect(
      waitUntil(timeout: 60) { daemon.stdout.contains(#""class":"ARRIVED""#) },
      "\(daemon.stderr)\n\(second.stderr)\n\(second.stdout)")
    daemon.signal(SIGTERM)
    #expect(daemon.wait(timeout: 10) == 0)

    let live = daemon.stdout
    let c = classes(live).filter { $0.hasPrefix("SOURCE") || $0.hasPrefix("GPS") }
    #expect(
      c == [
        "SOURCE connected", "SOURCE disconnected", "SOURCE connected", "GPS lost", "GPS acquired",
      ], "\(c)")
    // The announcements of the uninterrupted drive, in its order, plus the two about the GPS; none
    // twice. On a loaded machine (CI under ThreadSanitizer) the daemon may connect after
    // gpsfake fed the first epochs, whose announcement then never comes: one announcement may be
    // missing, none may be added or changed.
    let direct = try Self.directReplay("\(Self.scenario)/drive.nmea")
    let heard = announcements(live, excludingKinds: ["gps"])
    let expected = announcements(direct)
    var rest = expected[...]
    for a in heard {
      guard let i = rest.firstIndex(of: a) else {
        Issue.record("not in the uninterrupted drive, or out of order: \(a)")
        break
      }
      rest = rest[(i + 1)...]
    }
    #expect(
      heard.count >= expected.count - 1, "missing: \(Set(expected).subtracting(heard).sorted())")
    if heard.count < expected.count {
      print("gpsd restart: missed under load: \(Set(expected).subtracting(heard).sorted())")
    }
    #expect(announcements(live).filter { $0.hasSuffix(" gps") }.count == 2)
    let ids = live.split(separator: "\n").compactMap {
      try? JSONParser.parse(String($0))["id"]?.stringValue
    }
    #expect(Set(ids).count == ids.count, "\(ids)")
    let err = daemon.stderr
    #expect(err.components(separatedBy: "lost gpsd at").count == 2, "\(err)")
    #expect(!err.contains("cannot reach gpsd"), "one message per change, not per retry: \(err)")
    print(
      "gpsd restart: SOURCE connected \(String(format: "%.2f", reconnect)) s and the first fix "
        + "\(String(format: "%.2f", resumed)) s after the new gpsd listened")
  }

  @Test func withoutGpsdTheDaemonKeepsTryingSaysSoOnceAndStopsOnSIGTERM() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let port = try freeLoopbackPort()
    let daemon = try Self.stepwised(["gpsd://127.0.0.1:\(port)"], scratch: scratch)
    defer { daemon.killGroup() }
    usleep(2_500_000)
    #expect(daemon.isRunning)
    let stopped = Date()
    daemon.signal(SIGTERM)
    #expect(daemon.wait(timeout: 10) == 0)
    #expect(Date().timeIntervalSince(stopped) < 1.5)
    #expect(
      daemon.stderr.components(separatedBy: "cannot reach gpsd at gpsd://127.0.0.1:\(port)").count
        == 2, "\(daemon.stderr)")
    #expect(daemon.stdout.isEmpty)
  }
}

/// gpsd JSON captures (`gpspipe -w`, with and without `-uu`) replayed like NMEA tracks.
@Suite(.blocking, .serialized) struct GPSDCaptureReplayTests {
  static let scenario = "Simulations/003-missed-turn-and-return"
  static let fixtures = "Tests/Fixtures/gpsd"

  @Test(arguments: ["003-missed-turn.gpspipe-w.json", "003-missed-turn.gpspipe-uu.json"])
  func aCaptureReplaysToTheAnnouncementsOfItsNMEATrack(fixture: String) throws {
    let capture = try runTool(
      "stepwised",
      ["--route", "\(Self.scenario)/route.json", "--fast", "--json", "\(Self.fixtures)/\(fixture)"])
    #expect(capture.status == 0, "\(capture.stderr)")
    let nmea = try runTool(
      "stepwised",
      ["--route", "\(Self.scenario)/route.json", "--fast", "--json", "\(Self.scenario)/drive.nmea"])
    #expect(!announcements(capture.stdout).isEmpty)
    #expect(announcements(capture.stdout) == announcements(nmea.stdout))
    #expect(
      classes(capture.stdout).filter { $0 != "PROGRESS" }
        == classes(nmea.stdout).filter { $0 != "PROGRESS" })
  }

  @Test func theKindIsToldFromTheContentEvenOnStandardInput() throws {
    let bytes = Data(readBytes(repositoryFile("\(Self.fixtures)/003-missed-turn.gpspipe-uu.json")))
    let r = try runTool(
      "stepwised", ["--route", "\(Self.scenario)/route.json", "--fast", "--verbose", "-"],
      stdin: bytes)
    #expect(r.status == 0)
    #expect(r.stdout.contains("ARRIVED"))
    #expect(r.stderr.contains("is a gpsd JSON capture"), "\(r.stderr)")
    #expect(r.stderr.contains("128 TPV, 2 merged"), "\(r.stderr)")
  }

  @Test func aPacedCaptureReplayGivesTheSameEventsAsAFastOne() throws {
    // The first 40 lines: about 18 s of fixes, at 100x about 0.18 s.
    let text = String(
      decoding: readBytes(repositoryFile("\(Self.fixtures)/003-missed-turn.gpspipe-w.json")),
      as: UTF8.self)
    let head = Data(text.split(separator: "\n").prefix(40).joined(separator: "\n").utf8)
    let fast = try runTool(
      "stepwised", ["--route", "\(Self.scenario)/route.json", "--fast", "--json", "-"], stdin: head)
    let started = Date()
    let paced = try runTool(
      "stepwised",
      ["--route", "\(Self.scenario)/route.json", "--replay-speed", "100", "--json", "-"],
      stdin: head)
    #expect(Date().timeIntervalSince(started) >= 0.12)
    #expect(fast.stdout == paced.stdout && !fast.stdout.isEmpty)
  }

  @Test func liveOnlyOptionsAreRefusedForFilesAndViceVersa() throws {
    let a = try runTool(
      "stepwised", ["--route", "\(Self.scenario)/route.json", "--fast", "gpsd://127.0.0.1:1"])
    #expect(a.status == 2 && a.stderr.contains("apply to recorded tracks"), "\(a.stderr)")
    let b = try runTool(
      "stepwised",
      ["--route", "\(Self.scenario)/route.json", "--gpsd-device", "/dev/ttyACM0", "-"],
      stdin: Data())
    #expect(b.status == 2 && b.stderr.contains("--gpsd-device applies to gpsd"), "\(b.stderr)")
    let c = try runTool("stepwised", ["--route", "\(Self.scenario)/route.json", "gpsd://host:0"])
    #expect(c.status == 2 && c.stderr.contains("invalid gpsd address"), "\(c.stderr)")
  }
}
