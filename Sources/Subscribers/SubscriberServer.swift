import Dispatch
public import Events
import Glibc
import JSON
import POSIX
import RouteFiles
public import Routes
import Wire

/// Publishes guidance to the clients of a Unix stream socket and takes their commands
/// (`docs/protocol.md`).
///
/// Every client gets `VERSION`, then `STATE` (the publisher's state when it joined, for
/// clients that join late), then every event of its ``EventPublisher`` after that state, as the
/// publisher numbered and encoded it (``Publication/line``). Clients may send commands: `watch`,
/// `status` and `routes` are answered here; `select`, `load`, `cancel` and `reroute` go to the
/// ``GuidanceCommandHandler`` given at start, and only from permitted peers (``AccessPolicy``).
///
/// Receiving an event never blocks: it appends to a list under a lock and lets the server's
/// queue do the rest. Each client has a bounded queue (``Configuration/queueLimit``); a client
/// that lets it overflow is sent an `ERROR` with code `overflow` (when its socket still takes
/// it) and disconnected, without slowing anybody else. A client that vanishes mid-write costs an
/// `EPIPE`, never a signal.
///
/// Concurrency: all mutable state, the connections included, lives on one private serial
/// `DispatchQueue`; its read and write sources run there too. That confinement is the invariant
/// behind `@unchecked Sendable`. The pending-event list is the only state shared with other
/// threads, and it is inside a `Locked`.
public final class SubscriberServer: @unchecked Sendable {
  /// Limits and settings of a server.
  public struct Configuration: Sendable {
    /// The Stepwise release named in `VERSION`.
    public var release = SubscriberServer.release
    /// Clients beyond this number are told `tooManyClients` and disconnected.
    public var maximumClients = 64
    /// The longest command line accepted from any client, in bytes.
    public var maximumCommandLength = 4096
    /// The largest route document a permitted peer may `load`, in bytes of its command line.
    public var maximumDocumentSize = 4 << 20
    /// Bytes that may wait for one client before it counts as stuck and is disconnected.
    public var queueLimit = 256 << 10
    /// `SO_SNDBUF` of client sockets, in bytes; `nil` keeps the kernel default.
    public var sendBufferSize: Int?
    /// How long a stuck or shutting-down client gets to take its last message, in seconds.
    public var closeGrace = 1.0
    /// Who may change guidance.
    public var access = AccessPolicy()
    /// Where diagnostics go: a priority (3 error … 7 debug, as sd-daemon) and a line.
    public var log: @Sendable (Int, String) -> Void = SubscriberServer.standardErrorLog

    public init() {}
  }

  /// Counters, for logs and tests.
  public struct Statistics: Sendable, Equatable {
    /// Clients connected now.
    public var connected = 0
    /// Clients accepted since start.
    public var accepted = 0
    /// Clients turned away because ``Configuration/maximumClients`` were connected.
    public var refusedFull = 0
    /// Clients disconnected because their queue overflowed.
    public var overflowed = 0
    /// Guidance commands refused for lack of permission.
    public var refusedCommands = 0
    /// Events published (the last `seq`).
    public var published = 0
    /// The most bytes ever queued for one client.
    public var peakQueuedBytes = 0
    /// Queues of at least ``HeapRelease/backlogWorthTrimming`` bytes that were sent or dropped,
    /// after which the heap was trimmed (``HeapRelease/afterBacklog()``).
    public var backlogsReleased = 0
  }

  /// The release string of this build, sent in `VERSION`.
  public static let release = "0.1.0"

  public let configuration: Configuration
  /// `nil` for a server that only runs remote commands (``remoteClient(answers:)``).
  private let listener: ListeningSocket?
  private let handler: GuidanceCommandHandler?
  /// Numbers the events and keeps the state late clients start from.
  public let publisher: EventPublisher
  private let queue = DispatchQueue(label: "stepwise.subscribers")

  private struct Pending {
    var events: [Publication] = []
    var scheduled = false
    var stopped = false
  }
  private let pending = Locked(Pending())

