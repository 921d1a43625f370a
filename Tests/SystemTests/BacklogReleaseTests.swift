import Dispatch
import Events
import Foundation
import Glibc
import POSIX
import Subscribers
import TestSupport
import Testing
import Wire

/// After lines waited for a slow reader, the heap they took is given back.
///
/// The lines are small blocks among longer-lived ones, so without a trim the heap kept each
/// backlog's high-water mark (docs/notebook/profiling.md, memory over uptime).
///
/// The time limit guards against a hang, not a slow run. Under ThreadSanitizer both tests were
/// reported after 319 s (`.ci/run` on 30f1203), each well under a second alone: they waited
/// that long for a thread of the cooperative pool, which the socket suites held blocked. They
/// are `.blocking` now, as those suites are (BlockingTrait).
@Suite(.blocking, .timeLimit(.minutes(10))) struct BacklogReleaseTests {
  /// Publishes `count` SOURCE events to a stream sink on a pipe that nobody reads until all are
  /// published, then reads everything; returns the sink's released backlogs and the lines read.
  static func streamThroughAPipe(events count: Int) async throws -> (released: Int, lines: Int) {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    let sink = StreamSink(fd: fds[1], format: .json)
    let publisher = EventPublisher()
    publisher.add(sink)
    for i in 0..<count {
      publisher.publish(
        .source(
          SourceEvent(
            time: 1e9 + Double(i), status: .connected, source: "gpsd://127.0.0.1:2947",
            reason: nil)))
    }
    let readEnd = fds[0]
    let lines = Locked(0)
    let reader = DispatchGroup()
    reader.enter()
    onItsOwnThread {
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      var n = 0
      while true {
        let got = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        n += buffer[0..<got].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
      }
      lines.withLock { $0 = n }
      reader.leave()
    }
    sink.finish()
    await sink.drained()
    close(fds[1])
    reader.wait()
    close(readEnd)
    return (sink.backlogsReleased, lines.withLock { $0 })
  }

  @Test func standardOutputBehindASlowReaderIsReleasedOnceCaughtUp() async throws {
    let trimsBefore = HeapRelease.backlogTrims
    // 3,000 lines of about 110 bytes (fewer than the 4,096 the sink holds): the pipe takes
    // 64 KiB, about 2,400 wait for the reader.
    let big = try await Self.streamThroughAPipe(events: 3000)
    #expect(big.lines == 3000)
    // At least once: the writer, a thread of its own, can catch up with a backlog of 256 or
    // more while the events are still being published (before the pipe fills), then again at
    // the end (2 in .ci/run on e22613e, under load).
    #expect(big.released >= 1)
    if HeapRelease.ownsTheHeap {
      let deadline = Date().addingTimeInterval(10)
      while HeapRelease.backlogTrims == trimsBefore && Date() < deadline { usleep(20_000) }
      #expect(HeapRelease.backlogTrims > trimsBefore, "no trim followed the backlog")
    }
    // 200 events never make a backlog worth a trim (256 KiB, at 1 KiB an event).
    let small = try await Self.streamThroughAPipe(events: 200)
    #expect(small.lines == 200)
    #expect(small.released == 0)
  }

  @Test func aSubscriberDroppedForNotReadingReleasesItsQueue() throws {
    let dir = try SocketTestDirectory("backlog")
    defer { dir.remove() }
    var config = SubscriberServer.Configuration()
    config.sendBufferSize = 4096
    config.closeGrace = 0.2
    config.log = { _, _ in }
    let server = SubscriberServer(
      listener: try ListeningSocket.bind(path: dir.socketPath), configuration: config)
    defer { server.shutdown() }
    let stuck = try SocketTestClient(path: dir.socketPath, receiveBuffer: 4096)
    defer { withExtendedLifetime(stuck) {} }
    SocketServerTests.waitFor("the subscriber to connect") { server.statistics.connected == 1 }
    // STEP lines of about 70 bytes: the default 256 KiB queue overflows after about 3,700.
    var second = 0
    while server.statistics.overflowed == 0 && second < 20_000 {
      server.publish(ClientTests.stepEvent(second % 50, second: second % 60))
      second += 1
    }
    SocketServerTests.waitFor("the stuck subscriber to be dropped") {
      server.statistics.connected == 0
    }
    let stats = server.statistics
    #expect(stats.overflowed == 1)
    #expect(stats.peakQueuedBytes > HeapRelease.backlogWorthTrimming)
    #expect(stats.backlogsReleased == 1)
  }
}
