import Geodesy

/// The sentence types the reader decodes.
enum NMEASentenceKind: Sendable {
  case rmc, gga, gns, gll, vtg, gsa, gst, zda

  /// Whether the type carries a UTC time of day (and so keys an epoch).
  var isTimed: Bool {
    switch self {
    case .rmc, .gga, .gns, .gll, .gst, .zda: return true
    case .vtg, .gsa: return false
    }
  }

  /// Whether the type makes an epoch worth emitting: it says whether there is a fix.
  var reportsFix: Bool {
    switch self {
    case .rmc, .gga, .gns, .gll: return true
    case .vtg, .gsa, .gst, .zda: return false
    }
  }
}

/// What one sentence says about the receiver's fix.
enum NMEAValidity: Sendable {
  case unknown, valid, invalid
}

/// The fields of one decoded sentence that feed a ``Fix``; no references, no heap.
struct DecodedSentence: Sendable {
  var kind: NMEASentenceKind
  /// Talker `GN`: the combined multi-GNSS solution, preferred over single-system ones.
  var combined: Bool
  var timeOfDay: Int64?
  /// Days since 1970-01-01, from RMC or ZDA.
  var day: Int?
  var coordinate: Coordinate?
  var validity = NMEAValidity.unknown
  var quality: FixQuality?
  /// Metres per second.
  var speed: Double?
  /// Degrees clockwise from true north.
  var course: Double?
  var hdop: Double?
  /// Metres above mean sea level.
  var altitude: Double?
  var satellites: Int?
  /// One-sigma radial horizontal error in metres, from GST.
  var horizontalAccuracy: Double?

  init(kind: NMEASentenceKind, combined: Bool) {
    self.kind = kind
    self.combined = combined
  }
}

/// The result of reading one framed sentence.
enum NMEADecodeResult: Sendable {
  /// The sentence was written to the decoder's `into` argument (in place: a result carrying
  /// it was copied several times per sentence, a tenth of the reader's time).
  case decoded
  /// Proprietary, GSV, TXT or another type the reader does not use.
  case skipped
  case badChecksum(expected: UInt8, actual: UInt8?)
  case malformed(field: String)
}

/// Decodes framed sentences: checksum, address, fields.
enum NMEADecoder {
  /// Knots to metres per second (1852 m / 3600 s).
  static let metresPerSecondPerKnot = 1852.0 / 3600.0