  // State confined to `queue`.
  private var acceptSource: (any DispatchSourceRead)?
  private var acceptPaused = false
  private var connections: [UInt64: SubscriberConnection] = [:]
  /// The same connections in the order they joined: the order events are sent in.
  private var joinOrder: [SubscriberConnection] = []
  /// Clients that are not sockets (``remoteClient(answers:)``): they get answers, never events.
  private var remotes: [UInt64: SubscriberConnection] = [:]
  private var nextID: UInt64 = 1
  private var document: RouteDocument?
  /// The alternative of `document` being followed; `nil` after `cancel`.
  private var selectedRoute: Int?
  private var stats = Statistics()
  private var scratch = [UInt8](repeating: 0, count: 64 << 10)
  private var shuttingDown = false
  private var shutdownDone: DispatchSemaphore?
  /// Told of the events the server makes itself (``observeOwnEvents(_:)``).
  private var ownEventObservers: [@Sendable (JSONObject) -> Void] = []

  /// Creates a server on `listener` and starts accepting.
  ///
  /// - Parameters:
  ///   - listener: a listening socket, bound or adopted.
  ///   - configuration: limits and access policy.
  ///   - commands: carries out `select`, `load` and `cancel`; `nil` answers them `unavailable`.
  ///   - publisher: the events to serve; the server joins it as a sink.
  public init(
    listener: ListeningSocket, configuration: Configuration = Configuration(),
    commands: GuidanceCommandHandler? = nil, publisher: EventPublisher = EventPublisher()
  ) {
    self.listener = listener
    self.configuration = configuration
    self.handler = commands
    self.publisher = publisher
    let source = DispatchSource.makeReadSource(fileDescriptor: listener.fd, queue: queue)
    source.setEventHandler { @Sendable [weak self] in self?.acceptPending() }
    source.setCancelHandler { @Sendable [listener] in listener.close() }
    acceptSource = source
    source.resume()
    publisher.add(self)
  }

  /// Creates a server without a socket, for remote commands only (``remoteClient(answers:)``):
  /// it keeps the state and the route document that `status` and `routes` answer from.
  public init(
    configuration: Configuration = Configuration(), commands: GuidanceCommandHandler?,
    publisher: EventPublisher = EventPublisher()
  ) {
    self.listener = nil
    self.configuration = configuration
    self.handler = commands
    self.publisher = publisher
    publisher.add(self)
  }

  // MARK: Remote clients (any thread but the server's queue)

  /// Takes one message of a remote client (``remoteClient(answers:)``).
  public typealias RemoteSender = @Sendable ([UInt8]) -> Void

  /// Adds a client that is not a socket (a fleet dispatcher behind an MQTT broker) and returns
  /// the function that takes its messages.
  ///
  /// Each message is framed, limited, parsed, validated and carried out exactly as a socket
  /// client's command lines are, one at a time, as from a peer permitted to change guidance
  /// (whoever reaches this client was let through by its transport, e.g. the broker's ACL).
  /// Every `REPLY` or `ERROR` line (with its line end) goes to `answers`, on the server's
  /// queue; live events do not.
  public func remoteClient(answers: @escaping @Sendable ([UInt8]) -> Void) -> RemoteSender {
    let c = queue.sync { () -> SubscriberConnection in
      let c = SubscriberConnection(
        id: nextID, fd: -1, peer: PeerCredentials(pid: 0, uid: getuid(), gid: getgid()),
        mayChangeGuidance: true,
        framer: LineFramer(
          maximumLength: max(
            configuration.maximumCommandLength, configuration.maximumDocumentSize + 4096)))
      c.deliver = answers
      nextID += 1
      remotes[c.id] = c
      return c
    }
    return { @Sendable [self] message in
      let line = message + [0x0A]
      queue.async { @Sendable [self] in
        guard !c.closed else { return }
        c.backlog += c.framer.feed(line[...])
        runBacklog(c)
      }
    }
  }

  /// Tells the server which document is loaded and which alternative is followed, for `routes`
  /// and for checking `select`.
  public func setRouteDocument(_ document: RouteDocument, selected: Int?) {
    queue.async { @Sendable [self] in
      self.document = document
      selectedRoute = selected
      if let selected { publisher.routeLoaded(routeIndex: selected) }
    }
  }

