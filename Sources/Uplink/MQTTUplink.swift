import Commands
import Daemon
import Dispatch
import Events
import FleetClient
import Geodesy
import Glibc
import Guidance
import JSON
import POSIX
import Wire

/// The fleet uplink: publishes the daemon's events to an MQTT broker through the journal, and
/// takes commands from dispatchers (docs/fleet.md).
///
/// ```
///   engine ──receive──▶ pending (lock) ──▶ uplink queue: encode, write the journal ──▶ libmosquitto
///                                              ▲          (then fdatasync)              (own thread)
///          network thread: CONNACK, PUBACK, command messages ─────────────────────────┘
/// ```
///
/// ``receive(_:)`` only appends to a list under a lock, so the engine, the announcements and the
/// socket's subscribers never wait for the network or the disk. Everything else runs on one
/// serial queue: the journal, the window of messages handed to libmosquitto (at most
/// ``window`` unacknowledged, because libmosquitto's own queue is in memory and unbounded),
/// the retained `state`, and commands.
///
/// Topics under the prefix: `online` (retained; the will says `{"online":false}`), `state`
/// (retained, the `STATE` object plus the uplink's counters), `events` (QoS 1, every event but
/// `PROGRESS`, with `boot` and `seq`), `progress` (QoS 1, at most one per
/// ``UplinkConfiguration/progressInterval`` seconds of fix time, besides those whose `ahead`
/// changed, with a message expiry),
/// `command` (subscribed with `--mqtt-commands`) and `reply`.
///
/// Invariant behind `@unchecked Sendable`: every `var` except `pending` is touched only on
/// `queue`; `pending` is inside a `Locked` (a pthread mutex: ThreadSanitizer cannot see the
/// futex waits of `Synchronization.Mutex` on Linux).
public final class MQTTUplink: EventSink, DaemonAttachment, @unchecked Sendable {
  /// Messages handed to libmosquitto and not yet acknowledged, at most.
  public static let window = 20
  /// Seconds a `progress` message stays worth delivering (its MQTT 5 message expiry).
  public static let progressLifetime = 300.0
  /// Command ids remembered (in the state directory, across restarts) to ignore replays: QoS 1
  /// may deliver a command twice.
  public static let rememberedCommands = 1024
  /// Seconds after connecting began (at start, or when the link was lost) after which a link
  /// still down is said, once, with libmosquitto's last error.
  public static let connectReportDelay = 5.0
  /// Seconds a change of guidance waits before the retained `state` says it, so that a burst
  /// of events (and of acknowledgements) makes one `state`, published after them, not one each.
  public static let stateDelay = 1.0
  /// Seconds `stop()` waits for the broker to take what is queued before disconnecting.
  public static let stopGrace = 2.0

  public let configuration: UplinkConfiguration
  /// Changes with each start of the daemon: consumers dedupe by (`boot`, `seq`).
  public let boot: String
  private let queue = DispatchQueue(label: "stepwise.uplink")

  private struct Pending {
    var publications: [Publication] = []
    var scheduled = false
    var finished = false
  }
  private let pending = Locked(Pending())

  // Confined to `queue`.
  private var journal: Journal?
  private var client: MQTTClient?
  private var connected = false
  /// Journal id of the next message to hand over.
  private var sendFrom: UInt64 = 0
  /// libmosquitto's message id → journal id, for the messages handed over.
  private var inFlight: [Int32: UInt64] = [:]
  private var state = GuidanceState()
  private var stateDirty = false
  /// `pending` in the last `state` published.
  private var publishedPending = 0
  /// A `state` is due ``stateDelay`` after it was first needed.
  private var stateScheduled = false
  private var lastProgressTime: Double?
  private var expired = 0
  /// The `seq` of the last event journalled or skipped.
  private var lastSeq: UInt64 = 0
  private var commandMemory: CommandMemory?
  /// Bumped on each connect and drop, so that a report armed earlier knows it is stale.
  private var linkEpoch = 0
  /// The `command` topic's commands, when ``UplinkConfiguration/commands``.
  private var commands: CommandChannel?
  private var lastConnectReason: Int32?
  private var connectedOnce = false
  private var stopWaiters: [@Sendable () -> Void] = []
  private var journalFailing = false

  public init(_ configuration: UplinkConfiguration) {
    self.configuration = configuration
    var g = SystemRandomNumberGenerator()
    let r = g.next() as UInt64
    boot = String(r, radix: 16).leftPadded(to: 16)
  }

