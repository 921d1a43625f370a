import Geodesy
import Guidance
import JSON

/// Where the uplink also publishes OwnTracks location messages (`--mqtt-owntracks USER[/DEVICE]`),
/// so that tools that read OwnTracks (OwnTracks Recorder, Home Assistant's OwnTracks
/// integration, Traccar's OwnTracks decoder) show the vehicle without code of ours.
///
/// The topic is `owntracks/USER/DEVICE`; the device is the vehicle id unless given, so that an
/// ACL can let each vehicle write only device levels named after itself (docs/fleet.md).
/// Messages follow OwnTracks' JSON format (`_type: location`,
/// https://owntracks.org/booklet/tech/json/).
public struct OwnTracksIdentity: Sendable, Equatable {
  public var user: String
  public var device: String

  public init(user: String, device: String) {
    self.user = user
    self.device = device
  }

  public var topic: String { "owntracks/" + user + "/" + device }

  /// The tracker id OwnTracks shows on its map: the device's last two characters.
  public var trackerID: String { String(device.suffix(2)) }

  /// The location message for a progress made from a fix, or `nil` for one estimated without
  /// fixes (dead reckoning): OwnTracks has no way to say a position is estimated, so only
  /// positions from the receiver are published.
  ///
  /// `tst` is the fix's time in whole seconds, `vel` km/h and `cog` degrees (integers, as the
  /// OwnTracks apps send them); `t: "t"` says the message was sent on a timer (the uplink's
  /// progress interval), not by a person or a region.
  public func location(_ progress: Progress, time: Double, estimated: Bool) -> [UInt8]? {
    guard !estimated, time.isFinite, time >= 0 else { return nil }
    var o = JSONObject()
    o.append("_type", .string("location"))
    o.append("tid", .string(trackerID))
    // Seven decimals (about a centimetre), as in PROGRESS.
    o.append("lat", .number((progress.raw.latitude * 1e7).rounded() / 1e7))
    o.append("lon", .number((progress.raw.longitude * 1e7).rounded() / 1e7))
    o.append("tst", .number(time.rounded(.down)))
    if let speed = progress.speed, speed.isFinite, speed >= 0 {
      o.append("vel", .number((speed * 3.6).rounded()))
    }
    if let course = progress.course, course.isFinite {
      let degrees = course.truncatingRemainder(dividingBy: 360)
      let whole = (degrees < 0 ? degrees + 360 : degrees).rounded()
      o.append("cog", .number(whole == 360 ? 0 : whole))
    }
    o.append("t", .string("t"))
    return Array(JSONWriter.string(.object(o)).utf8)
  }
}
