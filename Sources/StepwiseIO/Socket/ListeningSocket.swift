import Glibc

/// The listening Unix stream socket of the subscriber server: bound by the daemon itself, or
/// handed over already listening (systemd socket activation, issue 6).
public final class ListeningSocket: Sendable {
  /// The listening descriptor (non-blocking, close-on-exec).
  public let fd: Int32
  /// The path the daemon bound, which it removes again on ``close()``; `nil` for an adopted
  /// descriptor, whose path belongs to whoever created it.
  public let boundPath: String?
  private let inode: (device: UInt64, inode: UInt64)?

  private init(fd: Int32, boundPath: String?, inode: (UInt64, UInt64)?) {
    self.fd = fd
    self.boundPath = boundPath
    self.inode = inode
  }

  /// Binds and listens on `path`.
  ///
  /// A socket file already at `path` is replaced only when nobody answers on it (a daemon that
  /// died without removing it). A live socket fails with `EADDRINUSE`; anything else at the path
  /// (a file, a folder, a link) fails with `EEXIST`, and is left alone.
  ///
  /// The file gets `mode` and, when given, the group `group` (the caller must be allowed to
  /// `chown` to it: root, or a member of that group).
  ///
  /// - Parameters:
  ///   - path: where to create the socket; at most 107 bytes.
  ///   - mode: permission bits of the socket file (0660: owner and group may connect).
  ///   - group: group id of the socket file, or `nil` to keep the daemon's.
  ///   - backlog: the `listen` backlog.
  /// The corresponding C functions are `socket`, `bind`, `chown`, `chmod` and `listen`.
  public static func bind(
    path: String, mode: mode_t = 0o660, group: UInt32? = nil, backlog: Int32 = 128
  )
    throws(SystemError) -> ListeningSocket
  {
    try removeStaleSocket(at: path)
    let fd = try SocketCalls.unixStreamSocket()
    do throws(SystemError) {
      let r: Int32 = try SocketCalls.withAddress(path) { address, length in
        Glibc.bind(fd, address, length) == 0 ? 0 : errno
      }
      if r != 0 { throw SystemError(errno: r, function: "bind", subject: path) }
      var st = stat()
      guard lstat(path, &st) == 0 else {
        throw SystemError(errno: errno, function: "lstat", subject: path)
      }
      do throws(SystemError) {
        if let group, chown(path, UInt32.max, group) != 0 {
          throw SystemError(errno: errno, function: "chown", subject: path)
        }
        if chmod(path, mode) != 0 {
          throw SystemError(errno: errno, function: "chmod", subject: path)
        }
        if listen(fd, backlog) != 0 {
          throw SystemError(errno: errno, function: "listen", subject: path)
        }
      } catch {
        unlink(path)
        throw error
      }
      return ListeningSocket(fd: fd, boundPath: path, inode: (UInt64(st.st_dev), UInt64(st.st_ino)))
    } catch {
      SocketCalls.close(fd)
      throw error
    }
  }

  /// Takes over a descriptor that is already a listening Unix stream socket.
  ///
  /// Sets it non-blocking and close-on-exec. Its path (if any) is not removed on ``close()``.
  ///
  /// - Throws: `ENOTSOCK` or `EINVAL` when `fd` is not a listening stream socket.
  /// The corresponding C functions are `getsockopt` and `fcntl`.
  public static func adopt(fd: Int32) throws(SystemError) -> ListeningSocket {
    let type = try SocketCalls.option(fd, SOL_SOCKET, SO_TYPE, "SO_TYPE")
    guard type == Int32(SOCK_STREAM.rawValue) else {
      throw SystemError(
        errno: EINVAL, function: "adopt", subject: "fd \(fd) is not a stream socket")
    }
    guard try SocketCalls.option(fd, SOL_SOCKET, SO_ACCEPTCONN, "SO_ACCEPTCONN") != 0 else {
      throw SystemError(errno: EINVAL, function: "adopt", subject: "fd \(fd) is not listening")
    }
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
      throw SystemError(errno: errno, function: "fcntl(O_NONBLOCK)", subject: "fd \(fd)")
    }
    let fdFlags = fcntl(fd, F_GETFD)
    guard fdFlags >= 0, fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) == 0 else {
      throw SystemError(errno: errno, function: "fcntl(FD_CLOEXEC)", subject: "fd \(fd)")
    }
    return ListeningSocket(fd: fd, boundPath: nil, inode: nil)
  }

  /// Closes the descriptor and, when the daemon bound the path itself and the socket there is
  /// still the one it created, removes the socket file.
  ///
  /// The corresponding C functions are `close` and `unlink`.
  public func close() {
    SocketCalls.close(fd)
    guard let boundPath, let inode else { return }
    var st = stat()
    if lstat(boundPath, &st) == 0 && UInt64(st.st_dev) == inode.device
      && UInt64(st.st_ino) == inode.inode
    {
      unlink(boundPath)
    }
  }

  /// Removes a socket file nobody listens on; refuses to touch anything else.
  static func removeStaleSocket(at path: String) throws(SystemError) {
    var st = stat()
    guard lstat(path, &st) == 0 else {
      if errno == ENOENT { return }
      throw SystemError(errno: errno, function: "lstat", subject: path)
    }
    guard (st.st_mode & S_IFMT) == S_IFSOCK else {
      throw SystemError(
        errno: EEXIST, function: "bind", subject: "\(path) exists and is not a socket")
    }
    let probe = try SocketCalls.unixStreamSocket()
    defer { SocketCalls.close(probe) }
    do throws(SystemError) {
      _ = try SocketCalls.connect(probe, path: path)
      // Connected, or a connection in progress (a full backlog): somebody listens there.
      throw SystemError(
        errno: EADDRINUSE, function: "bind",
        subject: "\(path) is in use by a running program (another stepwised?)")
    } catch let e where e.errno == ECONNREFUSED {
      // Nobody listens: a leftover of a daemon that died.
      if unlink(path) != 0 && errno != ENOENT {
        throw SystemError(errno: errno, function: "unlink", subject: path)
      }
    } catch let e where e.errno == ENOENT {
      return
    }
  }
}
