import Foundation
import POSIX
import TestSupport
import Testing

/// HeapRelease trims glibc's heap, and leaves a sanitizer's allocator alone.
@Suite(.blocking) struct HeapReleaseTests {
  /// The heap is glibc's only without a sanitizer.
  ///
  /// Under `Scripts/sanitize.sh` (STEPWISE_SANITIZER set) malloc is the sanitizer's, and glibc's
  /// heap was never set up: trimming it crashed under AddressSanitizer.
  @Test func trimsOnlyGlibcsOwnHeap() {
    let sanitized = sanitizerUnderTest != nil
    #expect(HeapRelease.ownsTheHeap == !sanitized)
  }

  /// Many threads trimming at once, as tests decoding routes in parallel do, all return, and
  /// the pages their freed blocks held go back to the system (none under a sanitizer, whose
  /// allocator is not glibc's).
  @Test func trimsFromManyThreadsAtOnce() {
    let released = Locked(0)
    DispatchQueue.concurrentPerform(iterations: 16) { _ in
      // 1 MiB in blocks below the mmap threshold: heap pages that only a trim gives back.
      let blocks = (0..<256).map { [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 4096) }
      withExtendedLifetime(blocks) {}  // freed from here on
      if HeapRelease.now() { released.withLock { $0 += 1 } }
    }
    let count = released.withLock { $0 }
    if HeapRelease.ownsTheHeap {
      #expect(count > 0, "no trim gave a page back after 16 MiB were freed")
    } else {
      #expect(count == 0)
    }
  }
}
