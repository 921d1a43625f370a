import Foundation
import Geodesy
import NMEA

/// What one run of an ``NMEAReader`` over some input gave.
public struct NMEARun {
  public var fixes: [Fix]
  public var statistics: NMEAStatistics
  public var rejections: [NMEARejection]
}

/// Collects rejections from the reader's `@Sendable` callback.
public final class NMEARejectionLog: @unchecked Sendable {
  private let lock = NSLock()
  private var items: [NMEARejection] = []

  public func append(_ r: NMEARejection) {
    lock.lock()
    items.append(r)
    lock.unlock()
  }

  public var all: [NMEARejection] {
    lock.lock()
    defer { lock.unlock() }
    return items
  }
}

public enum NMEATestInput {
  /// Reads `bytes` in one piece (`chunk` nil) or in chunks of `chunk` bytes, then finishes.
  public static func read(_ bytes: [UInt8], chunk: Int? = nil) -> NMEARun {
    var reader = NMEAReader()
    let log = NMEARejectionLog()
    reader.onReject = { log.append($0) }
    var fixes: [Fix] = []
    if let chunk {
      var i = 0
      while i < bytes.count {
        let end = min(bytes.count, i + chunk)
        fixes += reader.feed(Array(bytes[i..<end]))
        i = end
      }
    } else {
      fixes += reader.feed(bytes)
    }
    fixes += reader.finish()
    return NMEARun(fixes: fixes, statistics: reader.statistics, rejections: log.all)
  }

  public static func read(_ text: String, chunk: Int? = nil) -> NMEARun {
    read(Array(text.utf8), chunk: chunk)
  }

  /// Frames each body as a sentence with its checksum and CR LF.
  public static func sentences(_ bodies: String...) -> String {
    bodies.map(NMEASentence.frame).joined()
  }

  /// The directory of the NMEA fixtures, found from this file's path (no `URL`, no /work/shared).
  public static let fixtureDirectory = repositoryFile("Tests/Fixtures/nmea/")

  public static func fixture(_ name: String) -> [UInt8]? {
    FileManager.default.contents(atPath: fixtureDirectory + name).map { [UInt8]($0) }
  }

  /// Seconds since 1970 of a UTC date and time.
  public static func time(
    _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Double
  ) -> Double {
    Double(UTCTime.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60)
      + second
  }
}
