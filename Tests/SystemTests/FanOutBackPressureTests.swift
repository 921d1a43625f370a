import Events
import Foundation
import Glibc
import JSON
import Subscribers
import TestSupport
import Testing
import Wire

/// The fan-out's two ways to a subscriber: a subscriber with nothing waiting is sent each batch
/// straight from the shared line, one whose socket was full gets its queue first; moving between
/// them must neither lose, repeat nor split a byte.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct FanOutBackPressureTests {
  /// Reads `fd` in small pieces with a pause between them until the server closes it.
  static func readSlowly(_ fd: Int32, piece: Int, pauseMicroseconds: UInt32, timeout: Double)
    -> [String]
  {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: piece)
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&p, 1, 100) <= 0 { continue }
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { break }
      bytes += chunk[0..<n]
      usleep(pauseMicroseconds)
    }
    return bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  @Test func aSubscriberWhoseSocketFilledGetsTheSameBytesAsOneThatKeptUp() throws {
    let dir = try SocketTestDirectory("backpressure")
    defer { dir.remove() }
    let engine = try FakeEngine(scenario: SocketServerTests.scenario)
    let server = try SocketServerTests.server(dir, engine) {
      $0.sendBufferSize = 4096
      $0.queueLimit = 8 << 20
    }
    let slow = try SocketTestClient(path: dir.socketPath, receiveBuffer: 4096)
    let quick = try SocketTestClient(path: dir.socketPath)
    let filtered = try SocketTestClient(path: dir.socketPath)
    defer { withExtendedLifetime((slow, quick, filtered)) {} }
    filtered.send(#"{"cmd":"watch","classes":["STEP","ANNOUNCE"]}"#)
    #expect(filtered.answer()?.className == "REPLY")
    SocketServerTests.waitFor("3 connections") { server.statistics.connected == 3 }
    // The readers use the descriptors only: their owners (which close them) stay here.
    let fds = [quick.fd, filtered.fd]
    let slowFD = slow.fd
    let others = BackgroundWork { readAllUntilClosed(fds, timeout: 60) }

    // The first half as one batch while the slow subscriber reads nothing: every subscriber's
    // socket takes a part of it (tens of kilobytes against a 4 KiB buffer), the rest waits in
    // its queue. The second half one event at a time while the slow one reads in small pieces:
    // it goes back and forth between a queue and a socket with room.
    let half = engine.fixes.count / 2
    let batch = engine.fixes[0..<half].flatMap { engine.feed($0, to: nil) }
    server.publisher.publish(batch)
    let first = batch.map { ReferenceEventEncoder.object($0) }
    // Far more than its socket holds (a 4 KiB buffer, half the drive's events).
    SocketServerTests.waitFor("the slow subscriber's queue") {
      server.statistics.peakQueuedBytes > 16 << 10
    }
    let slowReader = BackgroundWork {
      Self.readSlowly(slowFD, piece: 700, pauseMicroseconds: 300, timeout: 60)
    }
    let second = engine.replay(to: server, range: half..<engine.fixes.count).events
    server.shutdown()
    let slowLines = try #require(slowReader.join())
    let received = try #require(others.join())

    let events = first + second
    #expect(events.count > 250)
    #expect(server.statistics.overflowed == 0)
    let quickLines = received[0]
    #expect(quickLines.count == events.count + 3)
    #expect(slowLines == quickLines, "the slow subscriber's stream differs")
    let quickObjects = SocketServerTests.parse(quickLines)
    #expect(quickObjects.compactMap(\.seq).filter { $0 > 0 } == Array(1...events.count))

    let filteredObjects = SocketServerTests.parse(received[1])
    #expect(filteredObjects.last?["code"]?.stringValue == "shutdown")
    let watched = filteredObjects.filter { $0.className == "STEP" || $0.className == "ANNOUNCE" }
    let expected = quickObjects.filter { $0.className == "STEP" || $0.className == "ANNOUNCE" }
    #expect(!watched.isEmpty && watched == expected)
    // Its VERSION, STATE and REPLY were read before the replay.
    #expect(filteredObjects.count == watched.count + 1, "only the watched classes and the end")
  }
}
