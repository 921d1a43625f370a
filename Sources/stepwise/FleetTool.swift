import CommandLineSupport
import Dispatch
import FleetClient
import Glibc
import JSON
import POSIX
import RouteFiles
import Routes
import Synchronization
import Wire

/// The dispatcher's side of the fleet uplink: `stepwise fleet` (every vehicle's guidance) and
/// `stepwise send` (a command to one vehicle, waiting for its reply).
///
/// docs/fleet.md.
enum FleetTool {
  static let usage = """
    usage: stepwise fleet mqtt[s]://HOST[:PORT][,URL…] [--prefix stepwise/+] [--json]
                          [--sort id|seen|remaining|eta] [--filter TEXT] [--rows N]
                          [--page N] [--stale SECONDS]
           stepwise send --mqtt URL --vehicle ID [--prefix stepwise/ID]
                         load ROUTE [--route-index N] | select N | cancel | status
                         [--timeout SECONDS] [--not-after SECONDS]
    common: --credentials FILE (user name, then password), --cafile FILE,
            --cert FILE --key FILE (mqtts:// only), --protocol 5|3.1.1 (3.1.1 for
            RabbitMQ 3.10); several URLs, comma-separated: a cluster's nodes, tried in turn

    fleet: a table of every vehicle under the prefix (online, route, step, next
    instruction, distance and ETA, on/off route, last seen), redrawn in place on a
    terminal; one line per message otherwise; --json: one JSON object per message.
    The table: --sort (default id; seen: the longest silent first), --filter (a part of
    the id or route name, or offline, stale, off, arrived), --rows per page (default 50)
    and --page; a vehicle silent for --stale seconds (default 60) shows "stale". A
    footer counts vehicles, offline and stale, and the tool's peak memory.
    send: publishes the command on PREFIX/command and waits for its reply on
    PREFIX/reply (default 30 s); exit status 0 for REPLY, 1 for ERROR or no reply.
    """

  /// Whether `command` is one of this tool's.
  static func handles(_ command: String) -> Bool { command == "fleet" || command == "send" }

  /// Runs `stepwise fleet …` or `stepwise send …` (arguments after the command).
  static func main(command: String, arguments: [String]) -> Int32 {
    var args = Arguments(arguments)
    if args.flag("--help", "-h") {
      OutputSink.standardOutput.line(usage)
      OutputSink.standardOutput.flush()
      return 0
    }
    do {
      return command == "fleet" ? try fleet(&args) : try send(&args)
    } catch let e where e is UsageError || e is FleetOptionError {
      logLine(3, "stepwise \(command): \(e)")
      logLine(3, usage)
      return 2
    } catch {
      logLine(3, "stepwise \(command): \(error)")
      return 1
    }
  }

  /// Connection options shared by both commands.
  struct Connection {
    var broker: BrokerAddress
    var alternates: [BrokerAddress] = []
    var version311 = false
    var credentials: BrokerCredentials?
    var tls: MQTTClient.Options.TLS?

    /// Takes the connection's options out of `args` (before the positionals are read).
    static func parse(_ args: inout Arguments) throws -> (String) throws -> Connection {
      let credentials = try args.option("--credentials")
      let caFile = try args.option("--cafile")
      let cert = try args.option("--cert")
      let key = try args.option("--key")
      let version311 = try BrokerAddress.version311(try args.option("--protocol"))
      return { url in
        var c = try make(url, credentials, caFile, cert, key)
        c.version311 = version311
        return c
      }
    }

    private static func make(
      _ url: String, _ credentials: String?, _ caFile: String?, _ cert: String?, _ key: String?
    ) throws -> Connection {
      let brokers = try BrokerAddress.list(parsing: url)
      let broker = brokers[0]
      var c = Connection(broker: broker, alternates: Array(brokers.dropFirst()))
      if let credentials { c.credentials = try BrokerCredentials.read(credentials) }
      if broker.tls {
        c.tls = .init(
          caFile: caFile ?? "/etc/ssl/certs/ca-certificates.crt", certificate: cert, key: key)
      } else if caFile != nil || cert != nil || key != nil {
        throw UsageError("--cafile, --cert and --key need an mqtts:// broker")
      }
      return c
    }

