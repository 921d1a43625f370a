import Glibc

/// The listening Unix stream socket of the subscriber server: bound by the daemon itself, or
/// handed over already listening (systemd socket activation).
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
  /// - Returns: the socket, listening.
  /// - Throws: `SystemError` naming the call that failed.
  ///
  /// The corresponding C functions are `socket`, `bind`, `chown`, `chmod`, `listen` and `link`.
  public static func bind(
    path: String, mode: mode_t = 0o660, group: UInt32? = nil, backlog: Int32 = 128
  )
    throws(SystemError) -> ListeningSocket
  {
    try removeStaleSocket(at: path)
    let fd = try SocketCalls.unixStreamSocket()
    // The socket is bound, given its mode and group and set listening under a staging name
    // in the same folder, then linked into place: `path` appears only once it listens. Bound
    // under `path` itself, the file existed a moment before `listen`, and a client that waited
    // for the file and connected at once was refused (seen under ThreadSanitizer on a loaded
    // machine). A staging name that would not fit in `sun_path` falls back to `path`.
    let staging = stagingPath(for: path)
    do throws(SystemError) {
      let r: Int32 = try SocketCalls.withAddress(staging) { address, length in
        Glibc.bind(fd, address, length) == 0 ? 0 : errno
      }
      if r != 0 { throw SystemError(errno: r, function: "bind", subject: staging) }
      var st = stat()
      do throws(SystemError) {
        guard lstat(staging, &st) == 0 else {
          throw SystemError(errno: errno, function: "lstat", subject: staging)
        }
        if let group, chown(staging, UInt32.max, group) != 0 {
          throw SystemError(errno: errno, function: "chown", subject: staging)
        }
        if chmod(staging, mode) != 0 {
          throw SystemError(errno: errno, function: "chmod", subject: staging)
        }
        if listen(fd, backlog) != 0 {
          throw SystemError(errno: errno, function: "listen", subject: staging)
        }
        // `link` rather than `rename`: a socket that another program created at `path` in the
        // meantime is not replaced, as `bind` would not have replaced it.
        if staging != path {
          if link(staging, path) != 0 {
            let e = errno
            throw SystemError(
              errno: e == EEXIST ? EADDRINUSE : e, function: "bind",
              subject: e == EEXIST ? "\(path) appeared while binding" : path)
          }
          unlink(staging)
        }
      } catch {
        unlink(staging)
        throw error
      }
      return ListeningSocket(fd: fd, boundPath: path, inode: (UInt64(st.st_dev), UInt64(st.st_ino)))
    } catch {
      SocketCalls.close(fd)
      throw error
    }
  }

  /// A name for binding before the socket appears at `path`: `.stepwise-` and 8 random hex
  /// digits in the same folder (so `link` stays within one file system), or `path` itself when
  /// that name would be longer than `sun_path` takes.
  static func stagingPath(for path: String) -> String {
    let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
    let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
    let staging = folder + ".stepwise-" + String(repeating: "0", count: 8 - suffix.count) + suffix
    return staging.utf8.count < 108 ? staging : path
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
