public import Guidance

/// One published event as subscribers receive it, encoded once: the JSON object with `seq`
/// right after `time`, and its line end.
///
/// Standard output (`--json`) prints the same bytes without the `seq` member (``withoutSeq``),
/// so the daemon encodes each event once for every reader.
public struct EventLine: Sendable, Equatable {
  /// The line: `{"class":…,"time":…,"seq":N,…}` and LF.
  public let bytes: [UInt8]
  /// Where `,"seq":N` is in ``bytes``.
  public let seqRange: Range<Int>

  /// The line of a navigation event.
  public init(_ event: NavigationEvent, seq: UInt64) {
    var out: [UInt8] = []
    out.reserveCapacity(512)
    EventLineWriter.write(event, seq: seq, into: &out)
    out.append(0x0A)
    self.init(line: out)
  }

  /// The line of a `SOURCE` event.
  public init(_ event: SourceEvent, seq: UInt64) {
    var out: [UInt8] = []
    out.reserveCapacity(160)
    EventLineWriter.write(event, seq: seq, into: &out)
    out.append(0x0A)
    self.init(line: out)
  }

  /// The line of a `REROUTE` event.
  public init(_ event: ReroutingEvent, seq: UInt64) {
    var out: [UInt8] = []
    EventLineWriter.write(event, seq: seq, into: &out)
    out.append(0x0A)
    self.init(line: out)
  }

  /// The line of a `CANCELLED` event; `time` is the last event's, when there was one.
  public init(cancelledAt time: Double?, seq: UInt64) {
    var out: [UInt8] = []
    EventLineWriter.writeCancelled(time: time, seq: seq, into: &out)
    out.append(0x0A)
    self.init(line: out)
  }

  /// Keeps `object`, one line's JSON object and its line end, as it is (no copy).
  ///
  /// A `,"seq":` member follows its head (class and time hold no such text, so the first one
  /// is it).
  private init(line object: [UInt8]) {
    let key: StaticString = #","seq":"#
    let keyCount = key.utf8CodeUnitCount
    var start = 0
    object.withUnsafeBufferPointer { b in
      search: for i in 0...(b.count - keyCount) {
        for k in 0..<keyCount where b[i + k] != key.utf8Start[k] { continue search }
        start = i
        break
      }
    }
    var end = start + keyCount
    while end < object.count, object[end] >= 0x30, object[end] <= 0x39 { end += 1 }
    self.bytes = object
    seqRange = start..<end
  }

  /// Appends the line of `event` as standard output prints it, without `seq`, and its line
  /// end: the bytes of ``withoutSeq``, written straight into `out` when no other reader shares
  /// the numbered line.
  public static func appendUnnumbered(_ event: NavigationEvent, to out: inout [UInt8]) {
    EventLineWriter.write(event, into: &out)
    out.append(0x0A)
  }

  /// Appends the line of a `SOURCE` event without `seq`, and its line end.
  public static func appendUnnumbered(_ event: SourceEvent, to out: inout [UInt8]) {
    EventLineWriter.write(event, into: &out)
    out.append(0x0A)
  }

  /// The line as standard output prints it: the same bytes without `seq`.
  public var withoutSeq: (head: ArraySlice<UInt8>, tail: ArraySlice<UInt8>) {
    (bytes[..<seqRange.lowerBound], bytes[seqRange.upperBound...])
  }
}