    func options(clientID: String) -> MQTTClient.Options {
      var o = MQTTClient.Options(host: broker.host, port: broker.port, clientID: clientID)
      o.username = credentials?.username
      o.password = credentials?.password
      o.tls = tls
      o.persistent = false
      o.alternates = alternates.map { ($0.host, $0.port) }
      o.version311 = version311
      return o
    }
  }

  /// Messages from the network thread, taken by the main thread.
  final class Inbox: Sendable {
    private let items = Locked<[(topic: String, payload: [UInt8])]>([])
    private let signal = DispatchSemaphore(value: 0)
    let connected = Atomic<Int32>(-1)

    func put(_ topic: String, _ payload: [UInt8]) {
      items.withLock { $0.append((topic, payload)) }
      signal.signal()
    }

    func wake() { signal.signal() }

    /// Waits up to `timeout` seconds for messages; returns those waiting.
    func take(timeout: Double) -> [(topic: String, payload: [UInt8])] {
      _ = signal.wait(timeout: .now() + timeout)
      return items.withLock { i in
        defer { i.removeAll() }
        return i
      }
    }
  }

  // MARK: send

  static func send(_ args: inout Arguments) throws -> Int32 {
    guard let url = try args.option("--mqtt") else { throw UsageError("send needs --mqtt URL") }
    guard let vehicle = try args.option("--vehicle") else {
      throw UsageError("send needs --vehicle ID")
    }
    _ = try VehicleID.validate(vehicle)
    let prefix = try args.option("--prefix") ?? "stepwise/" + vehicle
    let wait = try args.number("--timeout", in: 0.1...86400) ?? 30
    let notAfter = try args.number("--not-after", in: 1...(366 * 86400))
    let index = try args.integer("--route-index") ?? 0
    let connection = try Connection.parse(&args)(url)
    let words = try args.positionals()
    guard let verb = words.first else {
      throw UsageError("send needs a command: load ROUTE, select N, cancel or status")
    }
    var request: CommandRequest
    switch (verb, words.count) {
    case ("load", 2):
      let bytes = try readWholeFile(words[1])
      let document = try RouteFiles.decode(bytes, name: words[1])
      _ = try document.route(at: index)
      request = CommandRequest(.load(document: try JSONParser.parse(bytes), routeIndex: index))
    case ("select", 2):
      guard let n = Int(words[1]), n >= 0 else { throw UsageError("select needs a number ≥ 0") }
      request = CommandRequest(.select(routeIndex: n))
    case ("cancel", 1): request = CommandRequest(.cancel)
    case ("status", 1): request = CommandRequest(.status)
    default:
      throw UsageError("send: load ROUTE, select N, cancel or status")
    }
    var random = SystemRandomNumberGenerator()
    let id = "send-" + String(random.next() as UInt64, radix: 36)
    request.id = .string(id)
    var object = request.object
    if let notAfter {
      var ts = timespec()
      clock_gettime(CLOCK_REALTIME, &ts)
      object.append("notAfter", .number((Double(ts.tv_sec) + notAfter).rounded(.down)))
    }
    let payload = Array(JSONWriter.string(.object(object)).utf8)

    let (client, inbox) = try startClient(connection, command: "send")
    defer { client.close() }
    let deadline = monotonic() + wait
    var sent = false
    while monotonic() < deadline {
      let messages = inbox.take(timeout: min(0.5, max(0.01, deadline - monotonic())))
      let reason = inbox.connected.load(ordering: .acquiring)
      if !sent && reason > 0 {
        logLine(3, "stepwise send: \(connection.broker) refused: \(MQTTClient.reason(reason))")
        return 1
      }
      if !sent && reason == 0 {
        // SUBSCRIBE before PUBLISH on one connection: the broker applies them in order.
        client.subscribe(prefix + "/reply")
        _ = client.publish(prefix + "/command", payload, qos: 1, retain: false)
        sent = true
      }
      for m in messages where m.topic == prefix + "/reply" {
        guard case .object(let o)? = try? JSONParser.parse(m.payload), o["id"] == .string(id)
        else { continue }
        OutputSink.standardOutput.line(JSONWriter.string(.object(o)))
        OutputSink.standardOutput.flush()
        if o["class"]?.stringValue == "ERROR" {
          logLine(3, "stepwise send: \(o["message"]?.stringValue ?? "the vehicle refused")")
          return 1
        }
        return 0
      }
    }
    logLine(
      3,
      sent
        ? "stepwise send: no reply from \(vehicle) within \(wait) s (offline? the command "
          + "waits in its session and runs when it reconnects)"
        : "stepwise send: cannot reach \(connection.broker) within \(wait) s")
    return 1
  }