  /// Decodes `sentence`, which starts with `$` and has no line terminator.
  ///
  /// - Parameters:
  ///   - sentence: The bytes from `$` to the end of the line.
  ///   - scanned: ``NMEAScan/body(_:from:to:)`` of the sentence from index 1, when the reader
  ///     already worked it out while framing (it found the `*`).
  ///   - missingChecksum: Set to `true` when the sentence has no `*`.
  ///   - s: Where the decoded sentence goes; left as it was unless the result is `decoded`.
  /// - Returns: whether the sentence was decoded, or why it was rejected.
  static func decode(
    _ sentence: UnsafeBufferPointer<UInt8>, scanned: NMEAScan.Body? = nil,
    missingChecksum: inout Bool, into s: inout DecodedSentence
  ) -> NMEADecodeResult {
    var end = sentence.count
    while end > 1, sentence[end - 1] == 32 || sentence[end - 1] == 9 { end -= 1 }

    // Find the checksum delimiter, XOR the body and check that it is printable ASCII, in one
    // pass.
    let scan = scanned ?? NMEAScan.body(sentence, from: 1, to: end)
    let star = scan.star
    let sum = scan.sum
    let unprintable = scan.unprintable
    let bodyEnd: Int
    if star >= 0 {
      bodyEnd = star
      var actual: UInt8?
      if end - star == 3, let hi = NMEASentence.hexValue(sentence[star + 1]),
        let lo = NMEASentence.hexValue(sentence[star + 2])
      {
        actual = hi << 4 | lo
      }
      guard actual == sum else { return .badChecksum(expected: sum, actual: actual) }
    } else {
      bodyEnd = end
      missingChecksum = true
    }
    if unprintable { return .malformed(field: "byte (not printable ASCII)") }

    // Address: talker and type, up to the first comma.
    var addressEnd = 1
    while addressEnd < bodyEnd, sentence[addressEnd] != 44 { addressEnd += 1 }
    let addressLength = addressEnd - 1
    guard addressLength >= 1 else { return .malformed(field: "address") }
    for j in 1..<addressEnd {
      let c = sentence[j]
      guard (65...90).contains(c) || (48...57).contains(c) else {
        return .malformed(field: "address")
      }
    }
    if sentence[1] == UInt8(ascii: "P") { return .skipped }  // proprietary
    guard addressLength == 5, isUpper(sentence[1]), isUpper(sentence[2]) else { return .skipped }
    let code = UInt32(sentence[3]) << 16 | UInt32(sentence[4]) << 8 | UInt32(sentence[5])
    let kind: NMEASentenceKind
    switch code {
    case typeCode("RMC"): kind = .rmc
    case typeCode("GGA"): kind = .gga
    case typeCode("GNS"): kind = .gns
    case typeCode("GLL"): kind = .gll
    case typeCode("VTG"): kind = .vtg
    case typeCode("GSA"): kind = .gsa
    case typeCode("GST"): kind = .gst
    case typeCode("ZDA"): kind = .zda
    default: return .skipped
    }

    // Fields: one after each comma of the body, the first of which ends the address.
    let fieldCount = NMEAScan.commas(sentence, from: addressEnd, to: bodyEnd)
    let combined = sentence[1] == UInt8(ascii: "G") && sentence[2] == UInt8(ascii: "N")
    var cursor = NMEAFieldCursor(sentence, start: addressEnd + 1, end: bodyEnd)
    s = DecodedSentence(kind: kind, combined: combined)
    do {
      switch kind {
      case .rmc: try rmc(&cursor, fieldCount, &s)
      case .gga: try gga(&cursor, fieldCount, &s)
      case .gns: try gns(&cursor, fieldCount, &s)
      case .gll: try gll(&cursor, fieldCount, &s)
      case .vtg: try vtg(&cursor, fieldCount, &s)
      case .gsa: try gsa(&cursor, fieldCount, &s)
      case .gst: try gst(&cursor, fieldCount, &s)
      case .zda: try zda(&cursor, fieldCount, &s)
      }
    } catch {
      return .malformed(field: error.field)
    }
    return .decoded
  }

  @inline(__always)
  private static func isUpper(_ c: UInt8) -> Bool { (65...90).contains(c) }

  private static func typeCode(_ s: StaticString) -> UInt32 {
    let p = s.utf8Start
    return UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
  }

  private static func require(_ count: Int, _ minimum: Int) throws(MalformedField) {
    guard count >= minimum else {
      throw MalformedField(field: "field count (\(count) < \(minimum))")
    }
  }

  /// A coordinate when both halves are present; one half without the other is malformed.
  private static func coordinate(
    _ lat: NMEAField, _ ns: NMEAField, _ lon: NMEAField, _ ew: NMEAField
  ) throws(MalformedField) -> Coordinate? {
    let latitude = try lat.latitude(hemisphere: ns)
    let longitude = try lon.longitude(hemisphere: ew)
    switch (latitude, longitude) {
    case (let la?, let lo?): return Coordinate(latitude: la, longitude: lo)
    case (nil, nil): return nil
    default: throw MalformedField(field: latitude == nil ? "latitude" : "longitude")
    }
  }

  /// The coordinate of a sentence; when the sentence itself says its data are invalid, an
  /// unreadable position (SiRF sends latitude `36000.0000` without a fix) is ignored instead.
  private static func position(
    _ f: (NMEAField, NMEAField, NMEAField, NMEAField), validity: NMEAValidity
  ) throws(MalformedField) -> Coordinate? {
    do {
      return try coordinate(f.0, f.1, f.2, f.3)
    } catch {
      if validity == .invalid { return nil }
      throw error
    }
  }

