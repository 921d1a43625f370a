import Glibc
public import Guidance
import POSIX
public import Wire

/// One published event with its sequence number (1, 2, 3, … per daemon run, given by
/// ``EventPublisher`` alone), so a subscriber can see a gap.
public struct Publication: Sendable, Equatable {
  public let seq: UInt64
  public let event: Event
  /// The line shared by the sinks, when more than one reads it (``EventSink/lineUse``).
  private let shared: EncodedLine.Shared?

  /// A publication whose line is encoded once and shared by its readers when `sharesLine`,
  /// or encoded by each reader that asks otherwise.
  init(seq: UInt64, event: Event, sharesLine: Bool) {
    self.seq = seq
    self.event = event
    shared = sharesLine ? EncodedLine.make(seq: seq, event: event) : nil
  }

  /// The event's JSON line with `seq`, encoded by whichever sink asks first and shared by all:
  /// the socket's subscribers get these bytes, standard output the same without `seq`.
  public var line: EventLine { shared?.line ?? EncodedLine.encode(event, seq: seq) }

  /// Appends the line without `seq` (what `stepwised --json` prints) and its line end: the
  /// shared line's bytes when there is one, otherwise encoded straight into `out`.
  public func appendUnnumberedLine(to out: inout [UInt8]) {
    if shared == nil { return EventLine.appendUnnumbered(event, to: &out) }
    let parts = line.withoutSeq
    out.append(contentsOf: parts.head)
    out.append(contentsOf: parts.tail)
  }

  public static func == (a: Publication, b: Publication) -> Bool {
    a.seq == b.seq && a.event == b.event
  }
}

/// The lazily encoded line of one publication.
///
/// Sinks run on their own queues, so the first to ask encodes under the lock and the others take
/// the same bytes. The lock is a pthread mutex, not `Synchronization.Mutex`: on Linux that one
/// waits with bare futex calls, which ThreadSanitizer cannot see, so every sink's read of the
/// cached line was reported as a race.
///
/// The event, its cache and the mutex are one allocation (a `ManagedBuffer` whose one element
/// is the mutex). The engine makes one of these for every event and the writer of standard
/// output frees it on another thread. As a `Locked` the same took three allocations, and with
/// one arena (``POSIX/HeapRelease``) the two threads queued for glibc's arena lock: 11 % of a
/// `--fast --json` replay's samples were futex waits and wakes (perf, `docs/notebook/profiling.md`).
///
/// `ManagedBuffer` cannot be `Sendable`, so ``Publication`` holds it through
/// ``EncodedLine/Shared``.
private final class EncodedLine: ManagedBuffer<EncodedLine.Header, pthread_mutex_t> {
  /// A reference to the buffer that may cross threads: everything in it that changes is
  /// behind its mutex.
  struct Shared: @unchecked Sendable {
    let buffer: EncodedLine
    var line: EventLine { buffer.line }
  }

  // Invariant: `header.cached` is read or written only while the element (the mutex) is held;
  // `seq` and `event` are never written after `make`.
  struct Header {
    let seq: UInt64
    let event: Event
    var cached: EventLine?
  }

  static func make(seq: UInt64, event: Event) -> Shared {
    let buffer = create(minimumCapacity: 1) { _ in Header(seq: seq, event: event, cached: nil) }
    buffer.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    }
    // `create` returns the dynamic type, which is this class.
    return Shared(buffer: unsafeDowncast(buffer, to: EncodedLine.self))
  }

  deinit {
    withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_destroy(mutex)
      mutex.deinitialize(count: 1)
    }
  }

  var line: EventLine {
    withUnsafeMutablePointers { header, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      if let cached = header.pointee.cached { return cached }
      let line = Self.encode(header.pointee.event, seq: header.pointee.seq)
      header.pointee.cached = line
      return line
    }
  }

  static func encode(_ event: Event, seq: UInt64) -> EventLine {
    EventLine(event, seq: seq)
  }
}

/// A receiver of everything the engine publishes: standard output, the socket's subscribers,
/// the fleet uplink.
///
/// The publisher calls ``receive(_:)`` for every event, in `seq` order. An implementation must
/// return at once: queue the event (with a bound and a policy for when the bound is reached)
/// and write it elsewhere. A sink never slows the engine or the gpsd reader.
public protocol EventSink: AnyObject, Sendable {
  /// How this sink reads a publication's ``Publication/line``. The default is ``LineUse/many``.
  var lineUse: LineUse { get }
  /// Takes one event. Must not block.
  func receive(_ publication: Publication)
  /// Takes several events, in order (what the engine made of a batch of fixes). Must not
  /// block. The default hands them to ``receive(_:)`` one by one.
  func receive(_ publications: [Publication])
  /// No more events will come (the engine stopped, or the sink was removed).
  func finish()
}

/// Something that keeps the events it receives where a `kill -9` of the daemon cannot take them
/// back: standard output once written (``StreamSink``), the fleet uplink's journal once on disk.
///
/// The daemon saves its progress only after every keeper kept the events published before the
/// save, so a restart never resumes past an event that was not yet out: it says it again, with
/// the same id, instead of losing it.
public protocol EventKeeper: AnyObject, Sendable {
  /// Calls `then`, on any thread, once every event received so far is kept; calls made one
  /// after another run their `then` in that order.
  func afterKept(_ then: @escaping @Sendable () -> Void)
}

