public import Geodesy
public import Routes

/// The points the matcher walks (``ThinnedRoute``'s), read from the route's own array of points
/// (``Routes/Route/sharingOnePointArray()``) instead of a copy: 2 bytes a point kept.
///
/// When thinning keeps few of the points (fewer than one in `sharingRatio`), they are copied
/// instead (8 bytes each, a quarter of the route's 8 at most): read through the route's array,
/// points far apart there would each cost the matcher a cache line of their own, and per fix
/// it read a sparse million-point route's points measurably slower than their copy.
///
/// Point `j` is point `bases[j >> blockShift] + offsets[j]` of the route's array. Consecutive
/// kept points are at most `ThinnedRoute.longestRun` + 2 apart there (the points dropped
/// between them, and a step's first point, which repeats the last one of the step before), so
/// within a block of `1 << blockShift` kept points the offsets stay far below 65,536.
public struct RoutePoints: Sendable, RandomAccessCollection {
  /// Kept points per block: log2.
  @usableFromInline static let blockShift = 9
  /// The route's array is read when at least one point in this many is kept.
  static let sharingRatio = 4

  /// Every point of the route (`shared`), or a copy of the kept points.
  @usableFromInline let all: RoutePolyline
  /// Whether `all` is the route's array, read through `bases` and `offsets`.
  @usableFromInline let shared: Bool
  /// Index in `all` of the first kept point of each block.
  @usableFromInline let bases: [Int]
  /// Index in `all` of each kept point, from its block's base.
  @usableFromInline let offsets: [UInt16]

  /// The points of `all` at `indices` (increasing).
  package init(_ all: RoutePolyline, indices: [Int32]) {
    guard indices.count * Self.sharingRatio >= all.count else {
      var copy = RoutePolyline()
      copy.reserveCapacity(indices.count)
      for i in indices { copy.append(unitsOf: Int(i), in: all) }
      self.all = copy
      shared = false
      bases = []
      offsets = []
      return
    }
    self.all = all
    shared = true
    var bases: [Int] = []
    bases.reserveCapacity((indices.count >> Self.blockShift) + 1)
    let offsets = [UInt16](unsafeUninitializedCapacity: indices.count) { buffer, count in
      for (j, index) in indices.enumerated() {
        let index = Int(index)
        if j & ((1 << Self.blockShift) - 1) == 0 { bases.append(index) }
        buffer[j] = UInt16(index - bases[bases.count - 1])
      }
      count = indices.count
    }
    self.bases = bases
    self.offsets = offsets
  }

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { shared ? offsets.count : all.count }

  /// Index in the route's array of point `j`.
  @inlinable @inline(__always)
  func routeIndex(_ j: Int) -> Int { bases[j &>> Self.blockShift] &+ Int(offsets[j]) }

  @inlinable public subscript(j: Int) -> Coordinate {
    @inline(__always) get { shared ? all[routeIndex(j)] : all[j] }
  }

  /// The points as `Coordinate`s.
  public var coordinates: [Coordinate] { Array(self) }
}
