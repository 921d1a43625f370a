import Daemon
import Foundation
import Guidance
import Routes
import TestSupport
import Testing

/// A datagram socket bound by the test, standing in for systemd's notify socket.
final class NotifyListener {
  let fd: Int32
  let name: String

  init(abstract: Bool) throws {
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    let id = "stepwise-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    name = abstract ? "@" + id : FileManager.default.temporaryDirectory.path + "/" + id + ".sock"
    var sa = sockaddr_un()
    sa.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(name.utf8)
    if abstract { bytes[0] = 0 }
    withUnsafeMutableBytes(of: &sa.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    let r = withUnsafePointer(to: &sa) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
    }
    try #require(r == 0, "bind failed: \(errno)")
    var tv = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
  }

  func receive() -> String? {
    var buf = [UInt8](repeating: 0, count: 4096)
    let n = recv(fd, &buf, buf.count, 0)
    return n > 0 ? String(decoding: buf[0..<n], as: UTF8.self) : nil
  }

  deinit {
    close(fd)
    if !name.hasPrefix("@") { unlink(name) }
  }
}

@Suite(.blocking) struct SystemdNotifierTests {
  @Test(arguments: [true, false])
  func readyAndStatusReachTheNotifySocket(abstract: Bool) throws {
    let l = try NotifyListener(abstract: abstract)
    let n = SystemdNotifier(environment: ["NOTIFY_SOCKET": l.name])
    #expect(n.isEnabled)
    n.ready(status: "waiting for gpsd")
    #expect(l.receive() == "READY=1\nSTATUS=waiting for gpsd")
    n.stopping()
    #expect(l.receive() == "STOPPING=1")
    n.reloading()
    #expect(l.receive()?.hasPrefix("MONOTONIC_USEC=") == true)
  }

  @Test func withoutNotifySocketNothingIsSent() {
    let n = SystemdNotifier(environment: [:])
    #expect(!n.isEnabled)
    #expect(!n.send("READY=1"))
    #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]).isEnabled)
  }

  @Test func watchdogIntervalIsOnlyForThisProcess() {
    #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "10000000"]) == 10)
    #expect(
      SystemdNotifier.watchdogInterval(environment: [
        "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": String(getpid()),
      ]) == 10)
    #expect(
      SystemdNotifier.watchdogInterval(environment: [
        "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1",
      ]) == nil)
    #expect(SystemdNotifier.watchdogInterval(environment: [:]) == nil)
  }

  @Test func socketActivationIgnoresAnotherProcesssDescriptors() {
    let a = SocketActivation.take(
      environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "subscribers"])
    #expect(a.sockets.isEmpty)
  }
}

@Suite(.blocking) struct StateStoreTests {
  static func tempDir() throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepwise-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d.path
  }

  static let snap = NavigationSession.Snapshot(
    routeIndex: 0, distanceAlong: 812.5, currentStep: 3, said: [255, 255, 15, 1, 0, 0],
    offRoute: false, arrived: false, lastFixTime: 1_714_550_460, speed: 12.5)

  @Test func savedStateLoadsBackIdentically() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let doc = GuidanceProperties.townRoute
    let store = StateStore(directory: dir)
    try store.saveRoute(doc, routeIndex: 0, routeFile: "/etc/stepwise/route.json")
    var snap = Self.snap
    snap.recentSpeed = 14.25
    snap.leadSpeed = 13.5
    try store.saveProgress(snap, of: doc)
    let (result, problem) = store.load()
    let saved = try result.get()
    #expect(problem == nil)
    #expect(saved.snapshot == snap)
    #expect(saved.routeFile == "/etc/stepwise/route.json")
    #expect(saved.document.routes[0].steps.count == doc.routes[0].steps.count)
    // No temporary file is left behind.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [
        "progress.json", "route.json",
      ])
  }

  @Test(arguments: ["", "{", "{\"format\":\"other\",\"version\":1}", "[1,2]", "\u{0}\u{1}binary"])
  func corruptOrForeignStateIsReportedNotFatal(text: String) throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/route.json"))
    guard case .failure(let problem) = StateStore(directory: dir).load().result else {
      Issue.record("accepted a corrupt state file")
      return
    }
    #expect("\(problem)".contains("unusable"))
  }

  @Test func truncatedProgressKeepsTheRouteAndStartsItAfresh() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = StateStore(directory: dir)
    let doc = GuidanceProperties.townRoute
    try store.saveRoute(doc, routeIndex: 0, routeFile: nil)
    try store.saveProgress(Self.snap, of: doc)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: store.progressPath))
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: store.progressPath))
    let (result, problem) = store.load()
    #expect(try result.get().snapshot == nil)
    #expect(problem != nil)
  }

  @Test func progressOfAnotherRouteIsRefused() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = StateStore(directory: dir)
    try store.saveRoute(GuidanceProperties.townRoute, routeIndex: 0, routeFile: nil)
    let other = makeRoute(legs: [(0, 500, "Arrive")])
    try store.saveProgress(Self.snap, of: other)
    let (result, problem) = store.load()
    #expect(try result.get().snapshot == nil)
    #expect("\(problem.map { "\($0)" } ?? "")".contains("does not belong"))
  }

  @Test func missingStateIsNotAnError() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard case .failure(.missing) = StateStore(directory: dir).load().result else {
      Issue.record("expected .missing")
      return
    }
  }

  @Test func aReadOnlyDirectoryGivesAnErrorToWarnAbout() throws {
    // /proc is never writable, even for root.
    let store = StateStore(directory: "/proc")
    #expect(throws: (any Error).self) {
      try store.saveProgress(Self.snap, of: GuidanceProperties.townRoute)
    }
  }
}
