/// A broker address: `mqtt://HOST[:PORT]` (default port 1883) or `mqtts://HOST[:PORT]` (TLS,
/// default 8883).
public struct BrokerAddress: Sendable, Equatable, CustomStringConvertible {
  public var host: String
  public var port: Int32
  public var tls: Bool

  public init(host: String, port: Int32, tls: Bool) {
    self.host = host
    self.port = port
    self.tls = tls
  }

  public init(parsing text: String) throws(FleetOptionError) {
    let tls: Bool
    let rest: Substring
    if text.hasPrefix("mqtt://") {
      tls = false
      rest = text.dropFirst(7)
    } else if text.hasPrefix("mqtts://") {
      tls = true
      rest = text.dropFirst(8)
    } else {
      throw FleetOptionError("\(text): a broker is mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    }
    var host = String(rest.hasSuffix("/") ? rest.dropLast() : rest)
    var port: Int32 = tls ? 8883 : 1883
    if host.hasPrefix("[") {
      // [IPv6]:port
      guard let close = host.firstIndex(of: "]") else {
        throw FleetOptionError("\(text): an unclosed [ in the host")
      }
      let after = host[host.index(after: close)...]
      if after.hasPrefix(":") {
        guard let p = Int32(after.dropFirst()), (1...65535).contains(p) else {
          throw FleetOptionError("\(text): the port must be 1…65535")
        }
        port = p
      }
      host = String(host[host.index(after: host.startIndex)..<close])
    } else if let colon = host.lastIndex(of: ":") {
      guard let p = Int32(host[host.index(after: colon)...]), (1...65535).contains(p) else {
        throw FleetOptionError("\(text): the port must be 1…65535")
      }
      port = p
      host = String(host[..<colon])
    }
    guard !host.isEmpty, !host.contains("/") else { throw FleetOptionError("\(text): no host") }
    self.init(host: host, port: port, tls: tls)
  }

  public var description: String {
    (tls ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
  }
}

extension BrokerAddress {
  /// One broker or the nodes of a cluster: `URL[,URL…]`, all `mqtt://` or all `mqtts://`.
  public static func list(parsing text: String) throws(FleetOptionError) -> [BrokerAddress] {
    var brokers: [BrokerAddress] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      brokers.append(try BrokerAddress(parsing: String(part)))
    }
    guard let first = brokers.first, brokers.allSatisfy({ $0.tls == first.tls }) else {
      throw FleetOptionError("\(text): the brokers of a list are all mqtt:// or all mqtts://")
    }
    return brokers
  }

  /// The MQTT version named by `--mqtt-protocol` or `--protocol`: `5` (the default) or `3.1.1`
  /// (for RabbitMQ 3.10, which has no MQTT 5); whether it is 3.1.1.
  public static func version311(_ text: String?) throws(FleetOptionError) -> Bool {
    switch text {
    case nil, "5": return false
    case "3.1.1": return true
    case let other?: throw FleetOptionError("MQTT protocol \"\(other)\": 5 or 3.1.1")
    }
  }
}
