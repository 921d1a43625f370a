import Glibc
import Synchronization

/// An error from a system call, with the name of the call and the path or object involved.
public struct SystemError: Error, Sendable, CustomStringConvertible {
  public var errno: Int32
  public var function: String
  public var subject: String

  public init(errno: Int32, function: String, subject: String = "") {
    self.errno = errno
    self.function = function
    self.subject = subject
  }

  public var description: String {
    let reason = String(cString: strerror(errno))
    return subject.isEmpty ? "\(function): \(reason)" : "\(subject): \(reason)"
  }
}

/// Reads a whole file, or standard input for `-`.
///
/// The corresponding C functions are `open` and `read`.
public func readWholeFile(_ path: String, limit: Int = 1 << 31) throws -> [UInt8] {
  let input = try InputFile(path: path)
  defer { input.close() }
  var out: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let n = try input.read(into: &chunk)
    if n == 0 { break }
    out.append(contentsOf: chunk[0..<n])
    if out.count > limit {
      throw SystemError(errno: EFBIG, function: "read", subject: path)
    }
  }
  return out
}

/// A file (or standard input) read in chunks.
public final class InputFile {
  public let fd: Int32
  public let path: String
  private let owned: Bool

  /// Opens `path` for reading; `-` means standard input.
  public init(path: String) throws {
    self.path = path
    if path == "-" {
      fd = 0
      owned = false
      return
    }
    let f = open(path, O_RDONLY | O_CLOEXEC)
    guard f >= 0 else { throw SystemError(errno: errno, function: "open", subject: path) }
    var st = stat()
    if fstat(f, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
      Glibc.close(f)
      throw SystemError(errno: EISDIR, function: "open", subject: path)
    }
    fd = f
    owned = true
  }

  /// Reads up to `buffer.count` bytes; 0 at end of file.
  ///
  /// Retries on `EINTR`.
  public func read(into buffer: inout [UInt8]) throws -> Int {
    while true {
      let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw SystemError(errno: errno, function: "read", subject: path)
    }
  }

  public func close() {
    if owned { Glibc.close(fd) }
  }
}

/// Buffered output to a file descriptor (standard output or error), flushed on demand.
///
/// Writes go straight to the descriptor with `write(2)`, never through C's `stdout`.
public final class OutputSink: @unchecked Sendable {
  // Invariant: used from one thread at a time (the engine loop).
  public let fd: Int32
  private var buffer: [UInt8] = []
  /// Set when a write failed (for example a closed pipe); later output is dropped.
  public private(set) var failed: SystemError?

  public init(fd: Int32) {
    self.fd = fd
    buffer.reserveCapacity(1 << 16)
  }

  public static let standardOutput = OutputSink(fd: 1)

  /// Appends one line (a newline is added).
  public func line(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    buffer.append(0x0A)
    if buffer.count >= 1 << 16 { flush() }
  }

  /// Writes out everything buffered.
  ///
  /// The corresponding C function is `write`.
  public func flush() {
    guard !buffer.isEmpty else { return }
    defer { buffer.removeAll(keepingCapacity: true) }
    guard failed == nil else { return }
    do {
      try writeAll(fd, buffer, subject: fd == 1 ? "stdout" : "fd \(fd)")
    } catch {
      failed = error
    }
  }
}

/// Writes a diagnostic line to standard error at once, with an sd-daemon priority prefix
/// (`<3>` error, `<4>` warning, `<6>` info, `<7>` debug) when stderr is not a terminal.
///
/// Called from any thread (the engine, the state queue, the sources): each call writes its own
/// line with one `write(2)` where it can, sharing no buffer. The corresponding C function is
/// `write`.
public func logLine(_ priority: Int, _ text: String) {
  let prefix = isatty(2) != 0 ? "" : "<\(priority)>"
  var bytes = Array((prefix + text).utf8)
  bytes.append(0x0A)
  try? writeAll(2, bytes, subject: "stderr")
}

/// Writes all of `bytes` to `fd`, going on after short writes and retrying on `EINTR`.
///
/// The corresponding C function is `write`.
///
/// - Parameters:
///   - fd: An open descriptor.
///   - bytes: What to write.
///   - subject: What `fd` is, for the error (a path, "stdout").
/// - Throws: The first failing `write` as a ``SystemError``.
public func writeAll(_ fd: Int32, _ bytes: [UInt8], subject: String) throws(SystemError) {
  var offset = 0
  while offset < bytes.count {
    let n = bytes.withUnsafeBytes { raw -> Int in
      guard let base = raw.baseAddress else { return raw.count - offset }
      return Glibc.write(fd, base + offset, raw.count - offset)
    }
    if n < 0 {
      if errno == EINTR { continue }
      throw SystemError(errno: errno, function: "write", subject: subject)
    }
    offset += n
  }
}

