import GuidanceSettings
import Matching
import Routes

/// A maneuver announcement that fell due: what to say, for which step, and how far ahead.
///
/// A class: the scheduler is asked on every fix and almost always answers `nil`, which as a
/// reference is one word, where the 136 bytes of an optional structure were written and copied
/// out on each answer. One is made only when an announcement falls due.
final class DueAnnouncement {
  let message: AnnouncementMessage
  let kind: AnnouncementKind
  let step: Int
  /// The announcement's id within the route (`s3.now`).
  let id: String
  /// Metres to the maneuver.
  let distance: Double

  init(
    message: AnnouncementMessage, kind: AnnouncementKind, step: Int, id: String, distance: Double
  ) {
    self.message = message
    self.kind = kind
    self.step = step
    self.id = id
    self.distance = distance
  }
}

/// The maneuver announcement schedule, computed on the device from live speed, and what of it was
/// already said.
///
/// Each maneuver has up to three announcements: "prepare" about a minute ahead, "approach" about
/// 20 s ahead, and "now" a few seconds ahead plus the time it takes to say it. Distances are
/// clamped per transport mode. An announcement whose successor would follow within
/// `minimumGapSeconds` is skipped, so short steps get fewer announcements, never a burst. An
/// announcement is made at most once, and only for the maneuver ahead.
struct AnnouncementScheduler: Sendable {
  let route: Route
  let geometry: RouteGeometry
  let configuration: GuidanceConfiguration
  let phrasing: any Phrasing
  /// The route's average planned speed in m/s, a floor for announcement timing.
  let plannedSpeed: Double
  /// Whether a step has lanes or a sign: most routes have none, and time no road clauses.
  let hasRoad: Bool
  /// Per step, its mode's limits and the speed its prompts are timed at least at (``timing``).
  private let timings: [(limits: GuidanceConfiguration.ModeLimits, floor: Double)]
  /// Per step, what was already said.
  var said: [AnnouncementFlags]
  /// Time of the last maneuver announcement and the step it was for.
  var lastAnnouncement: (time: Double, step: Int)?
  /// Per step, when a prompt last named its maneuver, on its own or as a "then" (−∞: never; not
  /// in a saved session, so after a restart in the dark only where the vehicle is judges it).
  private(set) var spokenAt: [Double]
  /// The last maneuver a heads-up said
  /// (``headsUp(from:after:time:position:reach:speed:recap:loss:)``); its final prompt is not
  /// said too late to act on.
  private(set) var headsUpThrough = 0

  /// Maneuver `m` and those after it are to be said again in full (``reopen(_:distance:speed:)``).
  mutating func forgetHeadsUps(from m: Int) {
    headsUpThrough = min(headsUpThrough, m - 1)
  }

  /// Takes back a saved session's ``headsUpThrough`` (a step of the route, or none).
  mutating func resumeHeadsUps(through m: Int) {
    headsUpThrough = (0..<said.count).contains(m) ? m : 0
  }
  /// The speech durations of the maneuver sentences measured last: near a maneuver every fix
  /// times the same few sentences, whose distance changes in the voice only every 50 m or so.
  private var spoken = SpeechDurations()

  init(
    route: Route, geometry: RouteGeometry, configuration: GuidanceConfiguration,
    phrasing: any Phrasing
  ) {
    self.route = route
    self.geometry = geometry
    self.configuration = configuration
    self.phrasing = phrasing
    plannedSpeed =
      route.expectedTravelTime > 0
      ? min(configuration.plannedSpeedLimit, route.distance / route.expectedTravelTime) : 0
    said = [AnnouncementFlags](repeating: [], count: route.steps.count)
    spokenAt = [Double](repeating: -.infinity, count: route.steps.count)
    hasRoad = route.steps.contains { !$0.lanes.isEmpty || $0.sign != nil }
    let planned = configuration.plannedSpeedFraction * plannedSpeed
    timings = route.steps.map { [configuration] step in
      let limits = configuration.limits(for: step.transportType)
      return (
        limits, max(limits.minimumSpeed, step.transportType == route.transportType ? planned : 0)
      )
    }
  }

  private var lastStep: Int { route.steps.count - 1 }