  /// A client of the dispatcher's `command` that hands connection changes and messages to
  /// an inbox the command's loop waits on, connecting in the background.
  static func startClient(_ connection: Connection, command: String) throws -> (
    MQTTClient, Inbox
  ) {
    let inbox = Inbox()
    var handlers = MQTTClient.Handlers()
    handlers.connected = { reason, _ in
      inbox.connected.store(reason, ordering: .releasing)
      inbox.wake()
    }
    handlers.message = { topic, payload in inbox.put(topic, payload) }
    let client = try MQTTClient(
      connection.options(clientID: "stepwise-\(command)-\(getpid())"), handlers: handlers)
    client.start { failure in logLine(4, "stepwise \(command): \(failure); retrying") }
    return (client, inbox)
  }

  // MARK: fleet

  static func fleet(_ args: inout Arguments) throws -> Int32 {
    let prefix = try args.option("--prefix") ?? "stepwise/+"
    let json = args.flag("--json")
    var view = FleetTable.View()
    if let o = try args.option("--sort", as: FleetTable.View.Order.self) { view.order = o }
    view.filter = try args.option("--filter")
    if let n = try args.integer("--rows", minimum: 1) { view.rows = n }
    if let n = try args.integer("--page", minimum: 1) { view.page = n }
    if let s = try args.number("--stale", in: 0...1e9) { view.staleAfter = s }
    let makeConnection = try Connection.parse(&args)
    let words = try args.positionals()
    guard words.count == 1 else { throw UsageError("fleet needs the broker: mqtt://HOST:PORT") }
    let connection = try makeConnection(words[0])
    let (client, inbox) = try startClient(connection, command: "fleet")
    defer { client.close() }
    let terminal = !json && isatty(1) != 0
    var table = FleetTable()
    var subscribed = false
    var lastDraw = 0.0
    let out = OutputSink.standardOutput
    while true {
      let messages = inbox.take(timeout: 1)
      let reason = inbox.connected.load(ordering: .acquiring)
      if reason > 0 && !subscribed {
        logLine(3, "stepwise fleet: \(connection.broker) refused: \(MQTTClient.reason(reason))")
        return 1
      }
      if reason == 0 && !subscribed {
        for t in ["online", "state", "events", "progress"] { client.subscribe(prefix + "/" + t) }
        subscribed = true
      }
      let now = wallClock()
      for m in messages {
        guard let (vehicle, kind) = FleetTable.split(m.topic),
          case .object(let o)? = try? JSONParser.parse(m.payload)
        else { continue }
        table.apply(vehicle: vehicle, kind: kind, o, at: now)
        if json {
          var line = JSONObject()
          line.append("vehicle", .string(vehicle))
          line.append("topic", .string(kind))
          line.append("message", .object(o))
          out.line(JSONWriter.string(.object(line)))
        } else if !terminal {
          out.line(FleetTable.line(vehicle: vehicle, kind: kind, o))
        }
      }
      if terminal && (now - lastDraw >= 1 || (!messages.isEmpty && now - lastDraw >= 0.25)) {
        lastDraw = now
        let (rows, footer) = table.render(now: now, view)
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        out.line(
          "\u{1B}[H\u{1B}[2J" + rows + "\n" + footer + "; peak memory \(usage.ru_maxrss / 1024) MiB"
        )
      }
      out.flush()
      if out.failed != nil { return 0 }
    }
  }

  static func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  static func wallClock() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }
}
