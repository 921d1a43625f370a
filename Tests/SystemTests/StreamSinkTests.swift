import Events
import Glibc
import POSIX
import TestSupport
import Testing
import Wire

/// Standard output's sink: what it drops when its reader stalls, and what it shares with the
/// socket's subscribers.
@Suite(.blocking, .timeLimit(.minutes(5))) struct StreamSinkTests {
  /// A sink that keeps the numbered lines it was given, as the socket's subscribers get them.
  final class Recorder: EventSink {
    let lines = Locked<[UInt8]>([])
    func receive(_ publication: Publication) {
      let bytes = publication.line.bytes
      lines.withLock { $0 += bytes }
    }
    func finish() {}
  }

  static func source(_ i: Int) -> Event {
    .source(
      SourceEvent(
        time: 1e9 + Double(i), status: .connected, source: "gpsd://127.0.0.1:2947", reason: nil))
  }

  /// Publishes `count` events into a pipe nobody reads until all are published, then reads
  /// everything.
  static func publish(
    _ count: Int, into sink: (Int32) -> StreamSink, beside other: (any EventSink)? = nil
  ) async throws -> (bytes: [UInt8], dropped: Int) {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    let s = sink(fds[1])
    let publisher = EventPublisher()
    publisher.add(s)
    if let other { publisher.add(other) }
    for i in 0..<count { publisher.publish(source(i)) }
    let readEnd = fds[0]
    let read = Locked<[UInt8]>([])
    let done = Self.reading(readEnd) { chunk in read.withLock { $0 += chunk } }
    s.finish()
    await s.drained()
    close(fds[1])
    while !done.withLock({ $0 }) { usleep(5_000) }
    close(readEnd)
    return (read.withLock { $0 }, s.droppedLines)
  }

  /// Reads `fd` on a thread of its own until its end, handing each chunk read to `chunk`;
  /// the flag it returns is set at the end.
  static func reading(_ fd: Int32, _ chunk: @escaping @Sendable (ArraySlice<UInt8>) -> Void)
    -> Locked<Bool>
  {
    let done = Locked(false)
    onItsOwnThread {
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        chunk(buffer[0..<got])
      }
      done.withLock { $0 = true }
    }
    return done
  }

  static func lineCount(_ bytes: [UInt8]) -> Int { bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }

  /// 2,000 lines of about 110 bytes into a pipe of 64 KiB and a sink of 16 events: a live sink
  /// drops the oldest, a replay's (lossless) keeps every one.
  @Test func aReplaysSinkKeepsEveryLineThatALiveSinkWouldDrop() async throws {
    let live = try await Self.publish(2000) {
      StreamSink(fd: $0, format: .json, capacity: 16 * StreamSink.estimatedLineBytes)
    }
    #expect(live.dropped > 0)
    #expect(Self.lineCount(live.bytes) + live.dropped == 2000)
    let replay = try await Self.publish(2000) {
      StreamSink(
        fd: $0, format: .json, capacity: 16 * StreamSink.estimatedLineBytes, lossless: true)
    }
    #expect(replay.dropped == 0)
    #expect(Self.lineCount(replay.bytes) == 2000)
  }

  /// Standard output prints the same bytes alone as beside a subscriber.
  ///
  /// Alone it encodes each line itself; beside a subscriber it prints the shared line without
  /// `seq`, and the subscriber's lines are numbered.
  @Test func standardOutputPrintsTheSameBytesAloneAndBesideSubscribers() async throws {
    let alone = try await Self.publish(300) { StreamSink(fd: $0, format: .json) }
    let recorder = Recorder()
    let beside = try await Self.publish(
      300, into: { StreamSink(fd: $0, format: .json) }, beside: recorder)
    #expect(Self.lineCount(alone.bytes) == 300)
    #expect(alone.bytes == beside.bytes)
    let numbered = recorder.lines.withLock { $0 }
    #expect(Self.lineCount(numbered) == 300)
    let first = String(decoding: numbered.prefix(while: { $0 != 0x0A }), as: UTF8.self)
    #expect(first.contains(#","seq":1,"#))
    #expect(!String(decoding: alone.bytes.prefix(200), as: UTF8.self).contains("seq"))
  }

  /// The daemon saves its progress only once standard output wrote what came before.
  ///
  /// So (``EventKeeper``) a `kill -9` after the save cannot lose a line the restart will not
  /// say again. With the pipe full and nobody reading, the call waits; once read, it comes,
  /// after every line published before it.
  @Test func whatWasPublishedIsKeptOnlyOnceWritten() async throws {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    let sink = StreamSink(fd: fds[1], format: .json, lossless: true)
    let publisher = EventPublisher()
    publisher.add(sink)
    // About 110 bytes a line: 2,000 fill the 64 KiB pipe many times over.
    for i in 0..<2000 { publisher.publish(Self.source(i)) }
    let readEnd = fds[0]
    let kept = Locked<Int?>(nil)
    let read = Locked(0)
    sink.afterKept { kept.withLock { $0 = read.withLock { $0 } } }
    usleep(300_000)
    #expect(kept.withLock { $0 } == nil, "kept while the pipe was full")
    // A later event, and a second call after it: called in that order, after the first.
    publisher.publish(Self.source(2000))
    let order = Locked<[Int]>([])
    sink.afterKept { order.withLock { $0.append(2) } }
    let done = Self.reading(readEnd) { chunk in read.withLock { $0 += chunk.count } }
    sink.finish()
    await sink.drained()
    close(fds[1])
    while !done.withLock({ $0 }) { usleep(5_000) }
    close(readEnd)
    // Kept once written: the reader may not have counted them all by then, but all but what
    // the pipe holds (64 KiB) and what it read and did not count yet (64 KiB) at most.
    let total = read.withLock { $0 }
    let at = try #require(kept.withLock { $0 }, "never kept")
    #expect(at >= total - 2 << 16, "kept after \(at) of \(total) bytes were read")
    #expect(total > 3 << 16, "\(total) bytes: more than the pipe and the reader's buffer hold")
    #expect(order.withLock { $0 } == [2])
    // Nothing waits: called at once.
    let now = Locked(false)
    sink.afterKept { now.withLock { $0 = true } }
    #expect(now.withLock { $0 })
  }
}
