import func Glibc.atan2
import func Glibc.cos
import func Glibc.sin
import func Glibc.sqrt

/// A position on the WGS 84 ellipsoid.
///
/// Latitude and longitude are in degrees; latitude is positive north, longitude positive east.
public struct Coordinate: Sendable, Hashable, CustomStringConvertible {
  /// Latitude in degrees, −90 … 90.
  public var latitude: Double
  /// Longitude in degrees, −180 … 180.
  public var longitude: Double

  /// Creates a coordinate from degrees.
  @inlinable public init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Whether both values are finite and inside their ranges.
  public var isValid: Bool {
    latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
  }

  public var description: String { "(\(latitude), \(longitude))" }
}

/// Mean Earth radius in metres (IUGG), used for all spherical computations.
public let earthRadius = 6_371_008.8

@inline(__always) func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
@inline(__always) func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

/// Normalises a longitude difference to −180 … 180 degrees, so that segments crossing the
/// antimeridian are measured the short way round.
@inline(__always)
public func wrappedLongitudeDelta(_ delta: Double) -> Double {
  var d = delta
  if d > 180 { d -= 360 } else if d < -180 { d += 360 }
  return d
}

/// Normalises an angle to 0 ..< 360 degrees.
///
/// Inlinable, as ``bearingDifference(_:_:)``: the matcher and the deviation checks ask on
/// every fix, from other modules.
@inlinable @inline(__always)
public func normalizedBearing(_ degrees: Double) -> Double {
  // Most angles (a receiver's course, a route's bearing) are already in range, where the
  // remainder is the angle itself, bit for bit: skip its call into libm.
  if degrees >= 0 && degrees < 360 { return degrees }
  var d = degrees.truncatingRemainder(dividingBy: 360)
  if d < 0 { d += 360 }
  return d
}

/// The smallest absolute difference between two bearings, 0 … 180 degrees.
@inlinable @inline(__always)
public func bearingDifference(_ a: Double, _ b: Double) -> Double {
  let d = abs(normalizedBearing(a) - normalizedBearing(b))
  return d > 180 ? 360 - d : d
}

/// The circular mean of `bearings` (degrees, 0 ..< 360), or `nil` when there are none or they
/// cancel out.
public func meanBearing(_ bearings: some Sequence<Double>) -> Double? {
  var east = 0.0
  var north = 0.0
  for b in bearings {
    east += sin(radians(b))
    north += cos(radians(b))
  }
  guard east != 0 || north != 0 else { return nil }
  return normalizedBearing(degrees(atan2(east, north)))
}

/// The part of `speed` on `course` made along `bearing` (negative: against it).
public func speed(_ speed: Double, course: Double, along bearing: Double) -> Double {
  speed * cos(radians(bearingDifference(course, bearing)))
}

extension Coordinate {
  /// Great-circle distance to another coordinate, in metres (haversine formula).
  public func distance(to other: Coordinate) -> Double {
    distance(to: other, cosines: (latitudeCosine, other.latitudeCosine))
  }

  /// The cosine of the latitude, which ``distance(to:cosines:)`` takes.
  @inline(__always)
  public var latitudeCosine: Double { cos(radians(latitude)) }

  /// ``distance(to:)`` with the two ``latitudeCosine``s given, bit for bit the same: a walk
  /// along a polyline works each point's out once instead of twice.
  @inline(__always)
  public func distance(to other: Coordinate, cosines: (Double, Double)) -> Double {
    let lat1 = radians(latitude)
    let lat2 = radians(other.latitude)
    let dLat = lat2 - lat1
    let dLon = radians(wrappedLongitudeDelta(other.longitude - longitude))
    let a = sin(dLat / 2) * sin(dLat / 2) + cosines.0 * cosines.1 * sin(dLon / 2) * sin(dLon / 2)
    return 2 * earthRadius * atan2(sqrt(a), sqrt(max(0, 1 - a)))
  }

