public import Guidance
import POSIX
public import Wire

/// Something the engine publishes: a guidance event or a change of the fix source.
public enum PublishedEvent: Sendable, Equatable {
  case navigation(NavigationEvent)
  case source(SourceEvent)
}

/// One published event with its sequence number (1, 2, 3, … per daemon run), so a subscriber
/// can see a gap.
public struct Publication: Sendable, Equatable {
  public var seq: UInt64
  public var event: PublishedEvent
}

/// A receiver of everything the engine publishes: standard output now, socket subscribers later.
///
/// The engine calls ``receive(_:)`` for every event, in order, on its own task. An
/// implementation must return at once: queue the event (with a bound and a policy for when the
/// bound is reached) and write it elsewhere. A sink never slows the engine or the gpsd reader.
public protocol EventSink: AnyObject, Sendable {
  /// Takes one event. Called by the engine only; must not block.
  func receive(_ publication: Publication)
  /// Takes several events, in order (what the engine made of a batch of fixes). Called by the
  /// engine only; must not block. The default hands them to ``receive(_:)`` one by one.
  func receive(_ publications: [Publication])
  /// No more events will come (the engine stopped, or the sink was removed).
  func finish()
}

extension EventSink {
  public func receive(_ publications: [Publication]) {
    for p in publications { receive(p) }
  }
}

/// What a subscriber that joins late needs to be in sync, kept by the publisher as events pass.
public struct PublishedState: Sendable, Equatable {
  /// The last `ROUTE` event.
  public var route: NavigationEvent?
  /// The last `PROGRESS` event.
  public var progress: NavigationEvent?
  /// The step being travelled, once departed.
  public var step: Int?
  public var offRoute = false
  public var gps: GPSStatus?
  public var arrived = false
  /// The last `SOURCE` event (live sources only).
  public var source: SourceEvent?
  /// The sequence number of the last event published.
  public var seq: UInt64 = 0
}

/// Fans the engine's events out to any number of sinks.
///
/// Sinks can be added and removed from any task or thread while the engine runs (the socket
/// server adds one per subscriber). ``add(_:)`` returns the state at the
/// moment of joining, atomically with the registration: the sink then receives exactly the
/// events after that state, none missed and none twice.
public final class EventPublisher: Sendable {
  private struct Registry: ~Copyable {
    /// The sinks in the order they joined (a few: standard output, the socket server), kept
    /// as a list so publishing copies nothing.
    var list: [any EventSink] = []
    var state = PublishedState()
    var finished = false
  }

  private let registry = Locked(Registry())

  public init() {}

  /// Adds `sink`; returns the state it joins at.
  @discardableResult
  public func add(_ sink: any EventSink) -> PublishedState {
    let (state, finished) = registry.withLock { r -> (PublishedState, Bool) in
      if !r.finished && !r.list.contains(where: { $0 === sink }) { r.list.append(sink) }
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
      return true
    }
    if removed { sink.finish() }
  }

  /// The current state.
  public var state: PublishedState { registry.withLock { $0.state } }

  /// Publishes one event to every sink.
  ///
  /// Called by the engine only.
  public func publish(_ event: PublishedEvent) {
    let (publication, sinks) = registry.withLock { r -> (Publication, [any EventSink]) in
      r.state.seq += 1
      Self.update(&r.state, with: event)
      return (Publication(seq: r.state.seq, event: event), r.list)
    }
    for sink in sinks { sink.receive(publication) }
  }

  /// Publishes navigation events in order, with one lock and one call per sink.
  ///
  /// Called by the engine only.
  public func publish(_ events: [NavigationEvent]) {
    if events.count == 1 {
      publish(.navigation(events[0]))
      return
    }
    let (publications, sinks) = registry.withLock { r -> ([Publication], [any EventSink]) in
      var publications: [Publication] = []
      publications.reserveCapacity(events.count)
      for e in events {
        r.state.seq += 1
        Self.update(&r.state, with: .navigation(e))
        publications.append(Publication(seq: r.state.seq, event: .navigation(e)))
      }
      return (publications, r.list)
    }
    for sink in sinks { sink.receive(publications) }
  }

  /// Ends publishing: every sink is told, and sinks added later are finished at once.
  public func finish() {
    let sinks = registry.withLock { r -> [any EventSink] in
      r.finished = true
      let all = r.list
      r.list.removeAll()
      return all
    }
    for sink in sinks { sink.finish() }
  }

  private static func update(_ s: inout PublishedState, with event: PublishedEvent) {
    switch event {
    case .source(let e):
      s.source = e
    case .navigation(let e):
      switch e.kind {
      case .route: s.route = e
      case .progress(let p):
        s.progress = e
        s.step = p.step
      case .step(let n): s.step = n
      case .offRoute: s.offRoute = true
      case .onRoute: s.offRoute = false
      case .gps(let g): s.gps = g
      case .arrived: s.arrived = true
      case .announce: break
      }
    }
  }
}
