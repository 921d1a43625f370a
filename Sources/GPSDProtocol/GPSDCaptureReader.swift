public import Geodesy

/// Reads what `gpspipe -w` printed (gpsd's JSON reports, one per line) and turns it into fixes.
///
/// Lines may carry gpspipe's receive-time prefix (`-u`: `1795955227.745879: {…}`, `-uu`:
/// `2026-11-29 12:27:07 1795955227.745879: {…}`); everything before the first `{` is the
/// prefix. Empty lines and `#` comment lines (a capture's `# Name:` header) are skipped, and so
/// are lines that are not gpsd reports. Epochs are merged by ``GPSDEpochMerger``.
///
/// The receive stamps give no-fix reports without a time a place on the fix clock: the last
/// epoch's time plus the receive time elapsed since it, so a replay reports GPS loss on time.
public struct GPSDCaptureReader {
  /// What the reader saw.
  public struct Statistics: Sendable, Equatable, CustomStringConvertible {
    public var lines = 0
    public var reports = 0
    public var positionReports = 0
    public var rejectedLines = 0
    public var droppedBackwards = 0
    public var mergedReports = 0

    public var description: String {
      "\(lines) lines, \(reports) reports (\(positionReports) TPV, \(mergedReports) merged, "
        + "\(droppedBackwards) dropped as going backwards), \(rejectedLines) rejected"
    }
  }

  private var merger = GPSDEpochMerger()
  private var line: [UInt8] = []
  private var overlong = false
  private var lineNumber = 0
  private var anchor: (fixTime: Double, stamp: Double)?
  private var stats = Statistics()

  /// Called with a description of each line that is not a gpsd report.
  public var onReject: ((String) -> Void)?

  public init() {}

  /// Counts so far.
  public var statistics: Statistics {
    var s = stats
    s.droppedBackwards = merger.droppedBackwards
    s.mergedReports = merger.merged
    return s
  }

  /// Takes the next bytes of the capture; returns the epochs they completed.
  public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> [Fix] {
    var out: [Fix] = []
    for b in bytes {
      if b == 0x0A {
        takeLine(into: &out)
      } else if line.count < GPSDReport.maximumLineLength + 64 {
        line.append(b)
      } else {
        overlong = true
      }
    }
    return out
  }

  /// Takes the next bytes of the capture; returns the epochs they completed.
  public mutating func feed(_ bytes: [UInt8]) -> [Fix] {
    bytes.withUnsafeBufferPointer { feed($0) }
  }

  /// Ends the capture: returns the last epochs.
  public mutating func finish() -> [Fix] {
    var out: [Fix] = []
    if !line.isEmpty || overlong { takeLine(into: &out) }
    if let f = merger.flush() { out.append(f) }
    return out
  }

  private mutating func takeLine(into out: inout [Fix]) {
    defer {
      line.removeAll(keepingCapacity: true)
      overlong = false
    }
    lineNumber += 1
    if line.last == 0x0D { line.removeLast() }
    guard let first = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
    if line[first] == UInt8(ascii: "#") { return }
    stats.lines += 1
    if overlong {
      reject("longer than \(GPSDReport.maximumLineLength) bytes")
      return
    }
    guard let brace = line.firstIndex(of: UInt8(ascii: "{")) else {
      reject("no JSON object")
      return
    }
    let stamp = Self.stamp(line[first..<brace])
    let report: GPSDReport
    do {
      report = try GPSDReport.decode(line[brace...])
    } catch {
      reject(error.description)
      return
    }
    stats.reports += 1
    var fallback: Double?
    if case .tpv = report {
      stats.positionReports += 1
      if let s = stamp, let a = anchor, s >= a.stamp { fallback = a.fixTime + (s - a.stamp) }
    }
    if case .tpv(let tpv) = report, let t = tpv.time, let s = stamp,
      t > (anchor?.fixTime ?? -Double.infinity)
    {
      anchor = (t, s)
    }
    if let f = merger.add(report, fallbackTime: fallback) { out.append(f) }
  }

  private mutating func reject(_ why: String) {
    stats.rejectedLines += 1
    onReject?("gpsd capture line \(lineNumber): \(why)")
  }

  /// The receive time of a gpspipe prefix: its last field, a decimal number of seconds followed
  /// by a colon.
  static func stamp(_ prefix: ArraySlice<UInt8>) -> Double? {
    var end = prefix.endIndex
    while end > prefix.startIndex, prefix[end - 1] == 0x20 { end -= 1 }
    guard end > prefix.startIndex, prefix[end - 1] == UInt8(ascii: ":") else { return nil }
    end -= 1
    var start = end
    while start > prefix.startIndex, prefix[start - 1] != 0x20 { start -= 1 }
    guard start < end else { return nil }
    let text = String(decoding: prefix[start..<end], as: UTF8.self)
    guard let v = Double(text), v.isFinite, v > 0 else { return nil }
    return v
  }
}
