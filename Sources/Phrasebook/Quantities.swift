import Routes

/// Metres in an international statute mile.
let metresPerMile = 1609.344
/// Metres in an international foot.
let metresPerFoot = 0.3048
/// The largest magnitude phrased, in metres or seconds.
///
/// Larger values and infinities are clamped to it, so that the conversions to `Int` can never trap.
let largestQuantity = 1e12

/// `value` made safe to round: NaN and negatives become 0, huge values are clamped.
func sanitized(_ value: Double) -> Double {
  guard value > 0 else { return 0 }  // also catches NaN
  return min(value, largestQuantity)
}

/// A distance after rounding, before it is put into words.
enum RoundedDistance: Equatable {
  /// Whole metres.
  case metres(Int)
  /// Kilometres, in tenths ("1.5 km" is 15).
  case kilometres(tenths: Int)
  /// Whole feet.
  case feet(Int)
  /// Miles, in tenths ("0.2 mi" is 2).
  case miles(tenths: Int)

  /// Rounds `metres` for speech with the tables documented on ``Phrasebook/spokenDistance(_:)``.
  init(spoken metres: Double, units: UnitSystem) {
    let m = sanitized(metres)
    switch units {
    case .metric:
      if m < 10 {
        self = .metres(10)
      } else if m < 100 {
        self = .metres(Int((m / 10).rounded()) * 10)
      } else if m < 1000 {
        let rounded = Int((m / 50).rounded()) * 50
        self = rounded >= 1000 ? .kilometres(tenths: 10) : .metres(rounded)
      } else if m < 3000 {
        self = .kilometres(tenths: Int((m / 500).rounded()) * 5)
      } else {
        self = .kilometres(tenths: Int((m / 1000).rounded()) * 10)
      }
    case .imperial:
      let miles = m / metresPerMile
      if miles < 0.1 {
        self = .feet(max(50, Int((m / metresPerFoot / 50).rounded()) * 50))
      } else if miles < 3 {
        self = .miles(tenths: Int((miles * 10).rounded()))
      } else {
        self = .miles(tenths: Int(miles.rounded()) * 10)
      }
    }
  }
}

/// "1.5" for 15 tenths, "2" for 20: the decimal is dropped when it is zero.
func spokenDecimal(tenths: Int) -> String {
  tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
}

/// "1.0" for 10 tenths: always one decimal, for aligned tables.
func displayDecimal(tenths: Int) -> String { "\(tenths / 10).\(tenths % 10)" }

extension Phrasebook {
  /// The distance as a voice says it, after rounding to a natural step.
  ///
  /// `metres` is a distance in metres; NaN and negative values count as 0. Rounding:
  /// - metric: below 10 m, "10 meters" (never 0); below 100 m, the nearest 10 m; below
  ///   1000 m, the nearest 50 m (975 m becomes "1 kilometer"); from 1 to 3 km, the nearest
  ///   0.5 km ("1.5 kilometers", "2 kilometers"); from 3 km on, whole kilometres.
  /// - imperial (US): below 0.1 mi (160.9 m), feet to the nearest 50 ft, at least 50 ft; from
  ///   0.1 to 3 mi, the nearest 0.1 mi ("0.2 miles", "1 mile", "1.5 miles"); from 3 mi on,
  ///   whole miles.
  ///
  /// English puts a space before the unit and uses "1 mile" and "1 kilometer" in the singular;
  /// Korean writes the unit straight after the number: "300미터", "1.5킬로미터", "500피트",
  /// "0.2마일".
  public func spokenDistance(_ metres: Double) -> String {
    let rounded = RoundedDistance(spoken: metres, units: units)
    switch language {
    case .en:
      switch rounded {
      case .metres(let n): return "\(n) meters"
      case .kilometres(let t): return "\(spokenDecimal(tenths: t)) kilometer\(t == 10 ? "" : "s")"
      case .feet(let n): return "\(n) feet"
      case .miles(let t): return "\(spokenDecimal(tenths: t)) mile\(t == 10 ? "" : "s")"
      }
    case .ko:
      switch rounded {
      case .metres(let n): return "\(n)미터"
      case .kilometres(let t): return "\(spokenDecimal(tenths: t))킬로미터"
      case .feet(let n): return "\(n)피트"
      case .miles(let t): return "\(spokenDecimal(tenths: t))마일"
      }
    }
  }

  /// The distance as shown in route tables and status lines, with a unit symbol.
  ///
  /// `metres` is a distance in metres; NaN and negative values count as 0, which shows as
  /// "0 m" (a departure row). Rounding:
  /// - metric: below 1000 m, the nearest 10 m ("350 m"); below 10 km, one decimal ("1.2 km",
  ///   "1.0 km"); from 10 km on, whole kilometres ("23 km"). A value that rounds up to the
  ///   next range is shown in it (996 m is "1.0 km", 9.96 km is "10 km").
  /// - imperial (US): below 0.1 mi, feet to the nearest 10 ft ("500 ft"); below 10 mi, one
  ///   decimal ("0.2 mi"); from 10 mi on, whole miles.
  ///
  /// The symbols are the same in every language, so Korean shows "1.2 km" too.
  public func displayDistance(_ metres: Double) -> String {
    let m = sanitized(metres)
    switch units {
    case .metric:
      let roundedMetres = Int((m / 10).rounded()) * 10
      if roundedMetres < 1000 { return "\(roundedMetres) m" }
      let tenths = Int((m / 100).rounded())
      if tenths < 100 { return "\(displayDecimal(tenths: tenths)) km" }
      return "\(Int((m / 1000).rounded())) km"
    case .imperial:
      let miles = m / metresPerMile
      if miles < 0.1 { return "\(Int((m / metresPerFoot / 10).rounded()) * 10) ft" }
      let tenths = Int((miles * 10).rounded())
      if tenths < 100 { return "\(displayDecimal(tenths: tenths)) mi" }
      return "\(Int(miles.rounded())) mi"
    }
  }

  /// A duration as shown in route tables and status lines.
  ///
  /// `seconds` is a duration in seconds; NaN and negative values count as 0. Below a minute
  /// (after rounding to whole seconds) it is shown in seconds, "45 s"; below an hour (after
  /// rounding to whole minutes) in minutes, "23 min"; from an hour on, as hours and
  /// minutes, "1 h 05 min", with the minutes padded to two digits so columns line up
  /// ("2 h 00 min"). Korean writes the units without spaces and drops a zero remainder, as
  /// Korean apps do: "45초", "23분", "1시간 5분", "2시간".
  public func displayDuration(_ seconds: Double) -> String {
    let s = sanitized(seconds)
    let wholeSeconds = Int(s.rounded())
    let minutes = Int((s / 60).rounded())
    switch language {
    case .en:
      if wholeSeconds < 60 { return "\(wholeSeconds) s" }
      if minutes < 60 { return "\(minutes) min" }
      let remainder = minutes % 60
      return "\(minutes / 60) h \(remainder < 10 ? "0" : "")\(remainder) min"
    case .ko:
      if wholeSeconds < 60 { return "\(wholeSeconds)초" }
      if minutes < 60 { return "\(minutes)분" }
      let remainder = minutes % 60
      return remainder == 0 ? "\(minutes / 60)시간" : "\(minutes / 60)시간 \(remainder)분"
    }
  }
}