  /// The announcement for maneuver `m` that is due with the vehicle at `position` metres along the
  /// route at `speed`, if any; marks it (and the kinds it makes unnecessary) as said.
  ///
  /// `uncertainty` (metres, one-sigma radial) is how far the match may lag the vehicle: the
  /// final announcement comes earlier by what of it the lead does not already spare, so a lagging
  /// position cannot make it late. Without fixes the final announcement is timed for a vehicle
  /// `finalAhead` metres further on (the soonest the estimate says it may be there).
  mutating func due(
    step m: Int, time: Double, position: Double, speed: Double, leadSpeed: Double,
    fixInterval: Double, uncertainty: Double = 0, finalAhead: Double = 0
  ) -> DueAnnouncement? {
    due(
      step: m, time: time, position: position, speed: speed, leadSpeed: leadSpeed,
      fixInterval: fixInterval, uncertainty: uncertainty, finalAhead: finalAhead,
      finalOnly: false)
  }

  /// The final announcement of the next unit of maneuvers, due before the maneuver ahead
  /// (`m`, whose final announcement was made) is reached; marks it as said.
  ///
  /// Three or more maneuvers close together are said in units of two: a final announcement
  /// says its maneuver and the next ("…, then …"). When the second of a unit is followed as
  /// closely by a third, the third begins the next unit, and its final announcement ("…, then
  /// …") cannot wait for the unit ahead to be passed: it falls due by its own lead, measured
  /// across the maneuvers before it, and the second gets no announcement of its own (it was
  /// said, and saying it again would only repeat it). Only the final tier is made this way,
  /// never for the arrival.
  mutating func dueAhead(
    step m: Int, time: Double, position: Double, speed: Double, fixInterval: Double,
    uncertainty: Double = 0, finalAhead: Double = 0
  ) -> DueAnnouncement? {
    guard m >= 1, m < lastStep else { return nil }
    // The first maneuver ahead not said in a final announcement (nor passed over as said).
    var k = m
    while k < lastStep && said[k].contains(.now) { k += 1 }
    guard k > m, k < lastStep else { return nil }
    // It begins the next unit, unless it is the second of the unit ahead.
    guard said[k].contains(.mergedFinal) else {
      return due(
        step: k, time: time, position: position, speed: speed, leadSpeed: speed,
        fixInterval: fixInterval, uncertainty: uncertainty, finalAhead: finalAhead,
        finalOnly: true)
    }
    guard k + 1 < lastStep else { return nil }
    guard thenInstructions(after: k, speed: timing(step: k, speed: speed).speed) != nil,
      let next = due(
        step: k + 1, time: time, position: position, speed: speed, leadSpeed: speed,
        fixInterval: fixInterval, uncertainty: uncertainty, finalAhead: finalAhead,
        finalOnly: true)
    else { return nil }
    said[k].formUnion([.prepare, .approach, .now])
    return next
  }

  private mutating func due(
    step m: Int, time: Double, position: Double, speed: Double, leadSpeed: Double,
    fixInterval: Double, uncertainty: Double, finalAhead: Double, finalOnly: Bool
  ) -> DueAnnouncement? {
    guard m >= 1, m <= lastStep, !said[m].contains(.now) else { return nil }
    // One lookup for both speeds: the mode's floors, then the speed driven and the one held.
    let (limits, floor) = timing(step: m, speed: 0)
    let v = max(speed, floor)
    let early = max(leadSpeed, floor)
    let d = max(0, geometry.stepEnd[m] - position)
    let margin =
      v * min(fixInterval, configuration.announcementIntervalLimit)
      * configuration.announcementMarginFraction
    // Far from the maneuver no announcement can be due: skip building the sentences (most fixes),
    // and keep the code that builds them out of this path's instruction cache.
    if d - finalAhead > limits.prepareMaximum + max(v, early)
      * configuration.announcementHorizonSeconds + margin
    {
      return nil
    }
    return due(
      step: m, time: time, speed: speed, fixInterval: fixInterval, uncertainty: uncertainty,
      finalOnly: finalOnly, limits: limits, v: v, early: early, d: d, finalAhead: finalAhead,
      margin: margin)
  }

