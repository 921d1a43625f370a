import FleetClient
import Glibc
import POSIX
import Wire

/// Everything `stepwised --mqtt …` configures (parsed by the executable).
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
  /// Also publishes OwnTracks location messages here, at the progress interval.
  public var ownTracks: OwnTracksIdentity?
  /// The release named in `online`.
  public var release = ProtocolVersion.release

  public init(broker: BrokerAddress, vehicle: String) {
    self.broker = broker
    self.vehicle = vehicle
    prefix = "stepwise/" + vehicle
  }
}
