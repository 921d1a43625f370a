import Glibc

/// Who is at the other end of a Unix socket, as the kernel recorded it when the peer connected.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
  public var pid: Int32
  public var uid: UInt32
  public var gid: UInt32
  /// The peer's supplementary groups (`SO_PEERGROUPS`, Linux 4.13); empty when unavailable.
  public var groups: [UInt32]

  public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
    self.pid = pid
    self.uid = uid
    self.gid = gid
    self.groups = groups
  }

  public var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

  /// The credentials of the peer of the connected socket `fd`.
  ///
  /// The corresponding C function is `getsockopt` with `SO_PEERCRED` and `SO_PEERGROUPS`.
  public static func of(_ fd: Int32) throws(SystemError) -> PeerCredentials {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } is not imported into Swift.
    var raw: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0 else {
      throw SystemError(errno: errno, function: "getsockopt(SO_PEERCRED)")
    }
    var peer = PeerCredentials(pid: raw.0, uid: raw.1, gid: raw.2)
    var groups = [UInt32](repeating: 0, count: 64)
    for _ in 0..<2 {
      var size = socklen_t(groups.count * 4)
      let r = groups.withUnsafeMutableBytes {
        getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, $0.baseAddress, &size)
      }
      if r == 0 {
        peer.groups = Array(groups.prefix(Int(size) / 4))
        break
      }
      guard errno == ERANGE else { break }
      groups = [UInt32](repeating: 0, count: Int(size) / 4 + 1)
    }
    return peer
  }
}
