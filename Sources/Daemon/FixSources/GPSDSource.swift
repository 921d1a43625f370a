import Dispatch
import GPSD
import GPSDProtocol
import Geodesy
import Glibc
import POSIX
import Wire

/// Fixes from a live gpsd, through libgps, with reconnection.
///
/// Everything that touches libgps runs on the source's own serial queue, in a blocking loop
/// (`poll` on gpsd's socket and the stop flag, with a timeout only when a deadline is due,
/// then a read of gpsd's next line): never on the cooperative pool, and
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
  /// Fixes handed to the engine and not handled yet beyond which the source stops reading gpsd
  /// until the engine is down to half of them: behind a stalled engine, or a gpsd that delivers
  /// faster than it guides, fixes wait in the socket instead of piling up in memory.
  public var maximumBacklog = 64

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

  /// How far one connection to gpsd got.
  enum Link: Equatable {
    /// Connected, and gpsd has said nothing yet (with socket activation the connect alone does
    /// not prove gpsd runs).
    case opened
    /// gpsd answered, but the connection was not announced: after a stale connection the next
    /// one counts only once it delivers positions.
    case answered
    /// Announced to the engine (`SOURCE connected`).
    case connected
  }

  /// Why a connection to gpsd ended.
  enum ConnectionEnd: Equatable, CustomStringConvertible {
    /// The daemon is stopping.
    case stopping
    /// gpsd closed the connection.
    case endOfStream
    /// The network or TCP keepalive failed the socket: gpsd is unreachable, not silent.
    case connectionLost(String)
    /// gpsd never said anything.
    case silent(seconds: Int)
    /// gpsd answered, then nothing came while a device was active.
    case stale(seconds: Int)

    /// Whether the next connection counts as connected only once it delivers positions: a
    /// gpsd that answers but stays silent is then not announced every cycle.
    var requiresDataNextTime: Bool {
      if case .stale = self { return true }
      return false
    }

    var description: String {
      switch self {
      case .stopping: "stopping"
      case .endOfStream: "end of stream"
      case .connectionLost(let why): "connection lost (\(why))"
      case .silent(let s): "sent nothing for \(s) s"
      case .stale(let s): "no data for \(s) s"
      }
    }
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
        let (link, end) = follow(connection)
        connection.close()
        if let f = merger.flush() { yield(f) }
        if stop.isSet { break }
        switch link {
        case .connected:
          inputs.yield(.source(.disconnected, reason: end.description))
          logLine(4, "stepwised: lost gpsd at \(address): \(end); reconnecting")
          outageSaid = true
          requireData = end.requiresDataNextTime
        case .answered:
          if source.verbose {
            logLine(7, "stepwised: gpsd at \(address) still delivers nothing; reconnecting")
          }
        case .opened:
          if !silentSaid {
            logLine(
              4, "stepwised: gpsd at \(address) accepted the connection but \(end); retrying")
            silentSaid = true
          }
        }
        pause()
      }
      return report
    }

    /// Opens a connection and asks for reports.
    func connect() throws(GPSDError) -> GPSDConnection {
      let c = try GPSDConnection.open(
        host: source.address.host, port: source.address.port, queue: queue)
      TCPKeepalive.enable(c.fileDescriptor)
      do {
        try c.watch(device: source.device)
      } catch {
        c.close()
        throw error
      }
      return c
    }

    /// Reads one connection until it ends; returns how far it got and why it ended.
    mutating func follow(_ connection: GPSDConnection) -> (link: Link, end: ConnectionEnd) {
      let opened = clock.now()
      var lastData = opened
      var lastEpochReport = opened
      var link = Link.opened
      var deviceActive: Bool?
      var staleAfter = source.minimumStaleSeconds
      func noteDevice(_ d: GPSDDevice, _ active: inout Bool?, _ stale: inout Double) {
        if let c = d.cycle, c > 0 {
          stale = max(source.minimumStaleSeconds, source.staleCycles * c)
        }
        guard let now = d.activated else { return }
        if active == true && !now {
          logLine(
            4, "stepwised: GPS device \(d.path ?? "?") is gone (gpsd still connected); GPS lost")
        } else if active == false && now {
          logLine(6, "stepwised: GPS device \(d.path ?? "?") is back")
        }
        active = now
      }
      while !stop.isSet {
        // Block until gpsd sends something, `stop` is set, or the next deadline: an open
        // epoch's settle time, or the moment the connection would count as stale. With no
        // deadline (gpsd answered and has no active device) the wait has no timeout, so an
        // idle daemon makes no system calls at all.
        var deadline: Double?
        if merger.hasOpenEpoch { deadline = lastEpochReport + source.settle }
        if link == .opened {
          deadline = min(deadline ?? .infinity, opened + staleAfter)
        } else if deviceActive != false {
          deadline = min(deadline ?? .infinity, lastData + staleAfter)
        }
        if connection.waiting(timeout: 0) || wait(for: connection, until: deadline) {
          let result = connection.read()
          let readError = errno
          switch result {
          case .closed:
            if TCPKeepalive.unreachable.contains(readError) {
              // Keepalive or the network failed the socket: gpsd is unreachable, not silent.
              return (link, .connectionLost(String(cString: strerror(readError))))
            }
            return (link, .endOfStream)
          case .partial:
            usleep(1000)
          case .undecodable(let line):
            lastData = clock.now()
            if source.verbose {
              logLine(7, "stepwised: gpsd sent something that is not a report: \(line)")
            }
          case .report(let r):
            lastData = clock.now()
            if link == .opened { link = .answered }
            var isPosition = false
            if case .tpv = r { isPosition = true }
            if link != .connected && (!requireData || isPosition) {
              link = .connected
              if requireData { logLine(6, "stepwised: gpsd at \(address) delivers again") }
              requireData = false
              backoff.reset()
              outageSaid = false
              silentSaid = false
              inputs.yield(.source(.connected, reason: nil))
            }
            switch r {
            case .version(let v):
              if link == .connected {
                logLine(6, "stepwised: connected to gpsd \(v.release) at \(address)")
              }
            case .devices(let list):
              let mine = list.filter { source.device == nil || $0.path == source.device }
              for d in mine {
                if let c = d.cycle, c > 0 { staleAfter = max(staleAfter, source.staleCycles * c) }
              }
              let active = mine.contains { $0.activated != false }
              if !active && deviceActive != false && source.verbose {
                logLine(
                  7,
                  "stepwised: gpsd at \(address) has no active GPS device\(source.device.map { " \($0)" } ?? "")"
                )
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
              if errorsSaid.insert(message).inserted {
                logLine(4, "stepwised: gpsd says: \(message)")
              }
            case .watch, .other:
              break
            }
          }
        }
        let now = clock.now()
        if merger.hasOpenEpoch && now - lastEpochReport >= source.settle, let f = merger.flush() {
          yield(f)
        }
        if link == .opened && now - opened > staleAfter {
          return (link, .silent(seconds: Int(staleAfter)))
        }
        if link != .opened && deviceActive != false && now - lastData > staleAfter {
          return (link, .stale(seconds: Int(staleAfter)))
        }
      }
      return (link, .stopping)
    }

    mutating func yield(_ fix: Fix) {
      report.epochs += 1
      if fix.isValid { report.fixes += 1 }
      inputs.waitForRoom(limit: source.maximumBacklog, stop: stop)
      inputs.yield(.fix(fix))
    }

    /// Sleeps the next backoff delay, waking early when stopped.
    mutating func pause() {
      let delay = backoff.next(random: Double.random(in: 0..<1, using: &rng))
      _ = poll(nil, until: clock.now() + delay)
    }

    /// Waits until `connection` is readable (true), or until `deadline` (monotonic seconds;
    /// `nil`: no deadline) or `stop` (false).
    func wait(for connection: GPSDConnection, until deadline: Double?) -> Bool {
      poll(connection.fileDescriptor, until: deadline)
    }

    /// Blocks in `poll(2)` on `fd` (when given) and on the stop flag's descriptor until one is
    /// readable or `deadline` passes; true when `fd` is readable (or in error, or already
    /// closed: the next read finds out).
    ///
    /// Without a stop descriptor the wait is cut into 0.1 s slices, so `stop` is still seen. The
    /// corresponding C function is `poll`.
    func poll(_ fd: Int32?, until deadline: Double?) -> Bool {
      let wake = stop.wakeDescriptor
      var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
      if let fd {
        guard fd >= 0 else { return true }
        fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
      }
      while !stop.isSet {
        var timeout: Int32 = -1
        if let deadline {
          let left = deadline - clock.now()
          if left <= 0 { return false }
          timeout = Int32(min(left * 1000, 3_600_000).rounded(.up))
        }
        if wake < 0 { timeout = timeout < 0 ? 100 : min(timeout, 100) }
        let n = fds.withUnsafeMutableBufferPointer {
          Glibc.poll($0.baseAddress, nfds_t($0.count), timeout)
        }
        if n < 0 {
          if errno == EINTR { continue }
          return fd != nil
        }
        if n == 0 { continue }
        if fds.count > 1 && fds[1].revents != 0 { return true }
        if fds[0].revents != 0 { return false }
      }
      return false
    }
  }
}