  /// Validity and quality from an FAA mode indicator (NMEA 2.3+).
  static func faaMode(_ c: UInt8?) -> (NMEAValidity, FixQuality?) {
    switch c {
    case UInt8(ascii: "A"), UInt8(ascii: "P"): return (.valid, .gps)
    case UInt8(ascii: "D"): return (.valid, .dgps)
    case UInt8(ascii: "R"), UInt8(ascii: "F"): return (.valid, .rtk)
    case UInt8(ascii: "E"): return (.valid, .deadReckoning)
    case UInt8(ascii: "M"), UInt8(ascii: "S"): return (.valid, .simulated)
    case UInt8(ascii: "N"): return (.invalid, nil)
    default: return (.unknown, nil)
    }
  }

  /// Speed in knots to metres per second.
  private static func knots(_ f: NMEAField) throws(MalformedField) -> Double? {
    guard let v = try f.decimal("speed") else { return nil }
    guard v >= 0 else { throw MalformedField(field: "speed") }
    return v * metresPerSecondPerKnot
  }

  private static func course(_ f: NMEAField) throws(MalformedField) -> Double? {
    guard let v = try f.decimal("course") else { return nil }
    guard v >= -360, v <= 360 else { throw MalformedField(field: "course") }
    return v < 0 ? v + 360 : (v >= 360 ? v - 360 : v)
  }

