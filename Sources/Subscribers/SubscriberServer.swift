public import Commands
import Dispatch
public import Events
import Glibc
import JSON
import POSIX
public import Routes
import Wire

/// Publishes guidance to the clients of a Unix stream socket and takes their commands
/// (`docs/protocol.md`).
///
/// Every client gets `VERSION`, then `STATE` (the publisher's state when it joined, for
/// clients that join late), then every event of its ``EventPublisher`` after that state, as the
/// publisher numbered and encoded it (``Publication/line``). Clients may send commands, which
/// the ``CommandService`` carries out (one ``CommandChannel`` per client); only permitted peers
/// (``AccessPolicy``) may change guidance.
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
    /// The longest command line accepted from any client, in bytes (for the command service
    /// a server makes itself; one given to the server has its own limits).
    public var maximumCommandLength = 4096
    /// The largest route document a permitted peer may `load`, in bytes of its command line
    /// (as ``maximumCommandLength``).
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
    public var log: @Sendable (Int, String) -> Void = { logLine($0, $1) }

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
  public static let release = ProtocolVersion.release

  public let configuration: Configuration
  private let listener: ListeningSocket
  /// Carries out the clients' commands.
  public let commands: CommandService
  /// Numbers the events and keeps the state late clients start from.
  public var publisher: EventPublisher { commands.publisher }
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
  private var nextID: UInt64 = 1
  private var stats = Statistics()
  private var scratch = [UInt8](repeating: 0, count: 64 << 10)
  private var shuttingDown = false
  private var shutdownDone: DispatchSemaphore?

  /// Creates a server on `listener`, with a command service of its own, and starts accepting.
  ///
  /// - Parameters:
  ///   - listener: a listening socket, bound or adopted.
  ///   - configuration: limits and access policy.
  ///   - commands: carries out `select`, `load` and `cancel`; `nil` answers them `unavailable`.
  ///   - publisher: the events to serve; the server joins it as a sink.
  public convenience init(
    listener: ListeningSocket, configuration: Configuration = Configuration(),
    commands: GuidanceCommandHandler? = nil, publisher: EventPublisher = EventPublisher()
  ) {
    var c = CommandService.Configuration()
    c.maximumCommandLength = configuration.maximumCommandLength
    c.maximumDocumentSize = configuration.maximumDocumentSize
    c.log = configuration.log
    self.init(
      listener: listener, configuration: configuration,
      service: CommandService(configuration: c, handler: commands, publisher: publisher))
  }

  /// Creates a server on `listener` that takes its clients' commands to `service` (which other
  /// transports may share) and serves the events of `service`'s publisher; starts accepting.
  public init(listener: ListeningSocket, configuration: Configuration, service: CommandService) {
    self.listener = listener
    self.configuration = configuration
    self.commands = service
    let source = DispatchSource.makeReadSource(fileDescriptor: listener.fd, queue: queue)
    source.setEventHandler { @Sendable [weak self] in self?.acceptPending() }
    source.setCancelHandler { @Sendable [listener] in listener.close() }
    acceptSource = source
    source.resume()
    service.publisher.add(self)
  }

  /// Tells the command service which document is loaded and which alternative is followed,
  /// for `routes` and for checking `select`.
  public func setRouteDocument(_ document: RouteDocument, selected: Int?) {
    commands.setRouteDocument(document, selected: selected)
  }

  /// The counters so far.
  ///
  /// Must not be called on the server's queue.
  public var statistics: Statistics {
    var s = queue.sync { stats }
    s.refusedCommands = commands.refusedCommands
    return s
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
    if (c.closing || c.readClosed) && c.commands?.isBusy != true && !c.hasQueued { close(c) }
  }

  // MARK: Connections (on the queue)

  private func acceptPending() {
    while !shuttingDown {
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
    let c = SubscriberConnection(id: nextID, fd: fd, peer: peer)
    c.commands = channel(c, mayChangeGuidance: configuration.access.mayChangeGuidance(peer))
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
    guard !c.closed, !c.readSuspended, c.readSource != nil, let commands = c.commands else {
      return
    }
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
        commands.feed(scratch[0..<n])
        if n < scratch.count { break }
      }
    } catch {
      close(c)
      return
    }
    runCommands(c)
    if ended {
      c.readClosed = true
      stopReading(c)
      closeIfIdle(c)
    }
  }

  /// Runs `c`'s waiting command lines; reading pauses while a guidance command is under way.
  private func runCommands(_ c: SubscriberConnection) {
    guard let commands = c.commands else { return }
    commands.run()
    if commands.isBusy && !c.readSuspended, let read = c.readSource {
      read.suspend()
      c.readSuspended = true
    } else if !commands.isBusy && c.readSuspended, let read = c.readSource {
      read.resume()
      c.readSuspended = false
    }
    if !c.closed { flush(c) }
  }

  /// The command channel of a new connection: its answers are queued like its events.
  private func channel(_ c: SubscriberConnection, mayChangeGuidance: Bool) -> CommandChannel {
    CommandChannel(
      service: commands, caller: .init("\(c.peer)", mayChangeGuidance: mayChangeGuidance),
      queue: queue, isOpen: { [weak c] in c.map { !$0.closed && !$0.closing } ?? false },
      answer: { [weak self, weak c] object in
        guard let self, let c else { return }
        enqueue(c, Self.lineBytes(object))
      },
      watch: { [weak self, weak c] w in
        c?.watch = w
        return self?.stats.published ?? 0
      },
      settled: { [weak self, weak c] in
        guard let self, let c else { return }
        runCommands(c)
        closeIfIdle(c)
      })
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