/// How much of a publication's JSON line a sink reads.
///
/// The publisher shares one encoded line among the sinks only when more than one read would
/// happen: with standard output alone (a `--fast --json` replay, a box without subscribers) the
/// writer encodes each line straight into its buffer, and nothing is kept per event.
public enum LineUse: Int, Sendable {
  /// Never reads it (readable standard output).
  case none = 0
  /// Reads it once at most (standard output with `--json`).
  case once = 1
  /// Reads it, perhaps many times (the socket's subscribers, the uplink).
  case many = 2
}

extension EventSink {
  public var lineUse: LineUse { .many }

  public func receive(_ publications: [Publication]) {
    for p in publications { receive(p) }
  }
}

/// Fans the engine's events out to any number of sinks: the one place that numbers events and
/// folds them into the state a late subscriber starts from (Wire's ``GuidanceState``, the one fold of the stream).
///
/// Sinks can be added and removed from any task or thread while the engine runs.
/// ``add(_:)`` returns the state at the moment of joining, atomically with the registration:
/// the sink then receives exactly the events after that state, none missed and none twice.
/// Sinks are handed events under the publisher's lock (they only queue), so every sink sees
/// them in `seq` order whichever thread published.
public final class EventPublisher: Sendable {
  private struct Registry: ~Copyable {
    /// The sinks in the order they joined (a few: standard output, the socket server), kept
    /// as a list so publishing copies nothing.
    var list: [any EventSink] = []
    var state = GuidanceState()
    var finished = false
    /// Whether publications share their line: the sinks would read it more than once.
    var sharesLines = false

    mutating func listChanged() {
      sharesLines = list.reduce(0) { $0 + $1.lineUse.rawValue } > 1
    }
  }

  private let registry = Locked(Registry())

  public init() {}

  /// Adds `sink`; returns the state it joins at.
  @discardableResult
  public func add(_ sink: any EventSink) -> GuidanceState {
    let (state, finished) = registry.withLock { r -> (GuidanceState, Bool) in
      if !r.finished && !r.list.contains(where: { $0 === sink }) {
        r.list.append(sink)
        r.listChanged()
      }
      return (r.state, r.finished)
    }
    if finished { sink.finish() }
    return state
  }

  /// Removes `sink` (and tells it it will get nothing more).
  public func remove(_ sink: any EventSink) {
    let removed = registry.withLock { r -> Bool in
      guard let i = r.list.firstIndex(where: { $0 === sink }) else { return false }
      r.list.remove(at: i)
      r.listChanged()
      return true
    }
    if removed { sink.finish() }
  }

  /// The current state.
  public var state: GuidanceState { registry.withLock { $0.state } }

  /// Publishes one event to every sink.
  public func publish(_ event: Event) {
    registry.withLock { r in
      let p = Publication(seq: r.state.seq + 1, event: event, sharesLine: r.sharesLines)
      r.state.apply(p.event, seq: p.seq)
      for sink in r.list { sink.receive(p) }
    }
  }

  /// Publishes navigation events in order, with one call per sink.
  public func publish(_ events: [NavigationEvent]) {
    if events.count == 1 {
      publish(.navigation(events[0]))
      return
    }
    guard !events.isEmpty else { return }
    registry.withLock { r in
      var publications: [Publication] = []
      publications.reserveCapacity(events.count)
      for e in events {
        let p = Publication(seq: r.state.seq + 1, event: .navigation(e), sharesLine: r.sharesLines)
        r.state.apply(p.event, seq: p.seq)
        publications.append(p)
      }
      for sink in r.list { sink.receive(publications) }
    }
  }

  /// Publishes `CANCELLED`, timed as the last event.
  public func publishCancelled() {
    registry.withLock { r in
      let p = Publication(
        seq: r.state.seq + 1, event: .cancelled(time: r.state.time), sharesLine: r.sharesLines)
      r.state.apply(p.event, seq: p.seq)
      for sink in r.list { sink.receive(p) }
    }
  }

  /// Another alternative or document was chosen (`select`, `load`): the state forgets the
  /// current guidance, unless a `ROUTE` was published after `seq` (the new route came first).
  public func beginGuidance(routeIndex: Int?, unlessRouteAfter seq: UInt64) {
    registry.withLock { r in
      if r.state.lastRouteSeq <= seq { r.state.beginGuidance(routeIndex: routeIndex) }
    }
  }

  /// The alternative a route document is followed on, before its first `ROUTE`.
  public func routeLoaded(routeIndex: Int) {
    registry.withLock { r in
      if r.state.routeIndex == nil { r.state.routeIndex = routeIndex }
    }
  }

  /// Ends publishing: every sink is told, and sinks added later are finished at once.
  public func finish() {
    let sinks = registry.withLock { r -> [any EventSink] in
      r.finished = true
      let all = r.list
      r.list.removeAll()
      r.listChanged()
      return all
    }
    for sink in sinks { sink.finish() }
  }
}
