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
/// wait while the engine is behind.
public struct EngineInputs: Sendable {
  public let stream: AsyncStream<EngineInput>
  private let continuation: AsyncStream<EngineInput>.Continuation
  private let backlog: Backlog

  public init() {
    let (s, c) = AsyncStream.makeStream(of: EngineInput.self, bufferingPolicy: .unbounded)
    stream = s
    continuation = c
    backlog = Backlog()
  }

  /// Hands `input` to the engine.
  public func yield(_ input: EngineInput) {
    backlog.count.add(1, ordering: .relaxed)
    continuation.yield(input)
  }

  /// The engine took one input.
  func consumed() { backlog.count.subtract(1, ordering: .relaxed) }

  /// Inputs yielded and not yet handled.
  public var pending: Int { backlog.count.load(ordering: .relaxed) }

  /// Ends the stream: the engine handles what is queued, then stops.
  public func finish() { continuation.finish() }

  private final class Backlog: Sendable {
    let count = Atomic<Int>(0)
  }
}

/// Runs `body` on a new serial queue (a thread outside the cooperative pool) and returns its
/// result, or `nil` at once when the task is cancelled (`stop` is then set, and the body ends
/// on its own when it next looks).
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
        once.slot.withLock { c in
          c?.resume(returning: r)
          c = nil
        }
      }
    }
  } onCancel: {
    stop.set()
    once.slot.withLock { c in
      c?.resume(returning: nil)
      c = nil
    }
  }
}

/// A continuation resumed at most once, by whoever comes first.
private final class ContinuationBox<T: Sendable>: Sendable {
  let slot = Locked<CheckedContinuation<T?, Never>?>(nil)
}
