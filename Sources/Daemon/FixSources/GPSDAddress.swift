/// Where gpsd listens: `gpsd://HOST[:PORT]`.
public struct GPSDAddress: Sendable, Equatable, CustomStringConvertible {
  public var host: String
  public var port: String

  /// gpsd's default: `gpsd://localhost:2947`.
  public static let `default` = GPSDAddress(host: "localhost", port: "2947")

  public init(host: String, port: String) {
    self.host = host
    self.port = port
  }

  /// Parses `gpsd://HOST[:PORT]` (IPv6 hosts in brackets: `gpsd://[::1]:2947`); `nil` when
  /// `text` does not start with `gpsd://`.
  ///
  /// Throws ``Invalid`` when it does but is malformed.
  public init?(parsing text: String) throws(Invalid) {
    guard text.hasPrefix("gpsd://") else { return nil }
    var rest = Substring(text.dropFirst("gpsd://".count))
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    var host: Substring
    var port: Substring = "2947"
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else {
        throw Invalid("invalid gpsd address '\(text)'")
      }
      host = rest[rest.index(after: rest.startIndex)..<close]
      let after = rest[rest.index(after: close)...]
      if after.hasPrefix(":") {
        port = after.dropFirst()
      } else if !after.isEmpty {
        throw Invalid("invalid gpsd address '\(text)'")
      }
    } else if let colon = rest.lastIndex(of: ":") {
      host = rest[..<colon]
      port = rest[rest.index(after: colon)...]
    } else {
      host = rest
    }
    if host.isEmpty { host = "localhost" }
    guard let p = Int(port), (1...65535).contains(p), !host.contains("/") else {
      throw Invalid("invalid gpsd address '\(text)' (expected gpsd://HOST:PORT)")
    }
    self.host = String(host)
    self.port = String(p)
  }

  /// A `gpsd://` address that cannot be used, said as the user should read it.
  public struct Invalid: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
  }

  public var description: String {
    host.contains(":") ? "gpsd://[\(host)]:\(port)" : "gpsd://\(host):\(port)"
  }
}
