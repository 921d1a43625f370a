import Geodesy
public import Guidance
public import JSON
public import Routes

/// The state of guidance as far as the event stream tells it: what a `STATE` object carries.
///
/// The one fold of the stream: the publisher folds every event it numbers into one of these, so
/// that a subscriber that connects late gets the current state first (`docs/protocol.md`,
/// STATE); the fleet uplink folds the same events into the state it keeps retained; clients,
/// the fleet view and the lab fold the `STATE` they receive and the events after it the same
/// way.
public struct GuidanceState: Sendable, Equatable {
  /// An event remembered with its sequence number, as subscribers received it.
  public struct Numbered<Value: Sendable & Equatable>: Sendable, Equatable {
    public var seq: UInt64
    public var time: Double
    public var value: Value
  }

  /// The `seq` of the last event folded in; 0 before the first.
  public var seq: UInt64 = 0
  /// The time of the last event.
  public var time: Double?
  /// Whether a route is being followed (from `ROUTE`, `select` or `load` until `CANCELLED`).
  public var guiding = false
  /// The alternative being followed, when known.
  public var routeIndex: Int?
  /// The last `ROUTE` of the current guidance.
  public var route: Numbered<RouteSummary>?
  /// The last `PROGRESS` of the current guidance.
  public var progress: Numbered<Progress>?
  /// The last `ANNOUNCE` of the current guidance.
  public var announce: Numbered<Announcement>?
  /// What lies ahead on the route, from the last `PROGRESS` that carried `ahead` (each
  /// object's `start` in metres along the route); `nil` before one did.
  public var ahead: [RoadObject]?
  /// The step being travelled, from `STEP` and `PROGRESS`.
  public var step: Int?
  /// `false` between `OFFROUTE` and `ONROUTE`; `nil` before the first fix.
  public var onRoute: Bool?
  /// From `GPS` events and `PROGRESS`; `nil` before the first fix.
  public var gps: GPSStatus?
  /// Whether `ARRIVED` was reported for the current guidance.
  public var arrived = false
  /// The last `SOURCE` (live fix sources only: connected to gpsd or not).
  public var source: Numbered<SourceEvent>?
  /// Where rerouting stands, from the last `REROUTE`; `nil` while idle.
  public var rerouting: ReroutingEvent.Status?
  /// The `seq` of the last `ROUTE`.
  public var lastRouteSeq: UInt64 = 0

  public init() {}

  /// Folds one event in; `seq` is its number, when it has one (standard output's have none).
  public mutating func apply(_ event: Event, seq: UInt64? = nil) {
    let seq = seq ?? self.seq
    self.seq = seq
    if let t = event.time { time = t }
    switch event {
    case .source(let s):
      source = Numbered(seq: seq, time: s.time, value: s)
    case .rerouting(let r):
      rerouting = r.status == .idle ? nil : r.status
    case .cancelled:
      beginGuidance(routeIndex: routeIndex)
      guiding = false
    case .navigation(let e):
      switch e.kind {
      case .route(let r):
        beginGuidance(routeIndex: r.routeIndex)
        route = Numbered(seq: seq, time: e.time, value: r)
        lastRouteSeq = seq
      case .progress(let p, let list):
        guiding = true
        progress = Numbered(seq: seq, time: e.time, value: p)
        if let list { ahead = list }
        step = p.step
        onRoute = p.onRoute
        gps = .acquired
      case .announce(let a): announce = Numbered(seq: seq, time: e.time, value: a)
      case .step(let n): step = n
      case .offRoute: onRoute = false
      case .onRoute: onRoute = true
      case .gps(let g): gps = g
      case .arrived: arrived = true
      }
    }
  }

  /// Folds one received event in.
  public mutating func apply(_ received: ReceivedEvent) {
    apply(received.event, seq: received.seq)
  }

  /// Forgets the current guidance because another alternative or document was chosen; the new
  /// `ROUTE` follows with the next fix.
  public mutating func beginGuidance(routeIndex: Int?) {
    guiding = true
    self.routeIndex = routeIndex
    route = nil
    progress = nil
    announce = nil
    ahead = nil
    step = nil
    onRoute = nil
    arrived = false
  }