  public var takesCommands: Bool { configuration.commands }

  func topic(_ name: String) -> String { configuration.prefix + "/" + name }

  /// The broker of the link, for the log: with a cluster's nodes, the one last tried.
  private var linkName: String {
    guard !configuration.alternates.isEmpty, let client else {
      return configuration.broker.description
    }
    return (configuration.broker.tls ? "mqtts://" : "mqtt://") + client.broker
  }

  // MARK: DaemonAttachment

  public func start(_ context: DaemonAttachmentContext) throws -> any EventSink {
    guard let directory = context.stateDirectory else { throw NoStateDirectory() }
    _ = mkdir(directory, 0o755)
    let journal = try Journal(
      path: directory + "/mqtt-journal", capacity: configuration.journalSize)
    let r = journal.recovery
    if r.discardedBytes > 0 {
      logLine(
        4,
        "stepwised: the MQTT journal had a damaged tail (\(r.discardedBytes) bytes after "
          + "\(r.records) whole records, a power cut?); recovered up to the last whole record")
    }
    if r.pending > 0 {
      logLine(6, "stepwised: \(r.pending) journalled MQTT messages wait for the broker")
    }
    let memory =
      configuration.commands
      ? try CommandMemory(
        path: directory + "/mqtt-commands", capacity: Self.rememberedCommands) : nil
    var options = MQTTClient.Options(
      host: configuration.broker.host, port: configuration.broker.port,
      clientID: configuration.vehicle)
    options.username = configuration.credentials?.username
    options.password = configuration.credentials?.password
    if configuration.broker.tls {
      options.tls = .init(
        caFile: configuration.caFile, certificate: configuration.certificate,
        key: configuration.key)
    }
    options.sendMaximum = Int32(Self.window)
    options.keepalive = configuration.keepalive
    options.will = (topic("online"), Array(#"{"online":false}"#.utf8))
    options.alternates = configuration.alternates.map { ($0.host, $0.port) }
    options.version311 = configuration.version311
    var handlers = MQTTClient.Handlers()
    handlers.connected = { [self] reason, present in
      queue.async { @Sendable [self] in connectionChanged(reason: reason, sessionPresent: present) }
    }
    handlers.disconnected = { [self] reason in
      queue.async { @Sendable [self] in disconnected(reason: reason) }
    }
    handlers.acknowledged = { [self] mid in
      queue.async { @Sendable [self] in acknowledged(mid) }
    }
    handlers.message = { [self] topic, payload in
      queue.async { @Sendable [self] in received(topic, payload) }
    }
    let client = try MQTTClient(options, handlers: handlers)
    // The socket's commands, as from a peer permitted to change guidance: whoever reaches the
    // topic was let through by the broker's ACL. Answers are journalled like events; `watch`
    // says the last event journalled (live events go to the `events` topic regardless).
    let commands = configuration.commands ? context.commands : nil
    let channel = commands.map { service in
      CommandChannel(
        service: service, caller: .init("MQTT", mayChangeGuidance: true), queue: queue,
        isOpen: { [weak self] in self?.client != nil },
        answer: { [weak self] object in self?.reply(object) },
        watch: { [weak self] _ in Int(self?.lastSeq ?? 0) })
    }
    queue.sync {
      self.journal = journal
      self.client = client
      self.commands = channel
      commandMemory = memory
      sendFrom = journal.ledger.live.first?.id ?? 0
      armConnectReport()
    }
    // A failure is said by the report armed above, with everything libmosquitto knows by then.
    client.start { _ in }
    return self
  }

  public func stop() async {
    let done: Bool = queue.sync { client == nil }
    if done { return }
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      queue.async { @Sendable [self] in
        drain()
        stopWaiters.append { c.resume() }
        if handedOver {
          finishStopping()
        } else {
          // What is journalled stays for the next start; a short wait lets the broker take it
          // now (also when the first connect is still under way).
          queue.asyncAfter(deadline: .now() + Self.stopGrace) { @Sendable [self] in
            finishStopping()
          }
        }
      }
    }
  }

  /// Says offline, disconnects and stops the network thread (once), then wakes `stop()`.
  private func finishStopping() {
    guard let client else {
      resumeStopWaiters()
      return
    }
    // The last state, with what still waits, goes out before the DISCONNECT.
    if publishedPending != (journal?.ledger.count ?? 0) { stateDirty = true }
    publishState()
    self.client = nil
    journal?.sync()
    // Off the uplink queue: disconnecting joins the network thread, whose callbacks hop here.
    DispatchQueue.global().async { @Sendable [self] in
      client.close()
      queue.async { @Sendable [self] in resumeStopWaiters() }
    }
  }

  private func resumeStopWaiters() {
    let waiters = stopWaiters
    stopWaiters = []
    for w in waiters { w() }
  }

  // MARK: EventSink (the engine's task; never blocks)

  public func receive(_ publication: Publication) {
    receive(CollectionOfOne(publication))
  }

  public func receive(_ publications: [Publication]) {
    receive(publications[...])
  }

  private func receive(_ items: some Collection<Publication>) {
    let schedule = pending.withLock { p -> Bool in
      guard !p.finished else { return false }
      p.publications.append(contentsOf: items)
      if p.scheduled { return false }
      p.scheduled = true
      return true
    }
    if schedule { queue.async { @Sendable [self] in drain() } }
  }

  public func finish() {
    pending.withLock { $0.finished = true }
    queue.async { @Sendable [self] in drain() }
  }

  /// After the events received so far are written to the journal: every event received has a
  /// `drain` queued ahead of this block (``receive(_:)`` queues one unless one is waiting), and
  /// the queue is serial, so `then` also runs in the order of the calls.
  public func afterKept(_ then: @escaping @Sendable () -> Void) {
    queue.async(execute: then)
  }

  // MARK: On the queue

  private func drain() {
    let batch = pending.withLock { p -> [Publication] in
      let b = p.publications
      p.publications.removeAll(keepingCapacity: true)
      p.scheduled = false
      return b
    }
    guard let journal, !batch.isEmpty else { return }
    for p in batch { journalEvent(p, journal) }
    handOver(journal)
  }

  /// Writes what was journalled to the file, hands it to libmosquitto, then waits for the disk.
  ///
  /// Written before it is handed over, so it survives the process; made durable after, so the
  /// hand-over does not wait for `fdatasync` (tens of milliseconds when a hundred vehicles'
  /// journals on one disk sync at once, the whole tail of the fleet benchmark's latency). A
  /// power cut before the `fdatasync` ends loses what the broker did not take either way: had
  /// the hand-over waited, the message would not have left yet.
  private func handOver(_ journal: Journal) {
    journal.sync(durable: false)
    pump()
    persist(journal)
  }

  /// Syncs the journal; a failure (a full or broken disk) is said once, and messages still go
  /// out, only without surviving a crash until the journal works again.
  private func persist(_ journal: Journal) {
    let ok = journal.sync()
    if !ok && !journalFailing, let failure = journal.failure {
      logLine(4, "stepwised: MQTT journal: \(failure); sending without it until it works again")
    }
    journalFailing = !ok
  }

  private func journalEvent(_ p: Publication, _ journal: Journal) {
    lastSeq = p.seq
    state.apply(p.event, seq: p.seq)
    if case .navigation(let e) = p.event, case .progress(let progress, let ahead) = e.kind {
      // A change of what lies ahead passes: `ahead` is sent only when it changes, so a
      // throttled one would leave a screen fed by `progress` with the old list.
      if ahead == nil, let last = lastProgressTime,
        e.time - last < configuration.progressInterval, e.time >= last
      {
        return
      }
      lastProgressTime = e.time
      // The line every sink shares, with `boot` after `seq` (only for what is journalled).
      let expiry = wallClock() + Self.progressLifetime
      add(journal, .progress, topic("progress"), p.line.bytes(boot: boot), expiry: expiry)
      if let ownTracks = configuration.ownTracks,
        let location = ownTracks.location(progress, time: e.time, estimated: e.estimated)
      {
        // Retained, as the OwnTracks apps send locations: a tool that starts later shows where
        // the vehicle was last.
        add(journal, .progress, ownTracks.topic, location, retain: true, expiry: expiry)
      }
    } else {
      add(journal, .event, topic("events"), p.line.bytes(boot: boot))
    }
  }

  private func add(
    _ journal: Journal, _ tier: JournalEntry.Tier, _ topic: String, _ payload: [UInt8],
    retain: Bool = false, expiry: Double? = nil
  ) {
    let before = journal.ledger.droppedEvents
    _ = journal.append(tier: tier, topic: topic, payload: payload, retain: retain, expiry: expiry)
    stateDirty = true
    if journal.ledger.droppedEvents > before {
      logLine(
        4,
        "stepwised: MQTT journal full (\(configuration.journalSize) bytes): dropped "
          + "\(journal.ledger.droppedEvents - before) event(s); counted in state")
    }
  }

  /// Hands journalled messages to libmosquitto, oldest first, while connected and within the
  /// window; then the retained state when it changed.
  private func pump() {
    guard connected, let client, let journal else { return }
    while inFlight.count < Self.window {
      let next = journal.ledger.live(from: sendFrom, limit: Self.window - inFlight.count)
      if next.isEmpty { break }
      let now = wallClock()
      for e in next {
        sendFrom = e.id + 1
        var expiry: UInt32?
        if let deadline = e.expiry {
          guard deadline > now else {
            journal.complete(e.id)
            expired += 1
            continue
          }
          expiry = UInt32(max(1, (deadline - now).rounded(.up)))
        }
        let (rc, mid) = client.publish(
          e.topic, e.payload, qos: Int32(e.qos), retain: e.retain, expiry: expiry)
        if rc == 0 || rc == 4 {
          // 4 = MOSQ_ERR_NO_CONN: libmosquitto keeps the message and sends it on reconnect.
          inFlight[mid] = e.id
        } else {
          let failure = MQTTClient.Failure(code: rc, function: "publish")
          logLine(4, "stepwised: MQTT: cannot publish on \(e.topic): \(failure); dropped")
          journal.complete(e.id)
        }
      }
    }
    // The state says how much waits; once that drains, it says so too.
    if publishedPending > 0 && journal.ledger.count == 0 { stateDirty = true }
    if stateDirty && !stateScheduled {
      stateScheduled = true
      queue.asyncAfter(deadline: .now() + Self.stateDelay) { @Sendable [self] in
        stateScheduled = false
        publishState()
      }
    }
    journal.sync(durable: false)
  }

  /// Publishes the retained `state` now when it changed since the last one.
  private func publishState() {
    guard stateDirty, connected, let client else { return }
    stateDirty = false
    publishedPending = journal?.ledger.count ?? 0
    _ = client.publish(topic("state"), stateBytes(), qos: 1, retain: true)
  }

  private func stateBytes() -> [UInt8] {
    var o = state.object(boot: boot)
    o.append("boot", .string(boot))
    var uplink = JSONObject()
    if let ledger = journal?.ledger {
      uplink.append("pending", .number(Double(ledger.count)))
      uplink.append("droppedProgress", .number(Double(ledger.droppedProgress)))
      uplink.append("droppedEvents", .number(Double(ledger.droppedEvents)))
    }
    uplink.append("expired", .number(Double(expired)))
    o.append("uplink", .object(uplink))
    return Array(JSONWriter.string(.object(o)).utf8)
  }

  private func connectionChanged(reason: Int32, sessionPresent: Bool) {
    guard let client else { return }
    guard reason == 0 else {
      if lastConnectReason != reason {
        logLine(
          3,
          "stepwised: MQTT: \(linkName) refused the connection: "
            + "\(MQTTClient.reason(reason)) (check --mqtt-credentials and the broker's ACL); "
            + "retrying with back-off, guidance goes on")
      }
      lastConnectReason = reason
      return
    }
    lastConnectReason = nil
    connected = true
    linkEpoch += 1
    logLine(
      connectedOnce ? 5 : 6,
      "stepwised: MQTT: connected to \(linkName) as \(configuration.vehicle)"
        + (sessionPresent ? " (session kept)" : ""))
    connectedOnce = true
    var online = JSONObject()
    online.append("online", true)
    online.append("boot", .string(boot))
    online.append("release", .string(configuration.release))
    _ = client.publish(
      topic("online"), Array(JSONWriter.string(.object(online)).utf8), qos: 1, retain: true)
    if configuration.commands { client.subscribe(topic("command")) }
    // Messages handed over before the drop are libmosquitto's to resend; the rest follow.
    stateDirty = state.seq > 0
    publishState()
    pump()
  }

  private func disconnected(reason: Int32) {
    if connected && client != nil {
      // Under MQTT 3.1.1 there is no DISCONNECT reason: libmosquitto says its own error.
      let why =
        configuration.version311 ? MQTTClient.error(reason) : MQTTClient.reason(reason)
      logLine(4, "stepwised: MQTT: lost \(linkName) (\(why)); journalling until it is back")
      armConnectReport()
    }
    connected = false
  }

  /// Says once, ``connectReportDelay`` seconds from now, that the link is still down, with
  /// what libmosquitto said about the last failure: a handshake that fails on the network
  /// thread is reported by nothing else.
  ///
  /// Not after a refused CONNACK, which is said at once.
  private func armConnectReport() {
    linkEpoch += 1
    let epoch = linkEpoch
    let wasUp = connectedOnce
    queue.asyncAfter(deadline: .now() + Self.connectReportDelay) { @Sendable [self] in
      guard epoch == linkEpoch, !connected, lastConnectReason == nil, let client else { return }
      let why = client.lastFailure ?? "no failure reported yet"
      logLine(
        4,
        "stepwised: MQTT: not connected to \(linkName) "
          + "\(Int(Self.connectReportDelay)) s after "
          + (wasUp ? "losing it" : "connecting began") + " (libmosquitto: \(why)); "
          + "retrying with back-off, guidance goes on")
    }
  }

  private func acknowledged(_ mid: Int32) {
    guard let id = inFlight.removeValue(forKey: mid) else { return }
    journal?.complete(id)
    pump()
    if handedOver && !stopWaiters.isEmpty { finishStopping() }
  }

  /// Whether the broker has acknowledged everything journalled.
  private var handedOver: Bool { inFlight.isEmpty && (journal?.ledger.count ?? 0) == 0 }

  // MARK: Commands

  private func received(_ topic: String, _ payload: [UInt8]) {
    guard topic == self.topic("command"), let commands else { return }
    // Small enough to read: look at its id (replays) and notAfter (stale commands) first;
    // anything else (oversized, malformed) goes to the command channel as is, which answers it
    // as it answers a socket client.
    if payload.count <= commands.lineLimit,
      case .object(let o)? = try? JSONParser.parse(payload)
    {
      let id = o["id"]
      let name = o["cmd"]?.stringValue
      guard let id, let key = Self.key(id) else {
        // An id beyond a double (1e999) is no id, and is not echoed: it would be written as null.
        var echoed = id
        if case .number(let d)? = id, !d.isFinite { echoed = nil }
        reply(
          WireError(
            .badArgument, "commands over MQTT need an \"id\" (a string or a finite number)",
            command: name, id: echoed
          ).object)
        return
      }
      if let memory = commandMemory {
        if memory.contains(key) {
          logLine(6, "stepwised: MQTT: command \(key) again; ignored (replay)")
          return
        }
        let wasFailing = memory.failure != nil
        if !memory.remember(key), !wasFailing, let failure = memory.failure {
          logLine(
            4,
            "stepwised: MQTT: cannot keep command ids: \(failure); a command delivered again "
              + "after a restart may run twice")
        }
      }
      if let limit = o["notAfter"] {
        guard let deadline = Self.time(limit) else {
          reply(
            WireError(
              .badArgument, "\"notAfter\" must be an ISO 8601 time or seconds since 1970",
              command: name, id: id
            ).object)
          return
        }
        if wallClock() > deadline {
          reply(
            WireError(.expired, "the command arrived after its notAfter", command: name, id: id)
              .object)
          return
        }
      }
    }
    commands.feed(payload + [0x0A])
    commands.run()
  }

  /// Journals one `REPLY` or `ERROR` for `reply`.
  private func reply(_ object: JSONObject) {
    guard let journal else { return }
    _ = journal.append(
      tier: .event, topic: topic("reply"), payload: Array(JSONWriter.string(.object(object)).utf8))
    handOver(journal)
  }

  // MARK: Helpers

  static func key(_ id: JSONValue) -> String? {
    switch id {
    case .string(let s): "s" + s
    case .number(let d) where d.isFinite: "n" + JSONWriter.string(.number(d))
    default: nil
    }
  }

  static func time(_ value: JSONValue) -> Double? {
    switch value {
    case .number(let d): d
    case .string(let s): UTCTime.parseISO8601(s)
    default: nil
    }
  }

  private func wallClock() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }
}

/// The uplink was started without a state directory for its journal.
struct NoStateDirectory: Error, CustomStringConvertible {
  var description: String {
    "--mqtt needs a state directory for its journal (--state-dir DIR, or StateDirectory= "
      + "under systemd)"
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
