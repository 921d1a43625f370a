import Foundation
import TestSupport
import Testing

// Routers for the rerouting tests: a real Valhalla started on a free loopback port (ended by its
// pid), and small loopback HTTP servers that answer what a test tells them to.

/// A `valhalla_service` on 127.0.0.1, started by Tests/Valhalla/serve.sh.
final class ValhallaService {
  let port: Int
  let pid: pid_t
  var baseURL: String { "http://127.0.0.1:\(port)" }

  static let serveScript = repositoryFile("Tests/Valhalla/serve.sh")
  static func extract(_ name: String) -> String {
    repositoryFile("Tests/Valhalla/extracts/\(name).osm.pbf")
  }

  /// Builds the extract's tiles when they are missing and starts the service (serve.sh fetches
  /// the Valhalla executables with pip first when they are missing), on `port` or a free one.
  init(extract name: String, port chosen: Int? = nil) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    port = try chosen ?? freeLoopbackPort()
    let environment = ProcessInfo.processInfo.environment.merging(["CONCURRENCY": "1"]) { $1 }
    let script = try SpawnedProcess(
      ["/bin/bash", Self.serveScript, Self.extract(name), String(port)],
      environment: environment, stdoutPath: scratch.file("out"), stderrPath: scratch.file("err"))
    let status = script.wait(timeout: 180)
    guard status == 0, let p = pid_t(script.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    else {
      script.killGroup()
      throw ServiceError(
        description: "serve.sh failed (\(status.map(String.init) ?? "timeout")): \(script.stderr)")
    }
    pid = p
  }

  /// Ends the service by its pid and waits until it is gone.
  func stop() {
    kill(pid, SIGKILL)
    _ = waitUntil(timeout: 10) { kill(pid, 0) != 0 }
  }

  struct ServiceError: Error, CustomStringConvertible { var description: String }
}

/// An HTTP/1.1 server on 127.0.0.1 that answers every request with the same canned reply, or
/// never answers; it counts the connections it accepted and the requests it read.
final class CannedHTTPServer: @unchecked Sendable {
  enum Behaviour {
    /// Answers with this status and body, keeping the connection open.
    case reply(status: Int, body: String)
    /// Reads the request and never answers.
    case silent
  }

  let port: Int
  private let listener: Int32
  private let behaviour: Behaviour
  private let lock = NSLock()
  private var connections: [Int32] = []
  private var accepted = 0
  private var requests: [String] = []
  private var stopped = false
  private let done = DispatchGroup()

  var acceptedConnections: Int { lock.withLock { accepted } }
  var receivedRequests: [String] { lock.withLock { requests } }

  init(_ behaviour: Behaviour) throws {
    self.behaviour = behaviour
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
        bind(fd, p, length) == 0 && getsockname(fd, p, &length) == 0 && listen(fd, 16) == 0
      }
    }
    guard bound else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    listener = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    done.enter()
    Thread { [self] in
      acceptLoop()
      done.leave()
    }.start()
  }

  private func acceptLoop() {
    while true {
      let c = accept(listener, nil, nil)
      if c < 0 {
        if errno == EINTR { continue }
        return
      }
      let keep = lock.withLock { () -> Bool in
        if stopped { return false }
        accepted += 1
        connections.append(c)
        return true
      }
      guard keep else {
        close(c)
        return
      }
      done.enter()
      Thread { [self] in
        serve(c)
        done.leave()
      }.start()
    }
  }

  private func serve(_ c: Int32) {
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      // One request: headers up to the blank line, then Content-Length bytes of body.
      var found: Int?
      while found == nil {
        if let r = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
          found = r.upperBound
          break
        }
        let n = read(c, &chunk, chunk.count)
        if n <= 0 { return }
        buffer += chunk[0..<n]
      }
      guard let headerEnd = found else { return }
      let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self)
      let bodyLength =
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
      while buffer.count < headerEnd + bodyLength {
        let n = read(c, &chunk, chunk.count)
        if n <= 0 { return }
        buffer += chunk[0..<n]
      }
      let request = String(decoding: buffer[0..<(headerEnd + bodyLength)], as: UTF8.self)
      buffer.removeFirst(headerEnd + bodyLength)
      lock.withLock { requests.append(request) }
      switch behaviour {
      case .silent:
        // Hold the connection until the client gives up or the server stops.
        while read(c, &chunk, chunk.count) > 0 {}
        return
      case .reply(let status, let body):
        let bytes = Array(body.utf8)
        let reply =
          "HTTP/1.1 \(status) Canned\r\nContent-Type: application/json\r\n"
          + "Content-Length: \(bytes.count)\r\n\r\n"
        let all = Array(reply.utf8) + bytes
        var sent = 0
        while sent < all.count {
          let n = all[sent...].withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
          if n <= 0 { return }
          sent += n
        }
      }
    }
  }

  /// Closes the listener and every connection, and waits for the server's threads.
  func stop() {
    let open = lock.withLock { () -> [Int32] in
      stopped = true
      return connections
    }
    shutdown(listener, Int32(SHUT_RDWR))
    for c in open { shutdown(c, Int32(SHUT_RDWR)) }
    done.wait()
    close(listener)
    for c in open { close(c) }
  }
}
