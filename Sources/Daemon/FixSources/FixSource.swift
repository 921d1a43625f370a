import Dispatch
import POSIX
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
  /// set.
  ///
  /// The engine wakes it; `stop` is looked at every 0.1 s while blocked.
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
