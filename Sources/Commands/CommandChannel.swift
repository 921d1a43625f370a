public import Dispatch
public import JSON
public import Wire

/// One client's commands to a ``CommandService``: its framing, its line limit and the order its
/// commands run in.
///
/// The transport feeds the client's bytes (``feed(_:)``) and calls ``run()``; every complete
/// line is parsed, checked and answered as the service says, one at a time: while a guidance
/// command is under way (``isBusy``), later lines wait, and the transport may stop reading.
/// Answers go to `answer`, always on `queue`, in the order of the lines.
///
/// Every member is used only on `queue`, the transport's serial queue; the service's
/// completions come back to it through `queue.async`. That confinement is the invariant behind
/// `@unchecked Sendable`.
public final class CommandChannel: @unchecked Sendable {
  private let service: CommandService
  private let caller: CommandService.Caller
  private let queue: DispatchQueue
  private var framer: LineFramer
  private var backlog: [LineFramer.Item] = []
  /// A guidance command of this client is being carried out; later lines wait in `backlog`.
  public private(set) var isBusy = false

  private let isOpen: () -> Bool
  private let answer: (JSONObject) -> Void
  private let watch: (WatchRequest) -> Int
  private let settled: () -> Void

  /// - Parameters:
  ///   - service: carries the commands out.
  ///   - caller: the client, as logs name it, and whether it may change guidance.
  ///   - queue: the transport's serial queue, on which every call and callback runs.
  ///   - isOpen: whether the client still takes answers; commands wait while it does not.
  ///   - answer: sends one `REPLY` or `ERROR` object to the client.
  ///   - watch: applies a `watch` to the client and returns the `seq` of the last event it was
  ///     sent or queued (the `REPLY` says it).
  ///   - settled: called after a guidance command's answer was handed over and the lines that
  ///     waited for it ran (the transport may read again).
  public init(
    service: CommandService, caller: CommandService.Caller, queue: DispatchQueue,
    isOpen: @escaping () -> Bool, answer: @escaping (JSONObject) -> Void,
    watch: @escaping (WatchRequest) -> Int, settled: @escaping () -> Void = {}
  ) {
    self.service = service
    self.caller = caller
    self.queue = queue
    self.framer = LineFramer(
      maximumLength: service.lineLimit(mayChangeGuidance: caller.mayChangeGuidance))
    self.isOpen = isOpen
    self.answer = answer
    self.watch = watch
    self.settled = settled
  }

  /// The longest line this client may send, in bytes.
  public var lineLimit: Int { framer.maximumLength }

  /// Frames `bytes`; the complete lines wait for ``run()``.
  public func feed(_ bytes: some Collection<UInt8>) {
    backlog += framer.feed(bytes)
  }

  /// Runs the waiting lines in order until one starts a guidance command or none is left.
  public func run() {
    while !isBusy && isOpen() && !backlog.isEmpty {
      let item = backlog.removeFirst()
      let outcome = service.handle(item, from: caller, lineLimit: framer.maximumLength) {
        [self] reply in
        queue.async { @Sendable [self] in finished(reply) }
      }
      switch outcome {
      case .answer(let o):
        answer(o)
      case .watch(let w, let request):
        answer(CommandService.watchReply(w, request, seq: watch(w)))
      case .started:
        isBusy = true
      }
    }
  }

  private func finished(_ reply: JSONObject) {
    isBusy = false
    if isOpen() { answer(reply) }
    run()
    settled()
  }
}
