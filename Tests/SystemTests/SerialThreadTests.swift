import Dispatch
import Foundation
import Glibc
import POSIX
import TestSupport
import Testing

/// `SerialThread`: a serial queue on one thread of its own, which ends when idle.
@Suite(.blocking, .timeLimit(.minutes(5))) struct SerialThreadTests {
  /// The kernel's id of the calling thread, from `/proc/thread-self` (`PID/task/TID`).
  static func threadID() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
      .map { String($0.split(separator: "/").last ?? "") } ?? ""
  }

  static func alive(_ tid: String) -> Bool {
    FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)")
  }

  /// Four threads give 500 jobs each: every job runs, each thread's in the order given, never
  /// two at once, all on one thread while the queue is busy.
  @Test func jobsRunInOrderOneAtATimeOnOneThread() {
    let queue = SerialThread(name: "test")
    let seen = Locked(
      (active: 0, most: 0, order: [[Int]](repeating: [], count: 4), tids: Set<String>()))
    let done = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for k in 0..<4 {
      group.enter()
      onItsOwnThread {
        for i in 0..<500 {
          queue.async {
            seen.withLock { s in
              s.active += 1
              s.most = max(s.most, s.active)
            }
            let tid = Self.threadID()
            seen.withLock { s in
              s.active -= 1
              s.order[k].append(i)
              s.tids.insert(tid)
            }
            if k == 3 && i == 499 { done.signal() }
          }
        }
        group.leave()
      }
    }
    group.wait()
    queue.async { done.signal() }
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(done.wait(timeout: .now() + 30) == .success)
    let s = seen.withLock { $0 }
    #expect(s.most == 1)
    #expect(s.order == [[Int]](repeating: Array(0..<500), count: 4))
    #expect(s.tids.count == 1)
  }

  /// After `idle` seconds without a job the thread ends; the next job starts another.
  @Test func itsThreadEndsWhenIdleAndAnotherStartsForTheNextJob() throws {
    let queue = SerialThread(name: "test", idle: 0.05)
    let tids = Locked<[String]>([])
    let ran = DispatchSemaphore(value: 0)
    queue.async {
      tids.withLock { $0.append(Self.threadID()) }
      ran.signal()
    }
    #expect(ran.wait(timeout: .now() + 10) == .success)
    let first = try #require(tids.withLock { $0.first })
    #expect(!first.isEmpty)
    let deadline = Date().addingTimeInterval(10)
    while Self.alive(first) && Date() < deadline { usleep(10_000) }
    #expect(!Self.alive(first), "the idle thread did not end")
    queue.async {
      tids.withLock { $0.append(Self.threadID()) }
      ran.signal()
    }
    #expect(ran.wait(timeout: .now() + 10) == .success)
    let both = tids.withLock { $0 }
    #expect(both.count == 2 && both[1] != first)
  }
}
