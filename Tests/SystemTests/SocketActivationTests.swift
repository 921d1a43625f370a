import Foundation
import JSON
import TestSupport
import Testing

/// `stepwised` started through the real `systemd-socket-activate`, the way a user tries socket
/// activation by hand: a single socket is the subscriber socket whatever its name, and a socket
/// the daemon cannot use ends it with a message and status 2 instead of leaving clients waiting.
@Suite(
  .blocking, .serialized, .timeLimit(.minutes(5)),
  .requires(socketActivateInstalled, "systemd-socket-activate is not installed"))
struct SocketActivationTests {
  static let route = repositoryFile("Simulations/001-marais-drive/route.json")

  static func activate(_ options: [String], scratch: ScratchDirectory, tag: String) throws
    -> SpawnedProcess
  {
    let binary = try #require(productPath("stepwised"))
    return try SpawnedProcess(
      ["/usr/bin/systemd-socket-activate", "-E", "TSAN_OPTIONS", "-E", "ASAN_OPTIONS"] + options
        + [binary, "--route", route, "gpsd://127.0.0.1:9"],
      environment: sanitizerEnvironment(["PATH": "/usr/bin:/bin"]),
      stdoutPath: scratch.file("\(tag).out"), stderrPath: scratch.file("\(tag).err"))
  }

  /// Sends one datagram to the Unix socket at `path`.
  static func sendDatagram(to path: String) {
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
    }
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        sendto(fd, "x", 1, 0, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }

  @Test func anUnnamedSocketIsTheSubscriberSocket() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let sock = scratch.file("unnamed.sock")
    let p = try Self.activate(["-l", sock], scratch: scratch, tag: "unnamed")
    defer { p.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    let c = try SocketTestClient.connecting(to: sock)
    let version = c.next(timeout: 10)
    #expect(version?["class"]?.stringValue == "VERSION", "\(p.stderr)")
    p.signal(SIGTERM)
    #expect(p.wait(timeout: 10) == 0, "\(p.stderr)")
  }

  @Test func aDatagramSocketIsAnError() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let sock = scratch.file("datagram.sock")
    let p = try Self.activate(["--datagram", "-l", sock], scratch: scratch, tag: "datagram")
    defer { p.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    Self.sendDatagram(to: sock)
    #expect(p.wait(timeout: 20) == 2, "\(p.stderr)")
    #expect(p.stderr.contains("not a listening Unix stream socket"), "\(p.stderr)")
  }

  /// `--accept` (`Accept=yes`) passes each connection, not the listening socket.
  @Test func aConnectionInsteadOfTheListeningSocketIsAnError() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let sock = scratch.file("accept.sock")
    let p = try Self.activate(["--accept", "-l", sock], scratch: scratch, tag: "accept")
    defer { p.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    let c = try SocketTestClient.connecting(to: sock)
    #expect(
      waitUntil(timeout: 20) { p.stderr.contains("not a listening Unix stream socket") },
      "\(p.stderr)")
    // The daemon ended and closed the connection: the client sees the end, not a hang.
    #expect(c.next(timeout: 10) == nil)
    #expect(c.eof)
  }

  @Test func severalSocketsWithoutTheNameAreAnError() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let a = scratch.file("a.sock")
    let b = scratch.file("b.sock")
    let p = try Self.activate(["-l", a, "-l", b], scratch: scratch, tag: "two")
    defer { p.killGroup() }
    #expect(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: b) })
    _ = try SocketTestClient.connecting(to: a)
    #expect(p.wait(timeout: 20) == 2, "\(p.stderr)")
    #expect(p.stderr.contains("none named subscribers"), "\(p.stderr)")
  }
}
