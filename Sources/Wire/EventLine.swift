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
    self.init(out)
  }

  /// The line of a `SOURCE` event.
  public init(_ event: SourceEvent, seq: UInt64) {
    var out: [UInt8] = []
    out.reserveCapacity(160)
    EventLineWriter.write(event, seq: seq, into: &out)
    self.init(out)
  }

  /// The line of a `REROUTE` event.
  public init(_ event: ReroutingEvent, seq: UInt64) {
    var out: [UInt8] = []
    EventLineWriter.write(event, seq: seq, into: &out)
    self.init(out)
  }

  /// The line of a `CANCELLED` event; `time` is the last event's, when there was one.
  public init(cancelledAt time: Double?, seq: UInt64) {
    var out: [UInt8] = []
    EventLineWriter.writeCancelled(time: time, seq: seq, into: &out)
    self.init(out)
  }

  /// `object` is one line's JSON object, without its line end, with a `,"seq":` member after
  /// its head (class and time hold no such text, so the first one is it).
  private init(_ object: [UInt8]) {
    let key = Array(#","seq":"#.utf8)
    var start = 0
    search: for i in 0...(object.count - key.count) {
      for k in 0..<key.count where object[i + k] != key[k] { continue search }
      start = i
      break
    }
    var end = start + key.count
    while end < object.count, object[end] >= 0x30, object[end] <= 0x39 { end += 1 }
    var bytes = object
    bytes.append(0x0A)
    self.bytes = bytes
    seqRange = start..<end
  }

  /// The line as standard output prints it: the same bytes without `seq`.
  public var withoutSeq: (head: ArraySlice<UInt8>, tail: ArraySlice<UInt8>) {
    (bytes[..<seqRange.lowerBound], bytes[seqRange.upperBound...])
  }
}
