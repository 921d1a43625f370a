import Dispatch
public import Events
import JSON
import POSIX
import RouteFiles
public import Routes
public import Wire

/// The daemon's commands (`docs/protocol.md`), carried out for every transport that takes them:
/// the subscriber socket and the fleet uplink's `command` topic.
///
/// `watch`, `status` and `routes` are answered at once; `select`, `load`, `cancel`, `reroute`
/// and `skip` go to the ``GuidanceCommandHandler`` given at start (the engine), and only from
/// callers permitted to change guidance. The service keeps what the answers need beside the
/// publisher's state: the loaded route document and the alternative followed.
///
/// A transport talks to it through one ``CommandChannel`` per client, which frames the client's
/// bytes, limits its lines and runs its commands one at a time, on the transport's own queue.
///
/// Concurrency: the document, the alternative and the counters are inside a `Locked`; every
/// other member is immutable. That is the invariant behind `Sendable`.
public final class CommandService: Sendable {
  /// Limits and diagnostics.
  public struct Configuration: Sendable {
    /// The longest command line accepted from any client, in bytes.
    public var maximumCommandLength = 4096
    /// The largest route document a permitted caller may `load`, in bytes of its command line.
    public var maximumDocumentSize = 4 << 20
    /// Where diagnostics go: a priority (3 error … 7 debug, as sd-daemon) and a line.
    public var log: @Sendable (Int, String) -> Void = { logLine($0, $1) }

    public init() {}
  }

  /// Who sent a command: how logs name it, and whether it may change guidance.
  public struct Caller: Sendable, CustomStringConvertible {
    public var description: String
    public var mayChangeGuidance: Bool

    public init(_ description: String, mayChangeGuidance: Bool) {
      self.description = description
      self.mayChangeGuidance = mayChangeGuidance
    }
  }

  public let configuration: Configuration
  /// Numbers the events; its state answers `status`, and commands that change guidance start
  /// the new guidance in it.
  public let publisher: EventPublisher
  private let handler: GuidanceCommandHandler?

  private struct Shared {
    var document: RouteDocument?
    /// The alternative of `document` being followed; `nil` after `cancel`.
    var selectedRoute: Int?
    var stopped = false
    var refused = 0
  }
  private let shared = Locked(Shared())

  /// - Parameters:
  ///   - configuration: limits and diagnostics.
  ///   - handler: carries out the commands that change guidance; `nil` answers them
  ///     `unavailable`.
  ///   - publisher: the events the answers speak of.
  public init(
    configuration: Configuration = Configuration(), handler: GuidanceCommandHandler?,
    publisher: EventPublisher
  ) {
    self.configuration = configuration
    self.handler = handler
    self.publisher = publisher
  }

  /// The longest line a caller may send: a permitted one may `load` a document.
  public func lineLimit(mayChangeGuidance: Bool) -> Int {
    mayChangeGuidance
      ? max(configuration.maximumCommandLength, configuration.maximumDocumentSize + 4096)
      : configuration.maximumCommandLength
  }

  /// Tells the service which document is loaded and which alternative is followed, for `routes`
  /// and for checking `select` (at start, after a reroute, after a reload).
  public func setRouteDocument(_ document: RouteDocument, selected: Int?) {
    shared.withLock {
      $0.document = document
      $0.selectedRoute = selected
    }
    if let selected { publisher.routeLoaded(routeIndex: selected) }
  }

  /// No more guidance commands: they are answered `unavailable` (the daemon is stopping).
  public func stop() {
    shared.withLock { $0.stopped = true }
  }

  /// Commands refused for lack of permission, so far.
  public var refusedCommands: Int { shared.withLock { $0.refused } }

  // MARK: One command (on the channel's queue)

  /// What became of one framed line.
  enum Outcome {
    /// Answered at once.
    case answer(JSONObject)
    /// A `watch`: the channel's transport applies it and answers with ``watchReply``.
    case watch(WatchRequest, CommandRequest)
    /// A guidance command is under way; its answer comes later.
    case started
  }

  /// The `REPLY` to a `watch`, whose transport has sent every event up to `seq`.
  static func watchReply(_ w: WatchRequest, _ request: CommandRequest, seq: Int) -> JSONObject {
    var members: [(key: String, value: JSONValue)] = [
      ("enable", .bool(w.enable)), ("seq", .number(Double(seq))),
    ]
    if let classes = w.classes {
      members.append(("classes", .array(classes.map { .string($0) })))
    }
    return Reply.object(for: request, members)
  }

