import Glibc
public import JSON
import POSIX
public import Wire

/// Why a `stepwise` client command failed, with the exit status a script can rely on.
public struct ClientError: Error, Sendable, CustomStringConvertible {
  /// The exit statuses of the client commands (`stepwise watch`, `status`, `load`, …).
  public enum Status: Int32, Sendable {
    /// The daemon refused or failed the command, or the connection broke; its message is printed.
    case refused = 1
    /// A command-line mistake.
    case usage = 2
    /// The daemon's socket cannot be reached (not running, wrong path, no permission).
    case cannotConnect = 3
  }

  public var status: Status
  public var message: String
  /// The daemon's error code, when the daemon sent an `ERROR`.
  public var code: WireError.Code?

  public init(_ status: Status, _ message: String, code: WireError.Code? = nil) {
    self.status = status
    self.message = message
    self.code = code
  }

  public var description: String { message }
}

/// One received line: its bytes as sent and the object they hold.
public struct ReceivedLine: Sendable {
  public var bytes: [UInt8]
  public var object: JSONObject
  public var className: String { object["class"]?.stringValue ?? "" }
}

/// A client connection to `stepwised`'s subscriber socket (`docs/protocol.md`).
///
/// Blocking, for the command-line tool: reads wait with `poll` and a deadline; writes block.
public final class DaemonConnection {
  /// The default socket path when neither `--socket` nor `STEPWISE_SOCKET` names one.
  public static let defaultPath = "/run/stepwised.sock"

  public let path: String
  public let fd: Int32
  private var framer = LineFramer(maximumLength: 64 << 20)
  private var lines: [[UInt8]] = []
  private var lineIndex = 0
  private var nextID = 1
  public private(set) var ended = false
  /// The `VERSION` and `STATE` lines, once ``handshake(timeout:)`` read them.
  public private(set) var greeting: [ReceivedLine] = []

  /// The socket path to use: `option`, else `$STEPWISE_SOCKET`, else ``defaultPath``.
  public static func resolvePath(_ option: String?) -> String {
    if let option { return option }
    if let env = getenv("STEPWISE_SOCKET"), env.pointee != 0 { return String(cString: env) }
    return defaultPath
  }

  /// Connects to the socket at `path`.
  ///
  /// - Throws: ``ClientError`` with status `cannotConnect` and a message saying why.
  public init(path: String) throws(ClientError) {
    self.path = path
    // The descriptor becomes `fd` only once connected. A class whose initializer throws after
    // every stored property is set is deinitialized, so `deinit` closed the descriptor a
    // second time after the failed connect had closed it. In a program with threads that
    // closes a number somebody has just been given again (a socket being bound, a file for a
    // child): the likely cause of a `bind: Invalid argument` and of a daemon started with no
    // output in one ThreadSanitizer run, in a test process whose tests retry connecting until
    // a daemon listens. DescriptorTests traces the closes.
    let socket: Int32
    do {
      socket = try SocketCalls.unixStreamSocket(nonBlocking: false)
    } catch {
      throw ClientError(.cannotConnect, "cannot connect to \(path): \(error)")
    }
    do {
      _ = try SocketCalls.connect(socket, path: path)
    } catch {
      SocketCalls.close(socket)
      let hint: String
      switch error.errno {
      case ENOENT, ECONNREFUSED: hint = " (is stepwised running with --socket \(path)?)"
      case EACCES: hint = " (ask for the socket's group)"
      default: hint = ""
      }
      throw ClientError(.cannotConnect, "cannot connect to \(path): \(error)\(hint)")
    }
    fd = socket
  }

  deinit { SocketCalls.close(fd) }

  /// Sends one command, giving it an `id` unless it has one.
  ///
  /// - Returns: the `id` sent.
  @discardableResult
  public func send(_ request: CommandRequest) throws(ClientError) -> JSONValue {
    var r = request
    if r.id == nil {
      r.id = .number(Double(nextID))
      nextID += 1
    }
    var bytes = Array(r.line.utf8)
    bytes.append(0x0A)
    do {
      try SocketCalls.sendAll(fd, bytes)
    } catch {
      throw ClientError(.refused, "lost the connection to stepwised: \(error)")
    }
    return r.id ?? .null
  }

  /// Whether a line is waiting in the buffer, so that ``next(timeout:)`` returns at once.
  public var hasBufferedLine: Bool { lineIndex < lines.count }

