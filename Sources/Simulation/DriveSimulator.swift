public import Geodesy
public import Routes
import func Glibc.exp
import func Glibc.sqrt

/// A detour from the route: leave at `at` metres along the route, turning `angle` degrees from
/// the route's direction (positive right), drive `length` metres away, and when `rejoin`, come
/// back the same way and go on along the route.
public struct Deviation: Sendable, Equatable {
  public var at: Double
  public var angle: Double
  public var length: Double
  public var rejoin: Bool

  public init(at: Double, angle: Double = 60, length: Double = 200, rejoin: Bool = true) {
    self.at = at
    self.angle = angle
    self.length = length
    self.rejoin = rejoin
  }
}

/// Settings of a simulated drive.
public struct DriveOptions: Sendable, Equatable {
  /// Cruising speed in m/s; `nil` uses the route's mode (50 km/h driving, 18 km/h cycling,
  /// 5 km/h walking).
  public var speed: Double?
  /// Fixes per second, 1 … 10.
  public var hz: Double = 1
  /// Root-mean-square horizontal position error in metres, as a slowly varying random walk.
  public var noise: Double = 0
  /// Correlation time of the position error, seconds.
  public var noiseCorrelation: Double = 20
  public var seed: UInt64 = 1
  /// Time of the first epoch, seconds since the Unix epoch (default 2024-05-01T08:00:00Z).
  public var start: Double = 1_714_550_400
  /// Stretches without a fix (a tunnel), metres along the route.
  public var dropouts: [ClosedRange<Double>] = []
  public var deviation: Deviation?
  /// Seconds standing at the start before moving, and at the end after arriving.
  public var settle: Double = 5
  public var dwell: Double = 5
  /// Stops along the way: metres along the route and seconds standing.
  public var stops: [(at: Double, duration: Double)] = []

  public init() {}

  public static func == (a: DriveOptions, b: DriveOptions) -> Bool {
    a.speed == b.speed && a.hz == b.hz && a.noise == b.noise && a.seed == b.seed
      && a.start == b.start && a.dropouts == b.dropouts && a.deviation == b.deviation
      && a.settle == b.settle && a.dwell == b.dwell
      && a.stops.map(\.at) == b.stops.map(\.at) && a.stops.map(\.duration) == b.stops.map(\.duration)
  }
}

/// Where the vehicle really was at one epoch, next to what the receiver reported.
public struct TruthSample: Sendable, Equatable {
  public var time: Double
  public var position: Coordinate
  /// Metres along the route, or the point where it left the route while off it.
  public var distanceAlong: Double
  /// Metres from the route (0 on it).
  public var offset: Double
  public var speed: Double
  public var course: Double
  /// Whether the receiver had a fix.
  public var hasFix: Bool
}

/// A simulated drive: the truth and the receiver's fixes, epoch by epoch.
public struct SimulatedDrive: Sendable {
  public var truth: [TruthSample]
  public var fixes: [Fix]
  /// The one-sigma per-axis error the receiver reports in GST, metres.
  public var reportedSigma: Double

  /// The drive as NMEA 0183 sentences (RMC, GGA, GSA and GST per epoch), CR LF terminated.
  public func nmea(talker: String = "GP", header: [String] = []) -> String {
    var out = ""
    for h in header { out += "# \(h)\n" }
    for fix in fixes { out += NMEAWriter.epoch(fix, talker: talker, sigma: reportedSigma) }
    return out
  }
}