  /// The counters so far.
  ///
  /// Must not be called on the server's queue.
  public var statistics: Statistics {
    queue.sync { stats }
  }

  /// Stops the server: no more clients, every client is sent the events published so far and an
  /// `ERROR` with code `shutdown`, and disconnected.
  ///
  /// The socket file is removed when the server bound it. Returns when every client is gone or
  /// after ``Configuration/closeGrace`` seconds. Must not be called on the server's queue; later
  /// calls do nothing.
  public func shutdown(message: String = "stepwised is stopping") {
    let done = DispatchSemaphore(value: 0)
    queue.async { @Sendable [self] in
      guard !shuttingDown else {
        done.signal()
        return
      }
      drain()
      pending.withLock { $0.stopped = true }
      shuttingDown = true
      for c in remotes.values { c.closed = true }
      remotes.removeAll()
      if acceptPaused {
        acceptPaused = false
        acceptSource?.resume()
      }
      acceptSource?.cancel()
      acceptSource = nil
      let notice = Self.lineBytes(WireError(.shutdown, message).object)
      for c in connections.values where !c.closing {
        c.enqueue(notice)
        c.closing = true
        stopReading(c)
        flush(c)
      }
      if connections.isEmpty {
        done.signal()
      } else {
        shutdownDone = done
        queue.asyncAfter(deadline: .now() + configuration.closeGrace) { @Sendable [self] in
          for c in connections.values { close(c) }
        }
      }
    }
    _ = done.wait(timeout: .now() + configuration.closeGrace + 2)
  }

  // MARK: Fan-out (on the queue)

  /// Sends the pending events to every subscriber, in the order they joined.
  ///
  /// A subscriber with nothing waiting that takes every event of the batch (nearly all, nearly
  /// always) is sent the batch's bytes straight from the shared line with one `send`: nothing
  /// is queued, copied or retained for it unless its socket is full.
  private func drain() {
    let batch = pending.withLock { p -> [Publication] in
      let events = p.events
      p.events.removeAll(keepingCapacity: true)
      p.scheduled = false
      return events
    }
    guard let first = batch.first, let last = batch.last else { return }
    stats.published = Int(last.seq)
    // Nobody to send to: no line is encoded.
    guard joinOrder.contains(where: { !$0.closing }) else { return }
    let whole = batch.count == 1 ? first.line.bytes : batch.flatMap { $0.line.bytes }
    let names = batch.map { $0.event.className }
    for c in joinOrder where !c.closing {
      if !c.hasQueued && !c.writeArmed && first.seq > c.joinedAfter
        && names.allSatisfy(c.watch.passes)
      {
        sendNow(c, whole, batch)
        continue
      }
      for p in batch where p.seq > c.joinedAfter && c.watch.passes(p.event.className) {
        enqueue(c, p.line.bytes)
      }
      if c.hasQueued && !c.writeArmed { flush(c) }
    }
  }

  /// Sends `bytes` (the lines of `batch`) to `c`, whose queue is empty; what the socket does not
  /// take is queued as ``flush(_:)`` would have left it.
  private func sendNow(_ c: SubscriberConnection, _ bytes: [UInt8], _ batch: [Publication]) {
    let sent: Int
    do {
      sent =
        try bytes.withUnsafeBytes { raw in
          Result { () throws(SystemError) in try SocketCalls.send(c.fd, raw) }
        }.get() ?? 0
    } catch {
      // The client went away (EPIPE, ECONNRESET): nothing to tell it.
      close(c)
      return
    }
    guard sent < bytes.count else {
      closeIfIdle(c)
      return
    }
    for p in batch { c.enqueue(p.line.bytes) }
    c.consume(sent)
    noteQueued(c)
    if !c.closing && !c.writeArmed {
      c.writeArmed = true
      c.writeSource?.resume()
    }
  }

  static func lineBytes(_ object: JSONObject) -> [UInt8] {
    var bytes = Array(JSONWriter.string(.object(object)).utf8)
    bytes.append(0x0A)
    return bytes
  }

