import Foundation
import TestSupport
import Testing
import Uplink

/// The fleet uplink's journal: its record format, its bound and drop policy, and recovery from
/// torn and damaged files.
@Suite(.blocking) struct UplinkJournalTests {
  static func entry(_ id: UInt64, _ tier: JournalEntry.Tier = .event, size: Int = 40)
    -> JournalEntry
  {
    JournalEntry(
      id: id, tier: tier, topic: "stepwise/v1/" + (tier == .progress ? "p" : "e"),
      payload: Array(repeating: UInt8(ascii: "x"), count: size),
      expiry: tier == .progress ? 1_800_000_000.5 : nil)
  }

  @Test func recordsRoundTripThroughTheirBytes() {
    var bytes: [UInt8] = []
    let records: [JournalRecord] = [
      .message(Self.entry(1)), .message(Self.entry(2, .progress)), .done(1),
      .message(JournalEntry(id: 3, tier: .event, topic: "t/ü", payload: [], retain: true)),
    ]
    for r in records { r.encode(into: &bytes) }
    let (read, valid) = JournalRecord.scan(bytes, maximumBody: 1 << 16)
    #expect(read == records)
    #expect(valid == bytes.count)
    #expect(records[0].bytes.count == Self.entry(1).recordSize)
  }

  @Test func aTornTailIsCutAtTheLastWholeRecordAtEveryLength() {
    var bytes: [UInt8] = []
    for i in 1...3 { JournalRecord.message(Self.entry(UInt64(i))).encode(into: &bytes) }
    let whole = bytes.count
    JournalRecord.message(Self.entry(4)).encode(into: &bytes)
    for cut in whole..<bytes.count {
      let (read, valid) = JournalRecord.scan(Array(bytes[..<cut]), maximumBody: 1 << 16)
      #expect(read.count == 3, "cut at \(cut)")
      #expect(valid == whole, "cut at \(cut)")
    }
  }

  @Test func aDamagedRecordEndsTheTrustedPart() {
    var bytes: [UInt8] = []
    var starts: [Int] = []
    for i in 1...4 {
      starts.append(bytes.count)
      JournalRecord.message(Self.entry(UInt64(i))).encode(into: &bytes)
    }
    // Any flipped byte of record 3 (header or body) stops the scan before it.
    for offset in starts[2]..<starts[3] {
      var damaged = bytes
      damaged[offset] ^= 0x20
      let (read, valid) = JournalRecord.scan(damaged, maximumBody: 1 << 16)
      #expect(read.count == 2, "byte \(offset)")
      #expect(valid == starts[2], "byte \(offset)")
    }
    // A length beyond the maximum is not believed either.
    let (read, _) = JournalRecord.scan(bytes, maximumBody: 10)
    #expect(read.isEmpty)
  }

  @Test func progressGoesFirstWhenFullAndOtherDropsAreCounted() {
    let size = Self.entry(1).recordSize
    var ledger = JournalLedger(capacity: size * 4)
    #expect(ledger.add(Self.entry(1, .event)).dropped.isEmpty)
    #expect(ledger.add(Self.entry(2, .progress)).dropped.isEmpty)
    #expect(ledger.add(Self.entry(3, .event)).dropped.isEmpty)
    #expect(ledger.add(Self.entry(4, .progress)).dropped.isEmpty)
    // Full: the oldest PROGRESS (2), then the next (4), then the oldest event (1).
    #expect(ledger.add(Self.entry(5, .event)).dropped.map(\.id) == [2])
    #expect(ledger.add(Self.entry(6, .event)).dropped.map(\.id) == [4])
    #expect(ledger.add(Self.entry(7, .event)).dropped.map(\.id) == [1])
    #expect(ledger.live.map(\.id) == [3, 5, 6, 7])
    #expect(ledger.droppedProgress == 2)
    #expect(ledger.droppedEvents == 1)
    #expect(ledger.liveBytes == size * 4)
    // Completed entries leave; the order of the rest stays.
    let first = ledger.complete(5)
    let second = ledger.complete(5)
    #expect(first)
    #expect(!second)
    #expect(ledger.live(from: 4, limit: 10).map(\.id) == [6, 7])
    // A message larger than the whole journal is refused and counted.
    #expect(!ledger.add(Self.entry(8, .event, size: size * 5)).kept)
    #expect(ledger.droppedEvents == 2)
  }

