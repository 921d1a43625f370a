import Dispatch
import GPSD
import Geodesy
import Glibc
import Wire

/// Fixes from a live gpsd, through libgps, with reconnection.
///
/// Everything that touches libgps runs on the source's own serial queue, in a blocking loop
/// (`gps_waiting` with a short timeout, then `gps_read`): never on the cooperative pool, and
/// never held up by output, since inputs go to the engine through an unbounded stream and the
/// engine's sinks never block it. gpsd drops clients that do not drain their socket.
///
/// States and what is said (each once per change, never once per retry):
/// - gpsd unreachable: retry with ``ReconnectBackoff``; one warning on stderr.
/// - connected: gpsd answered (any report proves it; with socket activation the connect alone
///   does not). `SOURCE connected`.
/// - lost: end of stream, or nothing for ``staleAfter`` seconds while a device is active.
///   `SOURCE disconnected`, then reconnection.
/// - device gone (`DEVICE` with `activated: 0`): gpsd stays connected and no data is expected,
///   so the connection is not judged stale; the engine reports "GPS lost" from the silence.
public struct GPSDSource: FixSource {
  public let address: GPSDAddress
  /// Watch one device only (`--gpsd-device`).
  public let device: String?
  public let verbose: Bool
  /// Seconds an epoch stays open for more reports of the same time before it is handed on.
  public var settle = 0.3
  /// Receiver cycles without any data after which a connection counts as lost (at least
  /// ``minimumStaleSeconds``).
  public var staleCycles = 3.0
  public var minimumStaleSeconds = 3.0
  public var backoff = ReconnectBackoff()

  public var isLive: Bool { true }
  public var name: String { address.description }

  public init(address: GPSDAddress, device: String? = nil, verbose: Bool = false) {
    self.address = address
    self.device = device
    self.verbose = verbose
  }

  public func run(into inputs: EngineInputs, stop: StopFlag) async -> SourceReport {
    await runBlocking(label: "stepwise.gpsd", stop: stop) { [self] queue in
      var loop = Loop(source: self, inputs: inputs, stop: stop, queue: queue)
      return loop.run()
    } ?? SourceReport()
  }

  /// The blocking loop's state, on the source's queue.
  private struct Loop {
    let source: GPSDSource
    let inputs: EngineInputs
    let stop: StopFlag
    let queue: DispatchQueue
    let clock = SystemClock()
    var report = SourceReport()
    var merger = GPSDEpochMerger()
    var backoff: ReconnectBackoff
    var rng = SystemRandomNumberGenerator()
    /// Whether the current outage was already reported on stderr.
    var outageSaid = false
    var silentSaid = false
    /// After a connection went stale, the next one counts as connected only once it delivers
    /// position reports: a gpsd that answers but stays silent is not announced every cycle.
    var requireData = false
    var errorsSaid: Set<String> = []

    init(source: GPSDSource, inputs: EngineInputs, stop: StopFlag, queue: DispatchQueue) {
      self.source = source
      self.inputs = inputs
      self.stop = stop
      self.queue = queue
      self.backoff = source.backoff
    }

    var address: String { source.address.description }

    mutating func run() -> SourceReport {
      while !stop.isSet {
        let connection: GPSDConnection
        do {
          connection = try connect()
        } catch {
          if !outageSaid {
            logLine(4, "stepwised: cannot reach gpsd at \(address) (\(error.reason)); retrying")
            outageSaid = true
          } else if source.verbose {
            logLine(7, "stepwised: gpsd at \(address): \(error.reason)")
          }
          pause()
          continue
        }
        let (announced, alive, reason) = follow(connection)
        connection.close()
        if let f = merger.flush() { yield(f) }
        if stop.isSet { break }
        if announced {
          inputs.yield(.source(.disconnected, reason: reason))
          logLine(4, "stepwised: lost gpsd at \(address): \(reason); reconnecting")
          outageSaid = true
          requireData = reason != "end of stream"
        } else if alive {
          if source.verbose { logLine(7, "stepwised: gpsd at \(address) still delivers nothing; reconnecting") }
        } else if !silentSaid {
          logLine(4, "stepwised: gpsd at \(address) accepted the connection but \(reason); retrying")
          silentSaid = true
        }
        pause()
      }
      return report
    }

