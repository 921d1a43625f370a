import Glibc

/// Listening sockets handed over by systemd (sd_listen_fds(3)), without libsystemd.
///
/// Used only when `LISTEN_PID` is this process: the descriptors start at 3 and run to
/// `3 + LISTEN_FDS − 1`, named by `LISTEN_FDNAMES` (colon-separated, from
/// `FileDescriptorName=`). Each gets `FD_CLOEXEC`; the variables are removed afterwards so
/// children do not inherit them.
public struct SocketActivation: Sendable {
  /// Descriptor and name of each socket passed.
  public var sockets: [(fd: Int32, name: String)]

  /// Reads and consumes the activation variables.
  public static func take(environment: [String: String]? = nil, unset: Bool = true)
    -> SocketActivation
  {
    func get(_ key: String) -> String? {
      if let environment { return environment[key] }
      return getenv(key).map { String(cString: $0) }
    }
    defer {
      if unset && environment == nil {
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
      }
    }
    guard let pid = get("LISTEN_PID").flatMap(Int32.init), pid == getpid(),
      let count = get("LISTEN_FDS").flatMap(Int32.init), count > 0, count < 1024
    else { return SocketActivation(sockets: []) }
    let names = (get("LISTEN_FDNAMES") ?? "").split(
      separator: ":", omittingEmptySubsequences: false
    )
    .map(String.init)
    var out: [(Int32, String)] = []
    for i in 0..<count {
      let fd = 3 + i
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      out.append((fd, i < names.count ? names[Int(i)] : "unknown"))
    }
    return SocketActivation(sockets: out)
  }

  /// The stream socket named `name` (or the only one, when there is one unnamed socket).
  public func listener(named name: String) -> Int32? {
    if let s = sockets.first(where: { $0.name == name }), isStreamSocket(s.fd) { return s.fd }
    if sockets.count == 1, sockets[0].name == "unknown" || sockets[0].name.hasSuffix(".socket"),
      isStreamSocket(sockets[0].fd)
    {
      return sockets[0].fd
    }
    return nil
  }

  /// Whether `fd` is a stream socket. The corresponding C function is `getsockopt`.
  public func isStreamSocket(_ fd: Int32) -> Bool {
    var type: Int32 = 0
    var len = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0
      && type == Int32(SOCK_STREAM.rawValue)
  }
}