  @inline(never)
  private mutating func due(
    step m: Int, time: Double, speed: Double, fixInterval: Double, uncertainty: Double,
    finalOnly: Bool, limits: GuidanceConfiguration.ModeLimits, v: Double, early: Double, d: Double,
    finalAhead: Double, margin: Double
  ) -> DueAnnouncement? {
    // The arrival gets no "now" announcement: its own announcement replaces it.
    let finalKind: AnnouncementKind = m == lastStep ? .approach : .now
    let then = thenInstructions(after: m, speed: v)
    let instructions = route.steps[m].instructions

    // Constant lists: no array is built on each fix.
    let kinds: [AnnouncementKind] =
      finalOnly
      ? [finalKind] : finalKind == .now ? [.prepare, .approach, .now] : [.prepare, .approach]
    // A maneuver already said as the "then" of the previous announcement and right here (a 0 m
    // step, a double turn) needs no announcement of its own: it would only come too late. So does
    // one said in the previous maneuver's final announcement and now less than `finalLeadSeconds`
    // (and a fix interval) away at the speed driven: said now, it would leave no time to act. The
    // pair was planned as one unit, and that final announcement was early enough for both.
    if said[m].contains(.merged) && d < configuration.mergedReachedDistance {
      said[m].formUnion([.prepare, .approach, .now])
      return nil
    }
    // What is left for the vehicle the final prompt is timed for (further on without fixes).
    let finalLeft = max(0, d - finalAhead)
    let actual = max(speed, limits.minimumSpeed)
    let tooClose =
      d < actual
      * (configuration.finalLeadSeconds + min(fixInterval, configuration.announcementIntervalLimit))
    // So does one a heads-up said in the dark, when the fixes come back that close to it; the
    // heads-up's "then" stands for its final prompt too (said alone now, before the maneuver
    // ahead, it would mislead).
    if (said[m].contains(.mergedFinal) || m <= headsUpThrough) && finalKind == .now && tooClose {
      said[m].formUnion([.prepare, .approach, .now])
      if m < headsUpThrough { said[m + 1].insert(.mergedFinal) }
      return nil
    }
    for (n, kind) in kinds.enumerated() where !said[m].contains(kind.flag) {
      // The sentence is built only once it is due: its parts are enough to time it.
      let sentence = ManeuverSentence(
        instructions: instructions, distance: kind == .now ? nil : d,
        then: kind == .prepare ? nil : then,
        road: !hasRoad
          ? nil : Self.road(route.steps, at: m, kind: kind, then: kind == .prepare ? nil : then))
      let lead = leadDistance(
        kind, step: m, speed: kind == finalKind ? v : early, limits: limits, saying: sentence)
      // The final announcement must still come `finalLeadSeconds` ahead when the vehicle is one
      // along-track sigma ahead of its match; what `nowLeadSeconds` spares beyond that
      // minimum already covers part of it.
      let spare = v * max(0, configuration.nowLeadSeconds - configuration.finalLeadSeconds)
      let lag = max(0, configuration.announcementAccuracyFactor * uncertainty - spare)
      let slack = kind == .now ? margin + lag : margin
      if (kind == .now ? finalLeft : d) > lead + slack {
        // Without fixes the final prompt may fall due before an early one does.
        if finalAhead > 0 && kind != .now { continue }
        break
      }
      // An early announcement right after another one for the same maneuver adds nothing.
      if kind != .now, let last = lastAnnouncement, last.step == m,
        time - last.time < configuration.earlyAfterAnnouncementGaps
          * configuration.minimumGapSeconds
      {
        said[m].insert(kind.flag)
        continue
      }
      if n + 1 < kinds.count {
        let next = kinds[n + 1]
        let nextLead = leadDistance(
          next, step: m, speed: next == finalKind ? v : early, limits: limits,
          saying: ManeuverSentence(
            instructions: instructions, distance: next == .now ? nil : d, then: then,
            road: !hasRoad ? nil : Self.road(route.steps, at: m, kind: next, then: then)))
        if (next == .now ? finalLeft : d) <= nextLead + v * configuration.minimumGapSeconds {
          said[m].insert(kind.flag)
          continue
        }
      }
      for t in kinds[...n] { said[m].insert(t.flag) }
      if kind != .prepare { said[m].insert(.spoken) }
      if finalOnly { said[m].formUnion([.prepare, .approach]) }
      if then != nil, m + 1 <= lastStep {
        said[m + 1].formUnion([.prepare, .approach, .merged])
        if kind != .prepare {
          said[m + 1].insert(.spoken)
          spokenAt[m + 1] = time
        }
        if kind == finalKind { said[m + 1].insert(.mergedFinal) }
      }
      lastAnnouncement = (time, m)
      spokenAt[m] = time
      return DueAnnouncement(
        message: sentence.message, kind: kind, step: m, id: "s\(m).\(kind.rawValue)",
        distance: d)
    }
    return nil
  }