  /// Whether ``distance(to:)`` is greater than `limit`: the same answer, mostly without the
  /// haversine's five calls into libm.
  ///
  /// For points less than 0.05° apart, away from the poles, a flat-earth estimate differs from
  /// the haversine by less than 0.01 %; it decides unless it is within 1 % of `limit`. Points
  /// farther apart in latitude alone are decided at once (a route's far end); anything else (a
  /// far jump across longitudes, a value that is not finite, a limit of 0 or less) takes the
  /// haversine.
  /// The engine asks this once a fix (is the fix farther than the vehicle can have gone?),
  /// where the haversine was an eighth of the matching.
  @inline(__always)
  public func distance(to other: Coordinate, exceeds limit: Double) -> Bool {
    let dLat = other.latitude - latitude
    // Farther apart in latitude alone than the limit, and 2 % more: no great circle is shorter.
    if abs(dLat) * (earthRadius * .pi / 180) > limit * 1.02, limit > 0 { return true }
    let dLon = wrappedLongitudeDelta(other.longitude - longitude)
    if abs(dLat) < 0.05, abs(dLon) < 0.05, abs(latitude) < 80, limit > 0 {
      let y = radians(dLat)
      let x = radians(dLon) * flatCosine(radians(latitude + dLat / 2))
      let estimate = (x * x + y * y) * (earthRadius * earthRadius)
      let square = limit * limit
      if estimate < square * 0.98 { return false }
      if estimate > square * 1.02 { return true }
    }
    return distance(to: other) > limit
  }

  /// Initial great-circle bearing towards another coordinate, in degrees clockwise from true
  /// north, 0 ..< 360.
  ///
  /// Zero for coincident points.
  public func bearing(to other: Coordinate) -> Double {
    let lat1 = radians(latitude)
    let lat2 = radians(other.latitude)
    let dLon = radians(wrappedLongitudeDelta(other.longitude - longitude))
    let y = sin(dLon) * cos(lat2)
    let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon)
    if x == 0 && y == 0 { return 0 }
    return normalizedBearing(degrees(atan2(y, x)))
  }

  /// The point reached by travelling `distance` metres along the initial `bearing` (degrees).
  public func destination(distance: Double, bearing: Double) -> Coordinate {
    // Locally flat approximation is not enough for long hops; use the spherical formula.
    let angle = distance / earthRadius
    let theta = radians(bearing)
    let lat1 = radians(latitude)
    let lon1 = radians(longitude)
    let sinLat2 = sin(lat1) * cos(angle) + cos(lat1) * sin(angle) * cos(theta)
    let lat2 = atan2(sinLat2, sqrt(max(0, 1 - sinLat2 * sinLat2)))
    let y = sin(theta) * sin(angle) * cos(lat1)
    let x = cos(angle) - sin(lat1) * sinLat2
    let lon2 = lon1 + atan2(y, x)
    return Coordinate(
      latitude: degrees(lat2), longitude: wrappedLongitudeDelta(degrees(lon2)))
  }

  /// Linear interpolation between two coordinates (short way across the antimeridian).
  ///
  /// A `fraction` of 0 gives `self`, 1 gives `other`.
  public func interpolated(to other: Coordinate, fraction: Double) -> Coordinate {
    let lat = latitude + (other.latitude - latitude) * fraction
    let lon = longitude + wrappedLongitudeDelta(other.longitude - longitude) * fraction
    return Coordinate(latitude: lat, longitude: wrappedLongitudeDelta(lon))
  }
}

/// cos(`x`) for |`x`| ≤ 1.4 (80°) within 2·10⁻⁷, by its Taylor series to x¹⁰: for estimates
/// that a margin covers, without a call into libm.
@inline(__always)
func flatCosine(_ x: Double) -> Double {
  let x2 = x * x
  return 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56 * (1 - x2 / 90))))
}
