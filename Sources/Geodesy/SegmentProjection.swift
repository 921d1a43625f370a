import func Glibc.atan2
import func Glibc.cos
import func Glibc.sqrt

/// Where a point falls relative to a short segment of a polyline.
public struct SegmentProjection: Sendable, Equatable {
  /// Fraction along the segment of the closest point, clamped to 0 … 1.
  public var fraction: Double
  /// Distance from the point to the closest point on the segment, in metres.
  public var distance: Double
  /// Signed lateral offset in metres: positive when the point is right of the direction of travel.
  public var crossTrack: Double
  /// The closest point on the segment.
  public var closest: Coordinate
}

/// Projects `point` onto the segment `a`–`b`.
///
/// Uses a local equirectangular plane centred on the segment, which is accurate to well under a
/// metre for segments up to tens of kilometres and any latitude below about 85°. Longitudes are
/// unwrapped across the antimeridian. A zero-length segment projects onto its single point.
public func project(_ point: Coordinate, ontoSegmentFrom a: Coordinate, to b: Coordinate)
  -> SegmentProjection
{
  let lat0 = radians((a.latitude + b.latitude) / 2)
  let kx = earthRadius * cos(lat0) * .pi / 180
  let ky = earthRadius * .pi / 180
  let bx = wrappedLongitudeDelta(b.longitude - a.longitude) * kx
  let by = (b.latitude - a.latitude) * ky
  let px = wrappedLongitudeDelta(point.longitude - a.longitude) * kx
  let py = (point.latitude - a.latitude) * ky
  let len2 = bx * bx + by * by
  var t = 0.0
  if len2 > 0 {
    t = (px * bx + py * by) / len2
    t = min(1, max(0, t))
  }
  let cx = bx * t
  let cy = by * t
  let dx = px - cx
  let dy = py - cy
  let dist = sqrt(dx * dx + dy * dy)
  // Cross product sign: positive when the point lies to the right of a→b (x east, y north).
  var cross = 0.0
  if len2 > 0 {
    cross = (bx * py - by * px) / sqrt(len2)
    cross = -cross
  }
  return SegmentProjection(
    fraction: t, distance: dist, crossTrack: cross, closest: a.interpolated(to: b, fraction: t))
}

/// Bearing of the segment `a`–`b` in the local plane, degrees clockwise from true north.
public func planarBearing(from a: Coordinate, to b: Coordinate) -> Double {
  let lat0 = radians((a.latitude + b.latitude) / 2)
  let dx = wrappedLongitudeDelta(b.longitude - a.longitude) * cos(lat0)
  let dy = b.latitude - a.latitude
  if dx == 0 && dy == 0 { return 0 }
  return normalizedBearing(degrees(atan2(dx, dy)))
}
