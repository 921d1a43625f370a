import Glibc
import TestSupport
import Testing

@testable import Geodesy

/// `Coordinate.distance(to:exceeds:)` answers exactly as `distance(to:) > limit`: its flat-earth
/// estimate decides only outside a margin that its error cannot cross.
@Suite struct DistanceLimitTests {
  @Test func theTaylorCosineIsWithinTwoTenMillionthsUpTo80Degrees() {
    var worst = 0.0
    for i in 0...14_000 {
      let x = Double(i) / 10_000  // 0 … 1.4 rad
      worst = max(worst, abs(flatCosine(x) - cos(x)), abs(flatCosine(-x) - cos(-x)))
    }
    #expect(worst < 2e-7, "\(worst)")
  }

  /// Pairs from a metre to 0.06° apart (past the estimate's reach), at every latitude and
  /// across the antimeridian; limits close to the distance on both sides (inside and outside
  /// the 1 % margin), exactly at it, and far from it.
  @Test func theAnswerIsTheHaversinesForNearAndFarPairs() {
    var rng = Xorshift(x: 0x9E37_79B9_7F4A_7C15)
    var estimated = 0
    var disagreements: [String] = []
    for _ in 0..<200_000 {
      let a = Coordinate(
        latitude: Double.random(in: -89.9...89.9, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
      let reach = [0.00001, 0.001, 0.05, 0.06].randomElement(using: &rng)!
      let b = Coordinate(
        latitude: max(-90, min(90, a.latitude + Double.random(in: -reach...reach, using: &rng))),
        longitude: wrappedLongitudeDelta(
          a.longitude + Double.random(in: -reach...reach, using: &rng)))
      let d = a.distance(to: b)
      // Within a billionth of the distance the estimate's own error (about a millionth)
      // would answer wrongly: there the haversine must decide.
      let factor = [0.5, 0.97, 0.985, 0.995, 1, 1.005, 1.015, 1.03, 2].randomElement(using: &rng)!
      let limit =
        factor == 1
        ? d * (1 + Double.random(in: -1e-9...1e-9, using: &rng))
        : d * factor * Double.random(in: 0.999...1.001, using: &rng)
      let expected = d > limit
      if a.distance(to: b, exceeds: limit) != expected {
        disagreements.append("\(a) → \(b): \(d) m against \(limit) m")
      }
      if abs(b.latitude - a.latitude) < 0.05, abs(a.latitude) < 80 { estimated += 1 }
    }
    #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    #expect(estimated > 100_000, "too few pairs reached the estimate")
  }

  @Test func oddLimitsAndPointsTakeTheHaversine() {
    let a = Coordinate(latitude: 48.1, longitude: 11.5)
    let b = Coordinate(latitude: 48.1001, longitude: 11.5001)
    for limit in [0, -1, .infinity, -.infinity, .nan, 1e-9] {
      #expect(a.distance(to: b, exceeds: limit) == (a.distance(to: b) > limit), "\(limit)")
    }
    let far = Coordinate(latitude: -33.9, longitude: 151.2)
    #expect(a.distance(to: far, exceeds: 1_000_000))
    #expect(!a.distance(to: a, exceeds: 0))
    let lost = Coordinate(latitude: .nan, longitude: 11.5)
    #expect(a.distance(to: lost, exceeds: 10) == (a.distance(to: lost) > 10))
  }
}
