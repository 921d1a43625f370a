import Foundation
import JSON
import TestSupport
import Testing

/// stepwised as a whole: the socket with the real engine, systemd's protocols, state across
/// restarts.
///
/// Every process is started in its own process group and killed at the end.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct DaemonIntegrationTests {
  static let route = repositoryFile("Simulations/001-marais-drive/route.json")

  static func stepwised(
    _ arguments: [String], scratch: ScratchDirectory, environment: [String: String] = [:],
    tag: String = "d"
  ) throws -> SpawnedProcess {
    let binary = try #require(productPath("stepwised"), "stepwised is not built")
    var env = sanitizerEnvironment(["PATH": "/usr/bin:/bin"])
    for (k, v) in environment { env[k] = v }
    return try SpawnedProcess(
      [binary] + arguments, environment: env, stdoutPath: scratch.file("\(tag).out"),
      stderrPath: scratch.file("\(tag).err"))
  }

  /// A drive along 001 with a 15 s standing start, written into `scratch`.
  static func track(_ scratch: ScratchDirectory, settle: Int = 15) throws -> String {
    let sim = try runTool(
      "stepwise",
      [
        "simulate", "Simulations/001-marais-drive/route.json", "--noise", "5", "--seed", "1",
        "--settle", "\(settle)",
      ])
    let path = scratch.file("drive.nmea")
    try Data(sim.stdout.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func socketSubscribersGetEveryEventOfTheDaemonInOrder() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let track = try Self.track(scratch)
    let sock = scratch.file("s.sock")
    let daemon = try Self.stepwised(
      [
        "--route", Self.route, "--json", "--socket", sock, "--max-clients", "250",
        "--replay-speed", "15", track,
      ],
      scratch: scratch)
    defer { daemon.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    // 200 subscribers join during the standing start and read as the events come; under a
    // sanitizer 50. Under AddressSanitizer on a loaded machine the one thread reading 200
    // sockets fell more than the daemon's 1 s close grace behind, and the daemon, ending with
    // the replay, closed the laggards before their last events (ARRIVED) were sent: a figure
    // of the sanitizer's speed, as in SocketServerTests.
    let count = sanitizerUnderTest == nil ? 200 : 50
    var clients: [SocketTestClient] = []
    for _ in 0..<count { clients.append(try SocketTestClient(path: sock)) }
    let fds = clients.map(\.fd)
    let reader = BackgroundWork { readAllUntilClosed(fds, timeout: 60) }
    #expect(daemon.wait(timeout: 60) == 0, "\(daemon.stderr)")
    let received = reader.join() ?? []
    let stdoutAnnouncements = announcements(daemon.stdout)
    #expect(!stdoutAnnouncements.isEmpty)
    #expect(received.count == clients.count)
    for (i, lines) in received.enumerated() {
      let objects = lines.compactMap { try? JSONParser.parse($0).objectValue }.compactMap { $0 }
      #expect(objects.first?["class"]?.stringValue == "VERSION", "client \(i)")
      let seqs = objects.compactMap { $0["seq"]?.doubleValue }.map { Int($0) }
      #expect(!seqs.isEmpty)
      #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "client \(i): a seq gap")
      let said = objects.filter { $0["class"]?.stringValue == "ANNOUNCE" }.compactMap { o in
        o["kind"]?.stringValue.flatMap { k in o["step"]?.doubleValue.map { "\(Int($0)) \(k)" } }
      }
      // Everything stdout said after the client joined reached the client too, in order.
      #expect(Array(stdoutAnnouncements.suffix(said.count)) == said, "client \(i)")
      // Clients join while the first fix (departure) is being handled at the latest.
      #expect(said.count >= stdoutAnnouncements.count - 2, "client \(i)")
      #expect(objects.contains { $0["class"]?.stringValue == "ARRIVED" }, "client \(i)")
    }
    _ = clients
  }

  @Test func loadSelectAndCancelFromTheClientAndRefusalForOthers() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    chmod(scratch.path, 0o755)
    let sock = scratch.file("s.sock")
    let daemon = try Self.stepwised(
      ["--route", Self.route, "--socket", sock, "--socket-mode", "0666", "gpsd://127.0.0.1:9"],
      scratch: scratch)
    defer { daemon.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    let example = repositoryFile("Tests/Fixtures/routes/example.json")
    let load = try runTool("stepwise", ["load", example, "--route-index", "1", "--socket", sock])
    #expect(load.status == 0, "\(load.stderr)")
    let routes = try runTool("stepwise", ["routes", "--socket", sock])
    #expect(routes.stdout.contains("Eastern Avenue"), "\(routes.stdout) \(routes.stderr)")
    let select = try runTool("stepwise", ["select", "0", "--socket", sock])
    #expect(select.status == 0, "\(select.stderr)")
    // Another user may watch but not steer.
    let binary = try #require(productPath("stepwise"))
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && getuid() == 0 {
      let nobody = try runTool(
        "/usr/bin/setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "cancel", "--socket", sock])
      #expect(nobody.status == 1, "\(nobody.stderr)")
      #expect(nobody.stderr.contains("permission denied"), "\(nobody.stderr)")
    }
    let cancel = try runTool("stepwise", ["cancel", "--socket", sock])
    #expect(cancel.status == 0, "\(cancel.stderr)")
    daemon.signal(SIGTERM)
    #expect(daemon.wait(timeout: 10) == 0)
  }

  @Test(arguments: [true, false])
  func systemdHearsReadyStatusWatchdogAndStopping(abstract: Bool) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let listener = try NotifyListener(abstract: abstract)
    let daemon = try Self.stepwised(
      ["--route", Self.route, "gpsd://127.0.0.1:9"], scratch: scratch,
      environment: ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "400000"])
    defer { daemon.killGroup() }
    var messages: [String] = []
    let deadline = Date().addingTimeInterval(3)
    while Date() < deadline, let m = listener.receive() { messages.append(m) }
    #expect(messages.first?.hasPrefix("READY=1") == true, "\(messages)")
    #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 4, "\(messages)")
    #expect(messages.contains { $0.contains("STATUS=waiting for gpsd") })
    daemon.signal(SIGTERM)
    var stopping = false
    while let m = listener.receive() {
      if m.contains("STOPPING=1") { stopping = true }
      if stopping { break }
    }
    #expect(stopping)
    #expect(daemon.wait(timeout: 10) == 0)
  }

  @Test func aStuckEngineStopsTheWatchdogPings() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let listener = try NotifyListener(abstract: true)
    let daemon = try Self.stepwised(
      ["--route", Self.route, "gpsd://127.0.0.1:9"], scratch: scratch,
      environment: [
        "NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "400000",
        "STEPWISE_TEST_STALL_AFTER_PROBES": "3",
      ])
    defer { daemon.killGroup() }
    var times: [Date] = []
    let start = Date()
    while Date().timeIntervalSince(start) < 3, let m = listener.receive() {
      if m == "WATCHDOG=1" { times.append(Date()) }
    }
    // Two pings for the two probes handled before the hang, then silence.
    #expect((1...3).contains(times.count), "\(times.count) pings")
    if let last = times.last { #expect(Date().timeIntervalSince(last) > 1.5) }
  }

  @Test(.requires(socketActivateInstalled, "systemd-socket-activate is not installed"))
  func socketActivationHandsTheListeningSocketOver() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let sock = scratch.file("activated.sock")
    let binary = try #require(productPath("stepwised"))
    let p = try SpawnedProcess(
      [
        "/usr/bin/systemd-socket-activate", "-E", "TSAN_OPTIONS", "-E", "ASAN_OPTIONS", "-l", sock,
        "--fdname=subscribers", binary,
        "--route", Self.route, "gpsd://127.0.0.1:9",
      ],
      environment: sanitizerEnvironment(["PATH": "/usr/bin:/bin"]),
      stdoutPath: scratch.file("a.out"),
      stderrPath: scratch.file("a.err"))
    defer { p.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    let c = try SocketTestClient(path: sock)
    let version = c.next(timeout: 5)
    #expect(version?["class"]?.stringValue == "VERSION", "\(p.stderr)")
    p.signal(SIGTERM)
    #expect(p.wait(timeout: 10) == 0, "\(p.stderr)")
  }

  /// Killed right after a step change, it resumes where its saved progress says and says
  /// nothing again that the save recorded.
  ///
  /// The progress is saved after a fix's events are out (docs/hardening.md, "At least once
  /// across a crash"): what was printed after the last completed save may come once more, with
  /// the same ids. Only announcements of fixes up to the saved one must not.
  @Test func killedWithSIGKILLAndRestartedItResumesWithoutRepeatingWhatItSaved() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let track = try Self.track(scratch, settle: 5)
    let state = scratch.file("state")
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    let args = [
      "--route", Self.route, "--json", "--state-dir", state, "--replay-speed", "20", track,
    ]
    let first = try Self.stepwised(args, scratch: scratch, tag: "first")
    #expect(
      waitUntil(timeout: 30) {
        first.stdout.contains(#""class":"STEP","time":"#)
          && first.stdout.components(separatedBy: #""class":"STEP""#).count > 4
      })
    first.killGroup()  // SIGKILL, mid-drive
    _ = first.wait(timeout: 5)
    let progress = try JSONParser.parse(readBytes(state + "/progress.json"))
    let savedStep = try #require(progress["currentStep"]?.doubleValue).rounded()
    let savedThrough = try #require(progress["lastFixTime"]?.doubleValue)
    let second = try Self.stepwised(args, scratch: scratch, tag: "second")
    defer { second.killGroup() }
    #expect(second.wait(timeout: 60) == 0, "\(second.stderr)")
    #expect(second.stderr.contains("resuming at step \(Int(savedStep))"), "\(second.stderr)")
    let before = FaultInjectionTests.timedKeys(jsonObjects(first.stdout.split(separator: "\n")))
      .filter { !$0.key.hasPrefix("step ") }
    let saved = before.filter { $0.time <= Int(savedThrough) % 86_400 }.map(\.key)
    let after = ids(second.stdout)
    #expect(!saved.isEmpty && !after.isEmpty)
    #expect(Set(saved).isDisjoint(with: after), "repeated: \(Set(saved).intersection(after))")
    print("SIGKILL: said again, not yet saved: \(Set(before.map(\.key)).intersection(after))")
    #expect(second.stdout.contains(#""class":"ARRIVED""#))
    #expect((steps(second.stdout).first ?? 0) >= Int(savedStep), "\(steps(second.stdout))")
  }

  @Test func aCorruptStateFileGivesAWarningAndAFreshStart() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = scratch.file("state")
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    try Data("{\"format\":\"stepwise-state\",\"vers".utf8).write(
      to: URL(fileURLWithPath: state + "/route.json"))
    let r = try runTool(
      "stepwised",
      [
        "--route", "Simulations/003-missed-turn-and-return/route.json", "--state-dir", state,
        "--fast", "Simulations/003-missed-turn-and-return/drive.nmea",
      ])
    #expect(r.status == 0)
    #expect(r.stderr.contains("unusable"), "\(r.stderr)")
    #expect(r.stdout.contains("ARRIVED"))
    // Without --route, the (now valid) saved route is used; arrived routes start over.
    let again = try runTool(
      "stepwised",
      ["--state-dir", state, "--fast", "Simulations/003-missed-turn-and-return/drive.nmea"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.contains("ARRIVED"))
  }

  @Test func anUnwritableStateDirectoryOnlyWarns() throws {
    let r = try runTool(
      "stepwised",
      [
        "--route", "Simulations/003-missed-turn-and-return/route.json", "--state-dir", "/proc",
        "--fast", "Simulations/003-missed-turn-and-return/drive.nmea",
      ])
    #expect(r.status == 0)
    #expect(r.stderr.contains("cannot save the state"), "\(r.stderr)")
    #expect(r.stderr.components(separatedBy: "cannot save the state").count <= 3)
    #expect(r.stdout.contains("ARRIVED"))
  }

  @Test func sighupRereadsTheRouteKeepingSubscribers() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let routeCopy = scratch.file("route.json")
    try FileManager.default.copyItem(atPath: Self.route, toPath: routeCopy)
    let sock = scratch.file("s.sock")
    let daemon = try Self.stepwised(
      ["--route", routeCopy, "--socket", sock, "gpsd://127.0.0.1:9"], scratch: scratch)
    defer { daemon.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    let watcher = try SocketTestClient(path: sock)
    #expect(watcher.next()?["class"]?.stringValue == "VERSION")
    try FileManager.default.removeItem(atPath: routeCopy)
    try FileManager.default.copyItem(
      atPath: repositoryFile("Tests/Fixtures/routes/example.json"), toPath: routeCopy)
    let reload = try runTool("stepwise", ["reload", "--pid", String(daemon.pid)])
    #expect(reload.status == 0)
    #expect(
      waitUntil(timeout: 5) {
        ((try? runTool("stepwise", ["routes", "--socket", sock]))?.stdout ?? "").contains(
          "Eastern Avenue")
      })
    // The subscriber is still connected.
    watcher.send(#"{"cmd":"status","id":7}"#)
    #expect(watcher.answer()?["id"]?.doubleValue == 7)
    daemon.signal(SIGTERM)
    #expect(daemon.wait(timeout: 10) == 0)
  }
}

private func ids(_ transcript: String) -> [String] {
  transcript.split(separator: "\n").compactMap { line in
    guard let o = try? JSONParser.parse(String(line)), o["class"]?.stringValue == "ANNOUNCE",
      o["kind"]?.stringValue != "gps"
    else { return nil }
    return o["id"]?.stringValue
  }
}

private func steps(_ transcript: String) -> [Int] {
  transcript.split(separator: "\n").compactMap { line in
    guard let o = try? JSONParser.parse(String(line)), o["class"]?.stringValue == "STEP" else {
      return nil
    }
    return o["step"]?.doubleValue.map { Int($0) }
  }
}
