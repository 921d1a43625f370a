import Geodesy

/// A value offered by several sentences of one epoch; the highest rank wins, the first on ties.
struct Ranked<Value: Sendable>: Sendable {
  var value: Value?
  var rank = Int.min

  mutating func offer(_ candidate: Value?, rank r: Int) {
    guard let candidate, r > rank else { return }
    value = candidate
    rank = r
  }
}

/// Everything gathered for one receiver epoch.
struct NMEAEpoch: Sendable {
  /// Microseconds since midnight UTC; `nil` for an epoch of untimed sentences only.
  var timeOfDay: Int64?
  /// Days since 1970-01-01.
  var day: Int
  var dayFromZDA = false
  /// Whether an RMC, GGA, GNS or GLL joined: only such epochs are emitted.
  var reportsFix = false
  var sawValid = false
  var sawInvalid = false
  var coordinate = Ranked<Coordinate>()
  var altitude = Ranked<Double>()
  var satellites = Ranked<Int>()
  var hdop = Ranked<Double>()
  var speed = Ranked<Double>()
  var course = Ranked<Double>()
  var quality = Ranked<FixQuality>()
  var horizontalAccuracy = Ranked<Double>()
  /// Satellites listed as used by the epoch's GSA sentences, a fallback for GGA's count.
  var gsaSatellites = 0

  init(timeOfDay: Int64?, day: Int) {
    self.timeOfDay = timeOfDay
    self.day = day
  }

  /// Microseconds since 1970-01-01T00:00:00Z.
  var instant: Int64? { timeOfDay.map { Int64(day) * microsecondsPerDay + $0 } }

  /// Merges one sentence of the same time of day, taking its date unless a ZDA's is kept.
  mutating func join(_ s: DecodedSentence) {
    if let d = s.day, s.kind == .zda || !dayFromZDA {
      day = d
      dayFromZDA = s.kind == .zda
    }
    merge(s)
  }

  /// Merges one sentence.
  ///
  /// Position, altitude, satellites and HDOP come from GGA or GNS before RMC before GLL; speed
  /// and course from RMC before VTG; within one type the combined `GN` talker wins, then the
  /// first sentence.
  mutating func merge(_ s: DecodedSentence) {
    if s.kind.reportsFix { reportsFix = true }
    switch s.validity {
    case .valid: sawValid = true
    case .invalid: sawInvalid = true
    case .unknown: break
    }
    let bonus = s.combined ? 1 : 0
    switch s.kind {
    case .gga, .gns:
      coordinate.offer(s.coordinate, rank: 30 + bonus)
      altitude.offer(s.altitude, rank: 30 + bonus)
      satellites.offer(s.satellites, rank: 30 + bonus)
      hdop.offer(s.hdop, rank: 30 + bonus)
      quality.offer(s.quality, rank: (s.kind == .gga ? 40 : 30) + bonus)
    case .rmc:
      coordinate.offer(s.coordinate, rank: 20 + bonus)
      speed.offer(s.speed, rank: 20 + bonus)
      course.offer(s.course, rank: 20 + bonus)
      quality.offer(s.quality, rank: 20 + bonus)
    case .gll:
      coordinate.offer(s.coordinate, rank: 10 + bonus)
      quality.offer(s.quality, rank: 10 + bonus)
    case .vtg:
      speed.offer(s.speed, rank: 10 + bonus)
      course.offer(s.course, rank: 10 + bonus)
      quality.offer(s.quality, rank: 5 + bonus)
    case .gsa:
      // One GSA per constellation on multi-GNSS receivers: the used satellites add up.
      gsaSatellites += s.satellites ?? 0
      hdop.offer(s.hdop, rank: 10 + bonus)
    case .gst:
      horizontalAccuracy.offer(s.horizontalAccuracy, rank: 10 + bonus)
    case .zda:
      break
    }
  }

  /// The fix this epoch describes; `nil` for an epoch that should not be emitted.
  var fix: Fix? {
    guard reportsFix, let instant else { return nil }
    let seconds = instant / 1_000_000
    let time = Double(seconds) + Double(instant - seconds * 1_000_000) / 1_000_000
    guard !sawInvalid, sawValid, let position = coordinate.value else {
      return Fix.noFix(time: time)
    }
    return Fix(
      time: time, coordinate: position, speed: speed.value, course: course.value,
      horizontalAccuracy: horizontalAccuracy.value, hdop: hdop.value, altitude: altitude.value,
      satellites: satellites.value ?? (gsaSatellites > 0 ? gsaSatellites : nil),
      quality: quality.value ?? .gps)
  }
}

