import Glibc

extension RouteFiles {
  private typealias Trim = @convention(c) (Int) -> Int32

  /// glibc's `malloc_trim`, which Swift's Glibc module does not declare (it is in `malloc.h`),
  /// looked up once; `nil` with another C library.
  private static let trim: Trim? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else {
      return nil
    }
    return unsafeBitCast(symbol, to: Trim.self)
  }()

  /// Gives back the pages of the decoder's step polylines, freed once a route's points are
  /// moved into one array (``Routes/RouteDocument/sharingPointArrays()``).
  ///
  /// glibc returns memory only from the top of an arena, and after its first large frees it
  /// serves arrays of a step's size from the heap instead of mappings: the freed polylines then
  /// stay resident below the route's array, 7 bytes a point of a million-point route. Trimming
  /// walks the free lists, a few milliseconds.
  static func releaseFreedPages() {
    _ = trim?(0)
  }
}
