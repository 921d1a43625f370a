public import Routes

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

/// A cut across the route, missing the part between two places on it.
///
/// At `from` metres along the route the vehicle leaves it and creeps at `speed` m/s along a
/// smooth curve to the route at `to` metres (farther along), as real drives do that turn round in
/// a car park before a U-turn's tip or cut across a small loop of the route after a stop. The
/// curve leaves and meets the route tangent to it and bulges `bulge` metres (positive: right of
/// the route's direction at `from`) to the side, so it can turn round where the two ends are one
/// place. With `via`, it passes `bulge` metres beside the route at `via` metres instead, moving
/// the route's way there (turning round, then creeping along beside the way back before meeting
/// it).
///
/// The route is the path driven: the vehicle counts as on it throughout (as on a cut corner),
/// at `from` until it meets the route again at `to`.
public struct Shortcut: Sendable, Equatable {
  public var from: Double
  public var to: Double
  public var speed: Double
  public var bulge: Double
  public var via: Double?
  public init(from: Double, to: Double, speed: Double = 2, bulge: Double = 10, via: Double? = nil) {
    self.from = from
    self.to = to
    self.speed = speed
    self.bulge = bulge
    self.via = via
  }
}

/// How a kind of traveller moves: cruising speed, acceleration, braking and how much each
/// change of direction slows it down.
public enum SpeedProfile: String, Sendable, CaseIterable {
  /// Driving in town: 50 km/h, gentle acceleration, about 20 km/h through a right-angle turn.
  case town
  /// Motorways and ramps: 110 km/h, ramps and bends taken at the speed their angle allows.
  case highway
  /// Cycling at 18 km/h.
  case cycling
  /// Walking at 5 km/h.
  case walking

  /// The profile that fits a step travelled by `mode`.
  public static func forMode(_ mode: TransportType) -> SpeedProfile {
    switch mode {
    case .automobile, .transit: .town
    case .cycling: .cycling
    case .walking: .walking
    }
  }

  /// Cruising speed, metres per second.
  public var cruise: Double {
    switch self {
    case .town: 50 / 3.6
    case .highway: 110 / 3.6
    case .cycling: 18 / 3.6
    case .walking: 5 / 3.6
    }
  }

  /// Acceleration, metres per second squared.
  public var acceleration: Double {
    switch self {
    case .town: 1.5
    case .highway: 1.2
    case .cycling: 0.6
    case .walking: 0.5
    }
  }

  /// Comfortable braking, metres per second squared.
  public var braking: Double {
    switch self {
    case .town, .highway: 2.0
    case .cycling: 1.2
    case .walking: 0.8
    }
  }

  /// The speed at which a change of direction of `angle` degrees is taken, metres per second.
  ///
  /// Vehicles: 70 km/h through a 30° bend, 45 km/h at 45°, 20 km/h at a right angle, 8 km/h
  /// for a U-turn (interpolated in between). Cyclists and walkers slow down much less.
  public func turnSpeed(angle: Double) -> Double {
    let table: [(Double, Double)]
    switch self {
    case .town, .highway:
      table = [(0, 200), (20, 200), (30, 19.4), (45, 12.5), (90, 5.5), (135, 3.3), (180, 2.2)]
    case .cycling:
      table = [(0, 20), (30, 20), (45, 4.5), (90, 3), (180, 1.5)]
    case .walking:
      table = [(0, 5), (90, 1.2), (180, 1)]
    }
    var v = table[table.count - 1].1
    for i in 1..<table.count where angle <= table[i].0 {
      let (a0, v0) = table[i - 1]
      let (a1, v1) = table[i]
      v = v0 + (v1 - v0) * (angle - a0) / (a1 - a0)
      break
    }
    return min(cruise, v)
  }
}

/// A stop on the way (traffic lights, a queue): metres along the route and seconds standing.
public struct Stop: Sendable, Equatable {
  public var at: Double
  public var duration: Double

  public init(at: Double, duration: Double) {
    self.at = at
    self.duration = duration
  }
}

/// A street canyon: between `from` and `to` metres along the route, reflected signals put the
/// receiver's positions `bias` metres beside the truth (positive: right of the direction of
/// travel), the offset drifting slowly between about half and the full size, while the
/// receiver's error estimate and HDOP show nothing of it.
public struct Canyon: Sendable, Equatable {
  public var from: Double
  public var to: Double
  public var bias: Double

  public init(from: Double, to: Double, bias: Double) {
    self.from = from
    self.to = to
    self.bias = bias
  }
}

/// A start that pulls out of a car park or a driveway: the vehicle stands beside the route,
/// then drives an arc of `turn` degrees (positive: turning right) and `radius` metres at
/// `speed` m/s that ends on the route's start, tangent to it.
///
/// With `circle` seconds, the vehicle first drives round the car park where the arc starts,
/// away from the route, slowing from 6 to 1 m/s (looking for the way out, as real drives that
/// start 15–25 m from any road do), and comes back to the arc's start at its course.
public struct PullOut: Sendable, Equatable {
  public var turn: Double
  public var radius: Double
  public var speed: Double
  public var circle: Double