  private func enqueue(_ c: SubscriberConnection, _ line: [UInt8]) {
    guard !c.closing else { return }
    c.enqueue(line)
    noteQueued(c)
  }

  /// Counts `c`'s queue in the peak and disconnects `c` when it is over the limit.
  private func noteQueued(_ c: SubscriberConnection) {
    if c.queuedBytes > stats.peakQueuedBytes { stats.peakQueuedBytes = c.queuedBytes }
    if c.queuedBytes > c.backlogPeak { c.backlogPeak = c.queuedBytes }
    if c.queuedBytes > configuration.queueLimit { overflow(c) }
  }

  /// `c`'s queue is empty or gone: after a backlog worth it, the heap is trimmed.
  private func backlogReleased(_ c: SubscriberConnection) {
    guard c.backlogPeak >= HeapRelease.backlogWorthTrimming else { return }
    c.backlogPeak = 0
    stats.backlogsReleased += 1
    HeapRelease.afterBacklog()
  }

  private func overflow(_ c: SubscriberConnection) {
    stats.overflowed += 1
    configuration.log(
      5,
      "stepwised: subscriber \(c.peer) is not reading; disconnected (queue over "
        + "\(configuration.queueLimit) bytes)")
    c.dropQueuedLines()
    c.enqueue(
      Self.lineBytes(
        WireError(
          .overflow,
          "too slow: more than \(configuration.queueLimit) bytes were waiting; disconnecting"
        ).object))
    c.closing = true
    stopReading(c)
    let id = c.id
    queue.asyncAfter(deadline: .now() + configuration.closeGrace) { @Sendable [weak self] in
      guard let self, let c = connections[id] else { return }
      close(c)
    }
  }

  private func flush(_ c: SubscriberConnection) {
    guard !c.closed else { return }
    do {
      if try c.flush(&scratch) {
        backlogReleased(c)
        if c.writeArmed {
          c.writeSource?.suspend()
          c.writeArmed = false
        }
        closeIfIdle(c)
      } else if !c.writeArmed {
        c.writeArmed = true
        c.writeSource?.resume()
      }
    } catch {
      // The client went away (EPIPE, ECONNRESET): nothing to tell it.
      close(c)
    }
  }

  private func closeIfIdle(_ c: SubscriberConnection) {
    if (c.closing || c.readClosed) && !c.busy && !c.hasQueued { close(c) }
  }

  // MARK: Connections (on the queue)

  private func acceptPending() {
    while !shuttingDown, let listener {
      let fd: Int32
      do {
        guard let accepted = try SocketCalls.accept(listener.fd) else { return }
        fd = accepted
      } catch {
        configuration.log(3, "stepwised: \(error)")
        let e = error.errno
        if e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM, let source = acceptSource,
          !acceptPaused
        {
          // Out of descriptors: pause accepting instead of spinning on a readable listener.
          source.suspend()
          acceptPaused = true
          queue.asyncAfter(deadline: .now() + 0.2) { @Sendable [weak self] in
            guard let self, acceptPaused else { return }
            acceptPaused = false
            acceptSource?.resume()
          }
        }
        return
      }
      admit(fd)
    }
  }