/// Makes a rename in the folder of `path` durable; failures are ignored (the rename itself
/// happened).
///
/// The corresponding C function is `fsync` on the folder.
public func syncDirectory(of path: String) {
  let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
  let d = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  guard d >= 0 else { return }
  _ = fsync(d)
  Glibc.close(d)
}

/// Numbers the temporary files of ``writeFileAtomically(_:_:mode:)`` within this process.
private let temporaryFileSerial = Atomic<UInt64>(0)

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, `fsync`, then
/// `rename` over the target.
///
/// The corresponding C functions are `open`, `write`, `fsync` and
/// `rename`.
///
/// Each call has a temporary file of its own, `NAME.tmp.SERIAL.PID` (created with `O_EXCL`):
/// two writes of one file at once, from two threads, each rename a whole file, never one
/// another's or a file both wrote into. Which of them lands last is the callers' to order.
public func writeFileAtomically(
  _ path: String, _ bytes: [UInt8], mode: mode_t = 0o644
) throws(SystemError) {
  try writeFileAtomically(path, mode: mode) { fd, subject throws(SystemError) in
    try writeAll(fd, bytes, subject: subject)
  }
}

/// Writes a file atomically as ``writeFileAtomically(_:_:mode:)`` does, its content written by
/// `body` piece by piece (with ``writeAll(_:_:subject:)``), so that a large file is never whole
/// in memory.
///
/// - Parameters:
///   - path: The file to replace.
///   - mode: The permissions of a file created.
///   - body: Writes the content to the descriptor it is given; its second argument names the
///     temporary file, for errors.
/// - Throws: A ``SystemError`` from `open`, `write`, `fsync` or `rename`, or `body`'s; the old
///   file is then unchanged.
public func writeFileAtomically(
  _ path: String, mode: mode_t = 0o644,
  body: (_ fd: Int32, _ subject: String) throws(SystemError) -> Void
) throws(SystemError) {
  let serial = temporaryFileSerial.wrappingAdd(1, ordering: .relaxed).oldValue
  let tmp = path + ".tmp.\(serial).\(getpid())"
  let fd = try replaceFile(path, through: tmp, O_EXCL, mode: mode) { fd throws(SystemError) in
    try body(fd, tmp)
  }
  Glibc.close(fd)
}

/// Replaces the file at `path` with `bytes` atomically, as ``writeFileAtomically(_:_:mode:)``
/// does, and returns the new file's descriptor, open for writing at its end.
///
/// For a file one owner rewrites and then appends to (a journal): the temporary file is always
/// `NAME.tmp`, so one left by a crash is overwritten by the next rewrite, and the rename is made
/// durable before this returns.
///
/// - Parameters:
///   - path: The file to replace.
///   - bytes: Its new content.
///   - mode: The permissions of a file created.
/// - Returns: The descriptor of the new file; the caller closes it.
/// - Throws: A ``SystemError`` from `open`, `write`, `fsync` or `rename`; the old file is then
///   unchanged.
public func rewriteFile(
  _ path: String, _ bytes: [UInt8], mode: mode_t = 0o600
) throws(SystemError) -> Int32 {
  let fd = try replaceFile(path, through: path + ".tmp", O_TRUNC, mode: mode) {
    fd throws(SystemError) in try writeAll(fd, bytes, subject: path + ".tmp")
  }
  syncDirectory(of: path)
  return fd
}

/// Waits until the data written to `fd` is on disk.
///
/// The corresponding C function is `fdatasync`.
///
/// - Throws: A ``SystemError`` naming `subject`.
public func dataSync(_ fd: Int32, subject: String) throws(SystemError) {
  if fdatasync(fd) != 0 { throw SystemError(errno: errno, function: "fdatasync", subject: subject) }
}

/// Writes a new file `tmp` (opened with `O_CREAT` and `creation`) with `content`, syncs it and
/// renames it over `path`, keeping it open.
private func replaceFile(
  _ path: String, through tmp: String, _ creation: Int32, mode: mode_t,
  _ content: (Int32) throws(SystemError) -> Void
) throws(SystemError) -> Int32 {
  let fd = open(tmp, O_WRONLY | O_CREAT | creation | O_CLOEXEC, mode)
  guard fd >= 0 else { throw SystemError(errno: errno, function: "open", subject: tmp) }
  do throws(SystemError) {
    try content(fd)
    if fsync(fd) != 0 { throw SystemError(errno: errno, function: "fsync", subject: tmp) }
    if rename(tmp, path) != 0 {
      throw SystemError(errno: errno, function: "rename", subject: path)
    }
  } catch {
    Glibc.close(fd)
    unlink(tmp)
    throw error
  }
  return fd
}
