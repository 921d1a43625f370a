public import Dispatch
public import GPSDProtocol
import GPSShim

/// A failure of libgps, with the function that failed.
public struct GPSDError: Error, Sendable, Equatable, CustomStringConvertible {
  /// libgps's netlib code (negative) or an errno value (positive).
  public var code: Int32
  /// The libgps function that failed.
  public var function: String

  public init(code: Int32, function: String) {
    self.code = code
    self.function = function
  }

  /// libgps's text for the code, such as "can't connect to host/port pair".
  public var reason: String { String(cString: gpsshim_errstr(code)) }

  public var description: String { "\(function): \(reason)" }
}

/// What one ``GPSDConnection/read()`` gave.
public enum GPSDReadResult: Sendable, Equatable {
  /// One complete report.
  case report(GPSDReport)
  /// A complete line that is not a report gpsd should send (kept for logs).
  case undecodable(String)
  /// Only part of a line is buffered so far.
  case partial
  /// End of stream or a read error: the connection is gone.
  case closed
}

/// One connection to gpsd through libgps, confined to a serial queue.
///
/// libgps is not thread-safe and its `struct gps_data_t` is large (24 KB in 3.22, 49 KB in
/// master): the shim allocates it once, and this class never copies it. All methods block (a
/// connect, a `poll`) and must run on ``queue``, a private serial queue of the caller, never
/// on Swift's cooperative thread pool.
public final class GPSDConnection: @unchecked Sendable {
  // Invariant: `session` is only touched from `queue` (checked with dispatchPrecondition), and
  // `close()` is the last call; afterwards `session` is nil.
  private var session: OpaquePointer?
  /// The serial queue every call must run on.
  public let queue: DispatchQueue
  /// `host:port` as given to ``open(host:port:queue:)``.
  public let address: String

  private init(session: OpaquePointer, queue: DispatchQueue, address: String) {
    self.session = session
    self.queue = queue
    self.address = address
  }

  deinit {
    if let session { gpsshim_close(session) }
  }

  /// The libgps API version the shim was compiled against, such as `11.0` for gpsd 3.22.
  public static var apiVersion: String { "\(gpsshim_api_major()).\(gpsshim_api_minor())" }

  /// Whether the build has libgps at all.
  public static var isAvailable: Bool { gpsshim_available() }

  /// Connects to gpsd.
  ///
  /// Blocks for the TCP connect; run it on `queue`.
  ///
  /// The corresponding C function is `gps_open`.
  public static func open(host: String, port: String, queue: DispatchQueue) throws(GPSDError)
    -> GPSDConnection
  {
    dispatchPrecondition(condition: .onQueue(queue))
    var error: Int32 = 0
    guard let s = gpsshim_open(host, port, &error) else {
      throw GPSDError(code: error, function: "gps_open")
    }
    return GPSDConnection(session: s, queue: queue, address: "\(host):\(port)")
  }

  /// Asks gpsd for JSON reports of all devices, or of `device` only.
  ///
  /// The corresponding C function is `gps_stream`.
  public func watch(device: String? = nil) throws(GPSDError) {
    dispatchPrecondition(condition: .onQueue(queue))
    let r: Int32
    if let device {
      r = device.withCString { gpsshim_watch(session, true, $0) }
    } else {
      r = gpsshim_watch(session, true, nil)
    }
    guard r == 0 else { throw GPSDError(code: r, function: "gps_stream") }
  }

  /// Waits up to `timeout` seconds for data; true when a read will not block (end of stream
  /// counts as readable).
  ///
  /// False on timeout and on error alike.
  ///
  /// The corresponding C function is `poll`.
  public func waiting(timeout: Double) -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    let us = Int32(max(0, min(timeout, 60)) * 1_000_000)
    return gpsshim_waiting(session, us)
  }

  /// The connection's socket, to wait for it together with other descriptors (`poll`) instead
  /// of with a timeout.
  ///
  /// Check ``waiting(timeout:)`` with 0 first: the connection may hold a line it already read.
  /// -1 after ``close()``.
  ///
  /// The corresponding C function is `gpsshim_fd`.
  public var fileDescriptor: Int32 {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let session else { return -1 }
    return gpsshim_fd(session)
  }

  /// Reads one line gpsd sent and decodes it, once, with the decoder that reads captures, so a
  /// live `TPV` and a recorded one become the same fix.
  ///
  /// The line is taken from the socket as gpsd sent it: libgps's `gps_read` is not called, as
  /// it would parse every report into its `struct gps_data_t` first, a second parse of the same
  /// line that nothing reads. After ``closed`` `errno` tells a read error (set) from the end
  /// of the stream (0).
  ///
  /// The corresponding C function is `read`.
  public func read() -> GPSDReadResult {
    dispatchPrecondition(condition: .onQueue(queue))
    let n = gpsshim_read(session)
    if n < 0 { return .closed }
    if n == 0 { return .partial }
    var length = 0
    guard let raw = gpsshim_message(session, &length) else { return .partial }
    let bytes = UnsafeRawBufferPointer(start: raw, count: length).bindMemory(to: UInt8.self)
    var end = bytes.count
    while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
    let line = UnsafeBufferPointer(rebasing: bytes[0..<end])
    do {
      return .report(try GPSDReport.decode(line))
    } catch {
      return .undecodable(String(decoding: line.prefix(200), as: UTF8.self))
    }
  }

  /// Closes the connection; later calls do nothing useful.
  ///
  /// Always call it, also after a failed read: libgps frees its private buffers here.
  ///
  /// The corresponding C function is `gps_close`.
  public func close() {
    dispatchPrecondition(condition: .onQueue(queue))
    if let s = session { gpsshim_close(s) }
    session = nil
  }
}
