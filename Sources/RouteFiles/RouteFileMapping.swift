import Glibc
import Phrasebook
import Routes

extension RouteFiles {
  /// Route files from this size on are mapped instead of read (1 MiB).
  static let mappingThreshold = 1 << 20

  /// Loads a large regular file through a read-only mapping, letting go of the pages a native
  /// document's pull decoder has read, so a million-point document (45 MB of JSON) never needs
  /// all of its text resident at once; `nil` for anything else (standard input, a pipe, a small
  /// or a too large file, a file that cannot be opened or mapped), which ``read(_:maximumSize:)``
  /// then reads or refuses with its message. The corresponding C functions are `open`, `fstat`,
  /// `mmap`, `madvise` (`MADV_DONTNEED`: a private mapping of an unchanged file reads the pages
  /// again from the file if they are needed again, to place an error) and `munmap`.
  static func loadMapped(
    _ path: String, format: RouteFileFormat?, language: Language?, maximumSize: Int
  ) throws(RouteFileError) -> RouteDocument? {
    guard path != "-" else { return nil }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
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
    do throws(RouteDocumentError) {
      return try RouteImport.decode(
        buffer: buffer, format: format, language: language.map(\.instructionLanguage),
        writer: { .natural(Language(instructionLanguage: $0)) },
        progress: { offset in
          let end = offset / page * page
          guard end > released else { return }
          _ = madvise(base + released, end - released, MADV_DONTNEED)
          released = end
        })
    } catch {
      throw RouteFileError(path: path, underlying: error, message: "")
    }
  }
}