  /// The heads-up due next for a vehicle without fixes, and where it falls due.
  ///
  /// The vehicle was last placed at `position` metres along, in step `current`, and may drive
  /// on at `speed`. The heads-up says the first maneuver after `after` (the last one this
  /// outage's heads-ups said) whose own final prompt was not said (nor, unless it is the
  /// `recap` due as the fixes are lost, any approach or final prompt named it), in its approach
  /// form with its distance from `position` (and the next one as its "then" when that follows
  /// closely, as always). `point` is where the vehicle must be able to have got for it to fall
  /// due: the maneuver's approach lead at `speed` before it.
  ///
  /// A slow vehicle without fixes is not carried past a maneuver, may be standing, and may
  /// drive off: nothing tells when it reaches the next maneuvers, and the prompts due on the way
  /// (often only final ones, among short steps or after a stop) would come after them. So they
  /// are said once the vehicle may be near, with the distance from where it was last placed,
  /// which holds if it stood; the final prompts follow as usual when the estimate or the fixes
  /// are near. The id is the approach's own, or `s<m>.gps<loss>` when an approach or final prompt
  /// named the maneuver before (``AnnouncementFlags/spoken``): in the recap, the driver hears
  /// it again, with the distance left, as the guidance goes blind.
  private mutating func headsUpPlan(
    from current: Int, after: Int, position: Double, speed: Double, recap: Bool
  ) -> (point: Double, step: Int, message: AnnouncementMessage, distance: Double, then: Bool)? {
    var m = max(current, after + 1, 1)
    while m < lastStep && (said[m].contains(.now) || !recap && said[m].contains(.spoken)) {
      m += 1
    }
    guard m < lastStep else { return nil }
    let (limits, v) = timing(step: m, speed: speed)
    let then = thenInstructions(after: m, speed: v)
    let d = max(0, geometry.stepEnd[m] - position)
    let sentence = ManeuverSentence(
      instructions: route.steps[m].instructions, distance: d, then: then,
      road: !hasRoad ? nil : Self.road(route.steps, at: m, kind: .approach, then: then))
    let lead = leadDistance(.approach, step: m, speed: v, limits: limits, saying: sentence)
    return (geometry.stepEnd[m] - lead, m, sentence.message, d, then != nil)
  }

  /// Where a vehicle without fixes must be able to have got for the next heads-up
  /// (``headsUp(from:after:time:position:reach:speed:recap:loss:)``) to fall due, `nil` when none
  /// is to come.
  mutating func headsUpPoint(
    from current: Int, after: Int, position: Double, speed: Double, recap: Bool
  ) -> Double? {
    headsUpPlan(from: current, after: after, position: position, speed: speed, recap: recap)?
      .point
  }

  /// The heads-up due, if any, with a vehicle without fixes last placed at `position`.
  ///
  /// The vehicle may have got to `reach` (``headsUpPlan(from:after:position:speed:recap:)``).
  /// Marks what it says as said; returns it (an id naming the GPS `loss` when a prompt named the
  /// maneuver before), the last maneuver it names, and how many of those it names none named
  /// before.
  mutating func headsUp(
    from current: Int, after: Int, time: Double, position: Double, reach: Double, speed: Double,
    recap: Bool, loss: Int
  ) -> (due: DueAnnouncement, through: Int, new: Int)? {
    guard
      let plan = headsUpPlan(
        from: current, after: after, position: position, speed: speed, recap: recap),
      reach >= plan.point
    else { return nil }
    let m = plan.step
    let named = plan.then ? m...(m + 1) : m...m
    let new = named.count { !said[$0].contains(.spoken) }
    let due = DueAnnouncement(
      message: plan.message, kind: .approach, step: m,
      id: said[m].contains(.spoken) ? "s\(m).gps\(loss)" : "s\(m).approach",
      distance: plan.distance)
    said[m].formUnion([.prepare, .approach, .spoken])
    spokenAt[m] = time
    if plan.then {
      said[m + 1].formUnion([.prepare, .approach, .merged, .spoken])
      spokenAt[m + 1] = time
    }
    lastAnnouncement = (time, m)
    headsUpThrough = named.upperBound
    return (due, headsUpThrough, new)
  }

