public import Geodesy
import Routes

import func Glibc.exp

/// A mistake a closed-loop driver makes on purpose, placed on the first route unless it names
/// another revision.
public indirect enum DrivingMistake: Sendable, Equatable, CustomStringConvertible {
  /// Drives past maneuver `step` of the first route instead of taking it.
  case missTurn(step: Int)
  /// Leaves the roundabout of step `step` of the first route by another exit.
  case wrongExit(step: Int)
  /// Stops `at` metres along the first route and turns round, driving back along it.
  case uTurn(at: Double)
  /// Keeps to its wrong way when the first new route after a mistake comes.
  case ignoreNewRoute
  /// Stands still `at` metres along the first route for `seconds`.
  case stop(at: Double, seconds: Double)
  /// `mistake` (a missed turn, a wrong exit, a U-turn or a stop) made on the route of
  /// `revision` (1 for the first new route the daemon publishes, …) instead of the first one;
  /// its step or metres are that route's.
  case onRevision(Int, DrivingMistake)

  /// Whether the mistake takes the vehicle off its route (a stop or ignoring a route does not
  /// by itself).
  public var leavesRoute: Bool {
    switch self {
    case .missTurn, .wrongExit, .uTurn: true
    case .ignoreNewRoute, .stop: false
    case .onRevision(_, let m): m.leavesRoute
    }
  }

  /// The route revision the mistake is made on.
  public var revision: Int {
    if case .onRevision(let r, _) = self { return r }
    return 0
  }

  /// The mistake itself, whatever route it is made on.
  public var base: DrivingMistake {
    if case .onRevision(_, let m) = self { return m.base }
    return self
  }

  /// The spelling of `stepwise drive --mistake` and of scenario recipes.
  public var description: String {
    switch self {
    case .missTurn(let s): "miss:\(s)"
    case .wrongExit(let s): "wrong-exit:\(s)"
    case .uTurn(let at): "u-turn:\(NMEAWriter.fixed(at, 0))"
    case .ignoreNewRoute: "ignore"
    case .stop(let at, let seconds):
      "stop:\(NMEAWriter.fixed(at, 0)):\(NMEAWriter.fixed(seconds, 0))"
    case .onRevision(let r, let m): "\(m)@\(r)"
    }
  }

  /// Parses the spelling of ``description``; `nil` when it is not one.
  ///
  /// `@REV` after a mistake places it on the route of that revision (`miss:2@1`); `@0` is the
  /// first route, as without it. `ignore` takes none.
  public init?(_ text: String) {
    let at = text.split(separator: "@", omittingEmptySubsequences: false)
    if at.count == 2 {
      guard let r = Int(at[1]), r >= 0, let m = DrivingMistake(String(at[0])),
        m != .ignoreNewRoute, m.revision == 0
      else { return nil }
      self = r == 0 ? m : .onRevision(r, m)
      return
    }
    guard at.count == 1 else { return nil }
    let parts = text.split(separator: ":").map(String.init)
    func number(_ i: Int) -> Double? { i < parts.count ? Double(parts[i]) : nil }
    switch parts.first {
    case "miss" where parts.count == 2:
      guard let s = Int(parts[1]), s >= 1 else { return nil }
      self = .missTurn(step: s)
    case "wrong-exit" where parts.count == 2:
      guard let s = Int(parts[1]), s >= 1 else { return nil }
      self = .wrongExit(step: s)
    case "u-turn" where parts.count == 2:
      guard let at = number(1), at >= 0 else { return nil }
      self = .uTurn(at: at)
    case "ignore" where parts.count == 1:
      self = .ignoreNewRoute
    case "stop" where parts.count == 3:
      guard let at = number(1), let s = number(2), at >= 0, s > 0 else { return nil }
      self = .stop(at: at, seconds: s)
    default:
      return nil
    }
  }
}

