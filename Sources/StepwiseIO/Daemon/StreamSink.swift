import Dispatch
import Glibc
import Synchronization
import Guidance
import Wire

/// An ``EventSink`` that writes lines to a file descriptor (standard output) from its own
/// serial queue, so a slow reader of the descriptor never blocks the engine.
///
/// Lines wait in a queue bounded by ``capacity`` bytes. When it is full the oldest lines are
/// dropped, and the first drop is reported once on stderr. Replays do not lose lines: their
/// source calls ``waitForRoom()`` before producing more, which holds the replay, not the engine.
public final class StreamSink: EventSink {
  /// How events become lines.
  public enum Format: Sendable {
    /// One JSON object per line (`docs/events.md`).
    case json
    /// Readable lines; `PROGRESS` only when `progress` is true.
    case readable(progress: Bool)
  }

  private struct Queue: ~Copyable {
    var lines: [[UInt8]] = []
    var head = 0
    var bytes = 0
    var writing = false
    var finished = false
    var dropped = 0
    var failure: SystemError?
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
  }

  public let fd: Int32
  public let format: Format
  /// Bytes that may wait before the oldest lines are dropped.
  public let capacity: Int
  private let state = Locked(Queue())
  private let writer = DispatchQueue(label: "stepwise.stream-sink")
  private let room = DispatchSemaphore(value: 0)

  public init(fd: Int32, format: Format, capacity: Int = 4 << 20) {
    self.fd = fd
    self.format = format
    self.capacity = capacity
  }

  /// The line for `publication`, or `nil` when this format does not print it.
  public func line(_ publication: Publication) -> String? {
    switch (publication.event, format) {
    case (.navigation(let e), .json): return EventEncoder.line(e)
    case (.navigation(let e), .readable(let showProgress)):
      return !showProgress && Self.isProgress(e) ? nil : EventEncoder.readableLine(e)
    case (.source(let s), .json): return EventEncoder.line(s)
    case (.source(let s), .readable): return EventEncoder.readableLine(s)
    }
  }

  private static func isProgress(_ e: NavigationEvent) -> Bool {
    if case .progress = e.kind { return true }
    return false
  }

  public func receive(_ publication: Publication) {
    guard let text = line(publication) else { return }
    var bytes = Array(text.utf8)
    bytes.append(0x0A)
    let (start, firstDrop) = state.withLock { q -> (Bool, Bool) in
      guard !q.finished, q.failure == nil else { return (false, false) }
      q.lines.append(bytes)
      q.bytes += bytes.count
      var firstDrop = false
      while q.bytes > capacity && q.lines.count - q.head > 1 {
        q.bytes -= q.lines[q.head].count
        q.lines[q.head] = []
        q.head += 1
        if q.dropped == 0 { firstDrop = true }
        q.dropped += 1
      }
      guard !q.writing else { return (false, firstDrop) }
      q.writing = true
      return (true, firstDrop)
    }
    if firstDrop {
      logLine(4, "stepwised: output is not keeping up; dropping the oldest lines")
    }
    if start { writer.async { [self] in drain() } }
  }

  public func finish() {
    let resume = state.withLock { q -> [CheckedContinuation<Void, Never>] in
      q.finished = true
      guard !q.writing else { return [] }
      let w = q.drainWaiters
      q.drainWaiters = []
      return w
    }
    for c in resume { c.resume() }
  }

  /// Bytes waiting to be written.
  public var pendingBytes: Int { state.withLock { $0.bytes } }

  /// Lines dropped because the queue was full.
  public var droppedLines: Int { state.withLock { $0.dropped } }

  /// The first write error (a closed pipe, a full disk); later lines are dropped.
  public var failure: SystemError? { state.withLock { $0.failure } }

  /// Blocks the calling thread (a replay's, never the engine's) until at most half of the
  /// capacity is waiting, or `stop` says to give up.
  public func waitForRoom(stop: StopFlag? = nil) {
    while pendingBytes > capacity / 2 && failure == nil && stop?.isSet != true {
      _ = room.wait(timeout: .now() + .milliseconds(50))
    }
  }

  /// Returns once everything received before ``finish()`` is written (or writing failed).
  public func drained() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      let done = state.withLock { q -> Bool in
        if q.finished && !q.writing { return true }
        q.drainWaiters.append(c)
        return false
      }
      if done { c.resume() }
    }
  }

  private func drain() {
    while true {
      let (batch, waiters) = state.withLock { q -> ([UInt8], [CheckedContinuation<Void, Never>]) in
        guard q.head < q.lines.count, q.failure == nil else {
          q.lines.removeAll(keepingCapacity: true)
          q.head = 0
          q.bytes = 0
          q.writing = false
          guard q.finished else { return ([], []) }
          let w = q.drainWaiters
          q.drainWaiters = []
          return ([], w)
        }
        var out: [UInt8] = []
        out.reserveCapacity(min(q.bytes, 1 << 16))
        while q.head < q.lines.count && out.count < 1 << 16 {
          out += q.lines[q.head]
          q.bytes -= q.lines[q.head].count
          q.lines[q.head] = []
          q.head += 1
        }
        if q.head > 4096 && q.head * 2 > q.lines.count {
          q.lines.removeFirst(q.head)
          q.head = 0
        }
        return (out, [])
      }
      if batch.isEmpty {
        room.signal()
        for c in waiters { c.resume() }
        return
      }
      if let error = write(batch) {
        state.withLock { $0.failure = $0.failure ?? error }
      }
      room.signal()
    }
  }

  /// Writes all of `bytes`, retrying on `EINTR`. The corresponding C function is `write`.
  private func write(_ bytes: [UInt8]) -> SystemError? {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return Glibc.write(fd, base + offset, raw.count - offset)
      }
      if n < 0 {
        if errno == EINTR { continue }
        return SystemError(errno: errno, function: "write", subject: fd == 1 ? "stdout" : "fd \(fd)")
      }
      offset += n
    }
    return nil
  }
}

/// A flag that stops sources and waits: set once, read from any thread.
public final class StopFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  public init() {}
  public var isSet: Bool { flag.load(ordering: .acquiring) }
  public func set() { flag.store(true, ordering: .releasing) }
}
