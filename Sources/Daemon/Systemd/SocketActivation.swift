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
      out.append((fd, i < names.count ? names[Int(i)] : ""))
    }
    return SocketActivation(sockets: out)
  }

  /// The subscriber socket among those passed: the one named `name`, or the only one passed
  /// whatever its name (`systemd-socket-activate -l PATH` names none, a unit without
  /// `FileDescriptorName=` names it after itself); `nil` when none was passed.
  ///
  /// A socket that cannot serve subscribers (not a listening Unix stream socket, as with
  /// `Accept=yes` or a datagram socket), or several sockets of which none has the name, is an
  /// error: clients would otherwise wait on a socket nobody accepts on.
  public func subscriberSocket(named name: String) throws(SocketActivationError) -> Int32? {
    guard !sockets.isEmpty else { return nil }
    guard let chosen = sockets.first(where: { $0.name == name }) ?? sockets.only else {
      throw SocketActivationError(
        "\(sockets.count) sockets were passed (\(sockets.map { describe($0) }.joined(separator: ", "))), "
          + "none named \(name) (FileDescriptorName=\(name))")
    }
    guard isStreamSocket(chosen.fd), option(chosen.fd, SO_DOMAIN) == AF_UNIX,
      option(chosen.fd, SO_ACCEPTCONN) == 1
    else {
      throw SocketActivationError(
        "the passed socket \(describe(chosen)) is not a listening Unix stream socket "
          + "(ListenStream= with Accept=no)")
    }
    return chosen.fd
  }

  private func describe(_ socket: (fd: Int32, name: String)) -> String {
    socket.name.isEmpty ? "fd \(socket.fd)" : "fd \(socket.fd) \"\(socket.name)\""
  }

  /// An integer socket option, or `nil` when it cannot be read.
  ///
  /// The corresponding C function is `getsockopt`.
  private func option(_ fd: Int32, _ name: Int32) -> Int32? {
    var value: Int32 = 0
    var len = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, SOL_SOCKET, name, &value, &len) == 0 ? value : nil
  }

  /// Whether `fd` is a stream socket.
  ///
  /// The corresponding C function is `getsockopt`.
  public func isStreamSocket(_ fd: Int32) -> Bool {
    var type: Int32 = 0
    var len = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0
      && type == Int32(SOCK_STREAM.rawValue)
  }
}

/// Sockets passed by systemd that the daemon cannot use.
public struct SocketActivationError: Error, Sendable, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}

extension Array {
  /// The element of a one-element array.
  fileprivate var only: Element? { count == 1 ? first : nil }
}
