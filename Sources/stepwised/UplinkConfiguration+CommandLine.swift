import CommandLineSupport
import FleetClient
public import Uplink

/// The fleet uplink's options on `stepwised`'s command line.
extension UplinkConfiguration {
  /// The lines `stepwised --help` shows for the uplink.
  public static let usage = """
    Fleet uplink (docs/fleet.md): --mqtt mqtt://HOST[:PORT] | mqtts://HOST[:PORT] [,URL…]
      [--vehicle ID] [--mqtt-prefix PREFIX] [--mqtt-credentials FILE]
      [--mqtt-cafile FILE] [--mqtt-cert FILE --mqtt-key FILE]
      [--mqtt-progress-interval SECONDS] [--mqtt-journal-size BYTES] [--mqtt-commands]
      [--mqtt-keepalive SECONDS] [--mqtt-protocol 5|3.1.1] [--mqtt-owntracks USER[/DEVICE]]
    publishes online, state, events and progress under PREFIX (default stepwise/ID; ID
    defaults to the host name) through a journal in the state directory (default 16 MiB);
    --mqtt-commands takes the socket's commands on PREFIX/command, replies on PREFIX/reply;
    several URLs (a cluster's nodes): each reconnect goes to the next;
    --mqtt-owntracks also publishes OwnTracks locations on owntracks/USER/DEVICE (DEVICE
    defaults to ID), retained, at the progress interval.
    """

  /// Takes the uplink's options out of `args`; `nil` without `--mqtt`.
  ///
  /// A broker, vehicle id or credentials file that cannot be used is a ``UsageError``; a
  /// credentials file that cannot be read is not (exit status 1, as any failure to start).
  public static func parse(_ args: inout Arguments) throws -> UplinkConfiguration? {
    do {
      return try options(&args)
    } catch let e as FleetOptionError {
      throw UsageError(e.message)
    }
  }

  private static func options(_ args: inout Arguments) throws -> UplinkConfiguration? {
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
    let ownTracks = try args.option("--mqtt-owntracks")
    guard let url else {
      let given = [vehicle, prefix, credentials, caFile, certificate, key, ownTracks].contains {
        $0 != nil
      }
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
    if let ownTracks { c.ownTracks = try Self.ownTracks(ownTracks, vehicle: c.vehicle) }
    return c
  }

  /// `USER` or `USER/DEVICE`, each a topic level spelt as a vehicle id.
  static func ownTracks(_ text: String, vehicle: String) throws -> OwnTracksIdentity {
    let levels = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard levels.count <= 2 else {
      throw UsageError("--mqtt-owntracks \"\(text)\": USER or USER/DEVICE")
    }
    do {
      return OwnTracksIdentity(
        user: try VehicleID.validate(levels[0]),
        device: try VehicleID.validate(levels.count == 2 ? levels[1] : vehicle))
    } catch {
      throw UsageError("--mqtt-owntracks \"\(text)\": \(error.message)")
    }
  }
}
