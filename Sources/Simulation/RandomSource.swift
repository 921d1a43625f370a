import func Glibc.cos
import func Glibc.log
import func Glibc.sqrt

/// A small deterministic random generator (SplitMix64), so that a seed gives the same drive on
/// every machine and toolchain.
public struct RandomSource: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform value in [0, 1).
  public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

  /// A standard normal value (Box–Muller).
  public mutating func gaussian() -> Double {
    let u1 = max(uniform(), 1e-300)
    let u2 = uniform()
    return sqrt(-2 * log(u1)) * cos(2 * .pi * u2)
  }

  /// `x` one step on in a first-order Gauss–Markov process of RMS `sigma` whose correlation over
  /// the step is `rho` (`exp(-dt / tau)`): the stationary random walk of the receiver's position
  /// error, a canyon's drift and a driver's speed.
  public mutating func markov(_ x: Double, sigma: Double, rho: Double) -> Double {
    rho * x + sigma * (1 - rho * rho).squareRoot() * gaussian()
  }
}
