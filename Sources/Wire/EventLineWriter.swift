import Geodesy
import Guidance
import JSON
import Routes

/// Writes the JSON line of an event straight into bytes, without building a ``JSONValue`` tree.
///
/// `stepwised --json` writes one `PROGRESS` line per fix, so this is on the daemon's hot path:
/// building the tree, then serialising it, cost about as much as guiding the fix (perf,
/// `docs/benchmarks.md`). The bytes are identical to `JSONWriter.string(.object(EventEncoder.object(e)))`
/// (`EventLineWriterTests` checks it over every event class and a sweep of numbers): members
/// in the same order, numbers rounded to the same step and printed in the same shortest form.
enum EventLineWriter {
  /// Appends the JSON object of `event` (no newline), with `seq` right after `time` when given.
  static func write(_ event: Event, seq: UInt64? = nil, into out: inout [UInt8]) {
    switch event {
    case .navigation(let e): write(e, seq: seq, into: &out)
    case .source(let s):
      head(.source, s.time, seq, into: &out)
      stringMember("status", s.status.rawValue, into: &out)
      stringMember("source", s.source, into: &out)
      if let r = s.reason { stringMember("reason", r, into: &out) }
      out.append(0x7D)  // }
    case .rerouting(let r):
      head(.reroute, r.time, seq, into: &out)
      stringMember("status", r.status.rawValue, into: &out)
      out.append(0x7D)
    case .cancelled(let time):
      // `time` (the last event's) when known, then `seq`, as subscribers get it.
      out.append(contentsOf: #"{"class":""#.utf8)
      out.append(contentsOf: EventClass.cancelled.rawValue.utf8)
      out.append(0x22)  // "
      if let time {
        out.append(contentsOf: #","time":"#.utf8)
        self.time(time, into: &out)
      }
      if let seq { seqMember(seq, into: &out) }
      out.append(0x7D)
    }
  }

  /// Appends the JSON object of a navigation event (no newline).
  static func write(_ event: NavigationEvent, seq: UInt64? = nil, into out: inout [UInt8]) {
    // The list of what lies ahead (rare, of any length) is written by the general code.
    if case .progress(let p, nil) = event.kind,
      ProgressLineWriter.write(
        p, time: event.time, seq: seq, estimated: event.estimated, into: &out)
    {
      return
    }
    switch event.kind {
    case .route(let r):
      head(.route, event.time, seq, into: &out)
      stringMember("name", r.name, into: &out)
      integerMember("routeIndex", r.routeIndex, into: &out)
      numberMember("distance", r.distance, scale: 10, into: &out)
      numberMember("expectedTravelTime", r.expectedTravelTime, scale: 10, into: &out)
      stringMember("transportType", r.transportType.rawValue, into: &out)
      boolMember("hasTolls", r.hasTolls, into: &out)
      boolMember("hasHighways", r.hasHighways, into: &out)
      integerMember("steps", r.steps, into: &out)
      stringMember("source", r.source, into: &out)
      stringMember("destination", r.destination, into: &out)
      stringMember("reason", r.reason.rawValue, into: &out)
      integerMember("revision", r.revision, into: &out)
    case .announce(let a):
      head(.announce, event.time, seq, into: &out)
      integerMember("step", a.step, into: &out)
      stringMember("kind", a.kind.rawValue, into: &out)
      stringMember("text", a.text, into: &out)
      if let d = a.distance { numberMember("distance", d, scale: 1, into: &out) }
      stringMember("id", a.id, into: &out)
      let then = a.thenSteps
      if !then.isEmpty {
        key("then", into: &out)
        out.append(contentsOf: JSONWriter.string(.array(then.map { .number(Double($0)) })).utf8)
      }
      if case .maneuver(_, _, _, let road?) = a.message, !road.isEmpty {
        writeRoad(road, step: a.step, into: &out)
      }
    case .step(let s):
      head(.step, event.time, seq, into: &out)
      integerMember("step", s, into: &out)
    case .progress(let p, let ahead):
      head(.progress, event.time, seq, into: &out)
      integerMember("step", p.step, into: &out)
      numberMember("distanceToManeuver", p.distanceToManeuver, scale: 10, into: &out)
      numberMember("distanceRemaining", p.distanceRemaining, scale: 10, into: &out)
      numberMember("timeRemaining", p.timeRemaining, scale: 10, into: &out)
      key("eta", into: &out)
      time((event.time + p.timeRemaining).rounded(), into: &out)
      out.append(contentsOf: #","onRoute":"#.utf8)
      out.append(contentsOf: p.onRoute ? "true".utf8 : "false".utf8)
      numberMember("latitude", p.raw.latitude, scale: 1e7, into: &out)
      numberMember("longitude", p.raw.longitude, scale: 1e7, into: &out)
      numberMember("matchedLatitude", p.matched.latitude, scale: 1e7, into: &out)
      numberMember("matchedLongitude", p.matched.longitude, scale: 1e7, into: &out)
      numberMember("distanceAlong", p.distanceAlong, scale: 10, into: &out)
      numberMember("distanceFromRoute", p.distanceFromRoute, scale: 10, into: &out)
      if let v = p.speed { numberMember("speed", v, scale: 100, into: &out) }
      if let c = p.course { numberMember("course", c, scale: 10, into: &out) }
      if p.discardedFixes > 0 { integerMember("discardedFixes", p.discardedFixes, into: &out) }
      switch p.speedLimit {
      case .limit(let value, let unit)?:
        numberMember("speedLimit", value, scale: 10, into: &out)
        stringMember("speedLimitUnit", unit.rawValue, into: &out)
      case .none?: stringMember("speedLimit", "none", into: &out)
      case .unknown?, nil: break
      }
      if let ahead {
        key("ahead", into: &out)
        out.append(contentsOf: JSONWriter.string(aheadValue(ahead)).utf8)
      }
    case .offRoute(let d, let reason):
      head(.offRoute, event.time, seq, into: &out)
      numberMember("distance", d, scale: 10, into: &out)
      if reason != .distance { stringMember("reason", reason.rawValue, into: &out) }
    case .onRoute:
      head(.onRoute, event.time, seq, into: &out)
    case .arrived(let d):
      head(.arrived, event.time, seq, into: &out)
      numberMember("distance", d, scale: 10, into: &out)
    case .gps(let s):
      head(.gps, event.time, seq, into: &out)
      stringMember("status", s.rawValue, into: &out)
    }
    // Made from a position estimated without fixes (dead reckoning): said, and only then.
    if event.estimated { boolMember("estimated", true, into: &out) }
    out.append(0x7D)  // }
  }

  /// Writes the lanes and sign a maneuver announcement says, in the native document's form.
  ///
  /// `lanesStep` follows when the lanes are those of the maneuver its "then" clause names. Rare
  /// (routes with lane or sign data, a few announcements a step), so written through a tree.
  private static func writeRoad(_ road: ManeuverRoad, step: Int, into out: inout [UInt8]) {
    var o = JSONObject()
    NativeRouteFormat.encodeRoad(lanes: road.lanes, sign: road.sign, into: &o)
    if let lanes = o["lanes"] {
      key("lanes", into: &out)
      out.append(contentsOf: JSONWriter.string(lanes).utf8)
      if road.lanesForThen { integerMember("lanesStep", step + 1, into: &out) }
    }
    if let sign = o["sign"] {
      key("sign", into: &out)
      out.append(contentsOf: JSONWriter.string(sign).utf8)
    }
  }

  /// `PROGRESS`'s `ahead`, made as a tree: it is rare (with the first fix of a route and as
  /// each object is passed).
  ///
  /// Each object's `type`, `start` (metres along the route, as `distanceAlong`), `length` for
  /// a stretch and `name` when it has one.
  static func aheadValue(_ objects: [RoadObject]) -> JSONValue {
    .array(
      objects.map { r in
        var o = JSONObject()
        o.append("type", .string(r.kind.rawValue))
        o.append("start", .number((r.start * 10).rounded() / 10))
        if !r.isPoint { o.append("length", .number((r.length * 10).rounded() / 10)) }
        if let name = r.name { o.append("name", .string(name)) }
        return .object(o)
      })
  }

  /// Reads `PROGRESS`'s (or `STATE`'s) `ahead` back; `nil` when it is not an array of
  /// objects of known types with a `start`, which are skipped.
  static func ahead(_ value: JSONValue?) -> [RoadObject]? {
    guard case .array(let items)? = value else { return nil }
    return items.compactMap { item in
      guard let o = item.objectValue, let type = o["type"]?.stringValue,
        let kind = RoadObject.Kind(rawValue: type), let start = o["start"]?.doubleValue,
        start.isFinite
      else { return nil }
      let length = o["length"]?.doubleValue.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 0
      return RoadObject(kind, start: start, end: start + length, name: o["name"]?.stringValue)
    }
  }

  // MARK: - Members

  /// `{"class":"NAME","time":"…"` (class names need no escaping), and `,"seq":N` when given:
  /// subscribers get `seq` right after `time`.
  private static func head(
    _ eventClass: EventClass, _ seconds: Double, _ seq: UInt64?, into out: inout [UInt8]
  ) {
    out.append(contentsOf: #"{"class":""#.utf8)
    out.append(contentsOf: eventClass.rawValue.utf8)
    out.append(contentsOf: #"","time":"#.utf8)
    time(seconds, into: &out)
    if let seq { seqMember(seq, into: &out) }
  }

  /// `,"seq":N`.
  static func seqMember(_ seq: UInt64, into out: inout [UInt8]) {
    out.append(contentsOf: #","seq":"#.utf8)
    appendDecimal(seq, into: &out)
  }

  /// `,"name":` (member names are plain ASCII literals).
  @inline(__always)
  private static func key(_ name: StaticString, into out: inout [UInt8]) {
    out.append(0x2C)  // ,
    out.append(0x22)  // "
    name.withUTF8Buffer { out.append(contentsOf: $0) }
    out.append(0x22)
    out.append(0x3A)  // :
  }

  private static func stringMember(_ name: StaticString, _ value: String, into out: inout [UInt8]) {
    key(name, into: &out)
    JSONWriter.writeString(value, into: &out)
  }

  private static func boolMember(_ name: StaticString, _ value: Bool, into out: inout [UInt8]) {
    key(name, into: &out)
    out.append(contentsOf: value ? "true".utf8 : "false".utf8)
  }

  private static func integerMember(_ name: StaticString, _ value: Int, into out: inout [UInt8]) {
    key(name, into: &out)
    number(Double(value), into: &out)
  }

  private static func numberMember(
    _ name: StaticString, _ value: Double, scale: Double, into out: inout [UInt8]
  ) {
    key(name, into: &out)
    number(value, scale: scale, into: &out)
  }

  // MARK: - Values

  /// Appends `value` rounded to a multiple of `1 / scale` (`scale` a power of ten up to 10^7),
  /// as `EventEncoder` rounds it, in `JSONWriter`'s form.
  ///
  /// The rounded value is `k / scale` for an integer `k`. While `|k| < 10^15` the doubles
  /// `k / scale` and `(k ± 1) / scale` are distinct, and `k / scale` is the double nearest the
  /// decimal `k · 10^-d`: so that decimal, with trailing zeros dropped, is the shortest text that
  /// reads back as the same double, which is what Swift's `description` prints (in positional
  /// form from 10^-4 up). Anything else goes through `JSONWriter` itself.
  static func number(_ value: Double, scale: Double, into out: inout [UInt8]) {
    let k = (value * scale).rounded()
    let rounded = k / scale
    guard rounded.isFinite, rounded != rounded.rounded(), abs(k) < 1e15, abs(rounded) >= 1e-4
    else {
      number(rounded, into: &out)
      return
    }
    var digits = 0
    var unit: UInt64 = 1
    while Double(unit) < scale {
      unit *= 10
      digits += 1
    }
    let m = UInt64(abs(k))
    var whole = m / unit
    var fraction = m % unit
    var width = digits
    while fraction % 10 == 0 {
      fraction /= 10
      width -= 1
    }
    // Written backwards into a small buffer, then appended at once.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
      var i = 48
      for _ in 0..<width {
        i -= 1
        buffer[i] = UInt8(truncatingIfNeeded: 0x30 + fraction % 10)
        fraction /= 10
      }
      i -= 1
      buffer[i] = 0x2E  // .
      repeat {
        i -= 1
        buffer[i] = UInt8(truncatingIfNeeded: 0x30 + whole % 10)
        whole /= 10
      } while whole > 0
      if k < 0 {
        i -= 1
        buffer[i] = 0x2D  // -
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<48]))
    }
  }

  /// Appends `value` as `JSONWriter` does: integral values below 10^15 as integers.
  @inline(__always)
  static func number(_ value: Double, into out: inout [UInt8]) {
    if value.isFinite && value == value.rounded() && abs(value) < 1e15 {
      if value < 0 { out.append(0x2D) }
      appendDecimal(UInt64(abs(value)), into: &out)
    } else {
      out.append(contentsOf: JSONWriter.number(value).utf8)
    }
  }

  private static func appendDecimal(_ value: UInt64, into out: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
      var v = value
      var i = 20
      repeat {
        i -= 1
        buffer[i] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
        v /= 10
      } while v > 0
      out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<20]))
    }
  }

  /// Appends `"YYYY-MM-DDTHH:MM:SS.mmmZ"` with its quotes, as ``Geodesy/UTCTime/iso8601(_:)``.
  static func time(_ seconds: Double, into out: inout [UInt8]) {
    let scaled = (seconds * 1000).rounded()
    // Years 0…9999 only (and no overflow); anything else as UTCTime writes it.
    guard scaled.isFinite, abs(scaled) < 2.5e14 else {
      JSONWriter.writeString(UTCTime.iso8601(seconds), into: &out)
      return
    }
    let (y, mo, d, ms) = UTCTime.civil(milliseconds: Int64(scaled))
    guard (0...9999).contains(y) else {
      JSONWriter.writeString(UTCTime.iso8601(seconds), into: &out)
      return
    }
    let frac = ms % 1000
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 26) { b in
      func two(_ v: Int, at i: Int) {
        b[i] = UInt8(truncatingIfNeeded: 0x30 + v / 10)
        b[i + 1] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
      }
      b[0] = 0x22  // "
      two(y / 100, at: 1)
      two(y % 100, at: 3)
      b[5] = 0x2D  // -
      two(mo, at: 6)
      b[8] = 0x2D
      two(d, at: 9)
      b[11] = 0x54  // T
      two(ms / 3_600_000, at: 12)
      b[14] = 0x3A  // :
      two(ms / 60_000 % 60, at: 15)
      b[17] = 0x3A
      two(ms / 1000 % 60, at: 18)
      b[20] = 0x2E  // .
      b[21] = UInt8(truncatingIfNeeded: 0x30 + frac / 100)
      two(frac % 100, at: 22)
      b[24] = 0x5A  // Z
      b[25] = 0x22
      out.append(contentsOf: UnsafeBufferPointer(b))
    }
  }
}
