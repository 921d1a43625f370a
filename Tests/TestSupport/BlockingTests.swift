import Foundation
import Testing

/// Runs each test of a suite on a thread of its own, a few at a time.
///
/// The end-to-end tests block their thread: they wait for processes, read pipes and sockets,
/// and poll with `usleep`. Swift Testing runs every test on Swift's cooperative pool, which has
/// one thread per core, so on a 2-core machine two blocked tests held the whole pool: a test
/// that takes a second was reported after 60 s in the queue (the median of `make test`), and the
/// ThreadSanitizer run took ten minutes. A test marked `.blocking` waits for a free place
/// without holding a thread, then runs on a new thread, so the cooperative pool stays free for
/// the tests that compute.
///
/// Swift Testing's time limit wraps the scope, so it counts the wait for a place too: behind
/// the longest blocking tests (over 3 minutes each under ThreadSanitizer on two cores), a
/// one-second test with a 1-minute limit once failed in CI. Blocking suites take at least 5
/// minutes: the limit is a bound against a hang, not a timing check.
///
/// `STEPWISE_TEST_BLOCKING_WIDTH` sets how many blocking tests run at once (default
/// ``BlockingTrait/defaultWidth``); `STEPWISE_TEST_BLOCKING_TIMES=1` prints each one's wait and
/// run.
public struct BlockingTrait: TestTrait, SuiteTrait, TestScoping {
  /// Blocking tests that run at once unless `STEPWISE_TEST_BLOCKING_WIDTH` says otherwise.
  public static let defaultWidth = 6

  static let gate = AsyncGate(
    width: ProcessInfo.processInfo.environment["STEPWISE_TEST_BLOCKING_WIDTH"].flatMap { Int($0) }
      .map { max(1, $0) } ?? defaultWidth)

  /// `STEPWISE_TEST_BLOCKING_TIMES=1` prints how long each blocking test waited for its place
  /// and ran, to find the tests that make the run long.
  static let reportsTimes =
    ProcessInfo.processInfo.environment["STEPWISE_TEST_BLOCKING_TIMES"] == "1"

  static func seconds(_ t: TimeInterval) -> String { String(format: "%.1f", t) }

  public var isRecursive: Bool { true }

  /// Each test case takes a place; a suite as a whole does not.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let asked = Date()
    await Self.gate.enter()
    let thread = ThreadExecutor(name: test.name)
    defer { thread.finish() }
    try await withTaskExecutorPreference(thread) {
      // The place is given back here, on the test's thread: after the return the task goes back
      // to the cooperative pool, which may be busy for a while.
      let entered = Date()
      defer {
        Self.gate.leave()
        if Self.reportsTimes {
          print(
            "blocking: \(test.id) waited \(Self.seconds(entered.timeIntervalSince(asked))) s, ran "
              + "\(Self.seconds(Date().timeIntervalSince(entered))) s")
        }
      }
      try await function()
    }
  }
}

extension Trait where Self == BlockingTrait {
  /// The suite's tests block their thread; each runs on a thread of its own (``BlockingTrait``).
  public static var blocking: Self { BlockingTrait() }
}

/// Runs the suites that share `name` one at a time, each as a whole; suites without a shared
/// name are not held back.
///
/// The wait is the suite's, before any of its tests starts, so it holds no thread and counts
/// against no test's time limit (Swift Testing's limit wraps each test case, scoping traits
/// included). With `when: false` the trait does nothing, for a pairing that matters only in some
/// runs (a timed assertion that only a plain, unsanitized run checks).
public struct OneSuiteAtATimeTrait: SuiteTrait, TestScoping {
  public let name: String
  public let active: Bool

  private static let gates = GateRegistry()

  public var isRecursive: Bool { false }

  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    active && test.isSuite && testCase == nil ? self : nil
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let gate = Self.gates.gate(named: name)
    await gate.enter()
    defer { gate.leave() }
    try await function()
  }
}

extension Trait where Self == OneSuiteAtATimeTrait {
  /// The suite runs apart from every other suite with this `name`, when `active`.
  public static func oneSuiteAtATime(_ name: String, when active: Bool = true) -> Self {
    OneSuiteAtATimeTrait(name: name, active: active)
  }
}

/// One gate of width 1 for each name.
final class GateRegistry: @unchecked Sendable {
  // Invariant: `gates` is only touched with `lock` locked.
  private let lock = NSLock()
  private var gates: [String: AsyncGate] = [:]

  func gate(named name: String) -> AsyncGate {
    lock.lock()
    defer { lock.unlock() }
    if let g = gates[name] { return g }
    let g = AsyncGate(width: 1)
    gates[name] = g
    return g
  }
}

/// A task executor with one thread, which runs the jobs given to it in order until finished.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
  // Invariant: `jobs`, `finished` and `exited` are only touched with `condition` locked.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var finished = false
  private var exited = false

  init(name: String) {
    let thread = Thread { [self] in run() }
    thread.name = name
    // As much stack as a cooperative pool thread has: the tests recurse through parsers.
    thread.stackSize = 8 << 20
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    guard !exited else {
      condition.unlock()
      // A task the test left running (a `Task {}` inherits the preference) still gets run.
      DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
      return
    }
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Ends the thread once the jobs already given are run.
  func finish() {
    condition.lock()
    finished = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty && !finished { condition.wait() }
      if jobs.isEmpty {
        exited = true
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

/// A counting semaphore for tasks: `enter` suspends, rather than blocks, while `width` holders are
/// inside.
final class AsyncGate: @unchecked Sendable {
  // Invariant: `inside` and `waiting` are only touched with `lock` locked.
  private let lock = NSLock()
  private let width: Int
  private var inside = 0
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(width: Int) { self.width = width }

  func enter() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      lock.lock()
      if inside < width {
        inside += 1
        lock.unlock()
        c.resume()
      } else {
        waiting.append(c)
        lock.unlock()
      }
    }
  }

  func leave() {
    lock.lock()
    if waiting.isEmpty {
      inside -= 1
      lock.unlock()
    } else {
      // The place passes straight to the first waiter.
      let next = waiting.removeFirst()
      lock.unlock()
      next.resume()
    }
  }
}

/// Runs `body` on a new thread, for a wait that must not hold a Dispatch worker (pipe readers,
/// watchdogs).
public func onItsOwnThread(_ body: @escaping @Sendable () -> Void) {
  let thread = Thread(block: body)
  thread.start()
}

/// The sanitizer `Scripts/sanitize.sh` runs the tests under (`STEPWISE_SANITIZER`: `thread` or
/// `address`), if any.
///
/// Under one the daemon is several times slower and its memory is the sanitizer's (shadow
/// memory, quarantine): suites then use fewer clients and slower replays, and print times and
/// memory peaks instead of checking them.
public let sanitizerUnderTest = ProcessInfo.processInfo.environment["STEPWISE_SANITIZER"]
