public import Routes

/// A command that changes guidance, handed by a command's transport (the subscriber socket, the
/// fleet uplink) to the owner of the navigation session (the engine).
///
/// It lives here, beside the commands' wire form, so that the engine takes it without
/// depending on any transport. The transport has already checked the peer's permission,
/// decoded and validated the route document, and checked the alternative's index against the
/// document it knows.
public enum GuidanceCommand: Sendable, Equatable {
  /// Switch to alternative `routeIndex` of the loaded document and start guiding from the next fix.
  case select(routeIndex: Int)
  /// Replace the document and guide along its alternative `routeIndex` from the next fix.
  case load(RouteDocument, routeIndex: Int)
  /// Stop guiding; later fixes give no events until a `select` or `load`.
  case cancel
  /// Ask the router for a new route at the next fix (`stepwised --router`).
  case reroute
  /// Drop the route's next waypoint and ask the router for a new route through the others.
  case skip
  /// The route file was re-read (SIGHUP): guide along its alternative `routeIndex`. Never sent
  /// by a client; the daemon hands it to the engine itself.
  case reload(RouteDocument, routeIndex: Int)
}

/// Carries out a ``GuidanceCommand``; implemented by the engine, called by the transport (the
/// subscriber socket's server).
///
/// Called on a Dispatch queue of the server, once at a time per client connection (possibly
/// concurrently for different connections). It must return at once, without blocking: hand the
/// command to the session owner (the engine's input stream) and call `reply` from any thread
/// once the command has taken effect, so that events published after `reply` belong to the new
/// guidance. The server never waits on the Swift cooperative pool for this.
///
/// Reply with a failure to answer the client with an `ERROR`: a ``WireError`` keeps its code;
/// a `RouteDocumentError` about the index becomes `noSuchRoute`, any other `badRoute`; any other
/// error becomes `failed` with its description. A `reply` never called leaves that client
/// waiting for its answer (its other commands wait too), so always call it exactly once.
public typealias GuidanceCommandHandler =
  @Sendable (GuidanceCommand, _ reply: @escaping @Sendable (Result<Void, any Error>) -> Void) ->
  Void
