import Glibc
public import POSIX
public import Rerouting

/// Writes what guidance and its router said to each other to a file, one
/// ``RouterExchange`` line each (`stepwised --record-router FILE`): the lab replays a
/// closed-loop drive from it without a router.
///
/// A line is written when the engine makes a request or takes an answer (a few per reroute, on
/// the engine's task: only a daemon recording for the lab pays for it).
public final class RouterRecorder: Sendable {
  private let fd: Int32
  public let path: String

  /// Creates (or empties) `path` and writes the router's line.
  public init(path: String, router: GuidanceCore.Router) throws(SystemError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw SystemError(errno: errno, function: "open", subject: path) }
    self.fd = fd
    self.path = path
    record(.router(router))
  }

  deinit { close(fd) }

  /// Appends one exchange; a write that fails is said once per failure on standard error.
  public func record(_ exchange: RouterExchange) {
    do {
      try writeAll(fd, Array((exchange.line + "\n").utf8), subject: path)
    } catch {
      logLine(4, "stepwised: --record-router: \(error)")
    }
  }
}
