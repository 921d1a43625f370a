import Daemon
import Events
import Foundation
import Geodesy
import Guidance
import JSON
import Lab
import NMEA
import POSIX
import Phrasebook
import Routes
import Subscribers
import Synchronization
import TestSupport
import Testing
import Wire

/// A private folder under /tmp (short enough for `sun_path`), removed by ``remove()``.
struct SocketTestDirectory {
  let path: String

  init(_ name: String, mode: mode_t = 0o700) throws {
    var template = Array("/tmp/sw-\(name)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
    path = try #require(made.map { String(cString: $0) }, "mkdtemp failed")
    chmod(path, mode)
  }

  var socketPath: String { path + "/s.sock" }

  /// Removes the folder and everything in it (sockets included).
  func remove() {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
      unlink(path + "/" + name)
    }
    rmdir(path)
  }
}

/// A test client of the subscriber socket: blocking writes, reads with a deadline.
final class SocketTestClient {
  let fd: Int32
  private var buffer: [UInt8] = []
  private(set) var eof = false

  init(path: String, receiveBuffer: Int? = nil) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if let receiveBuffer {
      var v = Int32(receiveBuffer)
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let r = withUnsafePointer(to: &address) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    if r != 0 {
      // No close here: `self` is whole, so the throw runs `deinit`, which closes `fd`. Closing it
      // twice closed whatever another test had opened under the same number meanwhile (a pipe
      // whose reader then died of EBADF under ThreadSanitizer), the bug DescriptorTests catches
      // in DaemonConnection.
      throw SystemError(errno: errno, function: "connect", subject: path)
    }
  }

  deinit { close(fd) }

  /// Connects once the socket at `path` listens: a socket another process has bound but not yet
  /// put in listening refuses connections (systemd-socket-activate binds, then listens, so the
  /// file can exist a moment before it accepts).
  static func connecting(to path: String, timeout: Double = 10) throws -> SocketTestClient {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      do {
        return try SocketTestClient(path: path)
      } catch let error as SystemError
        where (error.errno == ECONNREFUSED || error.errno == ENOENT) && Date() < deadline
      {
        usleep(20_000)
      }
    }
  }

  func send(_ text: String) {
    var bytes = Array(text.utf8)
    if !text.hasSuffix("\n") { bytes.append(0x0A) }
    sendBytes(bytes)
  }

  func sendBytes(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { raw in
        Glibc.send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
      }
      if n <= 0 { return }
      offset += n
    }
  }

  /// The next line as a JSON object, or `nil` at end of stream or after `timeout` seconds.
  func next(timeout: Double = 5) -> JSONObject? {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let i = buffer.firstIndex(of: 0x0A) {
        let line = Array(buffer[..<i])
        buffer.removeSubrange(...i)
        guard case .object(let o)? = try? JSONParser.parse(line) else {
          Issue.record("not a JSON object: \(String(decoding: line, as: UTF8.self))")
          return nil
        }
        return o
      }
      if eof { return nil }
      let left = deadline.timeIntervalSinceNow
      if left <= 0 { return nil }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&p, 1, Int32(left * 1000) + 1) <= 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 {
        eof = true
      } else {
        buffer += chunk[0..<n]
      }
    }
  }

  /// Objects until one of class `name` (included), skipping nothing.
  func until(_ name: String, timeout: Double = 5) -> [JSONObject] {
    var out: [JSONObject] = []
    while let o = next(timeout: timeout) {
      out.append(o)
      if o["class"]?.stringValue == name { break }
    }
    return out
  }

  /// The next object that is a `REPLY` or `ERROR`, skipping events.
  func answer(timeout: Double = 5) -> JSONObject? {
    while let o = next(timeout: timeout) {
      let c = o["class"]?.stringValue
      if c == "REPLY" || c == "ERROR" { return o }
    }
    return nil
  }

  /// Everything until the server closes the connection.
  func drain(timeout: Double = 10) -> [JSONObject] {
    var out: [JSONObject] = []
    while let o = next(timeout: timeout) { out.append(o) }
    return out
  }
}

/// Reads many client sockets at once with `poll`, each into its own list of lines, until every
/// one is closed by the server or the deadline passes.
func readAllUntilClosed(_ fds: [Int32], timeout: Double) -> [[String]] {
  var buffers = [[UInt8]](repeating: [], count: fds.count)
  var lines = [[String]](repeating: [], count: fds.count)
  var open = Set(fds.indices)
  let deadline = Date().addingTimeInterval(timeout)
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while !open.isEmpty && deadline.timeIntervalSinceNow > 0 {
    let order = Array(open)
    var polls = order.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
    if poll(&polls, nfds_t(polls.count), 100) <= 0 { continue }
    for (k, i) in order.enumerated() where polls[k].revents != 0 {
      let n = chunk.withUnsafeMutableBytes { recv(fds[i], $0.baseAddress, $0.count, 0) }
      if n <= 0 {
        open.remove(i)
        continue
      }
      buffers[i] += chunk[0..<n]
      // One pass over the bytes and one removal per read: the reader serves hundreds of
      // sockets on one thread and must keep up with a fast replay.
      var start = 0
      while let nl = buffers[i][start...].firstIndex(of: 0x0A) {
        lines[i].append(String(decoding: buffers[i][start..<nl], as: UTF8.self))
        start = nl + 1
      }
      if start > 0 { buffers[i].removeSubrange(..<start) }
    }
  }
  return lines
}

