import CommandLineSupport
import Glibc
public import Subscribers

/// The subscriber socket's options on `stepwised`'s command line.
extension SocketOptions {
  /// The lines to add to `stepwised`'s usage.
  public static let usage = """
      --socket PATH          publish events and take commands on a Unix socket
                             (docs/protocol.md)
      --socket-mode MODE     permissions of the socket file, octal (default 0660)
      --socket-group GROUP   group of the socket file (name or number)
      --control-group GROUP  members may select, load and cancel (repeatable);
                             root and the daemon's user always may
      --max-clients N        most clients at once (default 64)
      --max-route-size BYTES largest route document a client may load (default 4194304)
      --subscriber-queue BYTES  bytes that may wait for a slow client before it is
                             disconnected (default 262144)
    """

  /// Takes the socket options out of `args`.
  ///
  /// - Returns: the options, or `nil` when `--socket` is not given (the other socket options are
  ///   then an error).
  public static func parse(_ args: inout Arguments) throws(UsageError) -> SocketOptions? {
    let path = try args.option("--socket")
    let mode = try args.option("--socket-mode")
    let group = try args.option("--socket-group")
    var controls: [String] = []
    while let g = try args.option("--control-group") { controls.append(g) }
    let clients = try args.integer("--max-clients", minimum: 1)
    let size = try args.integer("--max-route-size", minimum: 1024)
    let queueLimit = try args.integer("--subscriber-queue", minimum: 4096)
    guard let path else {
      if mode != nil || group != nil || !controls.isEmpty || clients != nil || size != nil
        || queueLimit != nil
      {
        throw UsageError("the socket options need --socket PATH")
      }
      return nil
    }
    guard !path.isEmpty, path.utf8.count < 108 else {
      throw UsageError("invalid --socket '\(path)' (a path of at most 107 bytes)")
    }
    var o = SocketOptions(path: path)
    if let mode {
      guard let m = UInt32(mode, radix: 8), m <= 0o777 else {
        throw UsageError("invalid value '\(mode)' for --socket-mode (expected octal, such as 0660)")
      }
      o.mode = m
    }
    if let group { o.group = try AccessPolicy.groupID(group) }
    for g in controls { o.controlGroups.append(try AccessPolicy.groupID(g)) }
    if let clients { o.maximumClients = clients }
    if let size { o.maximumDocumentSize = size }
    if let queueLimit { o.queueLimit = queueLimit }
    return o
  }
}

extension AccessPolicy {
  /// Resolves a group given by name or number.
  ///
  /// The corresponding C function is `getgrnam_r`.
  fileprivate static func groupID(_ nameOrNumber: String) throws(UsageError) -> UInt32 {
    if let n = UInt32(nameOrNumber) { return n }
    var group = group()
    var result: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    let r = getgrnam_r(nameOrNumber, &group, &buffer, buffer.count, &result)
    guard r == 0, let found = result else {
      throw UsageError("unknown group '\(nameOrNumber)'")
    }
    return found.pointee.gr_gid
  }
}
