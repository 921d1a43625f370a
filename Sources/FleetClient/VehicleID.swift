import Glibc

/// Vehicle ids: letters, digits, `-` and `_` (never `/`, `+` or `#`, which would reach into
/// another vehicle's topics or the broker's wildcards), 1 to 64 characters.
public enum VehicleID {
  public static func validate(_ id: String) throws(FleetOptionError) -> String {
    guard (1...64).contains(id.utf8.count),
      id.utf8.allSatisfy({ c in
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
          || c == 0x2D || c == 0x5F
      })
    else {
      throw FleetOptionError(
        "vehicle id \"\(id)\": use 1 to 64 letters, digits, - and _ (no /, + or #)")
    }
    return id
  }

  /// The host name, as the default vehicle id (its first label, validated).
  public static func hostName() throws(FleetOptionError) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else {
      throw FleetOptionError("no host name; give --vehicle ID")
    }
    let name = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let label = name.split(separator: ".").first.map(String.init) ?? name
    return try validate(label)
  }
}
