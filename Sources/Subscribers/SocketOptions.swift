public import Commands
import Glibc
import POSIX
import Wire

/// The subscriber socket's settings (`stepwised --socket …`, parsed by the executable).
///
/// A `SystemError` from `start` (path in use, not a socket, permission) is a failure to start:
/// exit status 1 with its message.
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
}

extension SubscriberServer {
  /// Binds the socket of `options` (or serves `listeningDescriptor`, already listening, when
  /// systemd passed one) and starts the server.
  ///
  /// - Parameters:
  ///   - options: the socket's settings.
  ///   - listeningDescriptor: a socket-activated descriptor; `options.path` is then not bound.
  ///   - service: carries out the clients' commands, with the limits of
  ///     ``SocketOptions/commandLimits``; its publisher's events are served.
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
