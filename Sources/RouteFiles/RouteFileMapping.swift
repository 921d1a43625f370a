import Glibc
import RouteImporters
import Routes

extension RouteFiles {
  /// Route files from this size on are mapped instead of read (1 MiB).
  static let mappingThreshold = 1 << 20

  /// Loads a large regular native document through a read-only mapping, letting go of the
  /// pages the pull decoder has read, so a million-point document (45 MB of JSON) never needs
  /// all of its text resident at once; `nil` for anything else (standard input, a pipe, a small
  /// or a too large file, one that cannot be opened or mapped, another format, a document with
  /// a problem), which ``read(_:maximumSize:)`` and ``decode(_:name:format:language:)`` then
  /// read, or refuse with their message, once the mapping is gone.
  ///
  /// The corresponding C functions are `open`, `fstat`, `mmap`, `madvise` (`MADV_DONTNEED`) and
  /// `munmap`.
  static func loadMapped(_ path: String, format: RouteFileFormat?, maximumSize: Int)
    -> RouteDocument?
  {
    guard path != "-", format == nil || format == .native else { return nil }
    // Looked at before it is opened: opening a FIFO would take its writer, and closing it
    // again would leave the writer with a broken pipe.
    var named = stat()
    guard stat(path, &named) == 0, (named.st_mode & S_IFMT) == S_IFREG else { return nil }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
      status.st_size >= mappingThreshold, status.st_size <= maximumSize
    else { return nil }
    let size = Int(status.st_size)
    guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0),
      base != UnsafeMutableRawPointer(bitPattern: -1)
    else { return nil }
    defer { munmap(base, size) }
    let buffer = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
    let page = max(4096, sysconf(Int32(_SC_PAGESIZE)))
    var released = 0
    return RouteImport.decodeNative(buffer: buffer, format: format) { offset in
      let end = offset / page * page
      guard end > released else { return }
      _ = madvise(base + released, end - released, MADV_DONTNEED)
      released = end
    }
  }
}
