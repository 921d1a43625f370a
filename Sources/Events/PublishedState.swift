import Geodesy
public import Guidance
public import JSON
import Wire

/// What a subscriber that joins late needs to be in sync (the `STATE` object of
/// `docs/protocol.md`), folded from the published events by ``EventPublisher`` alone.
public struct PublishedState: Sendable {
  /// The sequence number of the last event published; 0 before the first.
  public var seq: UInt64 = 0
  /// The time of the last event.
  public var time: Double?
  /// Whether a route is being followed (from `ROUTE`, `select` or `load` until `CANCELLED`).
  public var guiding = false
  /// The alternative being followed, when known.
  public var routeIndex: Int?
  /// The last `ROUTE` of the current guidance.
  public var route: Publication?
  /// The last `PROGRESS` of the current guidance.
  public var progress: Publication?
  /// The last `ANNOUNCE` of the current guidance.
  public var announce: Publication?
  /// The step being travelled, from `STEP` and `PROGRESS`.
  public var step: Int?
  /// `false` between `OFFROUTE` and `ONROUTE`; `nil` before the first fix.
  public var onRoute: Bool?
  /// From `GPS` events and `PROGRESS`; `nil` before the first fix.
  public var gps: GPSStatus?
  /// Whether `ARRIVED` was published for the current guidance.
  public var arrived = false
  /// The last `SOURCE` event (live fix sources only).
  public var source: Publication?
  /// Where rerouting stands, from the last `REROUTE`; `nil` while idle.
  public var rerouting: ReroutingEvent.Status?
  /// The `seq` of the last `ROUTE`.
  public internal(set) var lastRouteSeq: UInt64 = 0

  public init() {}

  /// Folds one publication in.
  mutating func apply(_ p: Publication) {
    seq = p.seq
    switch p.event {
    case .source(let s):
      time = s.time
      source = p
    case .rerouting(let r):
      time = r.time
      rerouting = r.status == .idle ? nil : r.status
    case .cancelled:
      beginGuidance(routeIndex: routeIndex)
      guiding = false
    case .navigation(let e):
      time = e.time
      switch e.kind {
      case .route(let r):
        beginGuidance(routeIndex: r.routeIndex)
        route = p
        lastRouteSeq = p.seq
      case .progress(let pr):
        guiding = true
        progress = p
        step = pr.step
        onRoute = pr.onRoute
        gps = .acquired
      case .announce: announce = p
      case .step(let n): step = n
      case .offRoute: onRoute = false
      case .onRoute: onRoute = true
      case .gps(let g): gps = g
      case .arrived: arrived = true
      }
    }
  }

  /// Forgets the current guidance because another alternative or document was chosen; the new
  /// `ROUTE` follows with the next fix.
  mutating func beginGuidance(routeIndex: Int?) {
    guiding = true
    self.routeIndex = routeIndex
    route = nil
    progress = nil
    announce = nil
    step = nil
    onRoute = nil
    arrived = false
  }

  /// The `STATE` object (`docs/protocol.md`), its events as subscribers received them.
  public var object: JSONObject {
    var g = GuidanceState()
    g.seq = Int(seq)
    g.time = time.map { UTCTime.iso8601($0) }
    g.guiding = guiding
    g.routeIndex = routeIndex
    g.step = step
    g.onRoute = onRoute
    g.gps = gps?.rawValue
    g.arrived = arrived
    g.route = route.map(Self.object)
    g.progress = progress.map(Self.object)
    g.announce = announce.map(Self.object)
    g.source = source.map(Self.object)
    g.reroute = rerouting?.rawValue
    return g.object
  }

  /// The object of a publication's line (`seq` included).
  private static func object(_ p: Publication) -> JSONObject {
    (try? JSONParser.parse(Array(p.line.bytes.dropLast())))?.objectValue ?? JSONObject()
  }
}
