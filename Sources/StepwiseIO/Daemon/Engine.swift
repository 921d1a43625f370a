import Geodesy
public import Guidance
import Synchronization
import Wire

/// A counter the engine bumps for every input it handles, for a watchdog that must tell a stuck
/// engine from a quiet GPS (systemd's `WATCHDOG=1` goes out only while it moves).
public final class EngineHeartbeat: Sendable {
  private let counter = Atomic<UInt64>(0)
  public init() {}
  /// The number of inputs handled so far.
  public var value: UInt64 { counter.load(ordering: .relaxed) }
  func bump() { counter.add(1, ordering: .relaxed) }
}

/// The one owner of the guidance session: takes inputs in order, calls the session, and
/// publishes what it returns.
///
/// No actor wraps the session: a single loop gives ordering for free and has no reentrancy.
/// Everything else talks to the engine through its input stream (fix sources, the live
/// ticker, later the socket's commands and the watchdog's probe) and listens through the
/// ``EventPublisher``.
public struct Engine {
  /// The session being guided.
  public private(set) var session: NavigationSession
  public let publisher: EventPublisher
  public let heartbeat: EngineHeartbeat
  /// Where `SOURCE` events say the fixes come from.
  public var sourceName = ""
  private let clock: any PacingClock
  private let utcNow: @Sendable () -> Double
  /// The fix clock: the newest epoch's time and the monotonic time it arrived.
  private var anchor: (fixTime: Double, monotonic: Double)?
  /// Events published so far.
  public private(set) var events = 0

  public init(
    session: NavigationSession, publisher: EventPublisher, heartbeat: EngineHeartbeat = EngineHeartbeat(),
    clock: any PacingClock = SystemClock(), utcNow: @escaping @Sendable () -> Double = UTCClock.now
  ) {
    self.session = session
    self.publisher = publisher
    self.heartbeat = heartbeat
    self.clock = clock
    self.utcNow = utcNow
  }

  /// Handles every input until the stream ends.
  public mutating func run(_ inputs: EngineInputs) async {
    for await input in inputs.stream {
      handle(input)
      inputs.consumed()
    }
  }

  /// Handles one input, synchronously.
  public mutating func handle(_ input: EngineInput) {
    heartbeat.bump()
    switch input {
    case .fix(let fix):
      if anchor == nil || fix.time >= (anchor?.fixTime ?? 0) { anchor = (fix.time, clock.now()) }
      publish(session.ingest(fix))
    case .silence(let time):
      publish(session.silence(at: time))
    case .tick:
      if let now = fixClockNow() { publish(session.silence(at: now)) }
    case .source(let status, let reason):
      let event = SourceEvent(
        time: fixClockNow() ?? utcNow(), status: status, source: sourceName, reason: reason)
      events += 1
      publisher.publish(.source(event))
    }
  }

  /// The current time on the fix clock, once a fix has come: seconds since 1970.
  public func fixClockNow() -> Double? {
    guard let a = anchor else { return nil }
    return a.fixTime + max(0, clock.now() - a.monotonic)
  }

  private mutating func publish(_ list: [NavigationEvent]) {
    for e in list {
      events += 1
      publisher.publish(.navigation(e))
    }
  }
}