/// A way off the first route on real roads: where it leaves the route and the road it takes.
public struct Detour: Sendable, Equatable {
  /// Metres along the first route where the vehicle leaves it.
  public var leaveAt: Double
  /// The road driven from there, its first point on the route.
  public var path: [Coordinate]
  /// The mistake it belongs to.
  public var mistake: DrivingMistake
  /// The revision of the route it leaves (`leaveAt` is along that route).
  public var revision: Int { mistake.revision }

  public init(leaveAt: Double, path: [Coordinate], mistake: DrivingMistake) {
    self.leaveAt = leaveAt
    self.path = path
    self.mistake = mistake
  }

  /// Metres from the route beyond which a point of another road counts as off it.
  public static let divergence = 6.0

  /// The part of `road` (a router's polyline that starts on or near `route`) after it leaves
  /// `route` near `near` metres along it; `nil` when it does not leave the route within
  /// `window` metres of there.
  public static func leaving(
    _ route: [Coordinate], road: [Coordinate], near: Double, window: ClosedRange<Double>,
    mistake: DrivingMistake
  ) -> Detour? {
    let line = Polyline(route)
    var last: (point: Coordinate, along: Double)?
    for p in road {
      let m = line.locate(p, near: near, within: 1500)
      if m.offset > divergence {
        guard let from = last, window.contains(from.along) else { return nil }
        guard let i = road.firstIndex(of: p) else { return nil }
        return Detour(leaveAt: from.along, path: [from.point] + road[i...], mistake: mistake)
      }
      last = (line.point(at: m.along), m.along)
    }
    return nil
  }

  /// Turning round at `at` metres: back along the route's own road for `length` metres
  /// (`mistake` is the U-turn, on whichever route it is made).
  public static func uTurn(
    _ route: [Coordinate], at: Double, length: Double, mistake: DrivingMistake? = nil
  ) -> Detour {
    let line = Polyline(route)
    let start = min(at, line.length)
    var path = [line.point(at: start)]
    var i = line.index(at: start)
    while i > 0 && line.cumulative[i] > max(0, start - length) {
      if line.cumulative[i] < start - 0.5 { path.append(line.points[i]) }
      i -= 1
    }
    path.append(line.point(at: max(0, start - length)))
    return Detour(leaveAt: start, path: path, mistake: mistake ?? .uTurn(at: at))
  }
}

/// A polyline with distances along it.
public struct Polyline: Sendable {
  public let points: [Coordinate]
  public let cumulative: [Double]

  public init(_ points: [Coordinate]) {
    var pts: [Coordinate] = []
    for p in points {
      if let last = pts.last, last.distance(to: p) < 0.01 { continue }
      pts.append(p)
    }
    if pts.count == 1 { pts.append(pts[0]) }
    if pts.isEmpty {
      pts = [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 0)]
    }
    var cum = [0.0]
    for i in 1..<pts.count { cum.append(cum[i - 1] + pts[i - 1].distance(to: pts[i])) }
    self.points = pts
    cumulative = cum
  }

  public var length: Double { cumulative[cumulative.count - 1] }

  func index(at s: Double) -> Int {
    var lo = 0
    var hi = cumulative.count - 1
    while hi - lo > 1 {
      let mid = (lo + hi) / 2
      if cumulative[mid] <= s { lo = mid } else { hi = mid }
    }
    return lo
  }

  public func point(at s: Double) -> Coordinate {
    let i = index(at: s)
    let len = cumulative[i + 1] - cumulative[i]
    guard len > 0 else { return points[i] }
    return points[i].interpolated(
      to: points[i + 1], fraction: min(1, max(0, (s - cumulative[i]) / len)))
  }

  public func bearing(at s: Double) -> Double {
    let i = min(index(at: s), points.count - 2)
    return points[i].bearing(to: points[i + 1])
  }

  /// The nearest point to `p` within `within` metres along the line of `near`.
  ///
  /// With a `course` (degrees), only segments heading within 90° of it count.
  /// - Returns: its distance along the line and from it (an infinite offset when no segment
  ///   counts).
  public func locate(_ p: Coordinate, near: Double, within: Double, course: Double? = nil) -> (
    along: Double, offset: Double
  ) {
    var best = (along: 0.0, offset: Double.infinity)
    var i = index(at: max(0, near - within))
    while i < points.count - 1 && cumulative[i] <= near + within {
      if let c = course, bearingDifference(c, points[i].bearing(to: points[i + 1])) > 90 {
        i += 1
        continue
      }
      let q = project(p, ontoSegmentFrom: points[i], to: points[i + 1])
      if q.distance < best.offset {
        best = (cumulative[i] + q.fraction * (cumulative[i + 1] - cumulative[i]), q.distance)
      }
      i += 1
    }
    return best
  }
}