let microsecondsPerDay: Int64 = 86_400_000_000
private let halfDay: Int64 = 43_200_000_000
private let hour: Int64 = 3_600_000_000

/// Groups decoded sentences into epochs by time of day and keeps the date.
struct NMEAEpochAssembler: Sendable {
  /// Times of day closer than this are one epoch (receivers jitter by a few milliseconds).
  static let tolerance: Int64 = 10_000

  private(set) var open: NMEAEpoch?
  /// The instant of the last emitted epoch, in microseconds since 1970.
  private var lastEmitted: Int64?
  /// The date reference: the latest instant seen, or the last explicit date.
  private var referenceDay = 0
  private var referenceTime: Int64?
  /// Set after an out-of-order timed sentence: its untimed followers are dropped too.
  private var discarding = false

  /// What happened to one sentence.
  struct Outcome {
    var accepted: Bool
    var emitted: Fix?
  }

  /// The day for a time of day without a date.
  ///
  /// A time that falls by more than 12 hours from the reference (23:59:59 → 00:00:00) rolls to
  /// the next day. A time that rises by more than 23 hours is a late sentence from before
  /// midnight (00:00:01 → 23:59:59) and takes the previous day. Any other jump stays on the
  /// reference day: receivers do jump forward after a cold start or a gap in a capture.
  private func resolveDay(_ timeOfDay: Int64) -> Int {
    guard let referenceTime else { return referenceDay }
    let delta = timeOfDay - referenceTime
    if delta < -halfDay { return referenceDay + 1 }
    if delta > microsecondsPerDay - hour { return referenceDay - 1 }
    return referenceDay
  }

  mutating func ingest(_ s: DecodedSentence) -> Outcome {
    guard s.kind.isTimed else {
      if discarding { return Outcome(accepted: false, emitted: nil) }
      if open == nil { open = NMEAEpoch(timeOfDay: nil, day: referenceDay) }
      open?.merge(s)
      return Outcome(accepted: true, emitted: nil)
    }
    guard let t = s.timeOfDay else {
      // A timed type with an empty time (cold start): it starts an epoch that cannot be emitted.
      let emitted = flush()
      open = NMEAEpoch(timeOfDay: nil, day: referenceDay)
      open?.merge(s)
      discarding = false
      return Outcome(accepted: true, emitted: emitted)
    }

    // Same time of day as the open epoch: join it (in place: an epoch is a few hundred bytes).
    if let et = open?.timeOfDay, abs(et - t) < Self.tolerance {
      open?.join(s)
      noteReference(day: open?.day ?? referenceDay, time: et, explicit: s.day != nil)
      discarding = false
      return Outcome(accepted: true, emitted: nil)
    }

    let day = s.day ?? resolveDay(t)
    let instant = Int64(day) * microsecondsPerDay + t
    var newest = lastEmitted ?? Int64.min
    if let o = open, o.reportsFix, let oi = o.instant, oi > newest { newest = oi }
    var restart = false
    if instant < newest + Self.tolerance {
      // The receiver moved its date back by more than half a day (a GPS week rollover, a
      // second capture appended): start over rather than drop everything from here on.
      restart = s.day != nil && instant < newest - halfDay
      if !restart {
        discarding = true
        return Outcome(accepted: false, emitted: nil)
      }
    }
    let emitted = flush()
    if restart { lastEmitted = nil }
    var epoch = NMEAEpoch(timeOfDay: t, day: day)
    epoch.dayFromZDA = s.kind == .zda && s.day != nil
    epoch.merge(s)
    open = epoch
    noteReference(day: day, time: t, explicit: s.day != nil)
    discarding = false
    return Outcome(accepted: true, emitted: emitted)
  }

  private mutating func noteReference(day: Int, time: Int64, explicit: Bool) {
    let instant = Int64(day) * microsecondsPerDay + time
    if explicit || referenceTime == nil
      || instant > Int64(referenceDay) * microsecondsPerDay + (referenceTime ?? 0)
    {
      referenceDay = day
      referenceTime = time
    }
  }

  /// Closes the open epoch and returns its fix, if it should be emitted.
  mutating func flush() -> Fix? {
    guard let epoch = open else { return nil }
    open = nil
    guard let fix = epoch.fix, let instant = epoch.instant else { return nil }
    lastEmitted = instant
    return fix
  }
}
