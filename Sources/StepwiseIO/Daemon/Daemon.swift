import Glibc
public import Guidance
import Synchronization

/// What a daemon run did.
public struct DaemonReport: Sendable {
  public var source = SourceReport()
  /// Events published.
  public var events = 0
  /// The run ended on SIGTERM or SIGINT.
  public var signalled = false
}

/// Runs guidance: a fix source feeding the engine, the engine publishing to its sinks, and the
/// signal loop; later also the subscriber socket's accept loop and the watchdog pinger.
///
/// ```
///   source queue ──EngineInputs──▶ engine (one task) ──EventPublisher──▶ sinks (own queues)
///   ticker task ───(.tick, live)──▶        ▲
///   signal task ── SIGTERM/SIGINT: stop ───┘
/// ```
///
/// The engine is the only owner of the session. Sources block only their own queues; sinks
/// queue what they receive and write it from their own queues; so neither output nor gpsd can
/// stall the other.
public enum Daemon {
  /// Guides `session` with the fixes of `source` until it ends or SIGTERM/SIGINT arrive.
  ///
  /// - Parameters:
  ///   - publisher: where events go; `output` is added to it, other sinks may join any time.
  ///   - output: standard output, drained before this returns.
  ///   - tickInterval: seconds between live ticks (silence checks on the fix clock).
  public static func run(
    session: NavigationSession, source: any FixSource, publisher: EventPublisher = EventPublisher(),
    output: StreamSink, heartbeat: EngineHeartbeat = EngineHeartbeat(), tickInterval: Double = 0.25
  ) async -> DaemonReport {
    let signals = await SignalWatcher.start([SIGTERM, SIGINT])
    let inputs = EngineInputs()
    let stop = StopFlag()
    let sourceReport = LockedValue<SourceReport?>(nil)
    let signalled = StopFlag()
    publisher.add(output)
    var engine = Engine(session: session, publisher: publisher, heartbeat: heartbeat)
    engine.sourceName = source.name
    await withDiscardingTaskGroup { group in
      group.addTask {
        let r = await source.run(into: inputs, stop: stop)
        sourceReport.set(r)
        inputs.finish()
      }
      group.addTask {
        for await number in signals.signals {
          logLine(6, "stepwised: \(number == SIGINT ? "SIGINT" : "SIGTERM"), stopping")
          signalled.set()
          stop.set()
          inputs.finish()
          return
        }
      }
      if source.isLive {
        group.addTask {
          while !Task.isCancelled && !stop.isSet {
            try? await Task.sleep(for: .milliseconds(Int(tickInterval * 1000)))
            inputs.yield(.tick)
          }
        }
      }
      await engine.run(inputs)
      stop.set()
      signals.stop()
      group.cancelAll()
    }
    publisher.finish()
    await output.drained()
    var report = DaemonReport()
    report.source = sourceReport.value ?? SourceReport()
    report.events = engine.events
    report.signalled = signalled.isSet
    return report
  }
}

/// A value shared between tasks, behind a lock.
final class LockedValue<T: Sendable>: Sendable {
  private let mutex: Mutex<T>
  init(_ value: T) { mutex = Mutex(value) }
  var value: T { mutex.withLock { $0 } }
  func set(_ value: T) { mutex.withLock { $0 = value } }
}