  private func admit(_ fd: Int32) {
    let peer: PeerCredentials
    do {
      peer = try PeerCredentials.of(fd)
    } catch {
      configuration.log(4, "stepwised: a client was refused: \(error)")
      SocketCalls.close(fd)
      return
    }
    if connections.count >= configuration.maximumClients {
      stats.refusedFull += 1
      configuration.log(
        4,
        "stepwised: refused subscriber \(peer): \(configuration.maximumClients) clients connected")
      let notice = Self.lineBytes(
        WireError(
          .tooManyClients, "too many clients (\(configuration.maximumClients)); try again later"
        ).object)
      _ = notice.withUnsafeBytes { raw in try? SocketCalls.send(fd, raw) }
      SocketCalls.close(fd)
      return
    }
    if let size = configuration.sendBufferSize {
      try? SocketCalls.setOption(fd, SOL_SOCKET, SO_SNDBUF, Int32(clamping: size), "SO_SNDBUF")
    }
    let permitted = configuration.access.mayChangeGuidance(peer)
    let limit =
      permitted
      ? max(configuration.maximumCommandLength, configuration.maximumDocumentSize + 4096)
      : configuration.maximumCommandLength
    let c = SubscriberConnection(
      id: nextID, fd: fd, peer: peer, mayChangeGuidance: permitted,
      framer: LineFramer(maximumLength: limit))
    nextID += 1
    connections[c.id] = c
    joinOrder.append(c)
    stats.accepted += 1
    stats.connected = connections.count

    let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
    read.setEventHandler { @Sendable [weak self, c] in self?.readable(c) }
    write.setEventHandler { @Sendable [weak self, c] in self?.flush(c) }
    let release: @Sendable () -> Void = { [c] in
      c.liveSources -= 1
      if c.liveSources == 0 { SocketCalls.close(c.fd) }
    }
    read.setCancelHandler(handler: release)
    write.setCancelHandler(handler: release)
    c.readSource = read
    c.writeSource = write
    c.liveSources = 2
    read.resume()
    // The write source stays suspended until a send would block.

    // Events up to the state's are in it; the client gets only the later ones.
    let state = publisher.state
    c.joinedAfter = state.seq
    c.enqueue(Self.lineBytes(ProtocolVersion.versionObject(release: configuration.release)))
    c.enqueue(Self.lineBytes(state.object))
    flush(c)
  }

  private func stopReading(_ c: SubscriberConnection) {
    guard let read = c.readSource else { return }
    if c.readSuspended {
      read.resume()
      c.readSuspended = false
    }
    read.cancel()
    c.readSource = nil
  }

  private func close(_ c: SubscriberConnection) {
    guard !c.closed else { return }
    c.closed = true
    c.closing = true
    stopReading(c)
    if let write = c.writeSource {
      if !c.writeArmed { write.resume() }
      c.writeArmed = false
      write.cancel()
      c.writeSource = nil
    }
    connections[c.id] = nil
    if let i = joinOrder.firstIndex(where: { $0 === c }) { joinOrder.remove(at: i) }
    stats.connected = connections.count
    backlogReleased(c)
    if shuttingDown && connections.isEmpty, let done = shutdownDone {
      shutdownDone = nil
      done.signal()
    }
  }

  // MARK: Commands (on the queue)

  private func readable(_ c: SubscriberConnection) {
    guard !c.closed, !c.readSuspended, c.readSource != nil else { return }
    var items: [LineFramer.Item] = []
    var ended = false
    do {
      for _ in 0..<4 {
        let n = try scratch.withUnsafeMutableBytes { raw in
          Result { () throws(SystemError) in try SocketCalls.receive(c.fd, into: raw) }
        }.get()
        guard let n else { break }
        if n == 0 {
          ended = true
          break
        }
        items += c.framer.feed(scratch[0..<n])
        if n < scratch.count { break }
      }
    } catch {
      close(c)
      return
    }
    c.backlog += items
    runBacklog(c)
    if ended {
      c.readClosed = true
      stopReading(c)
      closeIfIdle(c)
    }
  }

  private func runBacklog(_ c: SubscriberConnection) {
    while !c.busy && !c.closed && !c.closing && !c.backlog.isEmpty {
      let item = c.backlog.removeFirst()
      handle(item, from: c)
    }
    if c.busy && !c.readSuspended, let read = c.readSource {
      read.suspend()
      c.readSuspended = true
    } else if !c.busy && c.readSuspended, let read = c.readSource {
      read.resume()
      c.readSuspended = false
    }
    if !c.closed { flush(c) }
  }

  private func answer(_ c: SubscriberConnection, _ object: JSONObject) {
    enqueue(c, Self.lineBytes(object))
  }