  @Test func aLongOutageKeepsTheNewestWithinTheBound() {
    let size = Self.entry(1).recordSize
    var ledger = JournalLedger(capacity: size * 1000)
    for i in 1...50_000 {
      _ = ledger.add(Self.entry(UInt64(i), i % 5 == 0 ? .event : .progress))
    }
    #expect(ledger.liveBytes <= size * 1000)
    // Every event of the last 1000 messages and before is kept while PROGRESS is dropped
    // first: 1000 slots, 10 000 events, so the newest 1000 events survive.
    #expect(ledger.live.allSatisfy { $0.tier == .event })
    #expect(ledger.live.last?.id == 50_000)
    #expect(ledger.droppedProgress == 40_000)
    #expect(ledger.droppedEvents == 9_000)
  }

  @Test func theFileKeepsWhatIsNotDoneAcrossReopeningAndCompaction() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("mqtt-journal")
    do {
      let j = try Journal(path: path, capacity: 1 << 20)
      for i in 0..<10 { _ = j.append(tier: .event, topic: "t", payload: Array("m\(i)".utf8)) }
      #expect(j.sync())
      j.complete(1)
      j.complete(2)
      #expect(j.sync(durable: false))
    }
    let j = try Journal(path: path, capacity: 1 << 20)
    #expect(j.recovery.pending == 8)
    #expect(j.recovery.discardedBytes == 0)
    #expect(j.ledger.live.map { String(decoding: $0.payload, as: UTF8.self) }.first == "m2")
    // Ids go on growing after a restart, so the order survives it.
    let next = j.append(tier: .event, topic: "t", payload: [1]).entry
    #expect(next?.id == 11)
    // Many messages later, acknowledged one by one, the file stays small.
    for _ in 0..<20_000 {
      guard
        let e = j.append(tier: .event, topic: "t", payload: Array(repeating: 7, count: 100))
          .entry
      else { break }
      j.complete(e.id)
      j.sync(durable: false)
    }
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    #expect(size <= 2 * (1 << 20) + 4096)
    #expect(j.ledger.count == 9)
  }

  @Test func aPowerCutMidRecordLosesOnlyThatRecord() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("mqtt-journal")
    do {
      let j = try Journal(path: path, capacity: 1 << 20)
      for i in 0..<5 { _ = j.append(tier: .event, topic: "t", payload: Array("event \(i)".utf8)) }
      #expect(j.sync())
    }
    // Tear the last record in half, then garbage after it (a block written half).
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    bytes.removeLast(7)
    bytes += [0xFF, 0x00, 0x53]
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let j = try Journal(path: path, capacity: 1 << 20)
    #expect(j.recovery.pending == 4)
    #expect(j.recovery.discardedBytes > 0)
    #expect(
      j.ledger.live.map { String(decoding: $0.payload, as: UTF8.self) } == [
        "event 0", "event 1", "event 2", "event 3",
      ])
    // The damaged tail is gone from the file: a second open finds it clean.
    let again = try Journal(path: path, capacity: 1 << 20)
    #expect(again.recovery.discardedBytes == 0)
    #expect(again.recovery.pending == 4)
    // A file of garbage is recovered as empty, never trusted.
    try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(
      to: URL(fileURLWithPath: path))
    let garbage = try Journal(path: path, capacity: 1 << 20)
    #expect(garbage.recovery.pending == 0)
    #expect(garbage.recovery.discardedBytes == 5000)
  }
}