  // RMC: time, status, lat, N/S, lon, E/W, SOG kn, COG, ddmmyy, magvar, E/W[, FAA mode[, nav
  // status]]
  private static func rmc(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 11)
    s.timeOfDay = try c.next().timeOfDay()
    let status = c.next()
    let fields = (c.next(), c.next(), c.next(), c.next())
    s.speed = try knots(c.next())
    s.course = try course(c.next())
    s.day = try c.next().rmcDate()
    c.skip(2)
    let (modeValidity, quality) = n >= 12 ? faaMode(c.next().character) : (.unknown, nil)
    // Field 13 (NMEA 4.1 navigational status) is ignored: u-blox sends `V` there next to `A`.
    s.validity = status.equals("A") && modeValidity != .invalid ? .valid : .invalid
    s.quality = quality
    s.coordinate = try position(fields, validity: s.validity)
  }

  // GGA: time, lat, N/S, lon, E/W, quality, satellites, HDOP, altitude, M, separation, M, age,
  // station
  private static func gga(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 14)
    s.timeOfDay = try c.next().timeOfDay()
    let fields = (c.next(), c.next(), c.next(), c.next())
    if let q = try c.next().integer("quality") {
      switch q {
      case 0: s.validity = .invalid
      case 1, 3: s.quality = .gps
      case 2: s.quality = .dgps
      case 4, 5: s.quality = .rtk
      case 6: s.quality = .deadReckoning
      case 7, 8: s.quality = .simulated
      default: s.quality = .gps
      }
      if q != 0 { s.validity = .valid }
    }
    s.coordinate = try position(fields, validity: s.validity)
    s.satellites = try c.next().integer("satellites")
    s.hdop = try c.next().decimal("HDOP")
    s.altitude = try c.next().decimal("altitude")
  }

  // GNS: time, lat, N/S, lon, E/W, mode string, satellites, HDOP, altitude, separation, age,
  // station[, nav status]
  private static func gns(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 12)
    s.timeOfDay = try c.next().timeOfDay()
    let fields = (c.next(), c.next(), c.next(), c.next())
    let mode = c.next()
    if !mode.isEmpty {
      // One character per constellation; the best one sets the quality.
      var best: FixQuality?
      var bestRank = 0
      var anyUsed = false
      for i in mode.start..<mode.end {
        let (validity, quality) = faaMode(mode.buffer[i])
        if validity != .valid { continue }
        anyUsed = true
        let rank = quality.map(qualityRank) ?? 0
        if rank > bestRank {
          best = quality
          bestRank = rank
        }
      }
      s.validity = anyUsed ? .valid : .invalid
      s.quality = best
    }
    s.coordinate = try position(fields, validity: s.validity)
    s.satellites = try c.next().integer("satellites")
    s.hdop = try c.next().decimal("HDOP")
    s.altitude = try c.next().decimal("altitude")
  }

  /// Which quality wins when a GNS mode string mixes several.
  private static func qualityRank(_ q: FixQuality) -> Int {
    switch q {
    case .rtk: return 5
    case .dgps: return 4
    case .gps: return 3
    case .deadReckoning: return 2
    case .simulated: return 1
    case .none: return 0
    }
  }

  // GLL: lat, N/S, lon, E/W, time, status[, FAA mode]
  private static func gll(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 6)
    let fields = (c.next(), c.next(), c.next(), c.next())
    s.timeOfDay = try c.next().timeOfDay()
    let status = c.next()
    let (modeValidity, quality) = n >= 7 ? faaMode(c.next().character) : (.unknown, nil)
    s.validity = status.equals("A") && modeValidity != .invalid ? .valid : .invalid
    s.quality = quality
    s.coordinate = try position(fields, validity: s.validity)
  }

  // VTG: COG, T, COG magnetic, M, SOG kn, N, SOG km/h, K[, FAA mode]; before NMEA 3.01 without
  // the unit letters: COG, COG magnetic, SOG kn, SOG km/h.
  private static func vtg(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 4)
    let cog = c.next()
    let second = c.next()
    var speed: Double?
    if second.equals("T") {
      try require(n, 8)
      c.skip(2)
      speed = try knots(c.next())
      c.skip(1)
      let kmh = c.next()
      if speed == nil, let v = try kmh.decimal("speed") { speed = v / 3.6 }
      c.skip(1)
      let (modeValidity, quality) = n >= 9 ? faaMode(c.next().character) : (.unknown, nil)
      // Mode N says this sentence's speed and course are not valid; it does not speak for
      // the epoch (RMC, GGA and GSA do).
      if modeValidity == .invalid { return }
      s.quality = quality
    } else {
      speed = try knots(c.next())
      if speed == nil, let v = try c.next().decimal("speed") { speed = v / 3.6 }
    }
    s.course = try course(cog)
    s.speed = speed
  }

  // GSA: selection, fix mode, 12 × PRN, PDOP, HDOP, VDOP[, system ID]
  private static func gsa(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 17)
    c.skip(1)
    switch try c.next().integer("fix mode") {
    case nil: break
    case 1: s.validity = .invalid
    case 2, 3: s.validity = .valid
    default: throw MalformedField(field: "fix mode")
    }
    var used = 0
    for _ in 0..<12 where !c.next().isEmpty { used += 1 }
    s.satellites = used
    c.skip(1)
    s.hdop = try c.next().decimal("HDOP")
  }

  // GST: time, RMS, σ major, σ minor, orientation, σ latitude, σ longitude, σ altitude (metres)
  private static func gst(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 8)
    s.timeOfDay = try c.next().timeOfDay()
    c.skip(4)
    let sigmaLatitude = try c.next().decimal("latitude error")
    let sigmaLongitude = try c.next().decimal("longitude error")
    if let a = sigmaLatitude, let b = sigmaLongitude {
      guard a >= 0, b >= 0 else { throw MalformedField(field: "position error") }
      s.horizontalAccuracy = (a * a + b * b).squareRoot()
    }
  }

  // ZDA: time, day, month, year (4 digits), zone hours, zone minutes
  private static func zda(_ c: inout NMEAFieldCursor, _ n: Int, _ s: inout DecodedSentence)
    throws(MalformedField)
  {
    try require(n, 4)
    s.timeOfDay = try c.next().timeOfDay()
    let day = try c.next().integer("day")
    let month = try c.next().integer("month")
    let yearField = c.next()
    let year = try yearField.integer("year")
    switch (day, month, year) {
    case (nil, nil, nil): break
    case (let d?, let m?, let y?):
      let fullYear = yearField.count <= 2 ? NMEAField.fullYear(y) : y
      s.day = try NMEAField.days(year: fullYear, month: m, day: d)
    default: throw MalformedField(field: "date")
    }
  }
}
