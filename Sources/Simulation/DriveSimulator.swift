public import Geodesy
public import Routes

import func Glibc.exp
import func Glibc.sin
import func Glibc.sqrt

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
  /// The one-sigma per-axis error the receiver reports in GST, metres (the classic model's
  /// constant figure).
  public var reportedSigma: Double
  /// The one-sigma per-axis error reported with each fix, metres: the noise's own figure,
  /// plus what the receiver notices of a multipath jump.
  public var sigmas: [Double]
  /// Stretches without a fix, metres along the route: the explicit dropouts and the tunnels.
  public var dropouts: [ClosedRange<Double>]
  /// Stretches of the route the vehicle cut across (``Shortcut``), metres along it: the
  /// maneuvers inside were never driven.
  public var skipped: [ClosedRange<Double>] = []

  /// Whether the maneuver at `s` metres along the route lies inside a stretch cut across.
  public func skips(_ s: Double) -> Bool {
    skipped.contains { $0.lowerBound < s && s < $0.upperBound }
  }

  /// The drive as NMEA 0183 sentences (RMC, GGA, GSA and GST per epoch), CR LF terminated.
  public func nmea(talker: String = "GP", header: [String] = []) -> String {
    nmea(talker: talker, sentences: NMEAWriter.Sentence.classic, header: header)
  }

  /// The drive as NMEA 0183 sentences of the chosen types, in a receiver's usual order.
  public func nmea(talker: String, sentences: [NMEAWriter.Sentence], header: [String]) -> String {
    var out = ""
    for h in header { out += "# \(h)\n" }
    for (i, fix) in fixes.enumerated() {
      out += NMEAWriter.epoch(fix, talker: talker, sigma: sigmas[i], sentences: sentences)
    }
    return out
  }

  /// The drive as a `gpspipe -w` capture of gpsd 3.22: VERSION, DEVICES and WATCH, then a TPV
  /// (and with `sky`, a SKY) per epoch.
  public func gpsdJSON(sky: Bool = true, device: String = "/dev/ttyACM0") -> String {
    GPSDJSONWriter.capture(self, sky: sky, device: device)
  }
}

/// How a stretch is travelled: the speeds and limits of the kinematic model.
struct Kinematics {
  var cruise: Double
  var acceleration: Double
  var braking: Double
  /// Speed through a change of direction of the given angle, m/s.
  var turnSpeed: (Double) -> Double
  /// How far ahead turns matter, metres.
  var lookahead: Double

  /// The classic model: each mode's speed, 20 km/h through any turn over 30°.
  static func classic(_ mode: TransportType, speed: Double?) -> Kinematics {
    let cruise = speed ?? DriveSimulator.defaultSpeed(mode)
    let turn = min(cruise, mode == .automobile ? 5.5 : cruise * 0.6)
    return Kinematics(
      cruise: cruise, acceleration: mode == .automobile ? 1.5 : 0.8,
      braking: mode == .automobile ? 2.0 : 1.0,
      turnSpeed: { $0 > 30 ? turn : cruise }, lookahead: 0)
  }

  /// The detailed model, turn speeds by angle: the chosen profile on steps travelled the
  /// route's main way (`main`), each other step on its own mode's profile.
  static func detailed(_ mode: TransportType, main: TransportType, options: DriveOptions)
    -> Kinematics
  {
    guard let chosen = options.profile else { return classic(mode, speed: options.speed) }
    if mode == .transit && main != .transit {
      // A ferry or a train: steady, slow to start and stop, no turn slowing.
      let cruise = 6.0
      return Kinematics(
        cruise: cruise, acceleration: 0.3, braking: 0.5, turnSpeed: { _ in cruise }, lookahead: 0)
    }
    let fits = mode == main
    let profile = fits ? chosen : SpeedProfile.forMode(mode)
    let cruise = fits ? (options.speed ?? profile.cruise) : profile.cruise
    let accel = fits ? (options.acceleration ?? profile.acceleration) : profile.acceleration
    let brake = fits ? (options.braking ?? profile.braking) : profile.braking
    return Kinematics(
      cruise: cruise, acceleration: accel, braking: brake,
      turnSpeed: { min(cruise, profile.turnSpeed(angle: $0)) },
      lookahead: cruise * cruise / (2 * brake) + 30)
  }
}

