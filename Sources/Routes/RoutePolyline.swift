public import Geodesy

/// A polyline held in fixed point: 8 bytes a point instead of a `Coordinate`'s 16.
///
/// Each degree is stored as a whole number of ten-millionths (`unitsPerDegree`), 1.1 cm or less
/// on the ground, the precision of the native route document. A coordinate whose degrees have at
/// most seven decimals (everything the native writer writes and every router's polyline5/6) comes
/// back as the very same `Double`: the stored integer divided by 10⁷ is the double nearest the
/// decimal value. Other values move by at most half a unit (0.56 cm).
///
/// A value that cannot be held (not finite, or beyond ±214 degrees) is stored as
/// `Self.unrepresentable` and reads back as NaN, so validation still refuses it.
public struct RoutePolyline: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
  /// Stored units per degree.
  public static let unitsPerDegree = 10_000_000.0
  /// Decimals of a degree held: `unitsPerDegree` is 10 to this power.
  public static let decimals = 7
  /// The stored value of a degree that cannot be held.
  static let unrepresentable = Int32.min

  /// Latitude and longitude of each point, in that order, in units of 10⁻⁷ degree.
  @usableFromInline var storage: [Int32]

  public init() { storage = [] }

  public init(_ coordinates: some Sequence<Coordinate>) {
    storage = []
    storage.reserveCapacity(2 * coordinates.underestimatedCount)
    for c in coordinates { append(c) }
  }

  public init(arrayLiteral elements: Coordinate...) { self.init(elements) }

  public var startIndex: Int { 0 }
  public var endIndex: Int { storage.count / 2 }

  public subscript(i: Int) -> Coordinate {
    @inline(__always) get {
      Coordinate(
        latitude: Self.degrees(storage[2 * i]), longitude: Self.degrees(storage[2 * i + 1]))
    }
  }

  /// Adds a point at the end.
  public mutating func append(_ c: Coordinate) {
    storage.append(Self.units(c.latitude))
    storage.append(Self.units(c.longitude))
  }

  /// Adds point `i` of `other` at the end, as stored (no conversion through degrees).
  @inline(__always)
  public mutating func append(unitsOf i: Int, in other: RoutePolyline) {
    storage.append(other.storage[2 * i])
    storage.append(other.storage[2 * i + 1])
  }

  /// Adds a point given in stored units (see ``units(_:)``).
  @inline(__always)
  public mutating func append(latitudeUnits: Int32, longitudeUnits: Int32) {
    storage.append(latitudeUnits)
    storage.append(longitudeUnits)
  }

  /// Removes the last point.
  public mutating func removeLast() {
    storage.removeLast(2)
  }

  /// A copy whose storage holds its points and nothing more (after building one point by point
  /// into a generous reservation).
  public var trimmed: RoutePolyline {
    guard storage.capacity > storage.count + storage.count / 8 + 16 else { return self }
    // A fresh buffer of the exact size (`Array(storage)` would share the generous one).
    let copy = storage.withUnsafeBufferPointer { old in
      [Int32](unsafeUninitializedCapacity: old.count) { new, count in
        _ = new.initialize(from: old)
        count = old.count
      }
    }
    return RoutePolyline(storage: copy)
  }

  init(storage: [Int32]) { self.storage = storage }

  /// The points of `slice`, copied as stored.
  public init(_ slice: Slice<RoutePolyline>) {
    storage = Array(slice.base.storage[(2 * slice.startIndex)..<(2 * slice.endIndex)])
  }

  /// Makes room for `count` points in all.
  public mutating func reserveCapacity(_ count: Int) { storage.reserveCapacity(2 * count) }

  /// The points as `Coordinate`s.
  public var coordinates: [Coordinate] { Array(self) }

  /// Degrees in stored units, or `unrepresentable`.
  @inline(__always)
  public static func units(_ degrees: Double) -> Int32 {
    let u = (degrees * unitsPerDegree).rounded()
    return abs(u) < 2_147_483_647 ? Int32(u) : unrepresentable
  }

  /// Stored units in degrees (NaN for `unrepresentable`).
  ///
  /// Division, not multiplication by 10⁻⁷, so that seven-decimal values come back exactly.
  @inline(__always)
  public static func degrees(_ units: Int32) -> Double {
    units == unrepresentable ? .nan : Double(units) / unitsPerDegree
  }
}
