public import JSON

/// The version of the subscriber socket protocol (`docs/protocol.md`), sent in every `VERSION`.
///
/// A client compares `protoMajor` with the major version it was written for and refuses to go on
/// when they differ. `protoMinor` only grows: a client written for minor `m` works with any server
/// whose minor is at least `m`, and ignores members and classes it does not know.
///
/// Bump rules, as in chrony's `candm.h` (`PROTO_VERSION_NUMBER` and its history comment):
/// a new optional member, a new class, a new command or a new error code is a minor bump; removing
/// or renaming anything, changing a type or a unit, or changing the framing is a major bump, which
/// resets the minor to 0. Every bump adds a line to the history below, in the same change as the
/// code and `docs/protocol.md`.
///
/// History:
/// - 1.0: first version. `VERSION`, `STATE`, `REPLY`, `ERROR`, `CANCELLED` and the event classes
///   of `docs/events.md`, each event with `seq`; commands `watch`, `status`, `routes`, `select`,
///   `load`, `cancel`.
/// - 1.1: command `reroute`; `routes` takes `geometry` (step polylines); `ANNOUNCE` kind
///   `reroute`; a `ROUTE` after each reroute, and announcement ids with the route's revision
///   (`r0.v2.…`).
/// - 1.2: `ROUTE` has `reason` and `revision` (announcement ids carry the revision after
///   `select`, `load` and reloads too); command `skip` and error code `noWaypoint`; event
///   `REROUTE` (where rerouting stands) and the `STATE` member `reroute`.
/// - 1.3: `PROGRESS` has `discardedFixes` (the receiver's jumps discarded so far); `OFFROUTE` has
///   `reason` `wrongWay` when the vehicle drives back along the route.
/// - 1.4: `ANNOUNCE`, `STEP` and `PROGRESS` have `estimated` (`true`) when made from a position
///   estimated along the route without fixes (dead reckoning through an outage).
/// - 1.5: `PROGRESS` has `speedLimit` (a number with `speedLimitUnit` `km/h` or `mph`, or
///   `"none"`) where the route carries a limit at the vehicle's position; `ANNOUNCE` kind `speed`
///   (an overspeed warning); a maneuver's `ANNOUNCE` has `lanes` (with `lanesStep` when they are
///   the "then" maneuver's) and `sign`, in the native route document's form.
/// - 1.6: `ANNOUNCE` kind `ahead` (a road object on the route ahead); `PROGRESS` has `ahead`
///   (the next road objects, when the list changes) and `STATE` has `ahead` (the last list).
/// - 1.7: a maneuver's `ANNOUNCE` has `then`, the steps its "then" clause says (`[step + 1]`),
///   so a client knows the maneuver after next was announced.
///
/// Compatibility floor: none yet; every 1.x server accepts every 1.x client.
public enum ProtocolVersion {
  /// The major version: changes only with incompatible changes.
  public static let major = 1
  /// The minor version: grows with each compatible addition.
  public static let minor = 7
  /// The Stepwise release of this build, named in `VERSION` and in the fleet's `online`.
  public static let release = "0.1.0"

  /// The `VERSION` object a server sends first on every connection.
  ///
  /// - Parameter release: the Stepwise release running the server ("0.1.0").
  /// - Returns: `{"class":"VERSION","release":…,"protoMajor":1,"protoMinor":0}`.
  public static func versionObject(release: String) -> JSONObject {
    var o = JSONObject()
    o.append("class", "VERSION")
    o.append("release", .string(release))
    o.append("protoMajor", .number(Double(major)))
    o.append("protoMinor", .number(Double(minor)))
    return o
  }
}