/// Drives a route and reports what a receiver would: realistic speeds (slowing for turns),
/// correlated position noise, dropouts and detours.
///
/// Deterministic for a given seed.
public enum DriveSimulator {
  /// Drives `route` with `options`; the same route, options and seed give the same drive.
  public static func drive(_ route: Route, options: DriveOptions = DriveOptions()) -> SimulatedDrive
  {
    let path = Path(route: route, cornerCut: options.cornerCut)
    var rng = RandomSource(seed: options.seed)
    let dt = 1 / min(10, max(1, options.hz))
    var truth: [TruthSample] = []
    var t = options.start
    var s = 0.0
    var v = 0.0
    var pendingStops = options.stops.sorted { $0.at < $1.at }
    var wander = Wander(options)
    let dropouts = options.dropouts + (options.tunnels ? tunnelStretches(route, path: path) : [])

    func record(_ pos: Coordinate, along: Double, offset: Double, speed: Double, course: Double) {
      let dark =
        (dropouts.contains { $0.contains(along) } && offset == 0)
        || options.gaps.contains { $0.contains(t - options.start) }
      truth.append(
        TruthSample(
          time: t, position: pos, distanceAlong: along, offset: offset, speed: speed,
          course: course, hasFix: !dark))
      t += dt
    }
    func stand(_ seconds: Double) {
      var w = 0.0
      while w < seconds {
        record(path.drivenPoint(at: s), along: s, offset: 0, speed: 0, course: path.course(at: s))
        w += dt
      }
    }

    // Settle at the start, in the car park when pulling out of one, and drive onto the route.
    var k = 0.0
    let arc = options.pullOut.map { pullOutArc($0, path: path, step: $0.speed * dt) } ?? []
    while k < options.settle {
      if let first = arc.first {
        record(
          first.point, along: 0, offset: path.offset(of: first.point, near: 0), speed: 0,
          course: first.course)
      } else {
        record(path.point(at: 0), along: 0, offset: 0, speed: 0, course: path.bearing(at: 0))
      }
      k += dt
    }
    if let p = options.pullOut, let first = arc.first, p.circle > 0 {
      for c in circleInCarPark(
        p, from: first.point, course: first.course, seconds: p.circle, dt: dt)
      {
        record(
          c.point, along: 0, offset: path.offset(of: c.point, near: 0), speed: c.speed,
          course: c.course)
      }
    }
    for a in arc {
      record(
        a.point, along: 0, offset: path.offset(of: a.point, near: 0),
        speed: options.pullOut?.speed ?? 0, course: a.course)
    }
    if let p = options.pullOut { v = p.speed }
    var deviation = options.deviation
    var shortcuts = options.shortcuts.filter { $0.to > $0.from }.sorted { $0.from < $1.from }
    var skipped: [ClosedRange<Double>] = []
    var mode = path.mode(at: 0)
    while s < path.length {
      // Each step is travelled the way it says: walking at walking pace, driving at driving
      // speed; changing from one to the other takes a quarter of a minute standing.
      let here = path.mode(at: s)
      if here != mode {
        mode = here
        v = 0
        stand(15)
      }
      let kin =
        options.detailed
        ? Kinematics.detailed(mode, main: route.transportType, options: options)
        : Kinematics.classic(mode, speed: options.speed)
      let cruise = kin.cruise
      let brake = kin.braking
      if let d = deviation, s >= d.at {
        deviation = nil
        detour(d, path: path, speed: max(v, cruise * 0.7), dt: dt, record: record)
        v = cruise * 0.5
        if !d.rejoin { break }
      }
      if let stop = pendingStops.first, s >= stop.at {
        pendingStops.removeFirst()
        v = 0
        stand(stop.duration)
      }
      if let c = shortcuts.first, s >= c.from {
        shortcuts.removeFirst()
        skipped.append(s...max(s, c.to))
        for p in cutAcross(c, path: path, step: max(0.1, c.speed) * dt) {
          record(p.point, along: s, offset: 0, speed: c.speed, course: p.course)
        }
        s = min(path.length, c.to)
        v = c.speed
        record(path.drivenPoint(at: s), along: s, offset: 0, speed: v, course: path.course(at: s))
        continue
      }
      // Speed limit from the turns ahead and the end of the route.
      var limit = cruise * wander.next(dt)
      if let turn = path.nextTurn(after: s) {
        let vt = kin.turnSpeed(turn.angle)
        limit = min(limit, sqrt(vt * vt + 2 * brake * max(0, turn.at - s)))
      }
      if kin.lookahead > 0 {
        for turn in path.turns(after: s, within: kin.lookahead) {
          let vt = kin.turnSpeed(turn.angle)
          limit = min(limit, sqrt(vt * vt + 2 * brake * max(0, turn.at - s)))
        }
      }
      if !options.endsMoving { limit = min(limit, sqrt(1 + 2 * brake * max(0, path.length - s))) }
      if let stop = pendingStops.first {
        limit = min(limit, sqrt(2 * brake * max(0, stop.at - s)) + 0.5)
      }
      if v < limit {
        v = min(limit, v + kin.acceleration * dt)
      } else {
        v = max(limit, v - brake * dt)
      }
      if options.endsMoving, s + v * dt >= path.length { break }
      s = min(path.length, s + v * dt)
      record(path.drivenPoint(at: s), along: s, offset: 0, speed: v, course: path.course(at: s))
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
    let classicSigma = max(0.5, options.noise / 2.0.squareRoot())
    let (fixes, sigmas) = ReceiverModel.fixes(truth, options: options, rng: &rng)
    return SimulatedDrive(
      truth: truth, fixes: fixes, reportedSigma: classicSigma, sigmas: sigmas,
      dropouts: dropouts, skipped: skipped)
  }

  /// A driver's cruising speed wandering around the one chosen: a factor near 1, a
  /// first-order Gauss–Markov process of RMS `speedWander` (at most three times it).
  struct Wander {
    private var rng: RandomSource
    private let sigma: Double
    private let tau: Double
    private var x = 0.0

    init(_ o: DriveOptions) {
      rng = RandomSource(seed: o.seed ^ 0x7761_6E64_6572)
      sigma = max(0, o.speedWander)
      tau = max(1, o.speedWanderCorrelation)
      if sigma > 0 { x = sigma * rng.gaussian() }
    }

    /// The factor after `dt` more seconds.
    mutating func next(_ dt: Double) -> Double {
      guard sigma > 0 else { return 1 }
      x = rng.markov(x, sigma: sigma, rho: exp(-dt / tau))
      return 1 + min(3 * sigma, max(-3 * sigma, x))
    }
  }

  /// The positions and courses of a pull-out, one per epoch, from the car park up to (not
  /// including) the route's start: worked backwards from the start, where the arc is tangent to
  /// the route.
  static func pullOutArc(_ p: PullOut, path: Path, step: Double) -> [(
    point: Coordinate, course: Double
  )] {
    let radius = max(1, p.radius)
    let length = radius * abs(p.turn) * .pi / 180
    guard length > 0, step > 0 else { return [] }
    let sign = p.turn >= 0 ? 1.0 : -1.0
    var point = path.point(at: 0)
    var heading = path.bearing(at: 0)
    var out: [(point: Coordinate, course: Double)] = []
    var u = 0.0
    var next = step
    // Walk back along the arc in half-metre steps, keeping a sample every `step` metres.
    let ds = 0.5
    while u < length {
      let d = min(ds, length - u)
      let mid = heading - sign * (d / 2) / radius * 180 / .pi
      point = point.destination(distance: d, bearing: normalizedBearing(mid + 180))
      heading -= sign * d / radius * 180 / .pi
      u += d
      if u >= next - 1e-9 {
        out.append((point, normalizedBearing(heading)))
        next += step
      }
    }
    return out.reversed()
  }

  /// The epochs of a drive round a car park before pulling out: loops of about 6 m radius
  /// turning away from the route (the other way from the pull-out's arc), at a speed falling
  /// from 6 to 1 m/s over `seconds`, ending where they started (`start`, at `course`).
  static func circleInCarPark(
    _ p: PullOut, from start: Coordinate, course: Double, seconds: Double, dt: Double
  ) -> [(point: Coordinate, speed: Double, course: Double)] {
    let (fast, slow) = (6.0, 1.0)
    let length = (fast + slow) / 2 * seconds
    let loops = max(1, (length / (2 * .pi * 6)).rounded())
    let r = length / (2 * .pi * loops)
    let sign = p.turn >= 0 ? -1.0 : 1.0
    let centre = start.destination(distance: r, bearing: normalizedBearing(course + sign * 90))
    var out: [(point: Coordinate, speed: Double, course: Double)] = []
    var t = dt
    while t < seconds {
      // Distance covered at a speed falling linearly from `fast` to `slow`.
      let u = fast * t - (fast - slow) * t * t / (2 * seconds)
      let theta = u / r * 180 / .pi
      let point = centre.destination(
        distance: r, bearing: normalizedBearing(course + sign * 90 + 180 + sign * theta))
      let v = fast - (fast - slow) * t / seconds
      out.append((point, v, normalizedBearing(course + sign * theta)))
      t += dt
    }
    return out
  }

  /// The positions and courses of a ``Shortcut``, one every `step` metres.
  ///
  /// After its start and before its end: cubic Bézier curves tangent to the route where they
  /// leave and meet it. Without `via`, one curve from the route at `from` to the route at `to`, its inner control
  /// points pushed `bulge` metres to the side; with it, a curve to the point `bulge` metres
  /// beside the route at `via` (moving the route's way there), then one on to `to`.
  static func cutAcross(_ c: Shortcut, path: Path, step: Double) -> [(
    point: Coordinate, course: Double
  )] {
    let a = path.point(at: c.from)
    let b = path.point(at: c.to)
    let ha = path.bearing(at: c.from)
    let hb = path.bearing(at: c.to)
    var curves: [(Coordinate, Coordinate, Coordinate, Coordinate)] = []
    func curve(_ p: Coordinate, _ hp: Double, _ q: Coordinate, _ hq: Double, push: Double) {
      let reach = max(4, p.distance(to: q) / 2, abs(push) / 2)
      let side = normalizedBearing(hp + (push >= 0 ? 90 : -90))
      let p1 = p.destination(distance: reach, bearing: hp)
        .destination(distance: abs(push), bearing: side)
      let p2 = q.destination(distance: reach, bearing: normalizedBearing(hq + 180))
        .destination(distance: abs(push), bearing: side)
      curves.append((p, p1, p2, q))
    }
    if let via = c.via {
      let hm = path.bearing(at: via)
      let m = path.point(at: via).destination(
        distance: abs(c.bulge), bearing: normalizedBearing(hm + (c.bulge >= 0 ? 90 : -90)))
      curve(a, ha, m, hm, push: 0)
      curve(m, hm, b, hb, push: 0)
    } else {
      curve(a, ha, b, hb, push: c.bulge)
    }
    // Walk the curves in small parameter steps, keeping a point every `step` metres.
    var out: [(point: Coordinate, course: Double)] = []
    var last = a
    var covered = 0.0
    var next = step
    let n = 2000
    for (p0, p1, p2, p3) in curves {
      for i in 1...n {
        let u = Double(i) / Double(n)
        let w = (
          (1 - u) * (1 - u) * (1 - u), 3 * u * (1 - u) * (1 - u), 3 * u * u * (1 - u), u * u * u
        )
        let p = Coordinate(
          latitude: w.0 * p0.latitude + w.1 * p1.latitude + w.2 * p2.latitude + w.3 * p3.latitude,
          longitude: w.0 * p0.longitude + w.1 * p1.longitude + w.2 * p2.longitude + w.3
            * p3.longitude)
        covered += last.distance(to: p)
        if covered >= next, covered < 1e9 {
          out.append((p, last.bearing(to: p)))
          next += step
        }
        last = p
      }
    }
    // Not the route's own point at `to` (recorded after).
    if let end = out.last, end.point.distance(to: b) < step / 2 { out.removeLast() }
    return out
  }

  static func defaultSpeed(_ mode: TransportType) -> Double {
    switch mode {
    case .automobile, .transit: 13.9
    case .cycling: 5
    case .walking: 1.4
    }
  }

  /// Whether a step notice says the step runs through a tunnel.
  public static func mentionsTunnel(_ notice: String?) -> Bool {
    guard let n = notice?.lowercased() else { return false }
    return n.contains("tunnel") || n.contains("터널")
  }

  /// The stretches of `route` (metres along it) in a tunnel: its tunnel road objects when it
  /// has any (their own span), else the steps whose notice mentions a tunnel (the whole step).
  static func tunnelStretches(_ route: Route, path: Path) -> [ClosedRange<Double>] {
    let tunnels = route.road.objects.filter { $0.kind == .tunnel && $0.end > $0.start }
    if !tunnels.isEmpty { return tunnels.map { $0.start...$0.end } }
    var out: [ClosedRange<Double>] = []
    for (i, step) in route.steps.enumerated() where i > 0 && mentionsTunnel(step.notice) {
      let from = path.stepEnds[i - 1].at
      let to = path.stepEnds[i].at
      if to > from { out.append(from...to) }
    }
    return out
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
}

/// The route as one polyline with distances, for the simulator.
struct Path {
  /// The route's points, one after another, and the distances along them.
  let line: Polyline
  let turns: [(at: Double, angle: Double)]
  /// Distance along the route where each step ends, and the step's transport type.
  let stepEnds: [(at: Double, mode: TransportType)]
  /// Corners the vehicle cuts: the vertex's distance along the route and how far before and
  /// after it the cut runs, metres.
  let cuts: [(at: Double, half: Double)]

  var length: Double { line.length }

  /// How the route is travelled at `s` metres.
  func mode(at s: Double) -> TransportType {
    for e in stepEnds.dropFirst() where s < e.at { return e.mode }
    return stepEnds.last?.mode ?? .automobile
  }

  /// Metres before and after a vertex over which its change of direction is taken.
  static let cornerReach = 8.0

  init(route: Route, cornerCut: Double = 0) {
    var pts: [Coordinate] = []
    var ends: [Int] = []
    for (i, step) in route.steps.enumerated() {
      for (k, p) in step.polyline.enumerated() where i == 0 || k > 0 {
        if let last = pts.last, last.distance(to: p) < 0.01 { continue }
        pts.append(p)
      }
      ends.append(pts.count - 1)
    }
    // Consecutive points are already 1 cm apart or more, so the line keeps every one of them and
    // `ends` stay its indices.
    line = Polyline(pts)
    let cum = line.cumulative
    pts = line.points
    var turns: [(Double, Double)] = []
    // Every vertex with a real change of direction slows the vehicle, not only maneuvers. The
    // change is taken from 8 m before the vertex to 8 m after it, so a corner drawn as two or
    // three vertices a few metres apart slows it as one turn of their sum, as a driver takes it.
    for i in 1..<(pts.count - 1) {
      let a = line.bearing(at: max(0, cum[i] - Self.cornerReach))
      let b = line.bearing(at: min(line.length, cum[i] + Self.cornerReach))
      let vertex = bearingDifference(pts[i - 1].bearing(to: pts[i]), pts[i].bearing(to: pts[i + 1]))
      let angle = max(vertex, bearingDifference(a, b))
      if angle > 30 { turns.append((cum[i], angle)) }
    }
    self.turns = turns
    stepEnds = zip(ends, route.steps).map { (cum[$0.0], $0.1.transportType) }
    var cuts: [(Double, Double)] = []
    if cornerCut > 0 {
      // A corner of deflection Δ cut along a parabola from `half` before the vertex to `half`
      // after it stays off the polyline by about half·sin(Δ)/4 (Δ ≤ 90°) or half·sin(Δ/2)/2;
      // each cut takes at most 45 % of its two segments, so cuts never overlap.
      for i in 1..<max(1, pts.count - 1) {
        let a = pts[i - 1].bearing(to: pts[i])
        let b = pts[i].bearing(to: pts[i + 1])
        let angle = bearingDifference(a, b)
        guard angle >= 30, angle <= 150 else { continue }
        let radians = angle * .pi / 180
        let wanted =
          angle <= 90 ? 4 * cornerCut / sin(radians) : 2 * cornerCut / sin(radians / 2)
        let room = 0.45 * min(cum[i] - cum[i - 1], cum[i + 1] - cum[i])
        cuts.append((cum[i], min(wanted, room)))
      }
    }
    self.cuts = cuts
  }

  /// Where the vehicle is at `s` metres along the route: on the polyline, or on the curve
  /// that cuts a corner.
  func drivenPoint(at s: Double) -> Coordinate {
    guard let c = cut(at: s) else { return point(at: s) }
    let a = point(at: c.at - c.half)
    let v = point(at: c.at)
    let b = point(at: c.at + c.half)
    let u = (s - (c.at - c.half)) / (2 * c.half)
    let wa = (1 - u) * (1 - u)
    let wv = 2 * u * (1 - u)
    let wb = u * u
    return Coordinate(
      latitude: wa * a.latitude + wv * v.latitude + wb * b.latitude,
      longitude: wa * a.longitude + wv * v.longitude + wb * b.longitude)
  }

  /// The vehicle's course at `s`: the polyline's bearing, or the cut's.
  func course(at s: Double) -> Double {
    guard cut(at: s) != nil else { return bearing(at: s) }
    return drivenPoint(at: s - 0.5).bearing(to: drivenPoint(at: s + 0.5))
  }

  private func cut(at s: Double) -> (at: Double, half: Double)? {
    guard !cuts.isEmpty else { return nil }
    var lo = 0
    var hi = cuts.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if cuts[mid].at + cuts[mid].half < s { lo = mid + 1 } else { hi = mid }
    }
    guard lo < cuts.count, cuts[lo].half > 0, abs(s - cuts[lo].at) < cuts[lo].half else {
      return nil
    }
    return cuts[lo]
  }

  func point(at s: Double) -> Coordinate { line.point(at: s) }

  func bearing(at s: Double) -> Double { line.bearing(at: s) }

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

  /// The turns between `s` and `s + distance` metres along the route.
  func turns(after s: Double, within distance: Double) -> ArraySlice<(at: Double, angle: Double)> {
    var lo = 0
    var hi = turns.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if turns[mid].at <= s { lo = mid + 1 } else { hi = mid }
    }
    var end = lo
    while end < turns.count && turns[end].at <= s + distance { end += 1 }
    return turns[lo..<end]
  }

  /// Distance from `p` to the route within 1 km of `near` (metres along the route).
  func offset(of p: Coordinate, near: Double) -> Double {
    line.locate(p, near: near, within: 1000).offset
  }
}