  /// Metres before maneuver `m` at which its final prompt falls due at `speed`.
  ///
  /// Its lead, the time to say it and the margin of a fix interval of
  /// `announcementIntervalLimit` seconds: what announcements of other kinds (`ahead`) keep
  /// free.
  mutating func finalLead(step m: Int, speed: Double) -> Double {
    let (limits, v) = timing(step: m, speed: speed)
    let kind: AnnouncementKind = m == lastStep ? .approach : .now
    let then = thenInstructions(after: m, speed: v)
    let sentence = ManeuverSentence(
      instructions: route.steps[m].instructions,
      distance: kind == .now ? nil : limits.approachMaximum, then: then,
      road: !hasRoad ? nil : Self.road(route.steps, at: m, kind: kind, then: then))
    let margin =
      v * configuration.announcementIntervalLimit * configuration.announcementMarginFraction
    return leadDistance(kind, step: m, speed: v, limits: limits, saying: sentence) + margin
  }

  /// The limits of step `m`'s mode (``timings``).
  func limits(step m: Int) -> GuidanceConfiguration.ModeLimits { timings[m].limits }

  /// The limits of step `m`'s mode and the speed its announcements are timed at: the speed
  /// driven, at least the mode's floor and the planned fraction of the route's average speed.
  ///
  /// The planned average only speaks for steps travelled the route's main way (a walk to the
  /// car park must not be timed at driving speed). Worked out per step once (``timings``): asked
  /// several times a fix, it read the step and built its mode's limits each time (67
  /// instructions a fix, callgrind on StepwiseBench `perfix`).
  func timing(step m: Int, speed: Double) -> (
    limits: GuidanceConfiguration.ModeLimits, speed: Double
  ) {
    let t = timings[m]
    return (t.limits, max(speed, t.floor))
  }

  /// The lead of the "prepare" announcement at `speed` for a step travelled by `mode`, metres.
  func prepareLead(speed v: Double, limits: GuidanceConfiguration.ModeLimits) -> Double {
    min(limits.prepareMaximum, max(limits.prepareMinimum, v * configuration.prepareLeadSeconds))
  }

  private mutating func leadDistance(
    _ kind: AnnouncementKind, step m: Int, speed v: Double,
    limits: GuidanceConfiguration.ModeLimits,
    saying sentence: ManeuverSentence
  ) -> Double {
    let speech = v * speechDuration(sentence)
    if kind == .now, sentence.then != nil, m + 1 <= lastStep {
      // A pair said as one unit: its first part must end in time for the first maneuver, the
      // whole in time for the second, which comes `gap` metres later.
      let react = max(limits.nowMinimum, v * configuration.nowLeadSeconds)
      // The first part says the main maneuver's own lanes, if the pair says them, and its sign.
      let firstRoad = sentence.road.map {
        ManeuverRoad(lanes: $0.lanesForThen ? [] : $0.lanes, sign: $0.sign)
      }
      let first =
        v
        * speechDuration(
          ManeuverSentence(
            instructions: sentence.instructions, distance: nil, then: nil, road: firstRoad))
      let gap = geometry.stepEnd[m + 1] - geometry.stepEnd[m]
      return max(react + first, react + speech - gap)
    }
    return lead(kind, speed: v, limits: limits) + speech
  }

  /// Metres before its maneuver at which a prompt of `kind` falls due at `speed`, before the
  /// time to say it.
  func lead(
    _ kind: AnnouncementKind, speed v: Double, limits: GuidanceConfiguration.ModeLimits
  ) -> Double {
    switch kind {
    case .prepare:
      prepareLead(speed: v, limits: limits)
    case .approach:
      min(
        limits.approachMaximum, max(limits.approachMinimum, v * configuration.approachLeadSeconds))
    default:
      max(limits.nowMinimum, v * configuration.nowLeadSeconds)
    }
  }

