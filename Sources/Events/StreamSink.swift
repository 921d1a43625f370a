import Glibc
import Guidance
import POSIX
import Wire

/// An ``EventSink`` that writes lines to a file descriptor (standard output) from its own
/// serial queue, so a slow reader of the descriptor never blocks the engine.
///
/// The engine only queues the events; the writer's queue encodes them (`--json` prints each
/// publication's ``Publication/line`` without `seq`: the bytes subscribers get when they share
/// it, or encoded straight into the writer's buffer when standard output is its only reader,
/// ``LineUse/once``) and hands the descriptor 64 KiB at a time. On two cores the encoding then
/// runs beside guidance instead of
/// after it. What waits is bounded by ``capacity`` bytes, counting each waiting event as
/// ``estimatedLineBytes``. When it is full the oldest events
/// are dropped, and the first drop is reported once on stderr. Replays do not lose lines:
/// their source calls ``waitForRoom(stop:)`` before producing more, which holds the replay,
/// not the engine, and their sink is ``lossless``.
public final class StreamSink: EventSink, EventKeeper {
  /// How events become lines.
  public enum Format: Sendable {
    /// One JSON object per line (`docs/events.md`).
    case json
    /// Readable lines; `PROGRESS` only when `progress` is true.
    case readable(progress: Bool)
  }

  /// What a waiting event counts for against ``capacity``, in bytes: the memory it holds, not
  /// only its line.
  ///
  /// A waiting `PROGRESS` is its event, its lock and its encoded line of about 380 bytes, and
  /// with the allocator's overhead about 1 KiB: a stall of standard output that left 16,384
  /// events waiting made the daemon 16.5 MiB larger (`longrun.py run --stall-output`), when 256
  /// bytes an event was counted and the 4 MiB capacity was meant to bound it.
  public static let estimatedLineBytes = 1024

  private struct Queue: ~Copyable {
    /// Events waiting to be encoded and written, oldest first.
    var waiting: [Publication] = []
    /// Events taken by the writer and not yet written.
    var inFlight = 0
    var writing = false
    var finished = false
    var dropped = 0
    var failure: SystemError?
    /// A replay is blocked in `waitForRoom` until at most half the capacity is used.
    var roomWaiter = false
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// The writer's buffers between two runs of ``drain()``, kept so a run does not start by
    /// growing new ones (in a `--fast` replay the writer catches up and restarts once per batch).
    var spareOut: [UInt8] = []
    var spareWork: [Publication] = []
    /// The most events waiting since the writer last caught up.
    var backlogPeak = 0
    var backlogsReleased = 0
    /// Events taken to be printed, and of those the ones written (or dropped, or lost to a
    /// failure): what ``afterKept(_:)`` waits for.
    var received = 0
    var settled = 0
    /// Calls waiting for the events received before them to be settled, oldest first.
    var keptWaiters: [(upTo: Int, then: @Sendable () -> Void)] = []

    /// `n` more events settled: the calls that waited for them, taken out in order.
    mutating func settle(_ n: Int) -> [@Sendable () -> Void] {
      settled += n
      guard let last = keptWaiters.lastIndex(where: { $0.upTo <= settled }) else { return [] }
      defer { keptWaiters.removeFirst(last + 1) }
      return keptWaiters[...last].map(\.then)
    }

    /// Nothing left to write (the writer caught up, or it failed): every call that waits.
    mutating func settleAll() -> [@Sendable () -> Void] {
      settled = received
      defer { keptWaiters.removeAll() }
      return keptWaiters.map(\.then)
    }
  }

  /// The most waiting events whose list is kept for reuse once empty; a longer one (after a
  /// burst) is freed, so what the sink holds while idle stays small.
  static let keptListCapacity = 1024

