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
///
/// A polyline may be a range of a larger array of points (``Route/sharingOnePointArray()``: the
/// steps of a route as ranges of the route's one array). Equality and hashing compare the points,
/// never how they are stored, and changing such a polyline gives it an array of its own.
public struct RoutePolyline: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
  /// Stored units per degree.
  public static let unitsPerDegree = 10_000_000.0
  /// Decimals of a degree held: `unitsPerDegree` is 10 to this power.
  public static let decimals = 7
  /// The stored value of a degree that cannot be held.
  @usableFromInline static let unrepresentable = Int32.min

  /// Latitude and longitude of each point, in that order, in units of 10⁻⁷ degree.
  @usableFromInline var storage: [Int32]
  /// Index in `storage` of the first point's latitude.
  @usableFromInline var first = 0
  /// Number of points, from `first` on.
  @usableFromInline var pointCount = 0

  public init() { storage = [] }

  public init(_ coordinates: some Sequence<Coordinate>) {
    storage = []
    storage.reserveCapacity(2 * coordinates.underestimatedCount)
    for c in coordinates { append(c) }
  }

  public init(arrayLiteral elements: Coordinate...) { self.init(elements) }

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { pointCount }

  @inlinable public subscript(i: Int) -> Coordinate {
    @inline(__always) get {
      Coordinate(
        latitude: Self.degrees(storage[first + 2 * i]),
        longitude: Self.degrees(storage[first + 2 * i + 1]))
    }
  }

  /// Whether `storage` holds this polyline's points and nothing else.
  @inline(__always)
  var ownsStorage: Bool { first == 0 && storage.count == 2 * pointCount }

  /// Gives a range of a larger array an array of its own, before it changes.
  @inline(__always)
  mutating func own() {
    guard !ownsStorage else { return }
    storage = Array(storage[first..<(first + 2 * pointCount)])
    first = 0
  }

  /// Adds a point at the end.
  public mutating func append(_ c: Coordinate) {
    append(latitudeUnits: Self.units(c.latitude), longitudeUnits: Self.units(c.longitude))
  }

  /// Adds point `i` of `other` at the end, as stored (no conversion through degrees).
  @inline(__always)
  public mutating func append(unitsOf i: Int, in other: RoutePolyline) {
    append(
      latitudeUnits: other.storage[other.first + 2 * i],
      longitudeUnits: other.storage[other.first + 2 * i + 1])
  }

  /// Adds a point given in stored units (see ``units(_:)``).
  @inline(__always)
  public mutating func append(latitudeUnits: Int32, longitudeUnits: Int32) {
    own()
    storage.append(latitudeUnits)
    storage.append(longitudeUnits)
    pointCount += 1
  }

  /// Removes the last point.
  public mutating func removeLast() {
    precondition(pointCount > 0, "removeLast on an empty polyline")
    if ownsStorage { storage.removeLast(2) }
    pointCount -= 1
  }

  /// A copy whose storage holds its points and nothing more (after building one point by point
  /// into a generous reservation); a range of a larger array as it is.
  public var trimmed: RoutePolyline {
    guard ownsStorage, storage.capacity > storage.count + storage.count / 8 + 16 else {
      return self
    }
    // A fresh buffer of the exact size (`Array(storage)` would share the generous one).
    let copy = storage.withUnsafeBufferPointer { old in
      [Int32](unsafeUninitializedCapacity: old.count) { new, count in
        _ = new.initialize(from: old)
        count = old.count
      }
    }
    return RoutePolyline(storage: copy)
  }

  init(storage: [Int32]) {
    self.storage = storage
    pointCount = storage.count / 2
  }

  /// Points `first ..< first + count` of `storage` (a whole route's points), without copying.
  init(storage: [Int32], first: Int, count: Int) {
    self.storage = storage
    self.first = 2 * first
    pointCount = count
  }

  /// The points of `slice`, copied as stored.
  public init(_ slice: Slice<RoutePolyline>) {
    let base = slice.base
    self.init(
      storage: Array(
        base.storage[(base.first + 2 * slice.startIndex)..<(base.first + 2 * slice.endIndex)]))
  }

  /// Makes room for `count` points in all.
  public mutating func reserveCapacity(_ count: Int) {
    own()
    storage.reserveCapacity(2 * count)
  }

  /// The stored values of the points, latitude and longitude of each in turn.
  @inline(__always)
  var storedUnits: ArraySlice<Int32> { storage[first..<(first + 2 * pointCount)] }

  public static func == (a: RoutePolyline, b: RoutePolyline) -> Bool {
    a.pointCount == b.pointCount && a.storedUnits.elementsEqual(b.storedUnits)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(pointCount)
    for u in storedUnits { hasher.combine(u) }
  }

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
  @inlinable @inline(__always)
  public static func degrees(_ units: Int32) -> Double {
    units == unrepresentable ? .nan : Double(units) / unitsPerDegree
  }
}
