import Geodesy
import JSON

/// One report from gpsd, decoded from a line of its JSON protocol (`gpsd_json(5)`).
///
/// Only what a navigation client needs is kept. Absent values (gpsd omits them; libgps reports
/// them as NaN) are `nil`, never NaN.
public enum GPSDReport: Sendable, Equatable {
  /// Sent on connect.
  case version(GPSDVersion)
  /// The devices gpsd knows (sent on connect and after `?DEVICES`).
  case devices([GPSDDevice])
  /// The watch policy gpsd applies to this client; `device` when only one is watched.
  case watch(device: String?)
  /// A device appeared, changed or disappeared (`activated` false: gone).
  case device(GPSDDevice)
  /// Time-position-velocity.
  case tpv(GPSDPositionReport)
  /// Pseudorange noise: 1-sigma position errors.
  case gst(GPSDNoiseReport)
  /// Satellites.
  case sky(GPSDSkyReport)
  /// gpsd refused a request.
  case error(String)
  /// A class Stepwise does not use (`ATT`, `PPS`, `TOFF`, `AIS`, …), by name.
  case other(String)
}

/// gpsd's `VERSION` object.
public struct GPSDVersion: Sendable, Equatable {
  public var release: String
  public var protocolMajor: Int
  public var protocolMinor: Int

  public init(release: String, protocolMajor: Int, protocolMinor: Int) {
    self.release = release
    self.protocolMajor = protocolMajor
    self.protocolMinor = protocolMinor
  }
}

/// gpsd's `DEVICE` object (also the elements of `DEVICES`).
public struct GPSDDevice: Sendable, Equatable {
  /// The device path, such as `/dev/ttyACM0`.
  public var path: String?
  /// Whether the device is active: `activated` is a time while active and the number 0 once
  /// the device is gone; `nil` when the report does not say.
  public var activated: Bool?
  /// The driver gpsd chose, such as `NMEA0183`.
  public var driver: String?
  /// The receiver's cycle time in seconds, when known.
  public var cycle: Double?

  public init(path: String?, activated: Bool?, driver: String? = nil, cycle: Double? = nil) {
    self.path = path
    self.activated = activated
    self.driver = driver
    self.cycle = cycle
  }
}

/// gpsd's `TPV` object, as far as navigation uses it.
///
/// Error estimates are gpsd's "95 %" figures.
public struct GPSDPositionReport: Sendable, Equatable {
  public var device: String?
  /// 0 unknown, 1 no fix, 2 = 2D, 3 = 3D.
  public var mode: Int
  /// 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning, 6 GNSS + dead reckoning, 7 time only,
  /// 8 simulated, 9 P(Y); `nil` is an ordinary fix (gpsd's 0 "unknown" and 1 "GPS" become
  /// `nil` when the report is made, so every source says an ordinary fix the same way).
  public var status: Int?
  /// UTC, seconds since 1970-01-01.
  public var time: Double?
  /// Degrees.
  public var latitude: Double?
  /// Degrees.
  public var longitude: Double?
  /// Metres above mean sea level.
  public var altitudeMSL: Double?
  /// Degrees clockwise from true north.
  public var track: Double?
  /// Metres per second.
  public var speed: Double?
  /// Horizontal position error, metres, 95 %.
  public var eph: Double?
  /// Longitude error, metres, 95 %.
  public var epx: Double?
  /// Latitude error, metres, 95 %.
  public var epy: Double?

  /// Creates a report; every measurement is optional.
  public init(
    device: String? = nil, mode: Int, status: Int? = nil, time: Double? = nil,
    latitude: Double? = nil, longitude: Double? = nil, altitudeMSL: Double? = nil,
    track: Double? = nil, speed: Double? = nil, eph: Double? = nil, epx: Double? = nil,
    epy: Double? = nil
  ) {
    self.device = device
    self.mode = mode
    self.status = status.flatMap { $0 >= 2 ? $0 : nil }
    self.time = time
    self.latitude = latitude
    self.longitude = longitude
    self.altitudeMSL = altitudeMSL
    self.track = track
    self.speed = speed
    self.eph = eph
    self.epx = epx
    self.epy = epy
  }
}

/// gpsd's `GST` object: 1-sigma errors in metres.
public struct GPSDNoiseReport: Sendable, Equatable {
  public var device: String?
  public var time: Double?
  /// Standard deviation of the latitude error, metres.
  public var latitudeError: Double?
  /// Standard deviation of the longitude error, metres.
  public var longitudeError: Double?

