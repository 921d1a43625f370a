import Geodesy

import func Glibc.cos
import func Glibc.exp
import func Glibc.pow
import func Glibc.sin

/// What a GNSS receiver makes of the truth: correlated position error, multipath jumps, noisy
/// speed and course, and no position where it has no sky.
enum ReceiverModel {
  /// The fixes for `truth`, and the one-sigma per-axis error reported with each, metres.
  ///
  /// The position error is a first-order Gauss–Markov process per axis (a random walk pulled
  /// back towards zero with the correlation time), so neighbouring fixes err the same way as
  /// real ones do. Multipath draws from its own random stream, so turning it on leaves the rest
  /// of a seeded drive unchanged.
  static func fixes(_ truth: [TruthSample], options: DriveOptions, rng: inout RandomSource)
    -> (fixes: [Fix], sigmas: [Double])
  {
    let sigma = options.noise / 2.0.squareRoot()
    let classicSigma = max(0.5, sigma)
    var multipathRNG = RandomSource(seed: options.seed ^ 0x6D75_6C74_6970_6174)
    var canyonRNG = RandomSource(seed: options.seed ^ 0x6361_6E79_6F6E)
    var glitchRNG = RandomSource(seed: options.seed ^ 0x676C_6974_6368)
    var reacquireRNG = RandomSource(seed: options.seed ^ 0x7265_6163_7175)
    // The error of the fixes after a stretch without sky: when the first came, its bearing.
    var reacquired: (time: Double, bearing: Double)?
    // The canyon bias drifts between half and the full size: a Gauss–Markov process of its own.
    var drift = 0.0
    var jumpLeft = 0.0
    var jump = (east: 0.0, north: 0.0)
    var ex = 0.0
    var ey = 0.0
    var first = true
    var previous: TruthSample?
    var lastSeen: Fix?
    var fixes: [Fix] = []
    var sigmas: [Double] = []
    fixes.reserveCapacity(truth.count)
    sigmas.reserveCapacity(truth.count)
    for sample in truth {
      let dt = previous.map { sample.time - $0.time } ?? 1
      previous = sample
      let rho = exp(-dt / options.noiseCorrelation)
      if first {
        ex = sigma * rng.gaussian()
        ey = sigma * rng.gaussian()
        first = false
      } else {
        ex = rng.markov(ex, sigma: sigma, rho: rho)
        ey = rng.markov(ey, sigma: sigma, rho: rho)
      }
      // Multipath: about one jump a minute, 2–8 s long, half to the full size.
      if options.multipath > 0 {
        if jumpLeft > 0 {
          jumpLeft -= dt
        } else if multipathRNG.uniform() < dt / 60 {
          jumpLeft = 2 + 6 * multipathRNG.uniform()
          let size = options.multipath * (0.5 + 0.5 * multipathRNG.uniform())
          let direction = 360 * multipathRNG.uniform()
          jump = (size * sinDegrees(direction), size * cosDegrees(direction))
        }
        if jumpLeft <= 0 { jump = (0, 0) }
      }
      var canyonBias = 0.0
      if !options.canyons.isEmpty {
        drift = canyonRNG.markov(drift, sigma: 1, rho: exp(-dt / canyonCorrelation))
        if let c = options.canyons.first(where: {
          $0.from <= sample.distanceAlong && sample.distanceAlong <= $0.to
        }) {
          // Reflections come and go over a few tens of metres at the canyon's ends.
          let ramp = min(
            1, (sample.distanceAlong - c.from) / canyonRamp,
            (c.to - sample.distanceAlong) / canyonRamp)
          canyonBias = c.bias * max(0, ramp) * (0.725 + 0.275 * max(-1, min(1, drift)))
        }
      }
      var glitch = 0.0
      var glitchBearing = 0.0
      if options.glitchEvery > 0, sample.hasFix, glitchRNG.uniform() < dt / options.glitchEvery {
        glitch = 100 + 200 * glitchRNG.uniform()
        glitchBearing = 360 * glitchRNG.uniform()
      }
      guard sample.hasFix else {
        let coast = coasted(from: lastSeen, at: sample.time, options)
        fixes.append(coast)
        sigmas.append(coast.coordinate == nil ? classicSigma : sigmas.last ?? classicSigma)
        continue
      }
      if options.reacquire > 0, let last = lastSeen,
        sample.time - last.time >= reacquireAfter
      {
        reacquired = (sample.time, 360 * reacquireRNG.uniform())
      }
      var p = sample.position
      if sigma > 0 {
        p = p.destination(distance: ey, bearing: 0).destination(distance: ex, bearing: 90)
      }
      if canyonBias != 0 {
        p = p.destination(distance: canyonBias, bearing: normalizedBearing(sample.course + 90))
      }
      if glitch > 0 { p = p.destination(distance: glitch, bearing: glitchBearing) }
      var jumpSize = (jump.east * jump.east + jump.north * jump.north).squareRoot()
      if jumpSize > 0 {
        p = p.destination(distance: jump.north, bearing: 0).destination(
          distance: jump.east, bearing: 90)
      }
      if let r = reacquired {
        let off = options.reacquire * pow(0.5, (sample.time - r.time) / reacquireHalfLife)
        if off < 0.1 {
          reacquired = nil
        } else {
          p = p.destination(distance: off, bearing: r.bearing)
          jumpSize = max(jumpSize, off)
        }
      }
      // The receiver notices about half of a multipath jump in its residuals.
      let reported = (classicSigma * classicSigma + jumpSize * jumpSize / 8).squareRoot()
      let speed: Double
      let course: Double
      if options.detailed {
        (speed, course) = detailedMotion(sample, noisy: options.noise > 0, rng: &rng)
      } else {
        let speedNoise = options.noise > 0 ? 0.1 * rng.gaussian() : 0
        speed = max(0, sample.speed + speedNoise)
        // Course is noisy at walking pace and meaningless when standing.
        let courseNoise = options.noise > 0 ? rng.gaussian() * (speed < 2 ? 25 : 3) : 0
        course = normalizedBearing(sample.course + courseNoise)
      }
      fixes.append(
        Fix(
          time: sample.time, coordinate: p, speed: speed, course: course,
          horizontalAccuracy: jumpSize > 0
            ? max(0.7, options.noise, reported * 2.0.squareRoot()) : max(0.7, options.noise),
          hdop: options.hdop, altitude: 450, satellites: 9, quality: .gps))
      lastSeen = fixes.last
      sigmas.append(jumpSize > 0 ? reported : classicSigma)
    }
    return (fixes, sigmas)
  }

