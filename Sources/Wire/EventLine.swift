import Guidance
import JSON

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

  /// The line of `event`.
  public init(_ event: Event, seq: UInt64) {
    var out: [UInt8] = []
    out.reserveCapacity(512)
    EventLineWriter.write(event, seq: seq, into: &out)
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
  public static func appendUnnumbered(_ event: Event, to out: inout [UInt8]) {
    EventLineWriter.write(event, into: &out)
    out.append(0x0A)
  }

  /// The JSON text of `event` as standard output prints it (no `seq`, no line end).
  public static func text(_ event: Event) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(512)
    EventLineWriter.write(event, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// The line as standard output prints it: the same bytes without `seq`.
  public var withoutSeq: (head: ArraySlice<UInt8>, tail: ArraySlice<UInt8>) {
    (bytes[..<seqRange.lowerBound], bytes[seqRange.upperBound...])
  }

  /// The line as the fleet uplink sends it: `,"boot":"…"` right after `seq`, without the line
  /// end.
  public func bytes(boot: String) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + boot.utf8.count + 12)
    out.append(contentsOf: bytes[..<seqRange.upperBound])
    out.append(contentsOf: #","boot":"#.utf8)
    JSONWriter.writeString(boot, into: &out)
    out.append(contentsOf: bytes[seqRange.upperBound..<(bytes.count - 1)])
    return out
  }
}