/// A virtual vehicle that follows the route it is given, makes scripted mistakes, and reports
/// what its receiver would, one epoch at a time (the other half of a closed loop with the
/// daemon: the caller hands it each new route the daemon publishes).
///
/// Pure and deterministic: the same routes given at the same epochs make the same drive.
public struct ClosedLoopDriver {
  /// Where the vehicle is at one epoch.
  public struct Sample: Sendable, Equatable {
    public var time: Double
    public var position: Coordinate
    public var speed: Double
    public var course: Double
    /// The revision of the route being followed, `nil` while on a detour.
    public var revision: Int?
    /// Metres along that route (or along the detour).
    public var along: Double

    public init(
      time: Double, position: Coordinate, speed: Double, course: Double, revision: Int?,
      along: Double
    ) {
      self.time = time
      self.position = position
      self.speed = speed
      self.course = course
      self.revision = revision
      self.along = along
    }
  }

  /// Something the driver did: a mistake begun, a route taken or ignored.
  public struct Action: Sendable, Equatable {
    public enum Kind: String, Sendable {
      case mistake, follow, ignore
    }
    public var time: Double
    public var kind: Kind
    /// The mistake's spelling, for `mistake`.
    public var mistake: String?
    /// The route revision, for `follow` and `ignore`.
    public var revision: Int?

    public init(time: Double, kind: Kind, mistake: String? = nil, revision: Int? = nil) {
      self.time = time
      self.kind = kind
      self.mistake = mistake
      self.revision = revision
    }
  }

  /// What the vehicle drives along now.
  private struct Plan: Sendable {
    var line: Polyline
    var turns: [(at: Double, angle: Double)]
    /// The route revision, `nil` for a detour.
    var revision: Int?
    /// Metres along the route at the plan's start (a plan that joins a route from the side
    /// starts with a short connection, so this is negative).
    var base: Double

    init(_ points: [Coordinate], revision: Int?, base: Double = 0) {
      line = Polyline(points)
      self.revision = revision
      self.base = base
      var turns: [(Double, Double)] = []
      let pts = line.points
      for i in 1..<max(1, pts.count - 1) {
        let angle = bearingDifference(
          pts[i - 1].bearing(to: pts[i]), pts[i].bearing(to: pts[i + 1]))
        if angle > 30 { turns.append((line.cumulative[i], angle)) }
      }
      self.turns = turns
    }
  }

  public let options: DriveOptions
  public private(set) var time: Double
  public private(set) var actions: [Action] = []
  /// Whether the drive is over: the destination reached and the dwell stood, or stranded at
  /// the end of a detour for ``strandedLimit`` seconds.
  public private(set) var finished = false
  /// Whether the vehicle reached the end of a route it followed.
  public private(set) var reachedDestination = false
  /// Seconds standing at the end of a detour after which the drive gives up.
  public static let strandedLimit = 60.0
  /// A new route is joined where it passes nearest the vehicle within this many metres of its
  /// start.
  public static let joinWindow = 400.0

  private var plan: Plan
  private var s = 0.0
  private var v = 0.0
  private var detours: [Detour]
  /// Stops still to make, each on the route of its revision.
  private var stops: [(revision: Int, stop: Stop)]
  /// The U-turns and stops to make on routes published later, placed when each comes.
  private var later: [DrivingMistake]
  private var ignoreNext: Bool
  private var onMistake = false
  private var standing = 0.0
  private var stranded = 0.0
  private var settled = 0.0
  private var dwelt = 0.0
  private var receiver: ReceiverStream
  private let kinematics: Kinematics