  public init(turn: Double = 120, radius: Double = 12, speed: Double = 4, circle: Double = 0) {
    self.turn = turn
    self.radius = radius
    self.speed = speed
    self.circle = circle
  }
}

/// Settings of a simulated drive.
///
/// The defaults reproduce the classic simulator that made scenarios 001–010: every step at its
/// own mode's speed, plain turn slowing, and a receiver whose only flaw is correlated noise.
/// `profile` turns on the detailed kinematics and receiver (turn speeds by angle, standing
/// jitter, course noise that grows as the speed falls).
public struct DriveOptions: Sendable, Equatable {
  /// Cruising speed in m/s; `nil` uses the profile's, or the route's mode (50 km/h driving,
  /// 18 km/h cycling, 5 km/h walking).
  public var speed: Double?
  /// Speed profile; `nil` is the classic model (by transport type).
  public var profile: SpeedProfile?
  /// Acceleration and braking limits in m/s²; `nil` takes them from the profile or mode.
  public var acceleration: Double?
  public var braking: Double?
  /// How far a driver's cruising speed wanders (RMS, a fraction of it; 0: held exactly).
  ///
  /// With `speedWanderCorrelation`, how slowly (seconds). No driver holds a speed: over
  /// 10–60 s, real drives change it by about 3 % (median) at cruise. Drawn from its own random
  /// stream.
  public var speedWander: Double = 0
  public var speedWanderCorrelation: Double = 10
  /// Fixes per second, 1 … 10.
  public var hz: Double = 1
  /// Root-mean-square horizontal position error in metres, as a slowly varying random walk.
  public var noise: Double = 0
  /// Correlation time of the position error, seconds.
  public var noiseCorrelation: Double = 20
  /// Size of multipath jumps in metres (0: none).
  ///
  /// Jumps come about once a minute and last 2–8 seconds.
  public var multipath: Double = 0
  public var seed: UInt64 = 1
  /// Time of the first epoch, seconds since the Unix epoch (default 2024-05-01T08:00:00Z).
  public var start: Double = 1_714_550_400
  /// Stretches without a fix (a tunnel), metres along the route.
  public var dropouts: [ClosedRange<Double>] = []
  /// Whether tunnels lose the fix too: the route's tunnel road objects over their span, or
  /// without any, the steps whose notice mentions a tunnel ("Tunnel", "터널").
  public var tunnels = true
  public var deviation: Deviation?
  /// Cuts across the route (turning round before a U-turn's tip, across a small loop).
  public var shortcuts: [Shortcut] = []
  /// Seconds standing at the start before moving, and at the end after arriving.
  public var settle: Double = 5
  public var dwell: Double = 5
  /// Whether the recording ends as the vehicle passes the route's end at speed.
  ///
  /// A recording cut there, a box switched off, a garage: no braking for the end and no `dwell`,
  /// the last epoch less than an epoch's travel before it. The open-loop simulator only.
  public var endsMoving = false
  /// Stops along the way.
  public var stops: [Stop] = []
  /// Street canyons: stretches with a slowly varying bias the receiver does not report.
  public var canyons: [Canyon] = []
  /// Mean seconds between single-fix glitches, jumps of 100–300 m that last one fix (0: none);
  /// drawn from their own random stream.
  public var glitchEvery: Double = 0
  /// Gaps without a fix outside any tunnel: seconds after the first epoch, and how long.
  public var gaps: [ClosedRange<Double>] = []
  /// A start beside the route, pulling out onto it.
  public var pullOut: PullOut?
  /// Metres by which the vehicle cuts each corner of the route's polyline (0: it follows the
  /// polyline), as on a route of junction points only whose real roads curve between them; at
  /// most what the neighbouring segments leave room for.
  ///
  /// Cut corners count as on the route.
  public var cornerCut: Double = 0
  /// HDOP the receiver reports with every fix.
  public var hdop = 0.9
  /// Seconds a receiver that loses the sky goes on reporting its last fix (0: none).
  ///
  /// Positions extrapolated in a straight line at its last speed and course, with that speed
  /// and course, as receivers with a "dead reckoning timeout" do (u-blox ANTARIS 4, flagging
  /// them as fixes in NMEA 2.1 only; SiRF). A curving tunnel takes them off the road.
  public var coast: Double = 0
  /// Whether coasted positions are marked as estimates (GGA quality 6, RMC mode E); else they
  /// look like any other fix.
  public var coastFlagged = false
  /// Metres off the first fix after each stretch of 5 s or more without sky (0: none), in a
  /// direction drawn for each stretch, the error halving every 2 s.
  ///
  /// A receiver that lost its satellites (a tunnel, a car park) gets its first fix back from few
  /// of them while its filter converges: tens of metres off for a few seconds (the bounce at a
  /// tunnel's exit Mapbox users report, navigation-ios #1998). The receiver notices about half of
  /// it in its accuracy estimate. Drawn from its own random stream.
  public var reacquire: Double = 0

  public init() {}

  /// Whether the detailed model is on (a profile was chosen).
  public var detailed: Bool { profile != nil }
}
