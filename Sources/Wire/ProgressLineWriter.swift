import Geodesy
import Guidance
import Routes

/// Writes a `PROGRESS` line through a pointer into a stack buffer, then appends it at once.
///
/// `stepwised --json` writes one `PROGRESS` line per fix, and `EventLineWriter`'s general code
/// appended each piece to the array on its own (a uniqueness and capacity check, a copy call)
/// and worked out each number's decimals in a loop: about a microsecond a line, the largest
/// part of the writer thread (perf, `docs/notebook/profiling.md`). The bytes are the same:
/// `EventLineWriterTests` compares both with `JSONWriter`'s.
enum ProgressLineWriter {
  /// Bytes the buffer holds: a `PROGRESS` line is at most about 700 (every key, a 24-byte
  /// number for each of the 14 numbers, two times and a 20-digit `seq`).
  static let capacity = 1024

  /// Appends the JSON object of a `PROGRESS` event at `time` (no newline), or returns `false`
  /// (appending nothing) when a time falls outside the years 0 to 9999: the general code writes
  /// those, and the events that carry `ahead`.
  static func write(
    _ p: Progress, time: Double, seq: UInt64?, estimated: Bool = false, into out: inout [UInt8]
  ) -> Bool {
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      guard let base = buffer.baseAddress else { return false }
      var w = ByteCursor(base: base)
      w.append(#"{"class":"PROGRESS","time":"#)
      guard w.time(time) else { return false }
      if let seq {
        w.append(#","seq":"#)
        w.decimal(seq)
      }
      w.append(#","step":"#)
      w.integer(p.step)
      w.append(#","distanceToManeuver":"#)
      w.fixed(p.distanceToManeuver, .tenths)
      w.append(#","distanceRemaining":"#)
      w.fixed(p.distanceRemaining, .tenths)
      w.append(#","timeRemaining":"#)
      w.fixed(p.timeRemaining, .tenths)
      w.append(#","eta":"#)
      guard w.time(roundedHalfAway(time + p.timeRemaining)) else { return false }
      w.append(p.onRoute ? #","onRoute":true"# : #","onRoute":false"#)
      w.append(#","latitude":"#)
      w.fixed(p.raw.latitude, .tenMillionths)
      w.append(#","longitude":"#)
      w.fixed(p.raw.longitude, .tenMillionths)
      w.append(#","matchedLatitude":"#)
      w.fixed(p.matched.latitude, .tenMillionths)
      w.append(#","matchedLongitude":"#)
      w.fixed(p.matched.longitude, .tenMillionths)
      w.append(#","distanceAlong":"#)
      w.fixed(p.distanceAlong, .tenths)
      w.append(#","distanceFromRoute":"#)
      w.fixed(p.distanceFromRoute, .tenths)
      if let v = p.speed {
        w.append(#","speed":"#)
        w.fixed(v, .hundredths)
      }
      if let c = p.course {
        w.append(#","course":"#)
        w.fixed(c, .tenths)
      }
      if p.discardedFixes > 0 {
        w.append(#","discardedFixes":"#)
        w.integer(p.discardedFixes)
      }
      switch p.speedLimit {
      case .limit(let value, let unit)?:
        w.append(#","speedLimit":"#)
        w.fixed(value, .tenths)
        switch unit {
        case .kilometresPerHour: w.append(#","speedLimitUnit":"km/h""#)
        case .milesPerHour: w.append(#","speedLimitUnit":"mph""#)
        }
      case .none?: w.append(#","speedLimit":"none""#)
      case .unknown?, nil: break
      }
      if estimated { w.append(#","estimated":true"#) }
      w.byte(0x7D)  // }
      precondition(w.count <= capacity)
      out.append(contentsOf: UnsafeBufferPointer(start: base, count: w.count))
      return true
    }
  }
}

/// Writes bytes forward from a pointer; the caller sizes the buffer.
private struct ByteCursor {
  let base: UnsafeMutablePointer<UInt8>
  var count = 0
  /// The day of the last time written, counted from 1970-01-01 (`Int64.min` before the
  /// first), and its civil date.
  private var dayNumber = Int64.min
  private var date = (year: 0, month: 0, day: 0)

  init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

  @inline(__always)
  mutating func byte(_ b: UInt8) {
    base[count] = b
    count += 1
  }

  @inline(__always)
  mutating func append(_ s: StaticString) {
    (base + count).update(from: s.utf8Start, count: s.utf8CodeUnitCount)
    count += s.utf8CodeUnitCount
  }

  mutating func append(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { b in
      if let p = b.baseAddress { (base + count).update(from: p, count: b.count) }
    }
    count += bytes.count
  }

  /// `value` in decimal digits.
  mutating func decimal(_ value: UInt64) {
    digitsOf(value, width: Self.digitCount(value))
  }

  /// How many decimal digits `value` has: a few comparisons for the values of a line (a
  /// coordinate's degrees, metres, seconds, a `seq`), a loop only past a million.
  @inline(__always)
  private static func digitCount(_ value: UInt64) -> Int {
    if value < 100 { return value < 10 ? 1 : 2 }
    if value < 10_000 { return value < 1000 ? 3 : 4 }
    if value < 1_000_000 { return value < 100_000 ? 5 : 6 }
    var digits = 7
    var bound: UInt64 = 10_000_000
    while digits < 20, value >= bound {
      digits += 1
      if digits < 20 { bound &*= 10 }
    }
    return digits
  }

  /// Two digits of `value` (below 100).
  @inline(__always)
  private mutating func pair(_ value: Int) {
    let pairs = digitPairs.utf8Start
    base[count] = pairs[2 &* value]
    base[count + 1] = pairs[2 &* value &+ 1]
    count += 2
  }

  /// The `width` lowest decimal digits of `value`, leading zeros included, two at a time.
  @inline(__always)
  private mutating func digitsOf(_ value: UInt64, width: Int) {
    let pairs = digitPairs.utf8Start
    var v = value
    var i = count + width
    while i - count >= 2 {
      let q = v / 100
      let r = Int(truncatingIfNeeded: v &- q &* 100) &* 2
      i -= 2
      base[i] = pairs[r]
      base[i + 1] = pairs[r + 1]
      v = q
    }
    if i > count { base[count] = UInt8(truncatingIfNeeded: 0x30 &+ v % 10) }
    count += width
  }

  /// An integer member's value, as `EventLineWriter.number(Double(value))` writes it.
  mutating func integer(_ value: Int) {
    let d = Double(value)
    if d.magnitude < 1e15 {
      if value < 0 { byte(0x2D) }
      decimal(UInt64(value.magnitude))
    } else {
      general(d)
    }
  }

  /// A rounding step of `EventLineWriter`'s numbers.
  enum Step {
    case tenths, hundredths, tenMillionths

    @inline(__always)
    var decimals: Int {
      switch self {
      case .tenths: 1
      case .hundredths: 2
      case .tenMillionths: 7
      }
    }

    /// 10^decimals, as a `Double` (the `scale` of `EventLineWriter`) and as an integer.
    @inline(__always)
    var scale: (Double, UInt64) {
      switch self {
      case .tenths: (10, 10)
      case .hundredths: (100, 100)
      case .tenMillionths: (1e7, 10_000_000)
      }
    }
  }

  /// `value` rounded to `step`, as `EventLineWriter.number(_:scale:into:)` writes it.
  ///
  /// Inlined at each member, so the step is a constant and the divisions become multiplies.
  @inline(__always)
  mutating func fixed(_ value: Double, _ step: Step) {
    let (scale, unit) = step.scale
    let k = roundedHalfAway(value * scale)
    let rounded = k / scale
    guard rounded.isFinite, abs(k) < 1e15 else { return general(rounded) }
    let m = UInt64(abs(k))
    let fraction = m % unit
    if fraction == 0 {
      // Integral (a distance off the route of 0, a whole metre): as an integer, which is how
      // `EventLineWriter.number(_:into:)` writes it (a zero of either sign as `0`). Below
      // 10^15 steps, `k / scale` is integral exactly when `k` is a whole number of units.
      if k < 0 { byte(0x2D) }
      decimal(m / unit)
      return
    }
    guard abs(rounded) >= 1e-4 else { return general(rounded) }
    if k < 0 { byte(0x2D) }
    decimal(m / unit)
    byte(0x2E)  // .
    // Every decimal, then the trailing zeros taken back: byte tests, not a division each.
    // The fraction is not 0, so a digit other than 0 stops the loop before the point.
    digitsOf(fraction, width: step.decimals)
    while base[count &- 1] == 0x30 { count &-= 1 }
  }

  /// `rounded` as `EventLineWriter.number(_:into:)` writes it, through an array: the rare
  /// numbers the fast forms above leave out (tiny, huge, not finite).
  private mutating func general(_ rounded: Double) {
    var bytes: [UInt8] = []
    EventLineWriter.number(rounded, into: &bytes)
    append(bytes)
  }

  /// `"YYYY-MM-DDTHH:MM:SS.mmmZ"` with its quotes, as `EventLineWriter.time(_:into:)`; `false`
  /// (and nothing written) outside the years 0 to 9999.
  ///
  /// A line's two times (the fix's and the ETA) mostly fall on one day, whose date is then
  /// worked out once (`dayNumber`, `date`).
  mutating func time(_ seconds: Double) -> Bool {
    let scaled = roundedHalfAway(seconds * 1000)
    guard scaled.isFinite, abs(scaled) < 2.5e14 else { return false }
    let milliseconds = Int64(scaled)
    var days = milliseconds / 86_400_000
    var ms = Int(milliseconds % 86_400_000)
    if ms < 0 {
      ms += 86_400_000
      days -= 1
    }
    if days != dayNumber {
      date = UTCTime.civil(days: Int(days))
      dayNumber = days
    }
    let (y, mo, d) = date
    guard (0...9999).contains(y) else { return false }
    byte(0x22)  // "
    pair(y / 100)
    pair(y % 100)
    byte(0x2D)  // -
    pair(mo)
    byte(0x2D)
    pair(d)
    byte(0x54)  // T
    pair(ms / 3_600_000)
    byte(0x3A)  // :
    pair(ms / 60_000 % 60)
    byte(0x3A)
    pair(ms / 1000 % 60)
    byte(0x2E)  // .
    let fraction = ms % 1000
    byte(UInt8(truncatingIfNeeded: 0x30 &+ fraction / 100))
    pair(fraction % 100)
    byte(0x5A)  // Z
    byte(0x22)
    return true
  }
}

/// "00", "01", … "99": two digits per division.
private let digitPairs: StaticString = """
  00010203040506070809101112131415161718192021222324252627282930313233343536373839\
  40414243444546474849505152535455565758596061626364656667686970717273747576777879\
  8081828384858687888990919293949596979899
  """

/// `x.rounded()` (to nearest, halves away from zero) without a call into libm, which baseline
/// x86-64 makes for it; a zero may come out with the other sign, which writes the same.
@inline(__always)
private func roundedHalfAway(_ x: Double) -> Double {
  // Below 2^52 the truncation and the difference are exact; above it `x` is integral already.
  guard abs(x) < 0x1p52 else { return x.rounded() }
  let t = Double(Int64(x))
  let d = x - t
  if d >= 0.5 { return t + 1 }
  if d <= -0.5 { return t - 1 }
  return t
}
