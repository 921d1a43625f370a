import Dispatch
import Foundation
import TestSupport
import Testing

@testable import POSIX

/// `runBlocking` hands a blocking source's result to its task, or `nil` when the task is
/// cancelled.
///
/// Both can happen at the same moment: a daemon stopping on SIGTERM sets the stop flag (the
/// source's loop ends and returns) and cancels the task group (the cancellation handler runs) at
/// once. Resuming the continuation while holding the lock the handler takes deadlocked against the
/// Swift runtime's task status lock, which it holds while the handler runs; a daemon then never
/// exited (about 1 stop in 100 with gpsd unreachable).
@Suite(.blocking) struct RunBlockingTests {
  /// Many stops where the body's return and the group's cancellation race; every one must end.
  ///
  /// The rounds run in a detached task on a serial queue of their own (a task executor), so
  /// they do not wait for the two-thread cooperative pool, which the suite's blocking tests
  /// keep busy (under ThreadSanitizer, 9 of 500 rounds got through in 120 s on the pool). The
  /// test awaits them with a deadline kept by a Dispatch timer, so that a deadlock fails the
  /// test instead of hanging the suite.
  @Test func aBodyEndingWhileItsTaskIsCancelledNeverDeadlocks() async {
    // The old code deadlocked within about 100 rounds; fewer under a sanitizer, which slows
    // every round tenfold.
    let rounds = sanitizerUnderTest == nil ? 3_000 : 500
    let results = LockedCounter()
    let outcome = FirstOutcome()
    let executor = QueueExecutor()
    Task.detached(executorPreference: executor) {
      for round in 0..<rounds {
        let stop = StopFlag()
        let started = DispatchSemaphore(value: 0)
        await withDiscardingTaskGroup { group in
          group.addTask {
            let r = await runBlocking(label: "test.run-blocking", stop: stop) { _ in
              started.signal()
              while !stop.isSet { sched_yield() }
              return round
            }
            results.add(r == nil ? .cancelled : .returned)
          }
          // Wait (off the pool) until the body runs, then stop it and cancel at once.
          await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
              started.wait()
              c.resume()
            }
          }
          stop.set()
          group.cancelAll()
        }
      }
      outcome.settle(true)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + 120) { outcome.settle(false) }
    let ended = await outcome.value
    #expect(ended, "runBlocking deadlocked: \(results.total) of \(rounds) rounds ended")
    #expect(!ended || results.total == rounds)
  }

  /// Without cancellation the body's result comes back.
  @Test func theBodysResultIsReturned() async {
    let r = await runBlocking(label: "test.run-blocking", stop: StopFlag()) { _ in 42 }
    #expect(r == 42)
  }

  /// Runs every job of the tasks that prefer it on one serial Dispatch queue: off the pool.
  final class QueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "test.run-blocking.executor")

    func enqueue(_ job: consuming ExecutorJob) {
      let job = UnownedJob(job)
      queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
  }

  /// The first of two outcomes (the rounds ended, or the deadline passed), awaited once.
  final class FirstOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Bool?
    private var waiter: CheckedContinuation<Bool, Never>?

    func settle(_ r: Bool) {
      let w: CheckedContinuation<Bool, Never>? = lock.withLock {
        guard result == nil else { return nil }
        result = r
        defer { waiter = nil }
        return waiter
      }
      w?.resume(returning: r)
    }

    var value: Bool {
      get async {
        await withCheckedContinuation { c in
          let now: Bool? = lock.withLock {
            if let result { return result }
            waiter = c
            return nil
          }
          if let now { c.resume(returning: now) }
        }
      }
    }
  }

  /// How each round ended, counted across threads.
  final class LockedCounter: @unchecked Sendable {
    enum Outcome { case returned, cancelled }
    private let lock = NSLock()
    private var counts: [Outcome: Int] = [:]
    func add(_ o: Outcome) { lock.withLock { counts[o, default: 0] += 1 } }
    var total: Int { lock.withLock { counts.values.reduce(0, +) } }
  }
}
