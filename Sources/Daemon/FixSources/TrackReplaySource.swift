import Dispatch
import Events
import GPSDProtocol
import Geodesy
import Guidance
import NMEA
import POSIX

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
  /// The track already being read and decoded (`--fast`, started before the route loaded).
  public let prefetch: TrackPrefetch?
  public let clock: any PacingClock

  public var isLive: Bool { false }
  /// Epochs the replay may run ahead of the engine.
  static let backlogLimit = 2048
  public var name: String { input.file.path == "-" ? "standard input" : input.file.path }

  public init(
    input: TrackInput, speed: Double?, lostAfter: Double, verbose: Bool = false,
    output: StreamSink? = nil,
    clock: any PacingClock = SystemClock(), prefetch: TrackPrefetch? = nil
  ) {
    self.prefetch = prefetch
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
    var report = SourceReport()
    var pacer = Pacer(
      speed: speed, clock: StoppableClock(base: clock, stop: stop), lostAfter: lostAfter)
    var silence = ReplaySilence(lostAfter: lostAfter)
    func emit(_ fixes: [Fix]) {
      guard !fixes.isEmpty, !stop.isSet else { return }
      if speed == nil {
        // As fast as possible: the whole read goes to the engine as one input, so it is woken
        // once per read, not once per epoch; split where silence is to be reported, as a paced
        // replay reports it.
        report.epochs += fixes.count
        for fix in fixes where fix.isValid { report.fixes += 1 }
        var start = 0
        for (i, fix) in fixes.enumerated() {
          guard let quiet = silence.before(fix.time) else { continue }
          if i > start { inputs.yield(.fixes(Array(fixes[start..<i]))) }
          inputs.yield(.silence(at: quiet))
          start = i
        }
        inputs.yield(.fixes(start == 0 ? fixes : Array(fixes[start...])))
      } else {
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
        }
      }
      // Never run far ahead of the engine or of standard output: block (no polling) until
      // they catch up.
      inputs.waitForRoom(limit: Self.backlogLimit, stop: stop)
      output?.waitForRoom(stop: stop)
    }
    if let prefetch {
      defer { prefetch.cancel() }
      while !stop.isSet, let fixes = try prefetch.next(stop: stop) { emit(fixes) }
      report.statistics = prefetch.statistics
      return report
    }
    var decoder = TrackDecoder(input: input, name: name, verbose: verbose)
    defer { decoder.close() }
    while !stop.isSet, let fixes = try decoder.next() { emit(fixes) }
    report.statistics = decoder.statistics
    return report
  }
}

/// Reads a recorded track chunk by chunk (64 KiB) and decodes it into epochs, telling NMEA
/// from a gpsd JSON capture by its first line.
struct TrackDecoder {
  let file: InputFile
  let name: String
  let verbose: Bool
  private var buffer = [UInt8](repeating: 0, count: 1 << 16)
  private var head: [UInt8] = []
  private var kind: TrackKind?
  private var nmea = NMEAReader()
  private var capture = GPSDCaptureReader()
  private var ended = false
  /// The gpsd capture's rejected lines by reason (the NMEA reader counts its own).
  private let captureRejections = RejectionTally()
  /// The reader's statistics, once the file has ended.
  private(set) var statistics: String?

  init(input: TrackInput, name: String, verbose: Bool) {
    file = input.file
    self.name = name
    self.verbose = verbose
    if verbose { nmea.onReject = { r in logLine(7, "\(r)") } }
    let tally = captureRejections
    capture.onReject = { r in
      if verbose { logLine(7, r) }
      tally.count(r)
    }
  }

  /// The epochs completed by the next read (possibly none); `nil` once the file has ended
  /// and its last epochs were returned.
  ///
  /// - Throws: ``TrackRejectedError`` at the end of a track that gave not one epoch and had
  ///   lines rejected (a corrupted log, a file that is not a track).
  mutating func next() throws -> [Fix]? {
    guard !ended else { return nil }
    let n = try file.read(into: &buffer)
    var fixes: [Fix] = []
    if kind == nil {
      head += buffer[0..<n]
      if let k = TrackKind.detect(head, complete: n == 0) {
        kind = k
        if verbose {
          logLine(7, "stepwised: \(name) is \(k == .nmea ? "NMEA 0183" : "a gpsd JSON capture")")
        }
        fixes = head.withUnsafeBufferPointer { feed($0, kind: k) }
        head = []
      }
    } else if let k = kind, n > 0 {
      fixes = buffer.withUnsafeBufferPointer {
        feed(UnsafeBufferPointer(rebasing: $0[0..<n]), kind: k)
      }
    }
    if n == 0 {
      ended = true
      switch kind {
      case .gpsdJSON?:
        fixes += capture.finish()
        let s = capture.statistics
        statistics = s.description
        if s.reports == 0 && s.rejectedLines > 0 {
          throw TrackRejectedError(
            track: name, rejected: s.rejectedLines, reasons: captureRejections.reasons)
        }
      default:
        fixes += nmea.finish()
        let s = nmea.statistics
        statistics = "\(s)"
        if s.epochs == 0 && s.rejected > 0 {
          let reasons = [
            (s.badChecksum, "bad checksum"), (s.malformed, "malformed"),
            (s.overlong, "overlong"), (s.truncated, "truncated"), (s.garbage, "not NMEA"),
            (s.outOfOrder, "out of order"),
          ].filter { $0.0 > 0 }
          throw TrackRejectedError(track: name, rejected: s.rejected, reasons: reasons)
        }
      }
    }
    return fixes
  }

