import Glibc

/// Gives the heap's free pages back to the system after work that needed a lot of memory once
/// (reading a route, writing it to the state directory).
///
/// glibc returns memory only from the top of each arena, and a freed JSON tree or file buffer
/// in the middle of one (the route is read on one thread, saved on another) stays resident:
/// 20 MiB of a 40 MiB daemon with a 100,000-point route (docs/profiling.md). Trimming costs a
/// walk over the free lists, a few milliseconds, never on the path of a fix. The corresponding
/// C function is `malloc_trim`, which Swift's Glibc module does not declare (it is in
/// `malloc.h`): it is looked up once, and without it (another C library) nothing is done.
public enum HeapRelease {
  private typealias Trim = @convention(c) (Int) -> Int32

  private static let trim: Trim? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else {
      return nil
    }
    return unsafeBitCast(symbol, to: Trim.self)
  }()

  /// Releases every free page of every arena.
  public static func now() {
    _ = trim?(0)
  }
}
