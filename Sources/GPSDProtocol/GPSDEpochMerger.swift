public import Geodesy

/// Turns gpsd's reports into one ``Fix`` per receiver epoch.
///
/// gpsd dribbles: one epoch can give several `TPV`s (`mode` 2, then 3 with the altitude; the
/// first may lack a position), a `GST` after them, and after a restart or at the end of a
/// replay, reports with earlier times again. The merger keeps one open epoch, keyed by time:
/// reports with the same time are merged (the newest value of each field wins), a later time
/// closes the open epoch, and a time that is not later than the last closed epoch is dropped.
///
/// Pure and deterministic: the caller decides when an epoch has settled (``flush()``), from a
/// clock in a live connection or at the end of a capture.
public struct GPSDEpochMerger: Sendable {
  /// gpsd's error estimates are "95 %" figures; ``Fix/horizontalAccuracy`` is about 68 %.
  ///
  /// For a circular two-dimensional normal error the radii are 2.448 σ and 1.510 σ: divide by
  /// 1.62.
  public static let eph95To68 = 1.62

  private struct Epoch: Sendable {
    var time: Double
    var tpv: GPSDPositionReport
    var gst: GPSDNoiseReport?
    var sky: GPSDSkyReport?
  }

  private var open: Epoch?
  private var lastClosed: Double?

  /// Reports dropped because their time went backwards or repeated a closed epoch.
  public private(set) var droppedBackwards = 0
  /// `TPV`s merged into an epoch that already had one.
  public private(set) var merged = 0

  public init() {}

  /// Whether an epoch is open (waiting for more reports or a flush).
  public var hasOpenEpoch: Bool { open != nil }

  /// The time of the last epoch handed out, seconds since 1970.
  public var lastTime: Double? { lastClosed }

  /// Takes one report; returns the epoch it closed, if any.
  ///
  /// `fallbackTime` is the time to give a `TPV` that has none (gpsd sends no-fix reports
  /// without a time), or `nil` to ignore such reports.
  public mutating func add(_ report: GPSDReport, fallbackTime: Double? = nil) -> Fix? {
    switch report {
    case .tpv(var tpv):
      if tpv.time == nil {
        guard tpv.mode < 2, let t = fallbackTime else { return nil }
        tpv.time = t
      }
      guard let t = tpv.time else { return nil }
      if let last = lastClosed, t <= last {
        droppedBackwards += 1
        return nil
      }
      if var e = open {
        if t == e.time {
          e.tpv = Self.merge(e.tpv, tpv)
          open = e
          merged += 1
          return nil
        }
        if t < e.time {
          droppedBackwards += 1
          return nil
        }
        let closed = close()
        open = Epoch(time: t, tpv: tpv, gst: nil, sky: nil)
        return closed
      }
      open = Epoch(time: t, tpv: tpv, gst: nil, sky: nil)
      return nil
    case .gst(let gst):
      if let t = gst.time, open?.time == t { open?.gst = gst }
      return nil
    case .sky(let sky):
      if open != nil && (sky.time == nil || sky.time == open?.time) { open?.sky = sky }
      return nil
    default:
      return nil
    }
  }

  /// Closes the open epoch, if any, and returns its fix.
  public mutating func flush() -> Fix? { close() }

  /// Forgets the open epoch without handing it out (a connection was lost mid-epoch).
  ///
  /// The last closed time is kept, so a replayed epoch is still dropped.
  public mutating func discardOpenEpoch() { open = nil }

  private mutating func close() -> Fix? {
    guard let e = open else { return nil }
    open = nil
    lastClosed = e.time
    return Self.fix(e.tpv, time: e.time, noise: e.gst, sky: e.sky)
  }

  private static func merge(_ old: GPSDPositionReport, _ new: GPSDPositionReport)
    -> GPSDPositionReport
  {
    var m = new
    m.device = new.device ?? old.device
    m.status = new.status ?? old.status
    m.latitude = new.latitude ?? old.latitude
    m.longitude = new.longitude ?? old.longitude
    m.altitudeMSL = new.altitudeMSL ?? old.altitudeMSL
    m.track = new.track ?? old.track
    m.speed = new.speed ?? old.speed
    m.eph = new.eph ?? old.eph
    m.epx = new.epx ?? old.epx
    m.epy = new.epy ?? old.epy
    return m
  }

  /// The fix of one `TPV` (with the epoch's `GST` and `SKY`, when they came).
  ///
  /// `mode` below 2 is no fix, whatever else the report says; so is a report without a valid
  /// position. The accuracy is the `GST` 1-sigma radial error when there is one (as for NMEA),
  /// else `eph` converted from 95 % to 68 %.
  public static func fix(
    _ tpv: GPSDPositionReport, time: Double, noise: GPSDNoiseReport? = nil,
    sky: GPSDSkyReport? = nil
  ) -> Fix {
    guard tpv.mode >= 2, let lat = tpv.latitude, let lon = tpv.longitude,
      (-90...90).contains(lat), (-180...180).contains(lon)
    else { return .noFix(time: time) }
    var accuracy: Double?
    if let a = noise?.latitudeError, let b = noise?.longitudeError, a >= 0, b >= 0 {
      accuracy = (a * a + b * b).squareRoot()
    } else if let eph = tpv.eph, eph >= 0 {
      accuracy = eph / eph95To68
    } else if let x = tpv.epx, let y = tpv.epy, x >= 0, y >= 0 {
      // Per-axis 95 % (1.96 σ) to a radial 1-sigma figure.
      accuracy = ((x * x + y * y).squareRoot()) / 1.96
    }
    return Fix(
      time: time, coordinate: Coordinate(latitude: lat, longitude: lon),
      speed: tpv.speed.flatMap { $0 >= 0 ? $0 : nil }, course: tpv.track,
      horizontalAccuracy: accuracy,
      hdop: sky?.hdop, altitude: tpv.altitudeMSL, satellites: sky?.satellitesUsed,
      quality: quality(status: tpv.status))
  }

  /// The ``FixQuality`` of a gpsd `status`.
  public static func quality(status: Int?) -> FixQuality {
    switch status {
    case 2: .dgps
    case 3, 4: .rtk
    case 5, 6: .deadReckoning
    case 8: .simulated
    default: .gps
    }
  }
}