  /// `phrasing.speechDuration(for: sentence.message)`, taken from ``spoken`` when a sentence
  /// said alike was measured lately.
  private mutating func speechDuration(_ sentence: ManeuverSentence) -> Double {
    // A maneuver with road to say is measured each time: few are, and the key does not hold it.
    guard sentence.road == nil else { return phrasing.speechDuration(for: sentence.message) }
    var key = SpeechDurations.Key(
      instructions: sentence.instructions, distance: nil, then: sentence.then)
    if let distance = sentence.distance {
      guard let k = phrasing.spokenDistanceKey(distance) else {
        return phrasing.speechDuration(for: sentence.message)
      }
      key.distance = k
    }
    if let seconds = spoken[key] { return seconds }
    let seconds = phrasing.speechDuration(for: sentence.message)
    spoken.insert(key, seconds)
    return seconds
  }

  /// The road announcement `kind` of maneuver `m` says, or `nil` when it says none.
  ///
  /// The sign on every prompt; the lanes on the approach and final prompts only, not on the "prepare"
  /// one (a minute ahead, lanes change before the maneuver and a lane change that early only
  /// hinders; the prompt stays short). When the prompt goes on to a close next maneuver
  /// ("…, then …"), the next one's lanes are said instead when they advise and are narrower (a
  /// smaller share of the road is preferred) than the main one's, or the main one has none to
  /// advise: the vehicle must be in those lanes by then, and the first maneuver's lanes are
  /// the wider choice it can make on the way.
  private static func road(
    _ steps: [RouteStep], at m: Int, kind: AnnouncementKind, then: String?
  ) -> ManeuverRoad? {
    var lanes = kind == .prepare ? [] : steps[m].lanes
    var lanesForThen = false
    if kind != .prepare, then != nil, m + 1 < steps.count {
      let next = steps[m + 1].lanes
      if ManeuverRoad.advises(next),
        !ManeuverRoad.advises(lanes) || ManeuverRoad.share(next) < ManeuverRoad.share(lanes)
      {
        lanes = next
        lanesForThen = true
      }
    }
    let sign = steps[m].sign
    guard !lanes.isEmpty || sign != nil else { return nil }
    return ManeuverRoad(lanes: lanes, lanesForThen: lanesForThen, sign: sign)
  }

  /// The next maneuver's instructions when it follows maneuver `m` too closely to get its own
  /// early announcement.
  private func thenInstructions(after m: Int, speed v: Double) -> String? {
    guard m + 1 <= lastStep, route.steps[m].waypoint == nil else { return nil }
    let gap = geometry.stepEnd[m + 1] - geometry.stepEnd[m]
    let limits = limits(step: m + 1)
    let instructions = route.steps[m + 1].instructions
    guard !instructions.isEmpty,
      gap
        <= max(
          v * configuration.thenMergeSeconds, limits.nowMinimum * configuration.thenMergeNowMinimums
        )
    else { return nil }
    return instructions
  }
}

extension AnnouncementKind {
  /// The flag that records this maneuver announcement (`prepare`, `approach` or `now`) as made.
  var flag: AnnouncementFlags {
    switch self {
    case .prepare: .prepare
    case .approach: .approach
    default: .now
    }
  }
}

/// The parts of a maneuver sentence: timed from them, built only once it is said.
private struct ManeuverSentence {
  var instructions: String
  var distance: Double?
  var then: String?
  var road: ManeuverRoad?
  var message: AnnouncementMessage {
    .maneuver(instructions: instructions, distance: distance, then: then, road: road)
  }
}

/// The last few maneuver sentences' speech durations.
///
/// They are found by what a sentence's text is made of: the instructions, the distance as
/// said (``Phrasing/spokenDistanceKey(_:)``) and the maneuver that follows. The oldest entry
/// makes room for a new one.
private struct SpeechDurations {
  struct Key: Equatable {
    var instructions: String
    var distance: Int?
    var then: String?
  }

  /// Entries kept: the three announcements of a maneuver and the first part of a pair.
  static let capacity = 4
  private var entries: [(key: Key, seconds: Double)] = []
  private var next = 0

  init() { entries.reserveCapacity(Self.capacity) }

  subscript(key: Key) -> Double? {
    for e in entries where e.key == key { return e.seconds }
    return nil
  }

  mutating func insert(_ key: Key, _ seconds: Double) {
    if entries.count < Self.capacity {
      entries.append((key, seconds))
    } else {
      entries[next] = (key, seconds)
      next = (next + 1) % Self.capacity
    }
  }
}