  /// Parses, checks and answers one item of `caller`, or starts its guidance command and calls
  /// `finished` (on any thread) with the answer once the command took effect or failed.
  func handle(
    _ item: LineFramer.Item, from caller: Caller, lineLimit: Int,
    finished: @escaping @Sendable (JSONObject) -> Void
  ) -> Outcome {
    let request: CommandRequest
    switch item {
    case .overlong(let prefix, let length):
      let isLoad = Self.contains(prefix, Array("\"load\"".utf8))
      if isLoad && !caller.mayChangeGuidance {
        return .answer(refuse(caller, "load", id: nil))
      } else if isLoad {
        return .answer(
          WireError(
            .documentTooLarge,
            "load: the command is \(length) bytes; route documents may have at most "
              + "\(configuration.maximumDocumentSize) bytes", command: "load"
          ).object)
      } else {
        return .answer(
          WireError(
            .lineTooLong,
            "command line of \(length) bytes discarded; the limit is \(lineLimit) bytes"
          ).object)
      }
    case .line(let bytes):
      do {
        request = try CommandRequest.parse(line: bytes)
      } catch {
        return .answer(error.object)
      }
    }
    let (document, selectedRoute, stopped) = shared.withLock {
      ($0.document, $0.selectedRoute, $0.stopped)
    }
    switch request.command {
    case .watch(let w):
      return .watch(w, request)
    case .status:
      return .answer(Reply.object(for: request, [("state", .object(publisher.state.object))]))
    case .routes(let steps, let geometry):
      guard let document else {
        return .answer(
          WireError(.noRoute, "no route document is loaded", command: "routes", id: request.id)
            .object)
      }
      return .answer(
        Reply.object(
          for: request,
          Reply.routesMembers(
            document, selected: selectedRoute, steps: steps, geometry: geometry)))
    case .select, .load, .cancel, .reroute, .skip:
      guard caller.mayChangeGuidance else {
        return .answer(refuse(caller, request.command.name, id: request.id))
      }
      guard let handler, !stopped else {
        return .answer(
          WireError(
            .unavailable,
            "\(request.command.name): this daemon does not take guidance commands now",
            command: request.command.name, id: request.id
          ).object)
      }
      if case .select(let i) = request.command {
        guard let document else {
          return .answer(
            WireError(
              .noRoute, "select: no route document is loaded", command: "select", id: request.id
            ).object)
        }
        guard document.routes.indices.contains(i) else {
          return .answer(
            WireError(
              .noSuchRoute,
              "select: no alternative \(i); the document has \(document.routes.count) "
                + (document.routes.count == 1
                  ? "route (index 0)" : "routes (0…\(document.routes.count - 1))"),
              command: "select", id: request.id
            ).object)
        }
      }
      let seqAtStart = publisher.state.seq
      let done: @Sendable (Result<GuidanceCommand, WireError>) -> Void = { [self] outcome in
        finished(finish(request, outcome, caller: caller, seqAtStart: seqAtStart))
      }
      // Decoding a large document takes a while: off the transport's queue, on a Dispatch
      // thread (never the cooperative pool, which a busy engine or test may hold).
      DispatchQueue.global(qos: .userInitiated).async { @Sendable in
        switch Self.guidanceCommand(request) {
        case .failure(let e):
          done(.failure(e))
        case .success(let command):
          handler(command) { result in
            done(result.map { command }.mapError { Self.wireError($0, request) })
          }
        }
      }
      return .started
    }
  }

  private func refuse(_ caller: Caller, _ command: String, id: JSONValue?) -> JSONObject {
    shared.withLock { $0.refused += 1 }
    configuration.log(4, "stepwised: refused \(command) from \(caller): not permitted")
    return WireError(
      .notPermitted,
      "\(command): permission denied (only root, the daemon's user or the control group may "
        + "change guidance)", command: command, id: id
    ).object
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

  /// Records what a command that took effect changed, and makes its answer.
  ///
  /// The command took effect whether or not its sender is still there. A `cancel`'s `CANCELLED`
  /// is published here, before the answer is handed back: a transport that serves events
  /// queues them in the order published, so the event reaches its client before the `REPLY`.
  private func finish(
    _ request: CommandRequest, _ outcome: Result<GuidanceCommand, WireError>, caller: Caller,
    seqAtStart: UInt64
  ) -> JSONObject {
    let reply: JSONObject
    switch outcome {
    case .success(let command):
      switch command {
      case .select(let i):
        shared.withLock { $0.selectedRoute = i }
        publisher.beginGuidance(routeIndex: i, unlessRouteAfter: seqAtStart)
        reply = Reply.object(for: request, [("routeIndex", .number(Double(i)))])
      case .load(let doc, let i):
        shared.withLock {
          $0.document = doc
          $0.selectedRoute = i
        }
        publisher.beginGuidance(routeIndex: i, unlessRouteAfter: seqAtStart)
        reply = Reply.object(for: request, [("routeIndex", .number(Double(i)))])
      case .cancel:
        shared.withLock { $0.selectedRoute = nil }
        publisher.publishCancelled()
        reply = Reply.object(for: request)
      case .reroute, .skip, .reload:
        reply = Reply.object(for: request)
      }
      configuration.log(6, "stepwised: \(request.command.name) by \(caller)")
    case .failure(let error):
      reply = error.object
    }
    return reply
  }

  private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for i in 0...(haystack.count - needle.count)
    where haystack[i..<(i + needle.count)].elementsEqual(needle) {
      return true
    }
    return false
  }
}
