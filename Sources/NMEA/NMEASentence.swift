/// Helpers for NMEA 0183 framing: the checksum and a sentence writer for the simulator.
public enum NMEASentence {
  /// The NMEA checksum of a sentence body: the XOR of every byte.
  ///
  /// The body is everything strictly between `$` and `*`, for example `GPGGA,123519,…,`.
  ///
  /// - Parameter body: The bytes between `$` and `*`.
  /// - Returns: The checksum, written in a sentence as two uppercase hex digits.
  public static func checksum(_ body: some Sequence<UInt8>) -> UInt8 {
    var sum: UInt8 = 0
    for byte in body { sum ^= byte }
    return sum
  }

  /// Frames a sentence body as a complete NMEA line.
  ///
  /// - Parameter body: The sentence without `$`, `*`, checksum and line end, such as
  ///   `GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W`.
  /// - Returns: `"$" + body + "*" + HH + "\r\n"`, with the checksum in uppercase hex.
  public static func frame(_ body: String) -> String {
    "$" + body + "*" + hex(checksum(body.utf8)) + "\r\n"
  }

  /// Two uppercase hex digits.
  static func hex(_ value: UInt8) -> String {
    String(decoding: [hexDigit(value >> 4), hexDigit(value & 0x0F)], as: UTF8.self)
  }

  @inline(__always)
  static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 48 + nibble : 55 + nibble
  }

  /// The value of one hex digit (either case), or `nil`.
  @inline(__always)
  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: return byte - 48
    case 65...70: return byte - 55
    case 97...102: return byte - 87
    default: return nil
    }
  }
}