  private func refuse(_ c: SubscriberConnection, _ command: String, id: JSONValue?) {
    stats.refusedCommands += 1
    configuration.log(4, "stepwised: refused \(command) from \(c.peer): not permitted")
    answer(
      c,
      WireError(
        .notPermitted,
        "\(command): permission denied (only root, the daemon's user or the control group may "
          + "change guidance)", command: command, id: id
      ).object)
  }

  private func handle(_ item: LineFramer.Item, from c: SubscriberConnection) {
    let request: CommandRequest
    switch item {
    case .overlong(let prefix, let length):
      let isLoad = Self.contains(prefix, Array("\"load\"".utf8))
      if isLoad && !c.mayChangeGuidance {
        refuse(c, "load", id: nil)
      } else if isLoad {
        answer(
          c,
          WireError(
            .documentTooLarge,
            "load: the command is \(length) bytes; route documents may have at most "
              + "\(configuration.maximumDocumentSize) bytes", command: "load"
          ).object)
      } else {
        answer(
          c,
          WireError(
            .lineTooLong,
            "command line of \(length) bytes discarded; the limit is \(c.framer.maximumLength) bytes"
          ).object)
      }
      return
    case .line(let bytes):
      do {
        request = try CommandRequest.parse(line: bytes)
      } catch {
        answer(c, error.object)
        return
      }
    }
    switch request.command {
    case .watch(let w):
      c.watch = w
      var members: [(key: String, value: JSONValue)] = [
        ("enable", .bool(w.enable)), ("seq", .number(Double(stats.published))),
      ]
      if let classes = w.classes {
        members.append(("classes", .array(classes.map { .string($0) })))
      }
      answer(c, Reply.object(for: request, members))
    case .status:
      answer(c, Reply.object(for: request, [("state", .object(publisher.state.object))]))
    case .routes(let steps, let geometry):
      guard let document else {
        answer(
          c,
          WireError(.noRoute, "no route document is loaded", command: "routes", id: request.id)
            .object)
        return
      }
      answer(
        c,
        Reply.object(
          for: request,
          Reply.routesMembers(
            document, selected: selectedRoute, steps: steps, geometry: geometry)))
    case .select, .load, .cancel, .reroute, .skip:
      guard c.mayChangeGuidance else {
        refuse(c, request.command.name, id: request.id)
        return
      }
      guard let handler, !shuttingDown else {
        answer(
          c,
          WireError(
            .unavailable,
            "\(request.command.name): this daemon does not take guidance commands now",
            command: request.command.name, id: request.id
          ).object)
        return
      }
      if case .select(let i) = request.command {
        guard let document else {
          answer(
            c,
            WireError(
              .noRoute, "select: no route document is loaded", command: "select", id: request.id
            ).object)
          return
        }
        guard document.routes.indices.contains(i) else {
          answer(
            c,
            WireError(
              .noSuchRoute,
              "select: no alternative \(i); the document has \(document.routes.count) "
                + (document.routes.count == 1
                  ? "route (index 0)" : "routes (0…\(document.routes.count - 1))"),
              command: "select", id: request.id
            ).object)
          return
        }
      }
      c.busy = true
      let seqAtStart = publisher.state.seq
      let id = c.id
      let peer = c.peer
      let finished: @Sendable (Result<GuidanceCommand, WireError>) -> Void = { [self] outcome in
        queue.async { @Sendable [self] in
          finish(request, outcome, connection: id, peer: peer, seqAtStart: seqAtStart)
        }
      }
      // Decoding a large document takes a while: off the fan-out queue, on a Dispatch thread
      // (never the cooperative pool, which a busy engine or test may hold).
      DispatchQueue.global(qos: .userInitiated).async { @Sendable in
        switch Self.guidanceCommand(request) {
        case .failure(let e):
          finished(.failure(e))
        case .success(let command):
          handler(command) { result in
            finished(result.map { command }.mapError { Self.wireError($0, request) })
          }
        }
      }
    }
  }

