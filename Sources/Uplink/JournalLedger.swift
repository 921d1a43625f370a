/// The messages of the journal that the broker has not acknowledged yet, oldest first, within a
/// bound in bytes; pure, so that its policy is tested without files.
///
/// When a new message does not fit, the oldest `PROGRESS` goes first, then (only when no
/// `PROGRESS` is left, and only for a message that is not `PROGRESS` itself) the oldest other
/// message; every drop is counted. Acknowledgements
/// arrive mostly in order, so entries are marked done where they are and swept off the front:
/// adding, completing and dropping cost O(log n) amortised, never a shift of the whole list.
public struct JournalLedger: Sendable {
  /// The most bytes of records that may wait.
  public let capacity: Int
  /// Waiting and done entries, by ascending id; `done[i]` marks a done one.
  private var entries: [JournalEntry] = []
  private var done: [Bool] = []
  /// `entries[..<head]` are all done.
  private var head = 0
  /// No live `PROGRESS` before this index.
  private var progressCursor = 0
  /// Bytes of the live records.
  public private(set) var liveBytes = 0
  /// Live records.
  public private(set) var count = 0
  /// `PROGRESS` messages dropped to make room.
  public private(set) var droppedProgress = 0
  /// Other messages dropped to make room (or too large for the journal at all).
  public private(set) var droppedEvents = 0

  public init(capacity: Int) {
    self.capacity = capacity
  }

  /// What ``add(_:)`` did.
  public struct Outcome: Sendable, Equatable {
    /// Whether the new message was kept (it is larger than the whole journal otherwise).
    public var kept: Bool
    /// Older messages dropped to make room for it.
    public var dropped: [JournalEntry]
  }

  /// Adds `entry` (whose id is larger than every id so far), dropping older ones to make room.
  public mutating func add(_ entry: JournalEntry) -> Outcome {
    let size = entry.recordSize
    guard size <= capacity else {
      droppedEvents += entry.tier == .event ? 1 : 0
      droppedProgress += entry.tier == .progress ? 1 : 0
      return Outcome(kept: false, dropped: [])
    }
    precondition(entries.last.map { $0.id < entry.id } ?? true, "journal ids must grow")
    var dropped: [JournalEntry] = []
    while liveBytes + size > capacity {
      // A PROGRESS never pushes out anything but an older PROGRESS.
      guard let victim = oldestDroppable(forProgress: entry.tier == .progress) else {
        droppedProgress += 1
        return Outcome(kept: false, dropped: dropped)
      }
      let gone = entries[victim]
      markDone(victim)
      dropped.append(gone)
      if gone.tier == .progress {
        droppedProgress += 1
      } else {
        droppedEvents += 1
      }
    }
    entries.append(entry)
    done.append(false)
    liveBytes += size
    count += 1
    return Outcome(kept: true, dropped: dropped)
  }

  /// Marks the message `id` done (acknowledged or expired); returns whether it was live.
  @discardableResult
  public mutating func complete(_ id: UInt64) -> Bool {
    guard let i = index(of: id), !done[i] else { return false }
    markDone(i)
    return true
  }

  /// The live entries, oldest first.
  public var live: [JournalEntry] {
    var out: [JournalEntry] = []
    out.reserveCapacity(count)
    for i in head..<entries.count where !done[i] { out.append(entries[i]) }
    return out
  }

  /// The live entries with an id of at least `id`, oldest first, at most `limit` of them.
  public func live(from id: UInt64, limit: Int) -> [JournalEntry] {
    var out: [JournalEntry] = []
    var i = lowerBound(id)
    while i < entries.count && out.count < limit {
      if !done[i] { out.append(entries[i]) }
      i += 1
    }
    return out
  }

  /// Whether `id` is live.
  public func contains(_ id: UInt64) -> Bool {
    guard let i = index(of: id) else { return false }
    return !done[i]
  }

  private mutating func oldestDroppable(forProgress: Bool) -> Int? {
    // Everything the scan passes is done or not PROGRESS, so the cursor may follow it.
    progressCursor = max(progressCursor, head)
    while progressCursor < entries.count {
      if !done[progressCursor] && entries[progressCursor].tier == .progress {
        return progressCursor
      }
      progressCursor += 1
    }
    if forProgress { return nil }
    var i = head
    while i < entries.count {
      if !done[i] { return i }
      i += 1
    }
    return nil
  }

  private mutating func markDone(_ i: Int) {
    done[i] = true
    liveBytes -= entries[i].recordSize
    count -= 1
    while head < entries.count && done[head] { head += 1 }
    // Sweep the done front once it is half the list, so memory follows the live entries.
    if head >= 1024 && head * 2 >= entries.count {
      entries.removeFirst(head)
      done.removeFirst(head)
      progressCursor = max(0, progressCursor - head)
      head = 0
    }
  }

  private func lowerBound(_ id: UInt64) -> Int {
    var lo = head
    var hi = entries.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if entries[mid].id < id { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }

  private func index(of id: UInt64) -> Int? {
    let i = lowerBound(id)
    return i < entries.count && entries[i].id == id ? i : nil
  }
}
