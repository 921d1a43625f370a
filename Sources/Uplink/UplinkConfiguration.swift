import CommandLineSupport
import FleetClient
import Glibc
import POSIX
import Wire

/// Everything `stepwised --mqtt …` configures.
public struct UplinkConfiguration: Sendable {
  public var broker: BrokerAddress
  /// The other nodes of a cluster, tried in turn when ``broker`` (or the last tried) fails.
  public var alternates: [BrokerAddress] = []
  /// MQTT 3.1.1 instead of 5 (`--mqtt-protocol 3.1.1`, for RabbitMQ 3.10).
  public var version311 = false
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
  public var release = ProtocolVersion.release

  public init(broker: BrokerAddress, vehicle: String) {
    self.broker = broker
    self.vehicle = vehicle
    prefix = "stepwise/" + vehicle
  }

  public static let usage = """
    Fleet uplink (docs/fleet.md): --mqtt mqtt://HOST[:PORT] | mqtts://HOST[:PORT] [,URL…]
      [--vehicle ID] [--mqtt-prefix PREFIX] [--mqtt-credentials FILE]
      [--mqtt-cafile FILE] [--mqtt-cert FILE --mqtt-key FILE]
      [--mqtt-progress-interval SECONDS] [--mqtt-journal-size BYTES] [--mqtt-commands]
      [--mqtt-keepalive SECONDS] [--mqtt-protocol 5|3.1.1]
    publishes online, state, events and progress under PREFIX (default stepwise/ID; ID
    defaults to the host name) through a journal in the state directory (default 16 MiB);
    --mqtt-commands takes the socket's commands on PREFIX/command, replies on PREFIX/reply;
    several URLs (a cluster's nodes): each reconnect goes to the next.
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
    let version = try args.option("--mqtt-protocol")
    guard let url else {
      let given = [vehicle, prefix, credentials, caFile, certificate, key].contains { $0 != nil }
      if given || interval != nil || size != nil || keepalive != nil || commands || version != nil {
        throw UsageError("the --mqtt-… and --vehicle options need --mqtt URL")
      }
      return nil
    }
    let brokers = try BrokerAddress.list(parsing: url)
    let broker = brokers[0]
    var c = UplinkConfiguration(
      broker: broker, vehicle: try VehicleID.validate(vehicle ?? VehicleID.hostName()))
    c.alternates = Array(brokers.dropFirst())
    c.version311 = try BrokerAddress.version311(version)
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
