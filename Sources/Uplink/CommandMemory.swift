import Glibc
import JSON
import POSIX

/// The ids of the last commands taken over MQTT, kept in a file of the state directory so that
/// a command the broker delivers again after a restart (QoS 1 is at least once) is recognised
/// and not carried out twice.
///
/// Each id is written and `fdatasync`ed before its command runs: after a crash at the wrong
/// moment a command may not have run (its sender gets no reply and may send it again with a new
/// id), but none ever runs twice. The file holds one JSON string per line, appended; a torn last
/// line (a power cut) is ignored. Once it holds ``compactionFactor`` times ``capacity`` lines it
/// is rewritten with the newest ``capacity``.
///
/// Not thread-safe: the uplink uses it from its own serial queue only.
public final class CommandMemory {
  /// The file is rewritten when it has this many times the ids kept.
  static let compactionFactor = 2
  /// Ids longer than this, in bytes, are kept as a digest, so the file stays small.
  static let longestKept = 256

  public let path: String
  public let capacity: Int
  private var order: [String] = []
  private var known = Set<String>()
  private var fileLines = 0
  private var fd: Int32 = -1
  /// The first write error since the last success, reported once by the caller.
  public private(set) var failure: SystemError?

  /// Reads the ids kept at `path` (a missing file is an empty memory) and opens it to append.
  public init(path: String, capacity: Int) throws {
    self.path = path
    self.capacity = capacity
    var bytes: [UInt8] = []
    if access(path, F_OK) == 0 { bytes = try readWholeFile(path) }
    var start = 0
    for (i, b) in bytes.enumerated() where b == 0x0A {
      if case .string(let key)? = try? JSONParser.parse(Array(bytes[start..<i])) { keep(key) }
      fileLines += 1
      start = i + 1
    }
    try rewrite()
  }

  deinit {
    if fd >= 0 { close(fd) }
  }

  /// The number of ids remembered.
  public var count: Int { order.count }

  /// Whether the command id `key` was taken before.
  public func contains(_ key: String) -> Bool { known.contains(Self.stored(key)) }

  /// Remembers `key` on disk; returns whether it is durable (a failure is kept in ``failure``;
  /// the id is still remembered in memory).
  @discardableResult
  public func remember(_ key: String) -> Bool {
    let k = Self.stored(key)
    keep(k)
    do throws(SystemError) {
      if fileLines + 1 >= Self.compactionFactor * capacity {
        try rewrite()
      } else {
        var line = Array(JSONWriter.string(.string(k)).utf8)
        line.append(0x0A)
        try writeAll(fd, line, subject: path)
        fileLines += 1
        try dataSync(fd, subject: path)
      }
      failure = nil
      return true
    } catch {
      failure = error
      return false
    }
  }

  private func keep(_ key: String) {
    guard known.insert(key).inserted else { return }
    order.append(key)
    if order.count > capacity {
      let drop = order.count - capacity
      for k in order[..<drop] { known.remove(k) }
      order.removeFirst(drop)
    }
  }

  /// What is kept for `key`: itself, or for a long one its length and a 64-bit FNV-1a digest.
  static func stored(_ key: String) -> String {
    guard key.utf8.count > longestKept else { return key }
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in key.utf8 {
      h ^= UInt64(b)
      h = h &* 0x100_0000_01b3
    }
    return "#\(key.utf8.count)-" + String(h, radix: 16)
  }

  /// Writes the kept ids to a new file and renames it over the old one.
  private func rewrite() throws(SystemError) {
    var bytes: [UInt8] = []
    for k in order {
      bytes.append(contentsOf: JSONWriter.string(.string(k)).utf8)
      bytes.append(0x0A)
    }
    let out = try rewriteFile(path, bytes)
    if fd >= 0 { close(fd) }
    fd = out
    fileLines = order.count
  }
}
