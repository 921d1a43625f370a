public import Commands
public import Events
import Wire

/// Something that runs beside guidance and receives every event it publishes, such as the fleet
/// uplink (`Uplink`), given in ``DaemonExtras/attachments`` by the executable (which parsed its
/// options) so that this target need not link what it uses.
///
/// ``Daemon/run(session:source:publisher:output:heartbeat:tickInterval:extras:)`` calls
/// ``start(_:)`` once the signal handlers are in place and the subscriber socket listens
/// (before `READY=1`), adds the sink it returns to the publisher, and calls ``stop()`` after the
/// last event, before exiting.
public protocol DaemonAttachment: EventKeeper {
  /// Whether it takes commands (the daemon then keeps a command service even without a socket).
  var takesCommands: Bool { get }
  /// Starts; returns the sink for the events. A throw stops the daemon before guiding.
  func start(_ context: DaemonAttachmentContext) throws -> any EventSink
  /// Stops after the last event; may take a moment (bounded) to hand over what is queued.
  func stop() async
}

/// An attachment keeps what it receives as ``EventKeeper`` says (the uplink: written to its
/// journal), or by default nothing beyond the process: `then` is called at once.
extension DaemonAttachment {
  public func afterKept(_ then: @escaping @Sendable () -> Void) { then() }
}

/// What an attachment gets at start.
public struct DaemonAttachmentContext: Sendable {
  /// The state directory, when the daemon has one.
  public var stateDirectory: String?
  /// The daemon's command service (for a ``CommandChannel``), when the daemon takes commands
  /// (a socket, or ``DaemonAttachment/takesCommands``).
  public var commands: CommandService?
}
