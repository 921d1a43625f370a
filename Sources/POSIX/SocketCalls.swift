import Glibc

/// The socket system calls of the subscriber server and the client, each retried on `EINTR` and
/// failing with a ``SystemError`` that names the function, in the shape of swift-nio's
/// `syscall(blocking:where:_:)`.
///
/// Calls that can block on a non-blocking descriptor return `nil` for `EAGAIN`/`EWOULDBLOCK`
/// ("would block") instead of throwing.
public enum SocketCalls {
  /// Runs `body` until it does not fail with `EINTR`.
  ///
  /// - Returns: the result, or `nil` when the call would block.
  /// - Throws: ``SystemError`` with `function` and `subject` for any other failure.
  @inline(__always)
  public static func retrying(_ function: String, _ subject: String = "", _ body: () -> Int)
    throws(SystemError) -> Int?
  {
    while true {
      let r = body()
      if r >= 0 { return r }
      let e = errno
      if e == EINTR { continue }
      if e == EAGAIN || e == EWOULDBLOCK { return nil }
      throw SystemError(errno: e, function: function, subject: subject)
    }
  }

  /// A new Unix stream socket, non-blocking unless told otherwise, close-on-exec.
  ///
  /// The corresponding C function is `socket`.
  public static func unixStreamSocket(nonBlocking: Bool = true) throws(SystemError) -> Int32 {
    let flags =
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
      | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
    let fd = socket(AF_UNIX, flags, 0)
    guard fd >= 0 else { throw SystemError(errno: errno, function: "socket") }
    return fd
  }

  /// Calls `body` with a `sockaddr_un` for `path` and its length.
  ///
  /// - Throws: `ENAMETOOLONG` when the path does not fit in `sun_path` (107 bytes and a NUL).
  public static func withAddress<R>(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
  ) throws(SystemError) -> R {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
      throw SystemError(errno: ENAMETOOLONG, function: "bind", subject: path)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let length =
      socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path) ?? 2) + socklen_t(bytes.count + 1)
    return withUnsafePointer(to: &address) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }

  /// Connects `fd` to the socket at `path`.
  ///
  /// - Returns: `true` when connected, `false` when a non-blocking connect is in progress
  ///   (`EAGAIN`, `EINPROGRESS`).
  /// The corresponding C function is `connect`.
  public static func connect(_ fd: Int32, path: String) throws(SystemError) -> Bool {
    let result: Int32 = try withAddress(path) { address, length in
      while true {
        if Glibc.connect(fd, address, length) == 0 { return 0 }
        if errno != EINTR { return errno }
      }
    }
    switch result {
    case 0: return true
    case EAGAIN, EINPROGRESS: return false
    default: throw SystemError(errno: result, function: "connect", subject: path)
    }
  }

  /// Sends bytes without raising `SIGPIPE`.
  ///
  /// - Returns: the number of bytes sent, or `nil` when the socket's buffer is full.
  /// The corresponding C function is `send` (with `MSG_NOSIGNAL`).
  public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, nonBlocking: Bool = true)
    throws(SystemError) -> Int?
  {
    let flags = Int32(MSG_NOSIGNAL) | (nonBlocking ? Int32(MSG_DONTWAIT) : 0)
    return try retrying("send") { Glibc.send(fd, bytes.baseAddress, bytes.count, flags) }
  }

  /// Sends all of `bytes` on a blocking socket.
  ///
  /// The corresponding C function is `send` (with `MSG_NOSIGNAL`).
  public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
      let n = try bytes.withUnsafeBytes { raw in
        Result { () throws(SystemError) in
          try send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]), nonBlocking: false)
        }
      }.get()
      offset += n ?? 0
    }
  }

  /// Receives up to `buffer.count` bytes.
  ///
  /// - Returns: the number of bytes read (0 at end of stream), or `nil` when none is waiting.
  /// The corresponding C function is `recv`.
  public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer)
    throws(SystemError)
    -> Int?
  {
    try retrying("recv") { Glibc.recv(fd, buffer.baseAddress, buffer.count, 0) }
  }

  /// An integer socket option.
  ///
  /// The corresponding C function is `getsockopt`.
  public static func option(_ fd: Int32, _ level: Int32, _ name: Int32, _ label: String)
    throws(SystemError) -> Int32
  {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(fd, level, name, &value, &length) == 0 else {
      throw SystemError(errno: errno, function: "getsockopt(\(label))")
    }
    return value
  }

  /// Sets an integer socket option.
  ///
  /// The corresponding C function is `setsockopt`.
  public static func setOption(
    _ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ label: String
  )
    throws(SystemError)
  {
    var v = value
    guard setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
      throw SystemError(errno: errno, function: "setsockopt(\(label))")
    }
  }

  /// Accepts a connection as a non-blocking, close-on-exec socket.
  ///
  /// - Returns: the new descriptor, or `nil` when no connection is waiting.
  /// The corresponding C function is `accept4`.
  public static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
    let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    while true {
      let r = cAccept4(fd, nil, nil, flags)
      if r >= 0 { return r }
      let e = errno
      if e == EINTR || e == ECONNABORTED { continue }
      if e == EAGAIN || e == EWOULDBLOCK { return nil }
      throw SystemError(errno: e, function: "accept4")
    }
  }

  /// Closes `fd`, ignoring `EINTR` (on Linux the descriptor is released even then).
  ///
  /// The corresponding C function is `close`.
  public static func close(_ fd: Int32) {
    _ = Glibc.close(fd)
  }
}

/// `accept4(2)`, which Glibc declares only under `_GNU_SOURCE` and the Swift module leaves out.
@_silgen_name("accept4")
private func cAccept4(
  _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?,
  _ length: UnsafeMutablePointer<socklen_t>?,
  _ flags: Int32
) -> Int32