  /// A driver for `route` (the first route's polyline), with the simulator's `options` (the
  /// profile, speed, noise, rate and seed; detours and stops of the open-loop simulator are
  /// not used) and the `detours` and other `mistakes` to make.
  ///
  /// The detours of missed turns and wrong exits on later routes are handed in with each
  /// route (``offered(revision:route:detours:)``); U-turns and stops on them are placed here.
  public init(
    route: [Coordinate], options: DriveOptions, detours: [Detour], mistakes: [DrivingMistake]
  ) {
    var o = options
    if o.profile == nil { o.profile = .town }
    self.options = o
    time = o.start
    plan = Plan(route, revision: 0)
    self.detours = []
    stops = []
    later = mistakes.filter { $0.revision > 0 }
    ignoreNext = mistakes.contains(.ignoreNewRoute)
    receiver = ReceiverStream(options: o)
    kinematics = Kinematics.detailed(.automobile, main: .automobile, options: o)
    place(mistakes.filter { $0.revision == 0 }, on: route, detours: detours)
  }

  /// Adds the `detours` and the U-turns and stops among `mistakes`, all on `route`.
  private mutating func place(
    _ mistakes: [DrivingMistake], on route: [Coordinate], detours more: [Detour]
  ) {
    var all = more
    for m in mistakes {
      switch m.base {
      case .stop(let at, let seconds):
        stops.append((m.revision, Stop(at: at, duration: seconds)))
      case .uTurn(let at):
        // Turning round starts from a standstill.
        stops.append((m.revision, Stop(at: at, duration: 2)))
        all.append(Detour.uTurn(route, at: at, length: 800, mistake: m))
      default: break
      }
    }
    detours = (detours + all).sorted { $0.leaveAt < $1.leaveAt }
    stops.sort { $0.stop.at < $1.stop.at }
  }

  /// Seconds between epochs.
  public var interval: Double { 1 / min(10, max(1, options.hz)) }

  /// Advances one epoch: the truth and the receiver's fix.
  public mutating func step() -> (sample: Sample, fix: Fix, sigma: Double) {
    let dt = interval
    if settled < options.settle {
      settled += dt
    } else if reachedDestination {
      dwelt += dt
      if dwelt >= options.dwell { finished = true }
    } else if standing > 0 {
      standing -= dt
      v = 0
    } else {
      move(dt)
    }
    let sample = Sample(
      time: time, position: plan.line.point(at: s), speed: v, course: plan.line.bearing(at: s),
      revision: plan.revision, along: plan.base + s)
    let (fix, sigma) = receiver.fix(sample)
    time += dt
    return (sample, fix, sigma)
  }

  private mutating func move(_ dt: Double) {
    let k = kinematics
    if let i = stops.firstIndex(where: { $0.revision == plan.revision }),
      plan.base + s >= stops[i].stop.at
    {
      standing = stops.remove(at: i).stop.duration
      v = 0
      return
    }
    if let i = detours.firstIndex(where: { $0.revision == plan.revision }),
      plan.base + s >= detours[i].leaveAt
    {
      let d = detours.remove(at: i)
      // Onto the other road as far as the vehicle has gone past the point where it parts.
      let past = plan.base + s - d.leaveAt
      plan = Plan(d.path, revision: nil)
      s = min(past, plan.line.length)
      onMistake = true
      actions.append(Action(time: time, kind: .mistake, mistake: d.mistake.description))
    }
    let left = plan.line.length - s
    if left <= 0.01 {
      v = 0
      if plan.revision != nil {
        reachedDestination = true
      } else {
        stranded += dt
        if stranded >= Self.strandedLimit { finished = true }
      }
      return
    }
    var limit = k.cruise
    for turn in plan.turns where turn.at > s && turn.at <= s + k.lookahead {
      let vt = k.turnSpeed(turn.angle)
      limit = min(limit, (vt * vt + 2 * k.braking * max(0, turn.at - s)).squareRoot())
    }
    limit = min(limit, (1 + 2 * k.braking * max(0, left)).squareRoot())
    if let stop = stops.first(where: { $0.revision == plan.revision })?.stop {
      limit = min(limit, (2 * k.braking * max(0, stop.at - plan.base - s)).squareRoot() + 0.5)
    }
    if v < limit {
      v = min(limit, v + k.acceleration * dt)
    } else {
      v = max(limit, v - k.braking * dt)
    }
    s = min(plan.line.length, s + v * dt)
  }