  /// The `STATE` object (`docs/protocol.md`), its events as subscribers received them; with
  /// `boot`, as the fleet uplink sends them (`boot` after each one's `seq`).
  ///
  /// Unknown values are omitted.
  public func object(boot: String? = nil) -> JSONObject {
    func embedded(_ e: Event, _ seq: UInt64) -> JSONValue {
      let line = EventLine(e, seq: seq)
      let bytes = boot.map { line.bytes(boot: $0) } ?? Array(line.bytes.dropLast())
      return .object((try? JSONParser.parse(bytes))?.objectValue ?? JSONObject())
    }
    var o = JSONObject()
    o.append("class", "STATE")
    if let time { o.append("time", .string(UTCTime.iso8601(time))) }
    o.append("seq", .number(Double(seq)))
    o.append("guiding", .bool(guiding))
    if let routeIndex { o.append("routeIndex", .number(Double(routeIndex))) }
    if let step { o.append("step", .number(Double(step))) }
    if let onRoute { o.append("onRoute", .bool(onRoute)) }
    if let gps { o.append("gps", .string(gps.rawValue)) }
    o.append("arrived", .bool(arrived))
    if let r = route {
      o.append("route", embedded(.navigation(.init(time: r.time, kind: .route(r.value))), r.seq))
    }
    if let p = progress {
      o.append(
        "progress", embedded(.navigation(.init(time: p.time, kind: .progress(p.value))), p.seq))
    }
    if let a = announce {
      o.append(
        "announce", embedded(.navigation(.init(time: a.time, kind: .announce(a.value))), a.seq))
    }
    if let ahead { o.append("ahead", EventLineWriter.aheadValue(ahead)) }
    if let s = source { o.append("source", embedded(.source(s.value), s.seq)) }
    if let rerouting { o.append("reroute", .string(rerouting.rawValue)) }
    return o
  }

  /// The `STATE` object as subscribers receive it.
  public var object: JSONObject { object() }

  /// Reads a `STATE` object back; `nil` when `object` is not one.
  public init?(stateObject o: JSONObject) {
    guard o["class"]?.stringValue == "STATE" else { return nil }
    seq = o["seq"]?.doubleValue.flatMap { $0 >= 0 ? UInt64(exactly: $0.rounded()) : nil } ?? 0
    guiding = o["guiding"]?.boolValue ?? false
    routeIndex = o["routeIndex"]?.doubleValue.map { Int($0) }
    step = o["step"]?.doubleValue.map { Int($0) }
    onRoute = o["onRoute"]?.boolValue
    gps = o["gps"]?.stringValue.flatMap(GPSStatus.init)
    arrived = o["arrived"]?.boolValue ?? false
    time = o["time"]?.stringValue.flatMap(UTCTime.parseISO8601)
    func read(_ key: String) -> (ReceivedEvent, Double)? {
      guard let e = o[key]?.objectValue.flatMap(ReceivedEvent.init(object:)), let t = e.event.time
      else { return nil }
      return (e, t)
    }
    if let (e, t) = read("route"), case .navigation(let n) = e.event, case .route(let r) = n.kind {
      route = Numbered(seq: e.seq ?? 0, time: t, value: r)
      lastRouteSeq = e.seq ?? 0
    }
    if let (e, t) = read("progress"), case .navigation(let n) = e.event,
      case .progress(let p, _) = n.kind
    {
      progress = Numbered(seq: e.seq ?? 0, time: t, value: p)
    }
    if let (e, t) = read("announce"), case .navigation(let n) = e.event,
      case .announce(let a) = n.kind
    {
      announce = Numbered(seq: e.seq ?? 0, time: t, value: a)
    }
    ahead = EventLineWriter.ahead(o["ahead"])
    if let (e, t) = read("source"), case .source(let s) = e.event {
      source = Numbered(seq: e.seq ?? 0, time: t, value: s)
    }
    rerouting = o["reroute"]?.stringValue.flatMap(ReroutingEvent.Status.init)
  }
}
