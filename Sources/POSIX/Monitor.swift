import Glibc

/// A value behind a POSIX mutex with a condition variable: a thread can block until another
/// changes the value, without polling.
///
/// Used for back-pressure between threads (a replay waiting for the engine, a replay waiting
/// for standard output). Like ``Locked``, it is a `pthread_mutex_t`, so the sanitizers see it.
public final class Monitor<Value: ~Copyable>: @unchecked Sendable {
  // Invariant: `value` is read or written only between lock and unlock of `mutex`; `condition`
  // is only waited on with `mutex` held.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>
  private var value: Value

  public init(_ value: consuming Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value, holding the lock; `body` must not call `withLock` again.
  public func withLock<Result: ~Copyable>(_ body: (inout Value) throws -> Result) rethrows -> Result
  {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }

  /// Runs `body` with the value, holding the lock, then wakes every thread blocked in
  /// ``wait(until:timeout:)`` when `body` returns true.
  public func change(wakingWhen body: (inout Value) -> Bool) {
    pthread_mutex_lock(mutex)
    let wake = body(&value)
    pthread_mutex_unlock(mutex)
    if wake { pthread_cond_broadcast(condition) }
  }

  /// Blocks the calling thread until `done` holds for the value, checking it again whenever
  /// another thread wakes it, and at the latest every `timeout` seconds (so a caller can also
  /// look at a flag that is set without the lock).
  ///
  /// Returns at once when `done` holds already.
  ///
  /// The corresponding C function is `pthread_cond_timedwait`.
  public func wait(until done: (inout Value) -> Bool, timeout: Double) {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if done(&value) { return }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let nanoseconds = now.tv_nsec + Int(timeout * 1e9)
    var deadline = timespec(
      tv_sec: now.tv_sec + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    while !done(&value) {
      if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return }
    }
  }
}