  public init(device: String? = nil, time: Double?, latitudeError: Double?, longitudeError: Double?)
  {
    self.device = device
    self.time = time
    self.latitudeError = latitudeError
    self.longitudeError = longitudeError
  }
}

/// gpsd's `SKY` object, as far as navigation uses it.
public struct GPSDSkyReport: Sendable, Equatable {
  public var device: String?
  public var time: Double?
  public var hdop: Double?
  /// Satellites used in the solution.
  public var satellitesUsed: Int?

  public init(device: String? = nil, time: Double?, hdop: Double?, satellitesUsed: Int?) {
    self.device = device
    self.time = time
    self.hdop = hdop
    self.satellitesUsed = satellitesUsed
  }
}

/// Why a line is not a gpsd report.
public struct GPSDDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

extension GPSDReport {
  /// gpsd truncates reports at 10240 bytes including CR LF; longer lines are not reports.
  public static let maximumLineLength = 10240

  /// Decodes one line of gpsd's JSON protocol (without the line end).
  ///
  /// Unknown classes decode to ``other(_:)``; unknown members are ignored.
  public static func decode(_ line: some Collection<UInt8>) throws(GPSDDecodeError) -> GPSDReport {
    guard line.count <= maximumLineLength else {
      throw GPSDDecodeError("line longer than 10240 bytes")
    }
    let value: JSONValue
    do {
      value = try JSONParser.parse(line)
    } catch {
      throw GPSDDecodeError("not JSON: \(error)")
    }
    guard let object = value.objectValue else { throw GPSDDecodeError("not a JSON object") }
    guard let cls = object["class"]?.stringValue else { throw GPSDDecodeError("no class") }
    switch cls {
    case "TPV":
      return .tpv(position(object))
    case "GST":
      return .gst(
        GPSDNoiseReport(
          device: object["device"]?.stringValue, time: time(object["time"]),
          latitudeError: number(object["lat"]), longitudeError: number(object["lon"])))
    case "SKY":
      return .sky(
        GPSDSkyReport(
          device: object["device"]?.stringValue, time: time(object["time"]),
          hdop: number(object["hdop"]), satellitesUsed: integer(object["uSat"]) ?? usedCount(object)
        ))
    case "DEVICE":
      return .device(device(object))
    case "DEVICES":
      let list = object["devices"]?.arrayValue ?? []
      return .devices(list.compactMap { $0.objectValue.map(device) })
    case "WATCH":
      return .watch(device: object["device"]?.stringValue)
    case "VERSION":
      return .version(
        GPSDVersion(
          release: object["release"]?.stringValue ?? "",
          protocolMajor: integer(object["proto_major"]) ?? 0,
          protocolMinor: integer(object["proto_minor"]) ?? 0))
    case "ERROR":
      return .error(object["message"]?.stringValue ?? "")
    default:
      return .other(cls)
    }
  }

  private static func position(_ o: JSONObject) -> GPSDPositionReport {
    GPSDPositionReport(
      device: o["device"]?.stringValue, mode: integer(o["mode"]) ?? 0,
      status: integer(o["status"]), time: time(o["time"]), latitude: number(o["lat"]),
      longitude: number(o["lon"]), altitudeMSL: number(o["altMSL"]) ?? number(o["alt"]),
      track: number(o["track"]), speed: number(o["speed"]), eph: number(o["eph"]),
      epx: number(o["epx"]), epy: number(o["epy"]))
  }

  private static func device(_ o: JSONObject) -> GPSDDevice {
    let activated: Bool? =
      switch o["activated"] {
      case .string(let s): !s.isEmpty
      case .number(let n): n != 0
      default: nil
      }
    return GPSDDevice(
      path: o["path"]?.stringValue, activated: activated, driver: o["driver"]?.stringValue,
      cycle: number(o["cycle"]))
  }

  private static func usedCount(_ o: JSONObject) -> Int? {
    guard let sats = o["satellites"]?.arrayValue else { return nil }
    return sats.filter { $0["used"]?.boolValue == true }.count
  }

  /// A finite number, or `nil` (absent, NaN, or not a number).
  private static func number(_ v: JSONValue?) -> Double? {
    guard let d = v?.doubleValue, d.isFinite else { return nil }
    return d
  }

  private static func integer(_ v: JSONValue?) -> Int? {
    guard let d = number(v), d == d.rounded(), abs(d) < 1e15 else { return nil }
    return Int(d)
  }

  private static func time(_ v: JSONValue?) -> Double? {
    switch v {
    case .string(let s): UTCTime.parseISO8601(s)
    case .number(let d): d.isFinite && d > 0 ? d : nil  // gpsd before 3.20 sent seconds
    default: nil
    }
  }
}
