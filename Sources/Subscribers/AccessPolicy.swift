import Glibc
public import POSIX

/// Who may change guidance (`select`, `load`, `cancel`) over the socket.
///
/// Anyone who can connect may watch and ask (`watch`, `status`, `routes`). Changing guidance is
/// allowed to root, to the daemon's own user, and to members of the control groups, whether
/// primary or supplementary group of the peer at the time it connected.
public struct AccessPolicy: Sendable, Equatable {
  /// The daemon's effective user id.
  public var daemonUID: UInt32
  /// Groups whose members may change guidance.
  public var controlGroups: [UInt32]

  public init(daemonUID: UInt32 = geteuid(), controlGroups: [UInt32] = []) {
    self.daemonUID = daemonUID
    self.controlGroups = controlGroups
  }

  /// Whether `peer` may change guidance.
  public func mayChangeGuidance(_ peer: PeerCredentials) -> Bool {
    if peer.uid == 0 || peer.uid == daemonUID { return true }
    return controlGroups.contains { g in peer.gid == g || peer.groups.contains(g) }
  }
}