/// Drives a route and reports what a receiver would: realistic speeds (slowing for turns),
/// correlated position noise, dropouts and detours. Deterministic for a given seed.
public enum DriveSimulator {
  public static func drive(_ route: Route, options: DriveOptions = DriveOptions()) -> SimulatedDrive {
    let path = Path(route: route)
    var rng = RandomSource(seed: options.seed)
    let dt = 1 / min(10, max(1, options.hz))
    var truth: [TruthSample] = []
    var t = options.start
    var s = 0.0
    var v = 0.0
    var pendingStops = options.stops.sorted { $0.at < $1.at }

    func record(_ pos: Coordinate, along: Double, offset: Double, speed: Double, course: Double) {
      let dark = options.dropouts.contains { $0.contains(along) } && offset == 0
      truth.append(
        TruthSample(
          time: t, position: pos, distanceAlong: along, offset: offset, speed: speed,
          course: course, hasFix: !dark))
      t += dt
    }

    // Settle at the start.
    var k = 0.0
    while k < options.settle {
      record(path.point(at: 0), along: 0, offset: 0, speed: 0, course: path.bearing(at: 0))
      k += dt
    }
    var deviation = options.deviation
    var mode = path.mode(at: 0)
    while s < path.length {
      // Each step is travelled the way it says: walking at walking pace, driving at driving
      // speed; changing from one to the other takes a quarter of a minute standing.
      let here = path.mode(at: s)
      if here != mode {
        mode = here
        v = 0
        var w = 0.0
        while w < 15 {
          record(path.point(at: s), along: s, offset: 0, speed: 0, course: path.bearing(at: s))
          w += dt
        }
      }
      let cruise = options.speed ?? defaultSpeed(mode)
      let turnSpeed = min(cruise, mode == .automobile ? 5.5 : cruise * 0.6)
      let accel = mode == .automobile ? 1.5 : 0.8
      let brake = mode == .automobile ? 2.0 : 1.0
      if let d = deviation, s >= d.at {
        deviation = nil
        detour(d, path: path, speed: max(v, cruise * 0.7), dt: dt, record: record)
        v = cruise * 0.5
        if !d.rejoin { break }
      }
      if let stop = pendingStops.first, s >= stop.at {
        pendingStops.removeFirst()
        var w = 0.0
        v = 0
        while w < stop.duration {
          record(path.point(at: s), along: s, offset: 0, speed: 0, course: path.bearing(at: s))
          w += dt
        }
      }
      // Speed limit from the next sharp turn and the end of the route.
      var limit = cruise
      if let turn = path.nextTurn(after: s) {
        let vt = turn.angle > 30 ? turnSpeed : cruise
        limit = min(limit, sqrt(vt * vt + 2 * brake * max(0, turn.at - s)))
      }
      limit = min(limit, sqrt(1 + 2 * brake * max(0, path.length - s)))
      if let stop = pendingStops.first {
        limit = min(limit, sqrt(2 * brake * max(0, stop.at - s)) + 0.5)
      }
      if v < limit { v = min(limit, v + accel * dt) } else { v = max(limit, v - brake * dt) }
      s = min(path.length, s + v * dt)
      record(path.point(at: s), along: s, offset: 0, speed: v, course: path.bearing(at: s))
    }
    if s >= path.length {
      k = 0
      while k < options.dwell {
        record(
          path.point(at: path.length), along: path.length, offset: 0, speed: 0,
          course: path.bearing(at: path.length))
        k += dt
      }
    }
    return SimulatedDrive(
      truth: truth, fixes: receiver(truth, options: options, rng: &rng),
      reportedSigma: max(0.5, options.noise / 2.0.squareRoot()))
  }

  static func defaultSpeed(_ mode: TransportType) -> Double {
    switch mode {
    case .automobile, .transit: 13.9
    case .cycling: 5
    case .walking: 1.4
    }
  }

  private static func detour(
    _ d: Deviation, path: Path, speed: Double, dt: Double,
    record: (Coordinate, Double, Double, Double, Double) -> Void
  ) {
    let start = path.point(at: d.at)
    let heading = normalizedBearing(path.bearing(at: d.at) + d.angle)
    var x = 0.0
    while x < d.length {
      x += speed * dt
      let p = start.destination(distance: x, bearing: heading)
      record(p, d.at, path.offset(of: p, near: d.at), speed, heading)
    }
    guard d.rejoin else { return }
    let back = normalizedBearing(heading + 180)
    while x > speed * dt {
      x -= speed * dt
      let p = start.destination(distance: x, bearing: heading)
      record(p, d.at, path.offset(of: p, near: d.at), speed, back)
    }
  }