  public let fd: Int32
  public let format: Format
  /// Bytes that may wait before the oldest lines are dropped.
  public let capacity: Int
  /// Never drop: the producer waits for room (a replay), so what waits is bounded by those
  /// waits, not by dropping.
  ///
  /// A replay waits until half the capacity is free, but the engine may then still hold up to
  /// `TrackReplaySource.backlogLimit` epochs whose events come after that wait; a
  /// `--fast --json` replay of the 1,000,000-sentence file dropped lines in about one run of
  /// five (the "not keeping up" warning, a different output) when those were counted against the
  /// capacity.
  public let lossless: Bool
  /// ``capacity`` in events.
  private let limit: Int
  private let state = Monitor(Queue())
  private let writer = SerialThread(name: "stepwise.stream-sink")

  public init(fd: Int32, format: Format, capacity: Int = 4 << 20, lossless: Bool = false) {
    self.fd = fd
    self.format = format
    self.capacity = capacity
    self.lossless = lossless
    limit = max(1, capacity / Self.estimatedLineBytes)
  }

  public var lineUse: LineUse {
    if case .json = format { return .once }
    return .none
  }

  /// Whether this format prints `publication` at all.
  private func prints(_ publication: Publication) -> Bool {
    switch publication.event {
    case .cancelled, .rerouting: return false
    case .navigation(let e):
      if case .readable(false) = format { return !Self.isProgress(e) }
      return true
    case .source: return true
    }
  }

  /// Appends the line for `publication` and its newline.
  private func append(_ publication: Publication, to out: inout [UInt8]) {
    if case .json = format { return publication.appendUnnumberedLine(to: &out) }
    guard publication.event.printed else { return }
    out.append(contentsOf: publication.event.readableLine.utf8)
    out.append(0x0A)
  }

  /// Appends the line `format` prints for `event`, with its newline (readable `PROGRESS`
  /// lines even when the sink would leave them out).
  public static func appendLine(_ event: NavigationEvent, format: Format, to out: inout [UInt8]) {
    if case .json = format {
      EventLine.appendUnnumbered(.navigation(event), to: &out)
    } else {
      out.append(contentsOf: Event.navigation(event).readableLine.utf8)
      out.append(0x0A)
    }
  }

  private static func isProgress(_ e: NavigationEvent) -> Bool {
    if case .progress = e.kind { return true }
    return false
  }

  public func receive(_ publication: Publication) {
    receive(CollectionOfOne(publication))
  }

  public func receive(_ publications: [Publication]) {
    receive(publications[...])
  }