/// Runs `body` on a new thread; ``join()`` waits for its result.
final class BackgroundWork<T: Sendable>: @unchecked Sendable {
  // Invariant: `result` is written once by the worker before `done.signal()` and read after
  // `done.wait()`.
  private var result: T?
  private let done = DispatchSemaphore(value: 0)

  init(_ body: @escaping @Sendable () -> T) {
    let thread = Thread { [self] in
      result = body()
      done.signal()
    }
    thread.stackSize = 1 << 22
    thread.start()
  }

  func join() -> T? {
    done.wait()
    return result
  }
}

/// A stand-in for the daemon's engine: a session fed with a scenario's fixes, publishing every
/// event to a server, switching route on `select`, `load` and `cancel`.
final class FakeEngine: Sendable {
  private struct State {
    var session: NavigationSession?
    var document: RouteDocument
    var commands: [GuidanceCommand] = []
  }
  private let state: Mutex<State>
  let scenario: Scenario
  let fixes: [Fix]

  init(scenario directory: String) throws {
    scenario = try Scenario(directory: repositoryFile(directory))
    let s = try scenario.session()
    state = Mutex(State(session: s, document: scenario.document))
    var reader = NMEAReader()
    let bytes = readBytes(scenario.trackPath)
    fixes = reader.feed(bytes) + reader.finish()
  }

  var document: RouteDocument { state.withLock { $0.document } }

  /// Starts the scenario's guidance again from the beginning.
  func reset() {
    let fresh = try? scenario.session()
    state.withLock {
      $0.session = fresh
      $0.document = scenario.document
    }
  }
  var commands: [GuidanceCommand] { state.withLock { $0.commands } }

  /// The handler the server calls: applies the command at once and replies.
  var handler: GuidanceCommandHandler {
    { [self] command, reply in
      let phrasing = Phrasebook(language: scenario.language, units: scenario.units)
      do {
        try state.withLock { s in
          s.commands.append(command)
          switch command {
          case .select(let i):
            s.session = try NavigationSession(
              document: s.document, routeIndex: i, phrasing: phrasing)
          case .load(let doc, let i), .reload(let doc, let i):
            s.session = try NavigationSession(document: doc, routeIndex: i, phrasing: phrasing)
            s.document = doc
          case .cancel:
            s.session = nil
          case .reroute, .skip:
            break
          }
        }
        reply(.success(()))
      } catch {
        reply(.failure(error))
      }
    }
  }

  /// Feeds one fix and returns its events (already published to `server`).
  @discardableResult
  func feed(_ fix: Fix, to server: SubscriberServer?) -> [NavigationEvent] {
    let events = state.withLock { s -> [NavigationEvent] in
      guard var session = s.session else { return [] }
      let e = session.ingest(fix)
      s.session = session
      return e
    }
    for e in events { server?.publish(e) }
    return events
  }

  /// Replays `fixes` (all by default), paced at `speed` × real time when given.
  ///
  /// - Returns: the encoded events and the longest time one `publish` call took, in seconds.
  func replay(
    to server: SubscriberServer, range: Range<Int>? = nil, speed: Double? = nil
  ) -> (events: [JSONObject], longestPublish: Double) {
    var out: [JSONObject] = []
    var longest = 0.0
    let clock = SystemClock()
    let selected = range.map { Array(fixes[$0]) } ?? fixes
    guard let first = selected.first else { return ([], 0) }
    let start = clock.now()
    for fix in selected {
      if let speed { clock.sleep(until: start + (fix.time - first.time) / speed) }
      let events = state.withLock { s -> [NavigationEvent] in
        guard var session = s.session else { return [] }
        let e = session.ingest(fix)
        s.session = session
        return e
      }
      for e in events {
        let o = ReferenceEventEncoder.object(e)
        let t0 = clock.now()
        server.publish(e)
        longest = max(longest, clock.now() - t0)
        out.append(o)
      }
    }
    return (out, longest)
  }
}

/// Server configuration for tests: diagnostics collected instead of printed.
final class LogCollector: Sendable {
  private let lines = Mutex<[String]>([])
  var all: [String] { lines.withLock { $0 } }
  var sink: @Sendable (Int, String) -> Void {
    { [self] _, text in lines.withLock { $0.append(text) } }
  }
}

extension JSONObject {
  var className: String? { self["class"]?.stringValue }
  var seq: Int? { self["seq"]?.doubleValue.map { Int($0) } }
}
