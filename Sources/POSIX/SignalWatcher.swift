import Dispatch
import Glibc
import Synchronization

/// Delivers POSIX signals as an async sequence, through Dispatch signal sources on a private
/// queue.
///
/// Two pitfalls of Swift 6 on Linux shape it (STYLE §3): the handlers are `@Sendable` closures
/// created here, in a nonisolated type, so they are never inferred to be `@MainActor` (which
/// traps when Dispatch runs them on its queue); and ``start(_:)`` returns only after every
/// source is registered, so a signal sent right after start-up is delivered, not fatal.
public final class SignalWatcher: @unchecked Sendable {
  // Invariant: `sources` is set once in `init` and never mutated; Dispatch sources may be
  // cancelled from any thread.
  private let sources: [any DispatchSourceSignal]
  private let queue = DispatchQueue(label: "stepwise.signals")
  /// The signals received, in order.
  public let signals: AsyncStream<Int32>
  private let continuation: AsyncStream<Int32>.Continuation

  private init(_ numbers: [Int32], registered: @escaping @Sendable () -> Void) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Int32.self, bufferingPolicy: .bufferingNewest(16))
    signals = stream
    self.continuation = continuation
    let remaining = Countdown(numbers.count)
    var created: [any DispatchSourceSignal] = []
    for n in numbers {
      signal(n, SIG_IGN)
      let s = DispatchSource.makeSignalSource(signal: n, queue: queue)
      s.setEventHandler { @Sendable in continuation.yield(n) }
      s.setRegistrationHandler { @Sendable in
        if remaining.decrement() == 0 { registered() }
      }
      created.append(s)
    }
    sources = created
    if numbers.isEmpty { registered() }
    for s in created { s.resume() }
  }

  /// Starts watching `numbers` (their default action is turned off) and returns once the
  /// sources are registered.
  ///
  /// The corresponding C function is `signal`.
  public static func start(_ numbers: [Int32]) async -> SignalWatcher {
    let gate = Gate()
    let w = SignalWatcher(numbers) { gate.open() }
    await gate.wait()
    return w
  }

  /// Stops watching; the default actions stay off.
  public func stop() {
    for s in sources { s.cancel() }
    continuation.finish()
  }
}

/// A counter shared by Dispatch handlers.
private final class Countdown: Sendable {
  private let value: Atomic<Int>
  init(_ n: Int) { value = Atomic(n) }
  /// Subtracts one and returns the new value.
  func decrement() -> Int { value.subtract(1, ordering: .acquiringAndReleasing).newValue }
}

/// Opens once; waiters before and after that all pass.
private final class Gate: Sendable {
  private let state = Locked<(opened: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func open() {
    let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
      s.opened = true
      let w = s.waiters
      s.waiters = []
      return w
    }
    for w in waiters { w.resume() }
  }

  func wait() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      let passNow = state.withLock { s -> Bool in
        if s.opened { return true }
        s.waiters.append(c)
        return false
      }
      if passNow { c.resume() }
    }
  }
}
