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

  /// Many threads trimming at once, as tests decoding routes in parallel do, all return.
  @Test func trimsFromManyThreadsAtOnce() {
    DispatchQueue.concurrentPerform(iterations: 16) { _ in
      let blocks = (0..<64).map { _ in [UInt8](repeating: 1, count: 4096) }
      #expect(blocks.count == 64)
      HeapRelease.now()
    }
  }
}