  /// Seconds without sky after which the first fixes are off (`DriveOptions.reacquire`), and
  /// the seconds in which their error halves.
  static let reacquireAfter = 5.0
  static let reacquireHalfLife = 2.0

  /// What a receiver without sky reports at `time`: with `coast`, the last fix carried on in a
  /// straight line at its speed and course for that long; otherwise, or after it, nothing.
  private static func coasted(from last: Fix?, at time: Double, _ options: DriveOptions) -> Fix {
    guard options.coast > 0, let last, let from = last.coordinate, let v = last.speed,
      let course = last.course, time - last.time <= options.coast
    else { return .noFix(time: time) }
    var fix = last
    fix.time = time
    fix.coordinate = from.destination(distance: v * (time - last.time), bearing: course)
    fix.quality = options.coastFlagged ? .deadReckoning : last.quality
    return fix
  }

  /// Speed and course as a receiver reports them: standing still, the speed jitters a little
  /// above zero and the course spins at random; moving, the course error shrinks with speed
  /// (about 20° at walking pace, 4° at 50 km/h).
  private static func detailedMotion(
    _ sample: TruthSample, noisy: Bool, rng: inout RandomSource
  ) -> (Double, Double) {
    guard noisy else { return (sample.speed, sample.course) }
    if sample.speed == 0 {
      let creep = abs(0.15 * rng.gaussian())
      return (creep, 360 * rng.uniform())
    }
    let speed = max(0, sample.speed + 0.1 * rng.gaussian())
    let spread = min(120, 2 + 15 / max(speed, 0.1))
    return (speed, normalizedBearing(sample.course + spread * rng.gaussian()))
  }
}

/// Correlation time of a canyon's bias drift, seconds: the satellites that reflect change slowly.
private let canyonCorrelation = 30.0
/// Metres over which a canyon's bias grows at its start and fades at its end.
private let canyonRamp = 40.0

func sinDegrees(_ d: Double) -> Double { sin(d * .pi / 180) }
func cosDegrees(_ d: Double) -> Double { cos(d * .pi / 180) }
