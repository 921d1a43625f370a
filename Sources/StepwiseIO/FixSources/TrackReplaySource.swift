import GPSD
import Geodesy
import NMEA

/// Replays a recorded track (NMEA 0183, or a gpsd JSON capture from `gpspipe -w`), paced by
/// its fix times.
///
/// The format is told from the content (``TrackKind``). Timing is the only thing the pace
/// changes: the same track gives the same inputs at any speed, because the engine sees only
/// fix times, and silence longer than the GPS-loss limit is reported at the capture's time.
public struct TrackReplaySource: FixSource {
  public let input: TrackInput
  /// Multiple of real time; `nil` replays as fast as possible.
  public let speed: Double?
  /// Seconds without input after which the session declares GPS loss (for pacing silence).
  public let lostAfter: Double
  /// Say on stderr why each rejected input line was rejected.
  public let verbose: Bool
  /// The output the replay must not outrun (standard output), if any.
  public let output: StreamSink?
  public let clock: any PacingClock

  public var isLive: Bool { false }
  public var name: String { input.file.path == "-" ? "standard input" : input.file.path }

  public init(
    input: TrackInput, speed: Double?, lostAfter: Double, verbose: Bool = false, output: StreamSink? = nil,
    clock: any PacingClock = SystemClock()
  ) {
    self.input = input
    self.speed = speed
    self.lostAfter = lostAfter
    self.verbose = verbose
    self.output = output
    self.clock = clock
  }

  public func run(into inputs: EngineInputs, stop: StopFlag) async -> SourceReport {
    let result = await runBlocking(label: "stepwise.replay", stop: stop) { [self] _ in
      Result { try replay(into: inputs, stop: stop) }
    }
    switch result {
    case .success(let report)?: return report
    case .failure(let error)?:
      logLine(3, "stepwised: \(error)")
      var r = SourceReport()
      r.failed = true
      return r
    case nil: return SourceReport()
    }
  }

  /// The blocking replay loop, on the replay's own queue.
  func replay(into inputs: EngineInputs, stop: StopFlag) throws -> SourceReport {
    let input = self.input.file
    defer { input.close() }
    var report = SourceReport()
    var pacer = Pacer(speed: speed, clock: StoppableClock(base: clock, stop: stop), lostAfter: lostAfter)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var head: [UInt8] = []
    var kind: TrackKind?
    var nmea = NMEAReader()
    var capture = GPSDCaptureReader()
    if verbose {
      nmea.onReject = { r in logLine(7, "\(r)") }
      capture.onReject = { r in logLine(7, r) }
    }
    func emit(_ fixes: [Fix]) {
      for fix in fixes {
        if stop.isSet { return }
        report.epochs += 1
        if fix.isValid { report.fixes += 1 }
        if let silence = pacer.wait(for: fix.time) {
          inputs.yield(.silence(at: silence))
          pacer.waitAgain(for: fix.time)
        }
        if stop.isSet { return }
        inputs.yield(.fix(fix))
        // Never run far ahead of the engine or of standard output.
        while inputs.pending > 256 && !stop.isSet { clock.sleep(until: clock.now() + 0.001) }
        output?.waitForRoom(stop: stop)
      }
    }
    func feed(_ bytes: UnsafeBufferPointer<UInt8>, kind: TrackKind) -> [Fix] {
      switch kind {
      case .nmea: nmea.feed(bytes)
      case .gpsdJSON: capture.feed(bytes)
      }
    }
    while !stop.isSet {
      let n = try input.read(into: &buffer)
      if kind == nil {
        head += buffer[0..<n]
        guard let k = TrackKind.detect(head, complete: n == 0) else { continue }
        kind = k
        if verbose { logLine(7, "stepwised: \(name) is \(k == .nmea ? "NMEA 0183" : "a gpsd JSON capture")") }
        emit(head.withUnsafeBufferPointer { feed($0, kind: k) })
        head = []
      } else if let k = kind, n > 0 {
        emit(buffer.withUnsafeBufferPointer { feed(UnsafeBufferPointer(rebasing: $0[0..<n]), kind: k) })
      }
      if n == 0 {
        switch kind {
        case .gpsdJSON?:
          emit(capture.finish())
          report.statistics = capture.statistics.description
        default:
          emit(nmea.finish())
          report.statistics = "\(nmea.statistics)"
        }
        break
      }
    }
    return report
  }
}

/// A pacing clock whose sleeps end early once `stop` is set.
struct StoppableClock: PacingClock {
  let base: any PacingClock
  let stop: StopFlag

  func now() -> Double { base.now() }

  func sleep(until deadline: Double) {
    while !stop.isSet {
      let now = base.now()
      if now >= deadline { return }
      base.sleep(until: min(deadline, now + 0.1))
    }
  }
}

/// An open track file handed to the replay's queue.
public final class TrackInput: @unchecked Sendable {
  // Invariant: opened by the caller, then used only by the replay's queue, which closes it.
  let file: InputFile

  /// Opens `path` (`-` is standard input). The corresponding C function is `open`.
  public init(path: String) throws {
    file = try InputFile(path: path)
  }
}