  /// The ``GuidanceCommand`` of a `select`, `load` or `cancel`, with a `load` document decoded
  /// and its alternative checked.
  private static func guidanceCommand(_ request: CommandRequest) -> Result<
    GuidanceCommand, WireError
  > {
    let name = request.command.name
    switch request.command {
    case .select(let i):
      return .success(.select(routeIndex: i))
    case .cancel:
      return .success(.cancel)
    case .reroute:
      return .success(.reroute)
    case .skip:
      return .success(.skip)
    case .load(let value, let index):
      let document: RouteDocument
      do {
        document = try RouteFiles.decode(Array(JSONWriter.string(value).utf8), name: "document")
      } catch {
        return .failure(WireError(.badRoute, "load: \(error)", command: name, id: request.id))
      }
      guard document.routes.indices.contains(index) else {
        return .failure(
          WireError(
            .noSuchRoute,
            "load: no alternative \(index); the document has \(document.routes.count) "
              + (document.routes.count == 1 ? "route" : "routes"), command: name, id: request.id))
      }
      return .success(.load(document, routeIndex: index))
    case .watch, .status, .routes:
      return .failure(WireError(.failed, "not a guidance command", command: name, id: request.id))
    }
  }

  /// The `ERROR` for a failure the engine reported.
  private static func wireError(_ error: any Error, _ request: CommandRequest) -> WireError {
    let name = request.command.name
    switch error {
    case var e as WireError:
      e.command = e.command ?? name
      e.id = e.id ?? request.id
      return e
    case let e as RouteDocumentError:
      let code: WireError.Code = e.code == .routeIndexOutOfRange ? .noSuchRoute : .badRoute
      return WireError(code, "\(name): \(e)", command: name, id: request.id)
    default:
      return WireError(.failed, "\(name): \(error)", command: name, id: request.id)
    }
  }

  private func finish(
    _ request: CommandRequest, _ outcome: Result<GuidanceCommand, WireError>, connection id: UInt64,
    peer: PeerCredentials, seqAtStart: UInt64
  ) {
    var reply: JSONObject
    switch outcome {
    case .success(let command):
      // The command took effect whether or not its sender is still connected.
      switch command {
      case .select(let i):
        selectedRoute = i
        publisher.beginGuidance(routeIndex: i, unlessRouteAfter: seqAtStart)
        reply = Reply.object(for: request, [("routeIndex", .number(Double(i)))])
      case .load(let doc, let i):
        document = doc
        selectedRoute = i
        publisher.beginGuidance(routeIndex: i, unlessRouteAfter: seqAtStart)
        reply = Reply.object(for: request, [("routeIndex", .number(Double(i)))])
      case .cancel:
        selectedRoute = nil
        publisher.publishCancelled()
        drain()
        reply = Reply.object(for: request)
      case .reroute, .skip, .reload:
        reply = Reply.object(for: request)
      }
      configuration.log(6, "stepwised: \(request.command.name) by \(peer)")
    case .failure(let error):
      reply = error.object
    }
    guard let c = connections[id] ?? remotes[id] else { return }
    c.busy = false
    if !c.closing { answer(c, reply) }
    runBacklog(c)
    closeIfIdle(c)
  }

  private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for i in 0...(haystack.count - needle.count)
    where haystack[i..<(i + needle.count)].elementsEqual(needle) {
      return true
    }
    return false
  }

  /// Writes `<priority>line` to standard error in one `write`, so lines from different threads
  /// never interleave.
  ///
  /// The corresponding C function is `write`.
  public static let standardErrorLog: @Sendable (Int, String) -> Void = { priority, text in
    let prefix = isatty(2) != 0 ? "" : "<\(priority)>"
    var bytes = Array((prefix + text).utf8)
    bytes.append(0x0A)
    _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
  }
}

extension SubscriberServer: EventSink {
  public func receive(_ publication: Publication) {
    receive(CollectionOfOne(publication))
  }

  public func receive(_ publications: [Publication]) {
    receive(publications[...])
  }

  private func receive(_ publications: some Collection<Publication>) {
    let schedule = pending.withLock { p -> Bool in
      guard !p.stopped else { return false }
      p.events.append(contentsOf: publications)
      if p.scheduled { return false }
      p.scheduled = true
      return true
    }
    if schedule { queue.async { @Sendable [self] in drain() } }
  }

  public func finish() {}
}
