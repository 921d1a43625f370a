public import Dispatch

/// Runs `body` on a new serial queue (a thread outside the cooperative pool) and returns its
/// result, or `nil` at once when the task is cancelled (`stop` is then set, and the body ends
/// on its own when it next looks).
///
/// The continuation is resumed outside the lock that hands it over: `resume` takes the task's
/// status lock, which the Swift runtime holds while it runs the cancellation handler, and the
/// handler takes the hand-over lock. Resuming under it deadlocked a daemon whose source ended
/// just as its task group was cancelled (SIGTERM with gpsd unreachable, about 1 stop in 100).
public func runBlocking<T: Sendable>(
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
  public func take() -> CheckedContinuation<T?, Never>? {
    slot.take()
  }
}
