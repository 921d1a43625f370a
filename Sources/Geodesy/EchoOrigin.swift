import func Glibc.cos
import func Glibc.sin

/// A fix a receiver without sky may carry on in a straight line at its speed and course (a
/// "dead reckoning timeout"): its echoes are measured from it.
public struct EchoOrigin: Sendable {
  public let time: Double
  public let point: Coordinate
  public let speed: Double
  public let course: Double
  /// Metres east and north per metre along the course, and metres per degree of latitude and
  /// of longitude here: worked out at the first echo (few fixes have one), flat over the few
  /// hundred metres a receiver coasts.
  public typealias Unit = (east: Double, north: Double, latitude: Double, longitude: Double)
  public private(set) var unit: Unit?

  /// Degrees of latitude over which a ``unit``'s metres per degree of longitude still hold:
  /// they change by 0.02 % at 45° of latitude, 0.05 % at 70° (under 3 cm over the few hundred
  /// metres a receiver coasts).
  public static let unitLatitudeSpan = 0.01
  static let metresPerDegree = earthRadius * .pi / 180

  /// The origin at `point` at `time`; `earlier`'s unit stays for the same course within
  /// ``unitLatitudeSpan`` of its latitude (no sine again).
  public init(time: Double, point: Coordinate, speed: Double, course: Double, after earlier: Self?)
  {
    self.time = time
    self.point = point
    self.speed = speed
    self.course = course
    if let o = earlier, o.course == course,
      abs(o.point.latitude - point.latitude) < Self.unitLatitudeSpan
    {
      unit = o.unit
    }
  }

  /// Works ``unit`` out and keeps it.
  public mutating func measure() -> Unit {
    let theta = course * .pi / 180
    let u = (
      east: sin(theta), north: cos(theta), latitude: Self.metresPerDegree,
      longitude: Self.metresPerDegree * cos(point.latitude * .pi / 180)
    )
    unit = u
    return u
  }

  /// The square of the metres between `to` and the origin carried `d` metres on, with its
  /// `unit` (``unit``, or what ``measure()`` gave).
  @inlinable
  public func squaredMiss(
    _ to: Coordinate, carried d: Double, unit u: Unit
  ) -> Double {
    let north = (to.latitude - point.latitude) * u.latitude - d * u.north
    let east = wrappedLongitudeDelta(to.longitude - point.longitude) * u.longitude - d * u.east
    return north * north + east * east
  }
}
