import Dispatch

/// The live engine's one timer: posts ``EngineInput/tick`` once, at the deadline the engine
/// last asked for (``Engine/nextTick(interval:)``), and is re-armed by the engine after every
/// input.
///
/// Nothing exists while no deadline is set, so an idle daemon does not wake up.
///
/// The deadline is a one-shot `DispatchSourceTimer` on the timer's queue, scheduled again when
/// the deadline moves and cancelled when it is cleared. (A timer left scheduled at
/// `.distantFuture` still made libdispatch's manager thread re-program its `timerfd` once a
/// second.) Live, every fix moves the deadline: one source for the whole run, not one per fix,
/// whose creation and asynchronous release cost half a dozen allocations on three threads and
/// let the heap's fragmentation grow with uptime.
public final class TickTimer: @unchecked Sendable {
  // Invariant: `timer` and `armed` are touched only by the engine's task (through `arm` and
  // `cancel`), one input at a time; the timer's handler only yields into `inputs`, which is
  // thread-safe.
  /// Seconds between ticks while the engine wants them periodically (dead reckoning).
  public let interval: Double
  private let inputs: EngineInputs
  private let queue = DispatchQueue(label: "stepwise.tick")
  private var timer: (any DispatchSourceTimer)?
  private var armed: Double?
  /// Deadlines set so far (with a change), for tests and `--verbose`.
  public private(set) var armings = 0

  public init(inputs: EngineInputs, interval: Double = 0.25) {
    self.interval = interval
    self.inputs = inputs
  }

  /// Fires once at `deadline` (monotonic seconds on the same clock as `now`), or never when
  /// `nil`; a deadline already set is left alone.
  public func arm(at deadline: Double?, now: Double) {
    guard deadline != armed else { return }
    armed = deadline
    armings += 1
    guard let deadline else {
      timer?.cancel()
      timer = nil
      return
    }
    // A millisecond late, so the fix clock has surely reached the deadline when it fires.
    let delay = max(0, deadline - now) + 0.001
    let when = DispatchTime.now() + .nanoseconds(Int(min(delay, 86_400) * 1e9))
    if let t = timer {
      t.schedule(deadline: when, repeating: .never, leeway: .milliseconds(1))
      return
    }
    let t = DispatchSource.makeTimerSource(queue: queue)
    let inputs = self.inputs
    t.setEventHandler { @Sendable in inputs.yield(.tick) }
    t.schedule(deadline: when, repeating: .never, leeway: .milliseconds(1))
    t.activate()
    timer = t
  }

  /// Stops the timer for good.
  public func cancel() {
    timer?.cancel()
    timer = nil
    armed = nil
  }
}