  /// The next line from the daemon.
  ///
  /// - Parameter timeout: seconds to wait; `nil` waits for ever.
  /// - Returns: the line, or `nil` when the daemon closed the connection or the time ran out
  ///   (then ``ended`` tells which).
  /// - Throws: ``ClientError`` when reading the socket fails.
  public func next(timeout: Double?) throws(ClientError) -> ReceivedLine? {
    let clock = SystemClock()
    let deadline = timeout.map { clock.now() + $0 }
    while true {
      while lineIndex < lines.count {
        let bytes = lines[lineIndex]
        lineIndex += 1
        if lineIndex == lines.count {
          lines.removeAll(keepingCapacity: true)
          lineIndex = 0
        }
        guard case .object(let o)? = try? JSONParser.parse(bytes) else {
          throw ClientError(
            .refused,
            "stepwised sent a line that is not a JSON object: "
              + String(decoding: bytes.prefix(200), as: UTF8.self))
        }
        return ReceivedLine(bytes: bytes, object: o)
      }
      if ended { return nil }
      var wait: Int32 = -1
      if let deadline {
        let left = deadline - clock.now()
        if left <= 0 { return nil }
        wait = Int32(min(left * 1000, 1e9).rounded(.up))
      }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let r = poll(&p, 1, wait)
      if r < 0 {
        if errno == EINTR { continue }
        throw ClientError(.refused, "\(SystemError(errno: errno, function: "poll"))")
      }
      if r == 0 { continue }
      try fill()
    }
  }

  private func fill() throws(ClientError) {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    let n: Int?
    do {
      n = try chunk.withUnsafeMutableBytes { raw in
        Result { () throws(SystemError) in try SocketCalls.receive(fd, into: raw) }
      }.get()
    } catch {
      if error.errno == ECONNRESET {
        ended = true
        return
      }
      throw ClientError(.refused, "lost the connection to stepwised: \(error)")
    }
    guard let n else { return }
    if n == 0 {
      ended = true
      return
    }
    for item in framer.feed(chunk[0..<n]) {
      if case .line(let l) = item { lines.append(l) }
    }
  }

  /// Reads `VERSION` and `STATE`, checking the protocol's major version.
  ///
  /// - Returns: the two objects.
  public func handshake(timeout: Double = 10) throws(ClientError) -> (
    version: JSONObject, state: GuidanceState
  ) {
    guard let v = try next(timeout: timeout) else { throw silence(timeout) }
    if let e = WireError(object: v.object) { throw ClientError(.refused, e.message, code: e.code) }
    guard v.className == "VERSION" else {
      throw ClientError(.refused, "\(path) does not speak the Stepwise protocol (no VERSION)")
    }
    let major = Int(v.object["protoMajor"]?.doubleValue ?? -1)
    guard major == ProtocolVersion.major else {
      throw ClientError(
        .refused,
        "stepwised speaks protocol \(major).x; this stepwise speaks \(ProtocolVersion.major).x")
    }
    guard let s = try next(timeout: timeout), let state = GuidanceState(stateObject: s.object)
    else {
      throw ClientError(.refused, "stepwised sent no STATE after VERSION")
    }
    greeting = [v, s]
    return (v.object, state)
  }

  /// Sends `request` and waits for the `REPLY` that answers it, passing events by.
  ///
  /// - Parameters:
  ///   - request: the command.
  ///   - timeout: seconds to wait for the answer.
  ///   - onEvent: called with each other line received meanwhile.
  /// - Returns: the `REPLY` object.
  /// - Throws: ``ClientError`` `refused` with the daemon's message when it answers `ERROR`, or
  ///   when it does not answer within `timeout` seconds.
  public func request(
    _ request: CommandRequest, timeout: Double, onEvent: (ReceivedLine) -> Void = { _ in }
  ) throws(ClientError) -> JSONObject {
    let id = try send(request)
    let clock = SystemClock()
    let deadline = clock.now() + timeout
    while true {
      let left = deadline - clock.now()
      guard left > 0, let line = try next(timeout: left) else {
        if ended { throw ClientError(.refused, "stepwised closed the connection") }
        throw silence(timeout)
      }
      let o = line.object
      switch line.className {
      case "REPLY" where o["id"] == id:
        return o
      // An answer carries the id; an error about a line too long to read carries none, and
      // perhaps the command's name; a notice about the connection carries neither.
      case "ERROR"
      where o["id"] == id
        || (o["id"] == nil && (o["cmd"] == nil || o["cmd"] == .string(request.command.name))):
        let e = WireError(object: o) ?? WireError(.failed, "error")
        throw ClientError(.refused, e.message, code: e.code)
      default:
        onEvent(line)
      }
    }
  }

  private func silence(_ timeout: Double) -> ClientError {
    if ended { return ClientError(.refused, "stepwised closed the connection") }
    return ClientError(.refused, "stepwised did not answer within \(formatSeconds(timeout))")
  }
}

func formatSeconds(_ s: Double) -> String {
  s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
}
