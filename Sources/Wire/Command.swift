public import JSON

/// What a `watch` command asks for.
public struct WatchRequest: Sendable, Equatable {
  /// Whether live events are sent at all.
  public var enable: Bool
  /// The event classes to send (`["ANNOUNCE","STEP"]`); `nil` sends every class.
  public var classes: [String]?

  public init(enable: Bool = true, classes: [String]? = nil) {
    self.enable = enable
    self.classes = classes
  }

  /// Whether an event of class `name` passes this request.
  public func passes(_ name: String) -> Bool {
    enable && (classes?.contains(name) ?? true)
  }
}

/// One command of the subscriber socket protocol (`docs/protocol.md`, COMMANDS).
public enum Command: Sendable, Equatable {
  /// Turns live events on or off, optionally for some classes only.
  case watch(WatchRequest)
  /// Asks for the current state (the `STATE` object) again.
  case status
  /// Asks for the alternatives of the loaded document; with `steps`, the selected alternative's
  /// step instructions too; with `geometry`, those steps with their polylines.
  case routes(steps: Bool, geometry: Bool = false)
  /// Switches guidance to another alternative of the loaded document.
  case select(routeIndex: Int)
  /// Loads a new route document (any supported format, inline) and guides along `routeIndex`.
  case load(document: JSONValue, routeIndex: Int)
  /// Stops guidance.
  case cancel
  /// Asks the router for a new route from where the vehicle is now.
  case reroute
  /// Drops the next waypoint of the route and asks the router for a new route without it.
  case skip

  /// The `cmd` value.
  public var name: String {
    switch self {
    case .watch: "watch"
    case .status: "status"
    case .routes: "routes"
    case .select: "select"
    case .load: "load"
    case .cancel: "cancel"
    case .reroute: "reroute"
    case .skip: "skip"
    }
  }

  /// Whether only privileged peers may send it (it changes guidance for everyone).
  public var changesGuidance: Bool {
    switch self {
    case .select, .load, .cancel, .reroute, .skip: true
    case .watch, .status, .routes: false
    }
  }

  /// Every command name, in documentation order.
  public static let names = [
    "watch", "status", "routes", "select", "load", "cancel", "reroute", "skip",
  ]
}

/// A command with the `id` its sender gave it, as read from or written to one line.
public struct CommandRequest: Sendable, Equatable {
  public var command: Command
  /// Any string or number; echoed in the `REPLY` or `ERROR` that answers the command.
  public var id: JSONValue?

  public init(_ command: Command, id: JSONValue? = nil) {
    self.command = command
    self.id = id
  }

  /// The event classes a `watch` may name.
  public static let watchableClasses = EventClass.watchable.map(\.rawValue)

