import Geodesy
public import Guidance
import NMEA
import Wire

/// How a replay is paced and printed.
public struct ReplayOptions: Sendable {
  /// Replay speed as a multiple of real time; `nil` replays as fast as possible.
  public var speed: Double?
  /// One JSON object per line instead of readable lines.
  public var json = false
  /// Print `PROGRESS` events in readable mode too (JSON mode always prints them).
  public var progressLines = false
  /// Say on stderr why each rejected input line was rejected.
  public var verbose = false

  public init(speed: Double? = 1) { self.speed = speed }
}

/// What a replay read.
public struct ReplayReport: Sendable {
  public var epochs = 0
  public var fixes = 0
  public var events = 0
  public var statistics: NMEAStatistics?
}

/// Replays a recorded NMEA track through a guidance session, at the pace of its timestamps.
///
/// Timing is the only thing the clock changes: the same track gives the same events at any
/// speed, because the session sees only fix times.
public struct Replay {
  public var options: ReplayOptions
  public var clock: any PacingClock
  public var output: OutputSink

  public init(options: ReplayOptions, clock: any PacingClock = SystemClock(), output: OutputSink) {
    self.options = options
    self.clock = clock
    self.output = output
  }

  /// Runs `session` over the NMEA read from `input` until its end.
  public func run(_ session: inout NavigationSession, input: InputFile) throws -> ReplayReport {
    var reader = NMEAReader()
    if options.verbose {
      reader.onReject = { r in logLine(7, "\(r)") }
    }
    var report = ReplayReport()
    var pacer = Pacer(speed: options.speed, clock: clock, lostAfter: session.configuration.gpsLostAfter)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = try input.read(into: &buffer)
      let fixes: [Fix]
      if n == 0 {
        fixes = reader.finish()
      } else {
        fixes = buffer.withUnsafeBufferPointer { reader.feed(UnsafeBufferPointer(rebasing: $0[0..<n])) }
      }
      for fix in fixes {
        report.epochs += 1
        if fix.isValid { report.fixes += 1 }
        if let silence = pacer.wait(for: fix.time) {
          emit(session.silence(at: silence), &report)
          pacer.waitAgain(for: fix.time)
        }
        emit(session.ingest(fix), &report)
        if options.speed != nil { output.flush() }
      }
      if n == 0 { break }
    }
    output.flush()
    report.statistics = reader.statistics
    return report
  }

  private func emit(_ events: [NavigationEvent], _ report: inout ReplayReport) {
    for e in events {
      report.events += 1
      if options.json {
        output.line(EventEncoder.line(e))
      } else {
        if case .progress = e.kind, !options.progressLines { continue }
        output.line(EventEncoder.readableLine(e))
      }
    }
  }
}

/// Maps receiver time to the monotonic clock for paced replays.
struct Pacer {
  let speed: Double?
  let clock: any PacingClock
  let lostAfter: Double
  private var origin: (fixTime: Double, monotonic: Double)?
  private var lastTime: Double?

  init(speed: Double?, clock: any PacingClock, lostAfter: Double) {
    self.speed = speed
    self.clock = clock
    self.lostAfter = lostAfter
  }

  /// Sleeps until the epoch at `time` is due. When a gap longer than the GPS-loss limit comes
  /// first, sleeps only until the loss is due and returns its time, so the caller can report it
  /// on time; the caller then calls ``waitAgain(for:)``.
  mutating func wait(for time: Double) -> Double? {
    guard let speed, speed > 0 else { return nil }
    defer { lastTime = max(lastTime ?? time, time) }
    guard let o = origin else {
      origin = (time, clock.now())
      return nil
    }
    if let last = lastTime, time - last > lostAfter {
      clock.sleep(until: o.monotonic + (last + lostAfter - o.fixTime) / speed)
      return last + lostAfter
    }
    clock.sleep(until: o.monotonic + (time - o.fixTime) / speed)
    return nil
  }

  mutating func waitAgain(for time: Double) {
    guard let speed, speed > 0, let o = origin else { return }
    clock.sleep(until: o.monotonic + (time - o.fixTime) / speed)
  }
}
