import Glibc
import POSIX

/// The uplink's store-and-forward journal: an append-only file of ``JournalRecord``s in the
/// state directory, so that a message survives a dead link, a crash and a power cut until the
/// broker acknowledges it.
///
/// Every message is written (and, at ``sync()``, `fdatasync`ed) before it is handed to
/// libmosquitto; its acknowledgement appends a `done` record. Opening reads the file up to the
/// last whole record (a torn or damaged tail after a power cut is cut off, never trusted),
/// keeps what is not done, and rewrites the file with only that. The file is rewritten the same
/// way whenever it has grown to ``compactionFactor`` times what is live (and at least
/// ``compactionMinimum`` bytes), so it stays within about twice the bound.
///
/// Not thread-safe: the uplink uses it from its own serial queue only.
public final class Journal {
  /// The file is rewritten once it is this many times larger than its live records.
  public static let compactionFactor = 2
  /// ...and at least this large, in bytes, or the capacity when that is smaller (small files
  /// are not worth rewriting).
  public static let compactionMinimum = 1 << 20

  public let path: String
  public private(set) var ledger: JournalLedger
  /// What opening found.
  public private(set) var recovery: Recovery
  private var fd: Int32 = -1
  private var fileBytes = 0
  private var buffer: [UInt8] = []
  private var nextID: UInt64 = 1
  /// Bytes were written since the last `fdatasync`.
  private var unsynced = false
  /// The first write error since the last success, reported once.
  public private(set) var failure: SystemError?

  /// What opening the journal found.
  public struct Recovery: Sendable, Equatable {
    /// Whole records read.
    public var records = 0
    /// Messages still waiting for the broker.
    public var pending = 0
    /// Bytes after the last whole record, discarded.
    public var discardedBytes = 0
  }

  /// Opens (or creates) the journal at `path`, bounded to `capacity` bytes of waiting messages.
  ///
  /// The corresponding C functions are `open`, `read`, `write`, `fdatasync` and `rename`.
  public init(path: String, capacity: Int) throws {
    self.path = path
    ledger = JournalLedger(capacity: capacity)
    recovery = Recovery()
    var bytes: [UInt8] = []
    if access(path, F_OK) == 0 { bytes = try readWholeFile(path) }
    let (records, valid) = JournalRecord.scan(bytes, maximumBody: max(capacity, 1 << 16))
    recovery.records = records.count
    recovery.discardedBytes = bytes.count - valid
    var messages: [JournalEntry] = []
    var finished = Set<UInt64>()
    for r in records {
      switch r {
      case .message(let e):
        messages.append(e)
        nextID = max(nextID, e.id + 1)
      case .done(let id): finished.insert(id)
      }
    }
    for e in messages where !finished.contains(e.id) { _ = ledger.add(e) }
    recovery.pending = ledger.count
    try rewrite()
  }

  deinit {
    if fd >= 0 { close(fd) }
  }

  /// Journals a new message; returns it with its id, or `nil` when it is larger than the whole
  /// journal (counted as dropped).
  ///
  /// Older messages may be dropped to make room (``ledger`` counts them). Written to the file at
  /// the next ``sync()``.
  public func append(
    tier: JournalEntry.Tier, topic: String, payload: [UInt8], retain: Bool = false,
    expiry: Double? = nil
  ) -> (entry: JournalEntry?, dropped: [JournalEntry]) {
    let entry = JournalEntry(
      id: nextID, tier: tier, topic: topic, payload: payload, retain: retain, expiry: expiry)
    nextID += 1
    let outcome = ledger.add(entry)
    for d in outcome.dropped { JournalRecord.done(d.id).encode(into: &buffer) }
    guard outcome.kept else { return (nil, outcome.dropped) }
    JournalRecord.message(entry).encode(into: &buffer)
    return (entry, outcome.dropped)
  }

  /// Marks `id` done (acknowledged, or expired unsent).
  ///
  /// Written at the next ``sync()``.
  public func complete(_ id: UInt64) {
    guard ledger.complete(id) else { return }
    JournalRecord.done(id).encode(into: &buffer)
  }

  /// Writes what was appended since the last call and, when `durable`, waits for the disk
  /// (`fdatasync`) for everything written so far; rewrites the file when it has grown too large.
  ///
  /// Returns whether everything is on disk (a failure is kept in ``failure`` and retried at the
  /// next call).
  @discardableResult
  public func sync(durable: Bool = true) -> Bool {
    do throws(SystemError) {
      let threshold = max(
        min(Self.compactionMinimum, ledger.capacity), Self.compactionFactor * ledger.liveBytes)
      if fileBytes + buffer.count > threshold {
        buffer.removeAll(keepingCapacity: true)
        try rewrite()
        unsynced = false
      } else if !buffer.isEmpty {
        try write(buffer)
        fileBytes += buffer.count
        buffer.removeAll(keepingCapacity: true)
        unsynced = true
      }
      if durable && unsynced {
        try dataSync(fd, subject: path)
        unsynced = false
      }
      failure = nil
      return true
    } catch {
      failure = error
      return false
    }
  }

  /// Writes the live records to a new file and renames it over the journal.
  private func rewrite() throws(SystemError) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(ledger.liveBytes)
    for e in ledger.live { JournalRecord.message(e).encode(into: &bytes) }
    let out = try rewriteFile(path, bytes)
    if fd >= 0 { close(fd) }
    fd = out
    fileBytes = bytes.count
  }

  private func write(_ bytes: [UInt8]) throws(SystemError) {
    try writeAll(fd, bytes, subject: path)
  }
}
