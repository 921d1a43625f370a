import Glibc

/// A serial queue whose jobs run on one thread of its own: started when a job arrives and none
/// is running, ended after ``idle`` seconds without a job.
///
/// For work that may block (writing standard output to a stalled journal). On a Dispatch serial
/// queue a blocked job holds a worker of Dispatch's overcommit pool, and the next queue to wake
/// gets a new worker: over a long run the pool only grows, and every worker that ever allocated
/// keeps a cache of freed blocks in the heap (docs/notebook/profiling.md, memory over uptime).
/// Here the work of one queue is at most one thread, and a thread that ends gives its cache
/// back.
public final class SerialThread: Sendable {
  private struct Jobs: ~Copyable {
    var waiting: [@Sendable () -> Void] = []
    /// A thread is running the loop (it ends, and says so, under the lock).
    var running = false
  }

  /// What the queue is for (in the message when its thread cannot start).
  public let name: String
  /// Seconds the thread waits for a job before it ends.
  public let idle: Double
  private let jobs = Monitor(Jobs())

  public init(name: String, idle: Double = 10) {
    self.name = name
    self.idle = idle
  }

  /// Runs `job` after every job given before it, on the queue's thread.
  public func async(_ job: @escaping @Sendable () -> Void) {
    var start = false
    jobs.change { j in
      j.waiting.append(job)
      if !j.running {
        j.running = true
        start = true
      }
      return !start
    }
    if start { startThread() }
  }

  private func startThread() {
    switch POSIX.startThread({ [self] in loop() }) {
    case .success(let thread):
      pthread_detach(thread)
    case .failure(let error):
      // No thread (the process is at its limit): the jobs run on the caller's thread, late
      // rather than never.
      logLine(3, "stepwised: cannot start the \(name) thread: \(error)")
      loop(once: true)
    }
  }

  private func loop(once: Bool = false) {
    var batch: [@Sendable () -> Void] = []
    while true {
      if !once { jobs.wait(until: { !$0.waiting.isEmpty }, timeout: idle) }
      let end = jobs.withLock { j -> Bool in
        if j.waiting.isEmpty {
          j.running = false
          return true
        }
        swap(&batch, &j.waiting)
        return false
      }
      if end { return }
      for job in batch { job() }
      batch.removeAll(keepingCapacity: true)
    }
  }
}
