import Glibc

/// A value behind a POSIX mutex: `withLock` is the only way in.
///
/// Not `Synchronization.Mutex`: on Linux that lock is a bare futex, which ThreadSanitizer does
/// not see, so it reported every access the lock guards as a data race (docs/hardening.md).
/// `pthread_mutex_t` is intercepted by the sanitizers, costs the same uncontended, and keeps
/// `make sanitize` meaningful.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
  // Invariant: `value` is read or written only between lock and unlock of `mutex`.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  public init(_ value: consuming Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
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
}

extension Locked {
  /// Takes the value out and leaves `nil`: a hand-over that happens once, to whoever asks first.
  public func take<Wrapped>() -> Wrapped? where Value == Wrapped? {
    withLock { value in
      defer { value = nil }
      return value
    }
  }
}