  /// What the receiver reports: the truth plus correlated noise, no position in dropouts.
  private static func receiver(_ truth: [TruthSample], options: DriveOptions, rng: inout RandomSource)
    -> [Fix]
  {
    let sigma = options.noise / 2.0.squareRoot()
    var ex = 0.0
    var ey = 0.0
    var first = true
    var previous: TruthSample?
    var fixes: [Fix] = []
    fixes.reserveCapacity(truth.count)
    for sample in truth {
      let dt = previous.map { sample.time - $0.time } ?? 1
      previous = sample
      let rho = exp(-dt / options.noiseCorrelation)
      if first {
        ex = sigma * rng.gaussian()
        ey = sigma * rng.gaussian()
        first = false
      } else {
        let q = sigma * (1 - rho * rho).squareRoot()
        ex = rho * ex + q * rng.gaussian()
        ey = rho * ey + q * rng.gaussian()
      }
      guard sample.hasFix else {
        fixes.append(.noFix(time: sample.time))
        continue
      }
      var p = sample.position
      if sigma > 0 {
        p = p.destination(distance: ey, bearing: 0).destination(distance: ex, bearing: 90)
      }
      let speedNoise = options.noise > 0 ? 0.1 * rng.gaussian() : 0
      let v = max(0, sample.speed + speedNoise)
      // Course is noisy at walking pace and meaningless when standing.
      let courseNoise = options.noise > 0 ? rng.gaussian() * (v < 2 ? 25 : 3) : 0
      fixes.append(
        Fix(
          time: sample.time, coordinate: p, speed: v,
          course: normalizedBearing(sample.course + courseNoise),
          horizontalAccuracy: max(0.7, options.noise), hdop: 0.9, altitude: 450, satellites: 9,
          quality: .gps))
    }
    return fixes
  }
}

/// The route as one polyline with distances, for the simulator.
struct Path {
  let points: [Coordinate]
  let cumulative: [Double]
  let turns: [(at: Double, angle: Double)]
  /// Distance along the route where each step ends, and the step's transport type.
  let stepEnds: [(at: Double, mode: TransportType)]

  var length: Double { cumulative[cumulative.count - 1] }

  /// How the route is travelled at `s` metres.
  func mode(at s: Double) -> TransportType {
    for e in stepEnds.dropFirst() where s < e.at { return e.mode }
    return stepEnds.last?.mode ?? .automobile
  }

  init(route: Route) {
    var pts: [Coordinate] = []
    var ends: [Int] = []
    for (i, step) in route.steps.enumerated() {
      for (k, p) in step.polyline.enumerated() where i == 0 || k > 0 {
        if let last = pts.last, last.distance(to: p) < 0.01 { continue }
        pts.append(p)
      }
      ends.append(pts.count - 1)
    }
    if pts.count == 1 { pts.append(pts[0]) }
    var cum = [0.0]
    for i in 1..<pts.count { cum.append(cum[i - 1] + pts[i - 1].distance(to: pts[i])) }
    points = pts
    cumulative = cum
    var turns: [(Double, Double)] = []
    // Every vertex with a real change of direction slows the vehicle, not only maneuvers.
    for i in 1..<(pts.count - 1) {
      let a = pts[i - 1].bearing(to: pts[i])
      let b = pts[i].bearing(to: pts[i + 1])
      let angle = bearingDifference(a, b)
      if angle > 30 { turns.append((cum[i], angle)) }
    }
    self.turns = turns
    stepEnds = zip(ends, route.steps).map { (cum[$0.0], $0.1.transportType) }
  }

  func index(at s: Double) -> Int {
    var lo = 0
    var hi = cumulative.count - 1
    while hi - lo > 1 {
      let mid = (lo + hi) / 2
      if cumulative[mid] <= s { lo = mid } else { hi = mid }
    }
    return lo
  }

  func point(at s: Double) -> Coordinate {
    let i = index(at: s)
    let len = cumulative[i + 1] - cumulative[i]
    guard len > 0 else { return points[i] }
    return points[i].interpolated(to: points[i + 1], fraction: min(1, max(0, (s - cumulative[i]) / len)))
  }

  func bearing(at s: Double) -> Double {
    let i = min(index(at: s), points.count - 2)
    return points[i].bearing(to: points[i + 1])
  }

  func nextTurn(after s: Double) -> (at: Double, angle: Double)? {
    // Turns are few; a linear scan from a binary-searched start keeps this cheap.
    var lo = 0
    var hi = turns.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if turns[mid].at <= s { lo = mid + 1 } else { hi = mid }
    }
    return lo < turns.count ? turns[lo] : nil
  }

  /// Distance from `p` to the route within 1 km of `near` (metres along the route).
  func offset(of p: Coordinate, near: Double) -> Double {
    var best = Double.infinity
    var i = index(at: max(0, near - 1000))
    while i < points.count - 1 && cumulative[i] <= near + 1000 {
      best = min(best, project(p, ontoSegmentFrom: points[i], to: points[i + 1]).distance)
      i += 1
    }
    return best
  }
}
