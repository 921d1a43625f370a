import Glibc
import Synchronization

/// A flag that stops sources and waits: set once, read from any thread.
///
/// A thread that blocks in `poll(2)` (the gpsd reader) also waits on ``wakeDescriptor``, which
/// becomes readable once the flag is set, so it needs no timeout to notice.
public final class StopFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  /// A pipe made on first use of ``wakeDescriptor``: written to when the flag is set.
  private let pipe = Locked<(read: Int32, write: Int32)?>(nil)

  public init() {}

  deinit {
    pipe.withLock { p in
      if let p {
        close(p.read)
        close(p.write)
      }
    }
  }

  public var isSet: Bool { flag.load(ordering: .acquiring) }

  public func set() {
    flag.store(true, ordering: .releasing)
    pipe.withLock { p in
      if let p { Self.signal(p.write) }
    }
  }

  /// A descriptor that is readable once the flag is set (-1 if no pipe could be made, in
  /// which case callers must not wait without a timeout).
  ///
  /// The corresponding C function is
  /// `pipe`.
  public var wakeDescriptor: Int32 {
    pipe.withLock { p in
      if let p { return p.read }
      var fds: [Int32] = [-1, -1]
      guard Glibc.pipe(&fds) == 0 else { return -1 }
      for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      }
      p = (fds[0], fds[1])
      if flag.load(ordering: .acquiring) { Self.signal(fds[1]) }
      return fds[0]
    }
  }

  private static func signal(_ fd: Int32) {
    var byte: UInt8 = 1
    _ = Glibc.write(fd, &byte, 1)
  }
}
