import Dispatch
import Glibc

/// Gives the heap's free pages back to the system after work that needed a lot of memory once
/// (reading a route, writing it to the state directory), and sets the allocator up for a
/// daemon.
///
/// glibc returns memory only from the top of each arena, and a freed JSON tree or file buffer
/// in the middle of one (the route is read on one thread, saved on another) stays resident:
/// 20 MiB of a 40 MiB daemon with a 100,000-point route (docs/notebook/profiling.md). Trimming
/// costs a walk over the free lists, a few milliseconds, never on the path of a fix. The
/// corresponding C functions are `malloc_trim` and `mallopt`, which Swift's Glibc module does not
/// declare (they are in `malloc.h`): they are looked up once, and without them (another C
/// library) nothing is done. Nothing is done either under a sanitizer, whose allocator replaces
/// glibc's: glibc's heap is then never set up, and `malloc_trim` walked its uninitialised bins
/// and crashed (AddressSanitizer, two tests trimming at once, in the CI run of 8a15681).
public enum HeapRelease {
  private typealias Trim = @convention(c) (Int) -> Int32
  private typealias Option = @convention(c) (Int32, Int32) -> Int32

  private static let trim: Trim? = ownsTheHeap ? libc("malloc_trim", as: Trim.self) : nil
  private static let option: Option? = ownsTheHeap ? libc("mallopt", as: Option.self) : nil

  /// Whether malloc is glibc's own: false in a process built with a sanitizer, whose runtime
  /// exports `__sanitizer_print_stack_trace` (every sanitizer's common part has it).
  public static let ownsTheHeap: Bool = symbol("__sanitizer_print_stack_trace") == nil

  /// `mallopt`'s `M_ARENA_MAX` and `M_MMAP_THRESHOLD` (`malloc.h`).
  private static let arenaMaximum: Int32 = -8
  private static let mmapThreshold: Int32 = -3

  /// The size from which an allocation gets pages of its own, returned when it is freed.
  ///
  /// Route arrays and file buffers are that large. glibc's default (128 KiB) is kept but made
  /// fixed: left dynamic, it rises after the first large free, and route-sized blocks then land
  /// in the heap and stay there.
  public static let pagesOfTheirOwn: Int32 = 128 * 1024

  /// Sets the allocator up for a daemon that runs for days; call before any thread starts.
  ///
  /// glibc gives every thread that allocates while the others hold their arenas an arena of
  /// its own, up to eight per core, and each keeps a few hundred KiB of free memory. Dispatch
  /// starts and ends worker threads as queues wake, so a day of fixes with subscribers coming
  /// and going met more and more of them at once: 10 arenas appeared after start-up and RSS
  /// rose 4 MiB in 864,000 epochs, with a flat live heap (docs/notebook/profiling.md). One
  /// arena is enough for a daemon whose threads mostly wait (each thread's tcache still serves
  /// small blocks without the lock).
  public static func configureForLongRunning() {
    _ = option?(arenaMaximum, 1)
    _ = option?(mmapThreshold, pagesOfTheirOwn)
  }

  /// Releases every free page of every arena.
  ///
  /// - Returns: whether any memory was given back to the system (never under a sanitizer, or
  ///   without `malloc_trim`).
  @discardableResult
  public static func now() -> Bool {
    (trim?(0) ?? 0) == 1
  }

  /// The backlog, in bytes, whose release is worth a trim (``afterBacklog()``): a sixteenth of
  /// the daemon's 16 MiB.
  public static let backlogWorthTrimming = 256 << 10

  /// Trims the heap a moment after a backlog was written or dropped: lines that waited for a
  /// slow reader (standard output behind a busy journal, a subscriber that stopped reading).
  ///
  /// Those lines are small blocks spread through the heap among longer-lived ones, so glibc
  /// cannot give their pages back by shrinking the heap's top, and without a trim each burst's
  /// high-water mark stayed resident for good (docs/notebook/profiling.md). Coalesced: one trim
  /// at most every ``backlogTrimSpacing``, on a queue of its own, never on the caller's thread.
  ///
  /// - Returns: whether this call scheduled the trim (`false`: one is already due).
  @discardableResult
  public static func afterBacklog() -> Bool {
    guard trim != nil else { return false }
    let schedule = backlogTrim.withLock { t in
      defer { t.due = true }
      return !t.due
    }
    guard schedule else { return false }
    trimQueue.asyncAfter(deadline: .now() + backlogTrimSpacing) {
      backlogTrim.withLock { $0.due = false }
      now()
      backlogTrim.withLock { $0.done += 1 }
    }
    return true
  }

  /// Trims done after backlogs since start.
  public static var backlogTrims: Int { backlogTrim.withLock { $0.done } }

  /// The least time between two trims after backlogs.
  public static let backlogTrimSpacing: DispatchTimeInterval = .seconds(1)

  /// Whether a trim after a backlog is scheduled, and how many were done.
  private static let backlogTrim = Locked((due: false, done: 0))
  private static let trimQueue = DispatchQueue(label: "stepwise.heap-trim")

  private static func libc<F>(_ name: String, as type: F.Type) -> F? {
    symbol(name).map { unsafeBitCast($0, to: type) }
  }

  private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
  }
}