    /// Opens a connection and asks for reports.
    func connect() throws(GPSDError) -> GPSDConnection {
      let c = try GPSDConnection.open(host: source.address.host, port: source.address.port, queue: queue)
      do {
        try c.watch(device: source.device)
      } catch {
        c.close()
        throw error
      }
      return c
    }

    /// Reads one connection until it ends; returns whether it was announced as connected,
    /// whether gpsd answered on it at all, and why it ended.
    mutating func follow(_ connection: GPSDConnection) -> (announced: Bool, alive: Bool, reason: String) {
      let opened = clock.now()
      var lastData = opened
      var lastEpochReport = opened
      var alive = false
      var announced = false
      var deviceActive: Bool?
      var staleAfter = source.minimumStaleSeconds
      func noteDevice(_ d: GPSDDevice, _ active: inout Bool?, _ stale: inout Double) {
        if let c = d.cycle, c > 0 { stale = max(source.minimumStaleSeconds, source.staleCycles * c) }
        guard let now = d.activated else { return }
        if active == true && !now {
          logLine(4, "stepwised: GPS device \(d.path ?? "?") is gone (gpsd still connected); GPS lost")
        } else if active == false && now {
          logLine(6, "stepwised: GPS device \(d.path ?? "?") is back")
        }
        active = now
      }
      while !stop.isSet {
        var wait = 0.25
        if merger.hasOpenEpoch { wait = max(0, min(wait, lastEpochReport + source.settle - clock.now())) }
        if connection.waiting(timeout: wait) {
          switch connection.read() {
          case .closed:
            return (announced, alive, "end of stream")
          case .partial:
            usleep(1000)
          case .undecodable(let line):
            lastData = clock.now()
            if source.verbose { logLine(7, "stepwised: gpsd sent something that is not a report: \(line)") }
          case .report(let r):
            lastData = clock.now()
            alive = true
            var isPosition = false
            if case .tpv = r { isPosition = true }
            if !announced && (!requireData || isPosition) {
              announced = true
              if requireData { logLine(6, "stepwised: gpsd at \(address) delivers again") }
              requireData = false
              backoff.reset()
              outageSaid = false
              silentSaid = false
              inputs.yield(.source(.connected, reason: nil))
            }
            switch r {
            case .version(let v):
              if announced { logLine(6, "stepwised: connected to gpsd \(v.release) at \(address)") }
            case .devices(let list):
              let mine = list.filter { source.device == nil || $0.path == source.device }
              for d in mine { if let c = d.cycle, c > 0 { staleAfter = max(staleAfter, source.staleCycles * c) } }
              let active = mine.contains { $0.activated != false }
              if !active && deviceActive != false && source.verbose {
                logLine(7, "stepwised: gpsd at \(address) has no active GPS device\(source.device.map { " \($0)" } ?? "")")
              }
              deviceActive = active
            case .device(let d):
              if source.device == nil || d.path == nil || d.path == source.device {
                noteDevice(d, &deviceActive, &staleAfter)
                if d.activated == false, let f = merger.flush() { yield(f) }
              }
            case .tpv, .gst, .sky:
              if case .tpv = r { deviceActive = true }
              lastEpochReport = lastData
              if let f = merger.add(r) { yield(f) }
            case .error(let message):
              if errorsSaid.insert(message).inserted { logLine(4, "stepwised: gpsd says: \(message)") }
            case .watch, .other:
              break
            }
          }
        }
        let now = clock.now()
        if merger.hasOpenEpoch && now - lastEpochReport >= source.settle, let f = merger.flush() { yield(f) }
        if !alive && now - opened > staleAfter {
          return (false, false, "sent nothing for \(Int(staleAfter)) s")
        }
        if alive && deviceActive != false && now - lastData > staleAfter {
          return (announced, true, "no data for \(Int(staleAfter)) s")
        }
      }
      return (announced, alive, "stopping")
    }

    mutating func yield(_ fix: Fix) {
      report.epochs += 1
      if fix.isValid { report.fixes += 1 }
      inputs.yield(.fix(fix))
    }

    /// Sleeps the next backoff delay, waking early when stopped.
    mutating func pause() {
      let delay = backoff.next(random: Double.random(in: 0..<1, using: &rng))
      StoppableClock(base: clock, stop: stop).sleep(until: clock.now() + delay)
    }
  }
}
