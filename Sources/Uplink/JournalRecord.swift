/// One record of the uplink journal, and its bytes on disk.
///
/// A record is a header of 11 bytes, then its body:
///
/// ```
///   magic  2 bytes   0x53 0x4A ("SJ")
///   type   1 byte    1 = message, 2 = done (acknowledged by the broker, expired or dropped)
///   length 4 bytes   body length, little endian
///   crc    4 bytes   CRC-32 (IEEE) of type, length and body, little endian
///   body   length bytes
/// ```
///
/// A message body is its id (8 bytes), tier, QoS and retain flag (1 byte each), its expiry
/// (the wall-clock deadline as the bits of a Double, 0 for none; 8 bytes), the topic length
/// (2 bytes), the topic, then the payload. A done body is the id of the message (8 bytes). All
/// integers are little endian. The CRC lets recovery tell a whole record from a torn one.
public enum JournalRecord: Sendable, Equatable {
  case message(JournalEntry)
  case done(UInt64)

  /// Bytes before the body.
  public static let headerSize = 11
  static let magic: (UInt8, UInt8) = (0x53, 0x4A)

  /// Appends the record's bytes to `out`.
  public func encode(into out: inout [UInt8]) {
    var body: [UInt8] = []
    let type: UInt8
    switch self {
    case .message(let e):
      type = 1
      body.reserveCapacity(21 + e.topic.utf8.count + e.payload.count)
      Self.put(e.id, into: &body)
      body.append(e.tier.rawValue)
      body.append(e.qos)
      body.append(e.retain ? 1 : 0)
      Self.put((e.expiry ?? 0).bitPattern, into: &body)
      let topic = Array(e.topic.utf8)
      Self.put(UInt64(topic.count), bytes: 2, into: &body)
      body += topic
      body += e.payload
    case .done(let id):
      type = 2
      Self.put(id, into: &body)
    }
    var checked: [UInt8] = [type]
    Self.put(UInt64(body.count), bytes: 4, into: &checked)
    let crc = CRC32.checksum(checked, then: body)
    out.append(Self.magic.0)
    out.append(Self.magic.1)
    out += checked
    Self.put(UInt64(crc), bytes: 4, into: &out)
    out += body
  }

  /// The record's bytes.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    encode(into: &out)
    return out
  }

  /// Reads the whole records at the start of `bytes`, stopping at the first one that is torn,
  /// damaged or longer than `maximumBody` bytes.
  ///
  /// - Returns: the records, and how many bytes they take (everything after is to be discarded).
  public static func scan(_ bytes: [UInt8], maximumBody: Int) -> (
    records: [JournalRecord], validLength: Int
  ) {
    var records: [JournalRecord] = []
    var offset = 0
    while bytes.count - offset >= headerSize {
      guard bytes[offset] == magic.0, bytes[offset + 1] == magic.1 else { break }
      let type = bytes[offset + 2]
      let length = Int(get(bytes, offset + 3, 4))
      guard length <= maximumBody, bytes.count - offset - headerSize >= length else { break }
      let crc = UInt32(get(bytes, offset + 7, 4))
      let body = bytes[(offset + headerSize)..<(offset + headerSize + length)]
      guard CRC32.checksum(bytes[(offset + 2)..<(offset + 7)], then: body) == crc,
        let record = decode(type: type, body: Array(body))
      else { break }
      records.append(record)
      offset += headerSize + length
    }
    return (records, offset)
  }

  private static func decode(type: UInt8, body: [UInt8]) -> JournalRecord? {
    switch type {
    case 1:
      guard body.count >= 21, let tier = JournalEntry.Tier(rawValue: body[8]) else { return nil }
      let topicLength = Int(get(body, 19, 2))
      guard body.count >= 21 + topicLength,
        let topic = String(validating: body[21..<(21 + topicLength)], as: UTF8.self)
      else { return nil }
      let expiry = Double(bitPattern: get(body, 11, 8))
      return .message(
        JournalEntry(
          id: get(body, 0, 8), tier: tier, topic: topic,
          payload: Array(body[(21 + topicLength)...]), qos: body[9], retain: body[10] != 0,
          expiry: expiry == 0 ? nil : expiry))
    case 2:
      guard body.count == 8 else { return nil }
      return .done(get(body, 0, 8))
    default:
      return nil
    }
  }

  private static func put(_ value: UInt64, bytes: Int = 8, into out: inout [UInt8]) {
    for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
  }

  private static func get(_ bytes: some RandomAccessCollection<UInt8>, _ at: Int, _ count: Int)
    -> UInt64
  {
    var v: UInt64 = 0
    var i = bytes.index(bytes.startIndex, offsetBy: at)
    for shift in 0..<count {
      v |= UInt64(bytes[i]) << (8 * UInt64(shift))
      i = bytes.index(after: i)
    }
    return v
  }
}

/// One message waiting in the journal for the broker's acknowledgement.
public struct JournalEntry: Sendable, Equatable {
  /// What goes first when the journal is full.
  public enum Tier: UInt8, Sendable {
    /// `PROGRESS`: superseded by the next one and by the retained state; dropped first.
    case progress = 0
    /// Every other event and every reply: dropped only when nothing else is left, and counted.
    case event = 1
  }

  /// Grows by one per message, across restarts; the journal sends in this order.
  public var id: UInt64
  public var tier: Tier
  public var topic: String
  public var payload: [UInt8]
  public var qos: UInt8
  public var retain: Bool
  /// Wall-clock deadline (seconds since the Unix epoch) after which the message is worthless.
  public var expiry: Double?

  public init(
    id: UInt64, tier: Tier, topic: String, payload: [UInt8], qos: UInt8 = 1, retain: Bool = false,
    expiry: Double? = nil
  ) {
    self.id = id
    self.tier = tier
    self.topic = topic
    self.payload = payload
    self.qos = qos
    self.retain = retain
    self.expiry = expiry
  }

  /// The bytes this message takes in the journal.
  public var recordSize: Int { JournalRecord.headerSize + 21 + topic.utf8.count + payload.count }
}

/// CRC-32 (IEEE 802.3, reflected, as zlib's `crc32`).
enum CRC32 {
  static let table: [UInt32] = (0..<256).map { n -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  static func checksum(
    _ first: some Collection<UInt8>, then second: some Collection<UInt8> = [UInt8]()
  ) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in first { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    for b in second { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }
}
