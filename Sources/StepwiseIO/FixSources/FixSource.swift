import Dispatch
import Synchronization

/// Where the engine's fixes come from: a replayed file or a live gpsd.
public protocol FixSource: Sendable {
  /// Whether the source is live: the engine then gets ticks, and GPS loss is judged by the
  /// clock instead of by the capture.
  var isLive: Bool { get }
  /// A name for logs and `SOURCE` events, such as `gpsd://127.0.0.1:2947`.
  var name: String { get }
  /// Produces inputs until the source ends or `stop` is set, then returns what it read.
  ///
  /// Blocking work (reads, pacing sleeps, libgps) runs on the source's own queue, never on the
  /// cooperative pool. Called once.
  func run(into inputs: EngineInputs, stop: StopFlag) async -> SourceReport
}

/// What a source read, for `--verbose`.
public struct SourceReport: Sendable {
  public var epochs = 0
  public var fixes = 0
  /// Reader statistics (NMEA or gpsd capture), when the source has them.
  public var statistics: String?
  /// The source could not be read (a missing file, a read error); already logged.
  public var failed = false
  public init() {}
}

/// The engine's input stream, as the sources see it: unbounded, and counted so a replay can
/// block (without polling) while the engine is behind.
///
/// The count is in fixes: a batch (``EngineInput/fixes(_:)``) counts each of its fixes, any
/// other input counts one.
public struct EngineInputs: Sendable {
  public let stream: AsyncStream<EngineInput>
  private let continuation: AsyncStream<EngineInput>.Continuation
  private let backlog: Monitor<Backlog>

  private struct Backlog {
    var pending = 0
    /// A producer is blocked in ``waitForRoom(limit:stop:)`` until `pending` is at most this.
    var resumeAt: Int?
    var finished = false
  }

  public init() {
    let (s, c) = AsyncStream.makeStream(of: EngineInput.self, bufferingPolicy: .unbounded)
    stream = s
    continuation = c
    backlog = Monitor(Backlog())
  }

  /// Hands `input` to the engine.
  public func yield(_ input: EngineInput) {
    let weight = input.weight
    backlog.withLock { $0.pending += weight }
    continuation.yield(input)
  }

  /// The engine took `input`: wakes a producer waiting for room once enough is handled.
  func consumed(_ input: EngineInput) {
    let weight = input.weight
    backlog.change(wakingWhen: { b in
      b.pending -= weight
      guard let resume = b.resumeAt, b.pending <= resume else { return false }
      b.resumeAt = nil
      return true
    })
  }

  /// Inputs (in fixes) yielded and not yet handled.
  public var pending: Int { backlog.withLock { $0.pending } }

  /// Blocks the calling thread (a replay's, never the engine's) while more than `limit` fixes
  /// wait: once over it, until at most half of it is left, the stream has ended, or `stop` is
  /// set. The engine wakes it; `stop` is looked at every 0.1 s while blocked.
  public func waitForRoom(limit: Int, stop: StopFlag) {
    var blocked = false
    while !stop.isSet {
      var done = false
      backlog.wait(
        until: { b in
          if b.finished || b.pending <= (blocked ? limit / 2 : limit) {
            b.resumeAt = nil
            done = true
            return true
          }
          b.resumeAt = limit / 2
          return false
        }, timeout: 0.1)
      if done { return }
      blocked = true
    }
  }

  /// Ends the stream: the engine handles what is queued, then stops.
  public func finish() {
    continuation.finish()
    backlog.change(wakingWhen: { b in
      b.finished = true
      return true
    })
  }
}

extension EngineInput {
  /// What the input counts for in ``EngineInputs/pending``.
  var weight: Int {
    if case .fixes(let list) = self { return list.count }
    return 1
  }
}

/// Runs `body` on a new serial queue (a thread outside the cooperative pool) and returns its
/// result, or `nil` at once when the task is cancelled (`stop` is then set, and the body ends
/// on its own when it next looks).
///
/// The continuation is resumed outside the lock that hands it over: `resume` takes the task's
/// status lock, which the Swift runtime holds while it runs the cancellation handler, and the
/// handler takes the hand-over lock. Resuming under it deadlocked a daemon whose source ended
/// just as its task group was cancelled (SIGTERM with gpsd unreachable, about 1 stop in 100).
func runBlocking<T: Sendable>(
  label: String, stop: StopFlag, _ body: @escaping @Sendable (DispatchQueue) -> T
) async -> T? {
  let once = ContinuationBox<T>()
  let queue = DispatchQueue(label: label)
  return await withTaskCancellationHandler {
    await withCheckedContinuation { (c: CheckedContinuation<T?, Never>) in
      once.slot.withLock { $0 = c }
      queue.async { @Sendable in
        let r = body(queue)
        once.take()?.resume(returning: r)
      }
    }
  } onCancel: {
    stop.set()
    once.take()?.resume(returning: nil)
  }
}

/// A continuation resumed at most once, by whoever takes it first.
private final class ContinuationBox<T: Sendable>: Sendable {
  let slot = Locked<CheckedContinuation<T?, Never>?>(nil)

  /// The continuation, if nobody took it yet; it is resumed after the lock is released.
  func take() -> CheckedContinuation<T?, Never>? {
    slot.withLock { c in
      defer { c = nil }
      return c
    }
  }
}
