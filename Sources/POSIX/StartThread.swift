import Glibc

/// Starts a POSIX thread that runs `body` and ends; returns the thread, or why it could not
/// start (`EAGAIN` when the process is at its limit).
///
/// For loops that block for their whole life (a queue's thread, libmosquitto's network loop),
/// which must not hold a worker of Dispatch's pool or Swift's cooperative one.
public func startThread(_ body: @escaping @Sendable () -> Void) -> Result<pthread_t, SystemError> {
  let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
  var thread = pthread_t()
  let r = pthread_create(
    &thread, nil,
    { raw in
      guard let raw else { return nil }
      Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body()
      return nil
    }, context)
  guard r == 0 else {
    Unmanaged<ThreadBody>.fromOpaque(context).release()
    return .failure(SystemError(errno: r, function: "pthread_create"))
  }
  return .success(thread)
}

private final class ThreadBody {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
