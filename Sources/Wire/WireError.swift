public import JSON

/// An error that reaches a socket client as an `ERROR` object.
///
/// The `code` is stable and meant for programs (`"notPermitted"`); the `message` is for people and
/// may change. `command` and `id` echo the command the error answers, when it could be read far
/// enough to know them; an `ERROR` without `cmd` is a notice about the connection itself
/// (`overflow`, `tooManyClients`, `shutdown`), after which the server closes it.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A stable error code, sent as the `code` string of `ERROR` objects.
  ///
  /// Codes are strings rather than a closed enum so that a client keeps working when a newer
  /// server sends a code it does not know (adding a code is a minor protocol bump).
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The line is not valid JSON.
    public static let badJSON = Code(rawValue: "badJSON")
    /// The line is JSON but not a command: not an object, or no string `cmd` member.
    public static let badCommand = Code(rawValue: "badCommand")
    /// `cmd` names no command this server knows.
    public static let unknownCommand = Code(rawValue: "unknownCommand")
    /// A member of the command is missing, of the wrong type or out of range.
    public static let badArgument = Code(rawValue: "badArgument")
    /// The command line is longer than the server accepts; the whole line was discarded.
    public static let lineTooLong = Code(rawValue: "lineTooLong")
    /// A `load` line is longer than the maximum route document size.
    public static let documentTooLarge = Code(rawValue: "documentTooLarge")
    /// The peer may not change guidance (`select`, `load`, `cancel`).
    public static let notPermitted = Code(rawValue: "notPermitted")
    /// The route document of a `load` is not a valid route document.
    public static let badRoute = Code(rawValue: "badRoute")
    /// `select` or `load` named an alternative the document does not have.
    public static let noSuchRoute = Code(rawValue: "noSuchRoute")
    /// No route document is loaded (`routes`, `select`).
    public static let noRoute = Code(rawValue: "noRoute")
    /// The daemon cannot carry out guidance commands now (no engine, or shutting down).
    public static let unavailable = Code(rawValue: "unavailable")
    /// The engine failed to carry out the command; the message says why.
    public static let failed = Code(rawValue: "failed")
    /// The client read too slowly and its queue overflowed; the server disconnects it.
    public static let overflow = Code(rawValue: "overflow")
    /// The server has as many clients as it accepts; it disconnects the new one.
    public static let tooManyClients = Code(rawValue: "tooManyClients")
    /// The daemon is stopping; the server disconnects every client.
    public static let shutdown = Code(rawValue: "shutdown")
    /// A command from the fleet uplink arrived after its `notAfter` (docs/fleet.md).
    public static let expired = Code(rawValue: "expired")
    /// `skip`: the route has no waypoint left before its destination.
    public static let noWaypoint = Code(rawValue: "noWaypoint")

    /// Every code this version of the protocol defines, in documentation order.
    public static let allKnown: [Code] = [
      .badJSON, .badCommand, .unknownCommand, .badArgument, .lineTooLong, .documentTooLarge,
      .notPermitted, .badRoute, .noSuchRoute, .noRoute, .unavailable, .failed, .overflow,
      .tooManyClients, .shutdown, .expired, .noWaypoint,
    ]
  }

  public var code: Code
  /// What went wrong, for people.
  public var message: String
  /// The `cmd` of the command this answers, when known.
  public var command: String?
  /// The `id` of the command this answers, when it had one.
  public var id: JSONValue?

  public init(_ code: Code, _ message: String, command: String? = nil, id: JSONValue? = nil) {
    self.code = code
    self.message = message
    self.command = command
    self.id = id
  }

  public var description: String { message }

  /// The `ERROR` object: `{"class":"ERROR","cmd":…,"id":…,"code":…,"message":…}`.
  public var object: JSONObject {
    var o = JSONObject()
    o.append("class", "ERROR")
    if let command { o.append("cmd", .string(command)) }
    if let id { o.append("id", id) }
    o.append("code", .string(code.rawValue))
    o.append("message", .string(message))
    return o
  }

  /// Reads an `ERROR` object back (on the client side); `nil` when `object` is not one.
  public init?(object: JSONObject) {
    guard object["class"]?.stringValue == "ERROR" else { return nil }
    self.init(
      Code(rawValue: object["code"]?.stringValue ?? "failed"),
      object["message"]?.stringValue ?? "(no message)", command: object["cmd"]?.stringValue,
      id: object["id"])
  }
}
