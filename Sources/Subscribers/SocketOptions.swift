import CommandLineSupport
public import Commands
import Glibc
import POSIX
import Wire

/// The `stepwised` options of the subscriber socket, parsed from the command line.
///
/// ``usage`` is part of the daemon's usage text. A `SystemError` from `start` (path in use, not a
/// socket, permission) is a failure to start: exit status 1 with its message.
public struct SocketOptions: Sendable, Equatable {
  /// Where to listen (`--socket PATH`).
  public var path: String
  /// Permission bits of the socket file (`--socket-mode`, octal; default 0660).
  public var mode: UInt32 = 0o660
  /// Group of the socket file (`--socket-group`, a name or a number).
  public var group: UInt32?
  /// Groups whose members may change guidance (`--control-group`, repeatable).
  public var controlGroups: [UInt32] = []
  /// `--max-clients N` (default 64).
  public var maximumClients = 64
  /// `--max-route-size BYTES` (default 4 MiB).
  public var maximumDocumentSize = 4 << 20
  /// `--subscriber-queue BYTES`: bytes that may wait for one client (default 256 KiB).
  public var queueLimit = 256 << 10

  public init(path: String) { self.path = path }

  /// The command service's limits these options set (`--max-route-size`).
  public var commandLimits: CommandService.Configuration {
    var c = CommandService.Configuration()
    c.maximumDocumentSize = maximumDocumentSize
    return c
  }

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

extension SubscriberServer {
  /// Binds the socket of `options` (or serves `listeningDescriptor`, already listening, when
  /// systemd passed one) and starts the server.
  ///
  /// - Parameters:
  ///   - options: from ``SocketOptions/parse(_:)``.
  ///   - listeningDescriptor: a socket-activated descriptor; `options.path` is then not bound.
  ///   - service: carries out the clients' commands, with the limits of
  ///     ``commandLimits``; its publisher's events are served.
  /// - Returns: the server, accepting clients.
  /// - Throws: ``SystemError`` when the socket cannot be bound or adopted.
  public static func start(
    _ options: SocketOptions, listeningDescriptor: Int32? = nil, service: CommandService
  ) throws(SystemError) -> SubscriberServer {
    let listener: ListeningSocket
    if let fd = listeningDescriptor {
      listener = try ListeningSocket.adopt(fd: fd)
    } else {
      listener = try ListeningSocket.bind(
        path: options.path, mode: mode_t(options.mode), group: options.group)
    }
    var configuration = Configuration()
    configuration.maximumClients = options.maximumClients
    configuration.maximumDocumentSize = options.maximumDocumentSize
    configuration.queueLimit = options.queueLimit
    configuration.access = AccessPolicy(daemonUID: geteuid(), controlGroups: options.controlGroups)
    return SubscriberServer(listener: listener, configuration: configuration, service: service)
  }
}