  /// Parses one command line (without its line end; a trailing CR is ignored).
  ///
  /// Members other than those of the command are ignored, so that newer clients can add optional
  /// members. The thrown error carries the command's name and `id` whenever the line got that far.
  ///
  /// - Parameter line: the bytes of one line.
  /// - Returns: the command and its `id`.
  /// - Throws: ``WireError`` with `badJSON`, `badCommand`, `unknownCommand` or `badArgument`.
  public static func parse(line: some Collection<UInt8>) throws(WireError) -> CommandRequest {
    let value: JSONValue
    do {
      value = try JSONParser.parse(line)
    } catch {
      throw WireError(.badJSON, "not valid JSON: \(error)")
    }
    guard case .object(let o) = value else {
      throw WireError(.badCommand, "a command is a JSON object, not \(article(value.typeName))")
    }
    var id: JSONValue?
    switch o["id"] {
    case nil: break
    case .string?: id = o["id"]
    case .number(let d)?:
      // Replies echo the id; a number too large for a double (1e999) could not be written back.
      guard d.isFinite else { throw WireError(.badArgument, "id is a number out of range") }
      id = o["id"]
    case let other?:
      throw WireError(
        .badArgument, "id must be a string or a number, not \(article(other.typeName))")
    }
    guard let cmdValue = o["cmd"] else {
      throw WireError(.badCommand, "a command needs a \"cmd\" member", id: id)
    }
    guard case .string(let name) = cmdValue else {
      throw WireError(
        .badCommand, "\"cmd\" must be a string, not \(article(cmdValue.typeName))", id: id)
    }
    func fail(_ code: WireError.Code, _ message: String) -> WireError {
      WireError(code, message, command: name, id: id)
    }
    func index(_ key: String, required: Bool) throws(WireError) -> Int? {
      guard let v = o[key] else {
        if required { throw fail(.badArgument, "\(name) needs \"\(key)\"") }
        return nil
      }
      guard case .number(let d) = v, d == d.rounded(), d >= 0, d < 1e9 else {
        throw fail(.badArgument, "\"\(key)\" must be an integer ≥ 0, not \(JSONWriter.string(v))")
      }
      return Int(d)
    }
    func flag(_ key: String, default value: Bool) throws(WireError) -> Bool {
      guard let v = o[key] else { return value }
      guard case .bool(let b) = v else {
        throw fail(.badArgument, "\"\(key)\" must be true or false, not \(JSONWriter.string(v))")
      }
      return b
    }
    let command: Command
    switch name {
    case "watch":
      var request = WatchRequest(enable: try flag("enable", default: true))
      if let c = o["classes"] {
        guard case .array(let items) = c else {
          throw fail(.badArgument, "\"classes\" must be an array of class names")
        }
        var classes: [String] = []
        for item in items {
          guard case .string(let s) = item, watchableClasses.contains(s) else {
            throw fail(
              .badArgument,
              "unknown class \(JSONWriter.string(item)) in \"classes\" (known: "
                + watchableClasses.joined(separator: ", ") + ")")
          }
          if !classes.contains(s) { classes.append(s) }
        }
        request.classes = classes
      }
      command = .watch(request)
    case "status":
      command = .status
    case "routes":
      command = .routes(
        steps: try flag("steps", default: false), geometry: try flag("geometry", default: false))
    case "select":
      command = .select(routeIndex: try index("routeIndex", required: true) ?? 0)
    case "load":
      guard let document = o["document"] else {
        throw fail(.badArgument, "load needs \"document\": a route document object")
      }
      guard case .object = document else {
        throw fail(
          .badArgument,
          "\"document\" must be a route document object, not "
            + article(document.typeName))
      }
      // The document goes on as JSON text: a number too large for a double (1e999) would be
      // written as null there, and an optional member so made would pass as left out.
      if let path = nonFinite(document) {
        throw fail(.badArgument, "document\(path) is a number out of range")
      }
      command = .load(document: document, routeIndex: try index("routeIndex", required: false) ?? 0)
    case "cancel":
      command = .cancel
    case "reroute":
      command = .reroute
    case "skip":
      command = .skip
    default:
      throw fail(
        .unknownCommand,
        "unknown command \(JSONWriter.string(cmdValue)) (known: "
          + Command.names.joined(separator: ", ") + ")")
    }
    return CommandRequest(command, id: id)
  }

  /// The JSON object of this command, as a client sends it.
  public var object: JSONObject {
    var o = JSONObject()
    o.append("cmd", .string(command.name))
    if let id { o.append("id", id) }
    switch command {
    case .watch(let w):
      o.append("enable", .bool(w.enable))
      if let c = w.classes { o.append("classes", .array(c.map { .string($0) })) }
    case .status, .cancel, .reroute, .skip:
      break
    case .routes(let steps, let geometry):
      if steps { o.append("steps", true) }
      if geometry { o.append("geometry", true) }
    case .select(let i):
      o.append("routeIndex", .number(Double(i)))
    case .load(let document, let i):
      o.append("routeIndex", .number(Double(i)))
      o.append("document", document)
    }
    return o
  }

  /// The command as one line, without the line end.
  public var line: String { JSONWriter.string(.object(object)) }

  /// The path below `value` (`""` for itself, `.routes[0].distance`) of its first number that
  /// is not a finite double, if any; the path is only spelled out for the one found.
  private static func nonFinite(_ value: JSONValue) -> String? {
    switch value {
    case .number(let d): return d.isFinite ? nil : ""
    case .array(let a):
      for (i, v) in a.enumerated() {
        if let p = nonFinite(v) { return "[\(i)]" + p }
      }
      return nil
    case .object(let o):
      for m in o.members {
        if let p = nonFinite(m.value) { return "." + m.key + p }
      }
      return nil
    default: return nil
    }
  }

  private static func article(_ typeName: String) -> String {
    (typeName == "array" || typeName == "object" ? "an " : "a ") + typeName
  }
}
