/// Values kept in single precision and read as `Double`: half the memory of `[Double]` for
/// quantities whose seventh significant digit is already far below what they are used for (a
/// bearing to 0.00002 degree, a metres-per-degree scale to 0.5 mm per degree).
public struct FloatColumn: Sendable, RandomAccessCollection {
  @usableFromInline let storage: [Float]

  package init(_ storage: [Float]) { self.storage = storage }

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { storage.count }

  @inlinable public subscript(i: Int) -> Double {
    @inline(__always) get { Double(storage[i]) }
  }
}
