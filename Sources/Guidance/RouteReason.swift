/// Why a route is being followed: the `reason` of its `ROUTE` event.
public enum RouteReason: String, Sendable, Hashable, CaseIterable {
  /// Guidance started on the route the daemon was given.
  case start
  /// The daemon restarted and continues a saved drive.
  case resume
  /// Another alternative of the loaded document was selected.
  case select
  /// A route document was loaded over the socket (or the fleet uplink).
  case load
  /// The route file was re-read (SIGHUP).
  case reload
  /// The router's new route replaced the one the vehicle left.
  case reroute
}