  /// The daemon published a new route: the driver takes it, unless it ignores the first one
  /// after a mistake.
  ///
  /// It joins the route where it passes nearest in the vehicle's direction (a route that doubles
  /// back past the vehicle is joined where it leaves, not on its way back). The mistakes named
  /// for this revision are made on it.
  ///
  /// - Parameters:
  ///   - revision: the route's revision.
  ///   - route: its whole polyline.
  ///   - detours: the ways off it of the missed turns and wrong exits to make on it.
  /// - Returns: whether the driver follows it.
  @discardableResult
  public mutating func offered(revision: Int, route: [Coordinate], detours: [Detour] = [])
    -> Bool
  {
    if ignoreNext && onMistake {
      ignoreNext = false
      actions.append(Action(time: time, kind: .ignore, revision: revision))
      return false
    }
    let here = plan.line.point(at: s)
    let line = Polyline(route)
    let heading = line.locate(
      here, near: 0, within: Self.joinWindow, course: plan.line.bearing(at: s))
    let m =
      heading.offset.isFinite ? heading : line.locate(here, near: 0, within: Self.joinWindow)
    let joined = line.point(at: m.along)
    var points = [here, joined]
    let i = line.index(at: m.along)
    points += line.points[(i + 1)...]
    plan = Plan(points, revision: revision, base: m.along - here.distance(to: joined))
    s = 0
    onMistake = false
    stranded = 0
    actions.append(Action(time: time, kind: .follow, revision: revision))
    place(later.filter { $0.revision == revision }, on: route, detours: detours)
    later.removeAll { $0.revision == revision }
    return true
  }
}

/// The receiver of a closed-loop drive, one epoch at a time: the same correlated error and
/// speed and course noise as the simulator's detailed model.
struct ReceiverStream: Sendable {
  let options: DriveOptions
  private var rng: RandomSource
  private var ex = 0.0
  private var ey = 0.0
  private var first = true

  init(options: DriveOptions) {
    self.options = options
    rng = RandomSource(seed: options.seed)
  }

  mutating func fix(_ sample: ClosedLoopDriver.Sample) -> (Fix, Double) {
    let sigma = options.noise / 2.0.squareRoot()
    let dt = 1 / min(10, max(1, options.hz))
    let rho = exp(-dt / options.noiseCorrelation)
    if first {
      ex = sigma * rng.gaussian()
      ey = sigma * rng.gaussian()
      first = false
    } else {
      ex = rng.markov(ex, sigma: sigma, rho: rho)
      ey = rng.markov(ey, sigma: sigma, rho: rho)
    }
    var p = sample.position
    if sigma > 0 {
      p = p.destination(distance: ey, bearing: 0).destination(distance: ex, bearing: 90)
    }
    var speed = sample.speed
    var course = sample.course
    if options.noise > 0 {
      if sample.speed == 0 {
        speed = abs(0.15 * rng.gaussian())
        course = 360 * rng.uniform()
      } else {
        speed = max(0, sample.speed + 0.1 * rng.gaussian())
        let spread = min(120, 2 + 15 / max(speed, 0.1))
        course = normalizedBearing(sample.course + spread * rng.gaussian())
      }
    }
    let fix = Fix(
      time: sample.time, coordinate: p, speed: speed, course: course,
      horizontalAccuracy: max(0.7, options.noise), hdop: options.hdop, altitude: 50,
      satellites: 9, quality: .gps)
    return (fix, max(0.5, sigma))
  }
}