  private func receive(_ publications: some Collection<Publication>) {
    let (start, firstDrop) = state.withLock { q -> (Bool, Bool) in
      guard !q.finished, q.failure == nil else { return (false, false) }
      for p in publications where prints(p) {
        q.waiting.append(p)
        q.received += 1
      }
      q.backlogPeak = max(q.backlogPeak, q.waiting.count + q.inFlight)
      var firstDrop = false
      let excess = q.waiting.count + q.inFlight - limit
      if excess > 0 && q.waiting.count > 1 && !lossless {
        let n = min(excess, q.waiting.count - 1)
        q.waiting.removeFirst(n)
        if q.dropped == 0 { firstDrop = true }
        q.dropped += n
        q.settled += n
      }
      guard !q.writing, !q.waiting.isEmpty else { return (false, firstDrop) }
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
    state.change(wakingWhen: { _ in true })
    for c in resume { c.resume() }
  }

  /// Bytes waiting to be written (estimated for events not yet encoded).
  public var pendingBytes: Int {
    state.withLock { ($0.waiting.count + $0.inFlight) * Self.estimatedLineBytes }
  }

  /// Lines dropped because the queue was full.
  public var droppedLines: Int { state.withLock { $0.dropped } }

  /// Times the writer caught up with a backlog of at least
  /// ``POSIX/HeapRelease/backlogWorthTrimming`` bytes (estimated), after which the heap is
  /// trimmed (``POSIX/HeapRelease/afterBacklog()``).
  public var backlogsReleased: Int { state.withLock { $0.backlogsReleased } }

  /// The first write error (a closed pipe, a full disk); later lines are dropped.
  public var failure: SystemError? { state.withLock { $0.failure } }

  /// Blocks the calling thread (a replay's, never the engine's) until at most half of the
  /// capacity is waiting, writing failed, or `stop` is set.
  ///
  /// The writer wakes it; `stop` is looked at every 0.1 s while blocked.
  public func waitForRoom(stop: StopFlag? = nil) {
    let half = limit / 2
    while stop?.isSet != true {
      var done = false
      state.wait(
        until: { q in
          if q.waiting.count + q.inFlight <= half || q.failure != nil || q.finished {
            q.roomWaiter = false
            done = true
            return true
          }
          q.roomWaiter = true
          return false
        }, timeout: 0.1)
      if done { return }
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

  /// Calls `then` once every line received so far is written to the descriptor.
  ///
  /// After that a `kill -9` cannot take them back (lines dropped or lost to a write error
  /// count as written: they are gone either way). At once when nothing waits; otherwise on the
  /// writer's thread, in the order of the calls.
  public func afterKept(_ then: @escaping @Sendable () -> Void) {
    let now = state.withLock { q -> Bool in
      guard q.writing, q.failure == nil else { return true }
      q.keptWaiters.append((q.received, then))
      return false
    }
    if now { then() }
  }

  /// The writer's loop: takes everything waiting, encodes it and writes it in 64 KiB pieces,
  /// until nothing waits.
  private func drain() {
    var out: [UInt8] = []
    var work: [Publication] = []
    state.withLock { q in
      swap(&out, &q.spareOut)
      swap(&work, &q.spareWork)
    }
    out.removeAll(keepingCapacity: true)
    out.reserveCapacity(1 << 16 + 4096)
    while true {
      work.removeAll(keepingCapacity: true)
      var kept: [@Sendable () -> Void] = []
      let waiters = state.withLock { q -> [CheckedContinuation<Void, Never>] in
        q.inFlight = 0
        guard !q.waiting.isEmpty, q.failure == nil else {
          kept = q.settleAll()
          q.waiting.removeAll(keepingCapacity: q.waiting.capacity <= Self.keptListCapacity)
          if work.capacity <= Self.keptListCapacity { swap(&work, &q.spareWork) }
          swap(&out, &q.spareOut)
          q.writing = false
          if q.backlogPeak * Self.estimatedLineBytes >= HeapRelease.backlogWorthTrimming {
            q.backlogsReleased += 1
            HeapRelease.afterBacklog()
          }
          q.backlogPeak = 0
          guard q.finished else { return [] }
          let w = q.drainWaiters
          q.drainWaiters = []
          return w
        }
        // The lists trade places: the engine goes on appending to the writer's emptied one.
        swap(&work, &q.waiting)
        q.inFlight = work.count
        return []
      }
      if work.isEmpty {
        state.change(wakingWhen: { $0.roomWaiter })
        for c in waiters { c.resume() }
        for call in kept { call() }
        return
      }
      var error: SystemError?
      var done = 0
      for p in work {
        append(p, to: &out)
        done += 1
        if out.count >= 1 << 16 {
          error = write(out)
          out.removeAll(keepingCapacity: true)
          if error != nil { break }
          let written = done
          done = 0
          state.change(wakingWhen: { q in
            q.inFlight -= written
            kept = q.settle(written)
            return q.roomWaiter && q.waiting.count + q.inFlight <= limit / 2
          })
          for call in kept { call() }
        }
      }
      if error == nil && !out.isEmpty {
        error = write(out)
        out.removeAll(keepingCapacity: true)
      }
      let last = done
      state.change(wakingWhen: { q in
        if let error { q.failure = q.failure ?? error }
        q.inFlight = 0
        kept = q.failure == nil ? q.settle(last) : q.settleAll()
        return q.roomWaiter && (q.waiting.count <= limit / 2 || q.failure != nil)
      })
      for call in kept { call() }
    }
  }

  /// Writes all of `bytes`; returns the failure, if any.
  private func write(_ bytes: [UInt8]) -> SystemError? {
    do {
      try writeAll(fd, bytes, subject: fd == 1 ? "stdout" : "fd \(fd)")
      return nil
    } catch {
      return error
    }
  }
}