  private mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, kind: TrackKind) -> [Fix] {
    switch kind {
    case .nmea: nmea.feed(bytes)
    case .gpsdJSON: capture.feed(bytes)
    }
  }

  func close() { file.close() }
}

/// A track whose lines were rejected and gave not one epoch (a corrupted log, a file that is
/// not a track): nothing to replay, and the replay fails (exit status 1) rather than end as if
/// the drive had been empty.
struct TrackRejectedError: Error, CustomStringConvertible {
  /// The track's name (a path, or "standard input").
  var track: String
  /// Lines (NMEA: sentences and runs of bytes outside any sentence) rejected.
  var rejected: Int
  /// How many were rejected for each reason, most first.
  var reasons: [(Int, String)]

  var description: String {
    let why = reasons.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    return "\(track): nothing to replay: not one epoch, \(rejected) rejected (\(why))"
  }
}

/// Rejected lines counted by reason, for a reader that reports only a reason per line.
///
/// A reason's `gpsd capture line N: ` prefix is dropped, so lines rejected alike count
/// together.
final class RejectionTally {
  // Used only by the queue that reads the track (a decoder is never shared).
  private var counts: [String: Int] = [:]

  func count(_ reason: String) {
    var why = Substring(reason)
    if why.hasPrefix("gpsd capture line "), let colon = why.firstIndex(of: ":") {
      why = why[why.index(after: colon)...].drop { $0 == " " }
    }
    counts[String(why), default: 0] += 1
  }

  /// The reasons, most first (then by name), at most five and "other" for the rest.
  var reasons: [(Int, String)] {
    let all = counts.map { ($0.value, $0.key) }.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
    guard all.count > 5 else { return all }
    return Array(all.prefix(5)) + [(all.dropFirst(5).reduce(0) { $0 + $1.0 }, "other")]
  }
}

/// A `--fast` replay's reading and decoding, started before the route is loaded so the two
/// overlap on two cores: a thread of its own decodes the track into a bounded queue of
/// epochs (``limit``), which the replay then takes in order.
///
/// Only for replays without pacing and without `--verbose` (whose messages would otherwise
/// come before the route's).
public final class TrackPrefetch: @unchecked Sendable {
  // Invariant: the decoder is used only by the prefetch's own queue; everything the two sides
  // share is inside `state`.
  private struct State {
    var batches: [[Fix]] = []
    var head = 0
    var queued = 0
    var ended = false
    var failure: (any Error)?
    var statistics: String?
    var cancelled = false
  }

  /// Epochs decoded ahead at most (4.5 MB of fixes).
  ///
  /// The head start only has to cover the route's loading: the decoder outruns the engine
  /// afterwards. Twice as many (8.9 MB) made a 1,000,000-sentence replay's peak RSS 5.6 MB
  /// larger, and it was no faster.
  public static let limit = 1 << 15
  private let state = Monitor(State())

  /// Starts reading and decoding `input` at once.
  ///
  /// The corresponding C function is `read`.
  public init(input: TrackInput, name: String) {
    let state = self.state
    DispatchQueue(label: "stepwise.prefetch").async { @Sendable in
      var decoder = TrackDecoder(input: input, name: name, verbose: false)
      defer { decoder.close() }
      while true {
        let result = Result { try decoder.next() }
        let statistics = decoder.statistics
        var go = false
        state.change(wakingWhen: { s in
          switch result {
          case .success(let fixes?):
            if !fixes.isEmpty {
              s.batches.append(fixes)
              s.queued += fixes.count
            }
          case .success(nil):
            s.ended = true
            s.statistics = statistics
          case .failure(let e):
            s.ended = true
            s.failure = e
          }
          go = !s.ended && !s.cancelled
          return true
        })
        guard go else { return }
        var cancelled = false
        state.wait(
          until: { s in
            cancelled = s.cancelled
            return s.cancelled || s.queued <= Self.limit
          }, timeout: 3600)
        if cancelled { return }
      }
    }
  }

  /// The next decoded epochs in order; `nil` at the end of the track.
  ///
  /// Blocks (without polling) until the decoder has more; `stop` is looked at every 0.1 s while
  /// blocked.
  func next(stop: StopFlag) throws -> [Fix]? {
    while !stop.isSet {
      var batch: [Fix]?
      var finished = false
      var failure: (any Error)?
      state.wait(
        until: { s in
          if s.head < s.batches.count {
            batch = s.batches[s.head]
            s.batches[s.head] = []
            s.head += 1
            s.queued -= batch?.count ?? 0
            if s.head > 64 && s.head * 2 > s.batches.count {
              s.batches.removeFirst(s.head)
              s.head = 0
            }
            return true
          }
          if s.ended {
            finished = true
            failure = s.failure
            return true
          }
          return false
        }, timeout: 0.1)
      if let batch {
        state.change(wakingWhen: { _ in true })
        return batch
      }
      if let failure { throw failure }
      if finished { return nil }
    }
    return nil
  }

  /// The reader's statistics once the track has ended.
  var statistics: String? { state.withLock { $0.statistics } }

  /// Stops the decoder (at its next read) and lets go of the file.
  public func cancel() {
    state.change(wakingWhen: { s in
      s.cancelled = true
      return true
    })
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

  /// Opens `path` (`-` is standard input).
  ///
  /// The corresponding C function is `open`.
  public init(path: String) throws {
    file = try InputFile(path: path)
  }
}
