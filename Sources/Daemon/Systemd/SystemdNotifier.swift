import Glibc

/// Speaks systemd's notify protocol (sd_notify(3)) without libsystemd.
///
/// One datagram per message on an `AF_UNIX`/`SOCK_DGRAM` socket to `$NOTIFY_SOCKET`: a path
/// (`/run/systemd/notify`) or an abstract name (`@…`, the `@` replaced by a NUL byte). Without
/// `NOTIFY_SOCKET` nothing is sent and nothing fails. systemd's own
/// `man/notify-selfcontained-example.c` declares this protocol stable.
public final class SystemdNotifier: Sendable {
  private let address: [UInt8]?

  /// Reads `NOTIFY_SOCKET` from `environment` (the process environment by default).
  public init(environment: [String: String]? = nil) {
    let value: String?
    if let environment {
      value = environment["NOTIFY_SOCKET"]
    } else {
      value = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
    }
    guard let value, let first = value.utf8.first,
      first == UInt8(ascii: "/") || first == UInt8(ascii: "@"), value.utf8.count < 108
    else {
      address = nil
      return
    }
    var bytes = Array(value.utf8)
    if first == UInt8(ascii: "@") { bytes[0] = 0 }
    address = bytes
  }

  /// Whether a notify socket was given.
  public var isEnabled: Bool { address != nil }

  /// Sends `KEY=VALUE` lines as one datagram.
  ///
  /// Returns false when it could not be sent.
  ///
  /// The corresponding C function is `sendto`.
  @discardableResult
  public func send(_ fields: [String: String]) -> Bool {
    send(fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n"))
  }

  /// Sends a raw payload (`READY=1\nSTATUS=…`).
  @discardableResult
  public func send(_ payload: String) -> Bool {
    guard let address else { return false }
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var sa = sockaddr_un()
    sa.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &sa.sun_path) { raw in
      for (i, b) in address.enumerated() where i < raw.count { raw[i] = b }
    }
    let length = socklen_t(
      MemoryLayout<sa_family_t>.size + address.count + (address[0] == 0 ? 0 : 1))
    let bytes = Array(payload.utf8)
    let sent = withUnsafePointer(to: &sa) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp in
        bytes.withUnsafeBytes { b in
          sendto(fd, b.baseAddress, b.count, Int32(MSG_NOSIGNAL), sp, length)
        }
      }
    }
    return sent == bytes.count
  }

  /// `READY=1`, with a status line.
  public func ready(status: String) { send(["READY": "1", "STATUS": status]) }

  /// `STATUS=…`.
  public func status(_ text: String) { send(["STATUS": text]) }

  /// `STOPPING=1`.
  public func stopping() { send(["STOPPING": "1"]) }

  /// `RELOADING=1` with `MONOTONIC_USEC` (systemd 253+ wants it; 252 ignores it).
  public func reloading() {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    let usec = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    send(["RELOADING": "1", "MONOTONIC_USEC": String(usec)])
  }

  /// `WATCHDOG=1`.
  public func watchdog() { send(["WATCHDOG": "1"]) }

  /// The watchdog interval in seconds when systemd asked for pings for this process
  /// (`WATCHDOG_USEC`, and `WATCHDOG_PID` unset or ours); `nil` otherwise.
  public static func watchdogInterval(environment: [String: String]? = nil) -> Double? {
    func get(_ key: String) -> String? {
      if let environment { return environment[key] }
      return getenv(key).map { String(cString: $0) }
    }
    guard let usec = get("WATCHDOG_USEC").flatMap(UInt64.init), usec > 0 else { return nil }
    if let pid = get("WATCHDOG_PID").flatMap(Int32.init), pid != getpid() { return nil }
    return Double(usec) / 1_000_000
  }
}
