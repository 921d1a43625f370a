import CommandLineSupport
import Daemon
import Glibc
import POSIX
import Subscribers

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

  public init(parsing text: String) throws(UsageError) {
    let tls: Bool
    let rest: Substring
    if text.hasPrefix("mqtt://") {
      tls = false
      rest = text.dropFirst(7)
    } else if text.hasPrefix("mqtts://") {
      tls = true
      rest = text.dropFirst(8)
    } else {
      throw UsageError("\(text): a broker is mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    }
    var host = String(rest.hasSuffix("/") ? rest.dropLast() : rest)
    var port: Int32 = tls ? 8883 : 1883
    if host.hasPrefix("[") {
      // [IPv6]:port
      guard let close = host.firstIndex(of: "]") else {
        throw UsageError("\(text): an unclosed [ in the host")
      }
      let after = host[host.index(after: close)...]
      if after.hasPrefix(":") {
        guard let p = Int32(after.dropFirst()), (1...65535).contains(p) else {
          throw UsageError("\(text): the port must be 1…65535")
        }
        port = p
      }
      host = String(host[host.index(after: host.startIndex)..<close])
    } else if let colon = host.lastIndex(of: ":") {
      guard let p = Int32(host[host.index(after: colon)...]), (1...65535).contains(p) else {
        throw UsageError("\(text): the port must be 1…65535")
      }
      port = p
      host = String(host[..<colon])
    }
    guard !host.isEmpty, !host.contains("/") else { throw UsageError("\(text): no host") }
    self.init(host: host, port: port, tls: tls)
  }

  public var description: String {
    (tls ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
  }
}

/// Vehicle ids: letters, digits, `-` and `_` (never `/`, `+` or `#`, which would reach into
/// another vehicle's topics or the broker's wildcards), 1 to 64 characters.
public enum VehicleID {
  public static func validate(_ id: String) throws(UsageError) -> String {
    guard (1...64).contains(id.utf8.count),
      id.utf8.allSatisfy({ c in
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
          || c == 0x2D || c == 0x5F
      })
    else {
      throw UsageError(
        "vehicle id \"\(id)\": use 1 to 64 letters, digits, - and _ (no /, + or #)")
    }
    return id
  }

  /// The host name, as the default vehicle id (its first label, validated).
  public static func hostName() throws(UsageError) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else {
      throw UsageError("no host name; give --vehicle ID")
    }
    let name = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let label = name.split(separator: ".").first.map(String.init) ?? name
    return try validate(label)
  }
}

/// Credentials for the broker from a file (never the command line, where `ps` shows them):
/// the first line is the user name, the second the password.
public struct BrokerCredentials: Sendable {
  public var username: String
  public var password: String?

  public static func read(_ path: String) throws -> BrokerCredentials {
    let bytes = try readWholeFile(path, limit: 64 << 10)
    let lines = String(decoding: bytes, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false
    ).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    guard let user = lines.first, !user.isEmpty else {
      throw UsageError("\(path): the first line must be the user name")
    }
    let password = lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil
    return BrokerCredentials(username: user, password: password)
  }
}

/// Everything `stepwised --mqtt …` configures.
public struct UplinkConfiguration: Sendable {
  public var broker: BrokerAddress
  public var vehicle: String
  /// Topic prefix, `stepwise/VEHICLE` by default.
  public var prefix: String
  public var credentials: BrokerCredentials?
  public var caFile: String?
  public var certificate: String?
  public var key: String?
  /// Seconds of fix time between two `progress` messages.
  public var progressInterval = 5.0
  /// The journal's bound, in bytes.
  public var journalSize = 16 << 20
  /// Whether `command` is subscribed.
  public var commands = false
  /// Seconds between PINGs on a quiet link; the broker says offline after 1.5 times this.
  public var keepalive: Int32 = 30
  /// The release named in `online`.
  public var release = SubscriberServer.release

  public init(broker: BrokerAddress, vehicle: String) {
    self.broker = broker
    self.vehicle = vehicle
    prefix = "stepwise/" + vehicle
  }

  public static let usage = """
    Fleet uplink (docs/fleet.md): --mqtt mqtt://HOST[:PORT] | mqtts://HOST[:PORT]
      [--vehicle ID] [--mqtt-prefix PREFIX] [--mqtt-credentials FILE]
      [--mqtt-cafile FILE] [--mqtt-cert FILE --mqtt-key FILE]
      [--mqtt-progress-interval SECONDS] [--mqtt-journal-size BYTES] [--mqtt-commands]
      [--mqtt-keepalive SECONDS]
    publishes online, state, events and progress under PREFIX (default stepwise/ID; ID
    defaults to the host name) through a journal in the state directory (default 16 MiB);
    --mqtt-commands takes the socket's commands on PREFIX/command, replies on PREFIX/reply.
    """

  /// Takes the uplink's options out of `args`; `nil` without `--mqtt`.
  public static func parse(_ args: inout Arguments) throws -> UplinkConfiguration? {
    let url = try args.option("--mqtt")
    let vehicle = try args.option("--vehicle")
    let prefix = try args.option("--mqtt-prefix")
    let credentials = try args.option("--mqtt-credentials")
    let caFile = try args.option("--mqtt-cafile")
    let certificate = try args.option("--mqtt-cert")
    let key = try args.option("--mqtt-key")
    let interval = try args.number("--mqtt-progress-interval", in: 0.1...3600)
    let size = try args.integer("--mqtt-journal-size", minimum: 64 << 10)
    let commands = args.flag("--mqtt-commands")
    let keepalive = try args.integer("--mqtt-keepalive", minimum: 5)
    guard let url else {
      let given = [vehicle, prefix, credentials, caFile, certificate, key].contains { $0 != nil }
      if given || interval != nil || size != nil || keepalive != nil || commands {
        throw UsageError("the --mqtt-… and --vehicle options need --mqtt URL")
      }
      return nil
    }
    let broker = try BrokerAddress(parsing: url)
    var c = UplinkConfiguration(
      broker: broker, vehicle: try VehicleID.validate(vehicle ?? VehicleID.hostName()))
    if let prefix {
      guard !prefix.isEmpty, !prefix.contains("+"), !prefix.contains("#"), !prefix.hasSuffix("/")
      else {
        throw UsageError("--mqtt-prefix \"\(prefix)\": no +, # or trailing /")
      }
      c.prefix = prefix
    }
    if !broker.tls && (caFile != nil || certificate != nil || key != nil) {
      throw UsageError("--mqtt-cafile, --mqtt-cert and --mqtt-key need an mqtts:// broker")
    }
    if (certificate == nil) != (key == nil) {
      throw UsageError("--mqtt-cert and --mqtt-key go together")
    }
    c.caFile = caFile
    c.certificate = certificate
    c.key = key
    if broker.tls && caFile == nil {
      c.caFile = "/etc/ssl/certs/ca-certificates.crt"
    }
    if let credentials { c.credentials = try BrokerCredentials.read(credentials) }
    if let interval { c.progressInterval = interval }
    if let size { c.journalSize = size }
    c.commands = commands
    if let keepalive { c.keepalive = Int32(clamping: min(keepalive, 65535)) }
    return c
  }
}
