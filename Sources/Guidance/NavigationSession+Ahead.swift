import GuidanceSettings
import Routes

extension NavigationSession {
  /// Metres within which a road object of a new route is the same one as an object of the
  /// route it replaces: routers place a tunnel's or a toll booth's start at the same node, give
  /// or take the geometry's resolution.
  public static let sameObjectDistance = 30.0

  /// Announces the road object ahead when it falls due (`ahead` announcements, ``AheadWatch``).
  ///
  /// Timed like a maneuver's approach prompt: its lead at the speed driven (20 s, 120–800 m by
  /// car) plus the time to say it. Said once, never for an object reached or passed, never late:
  /// an object that can no longer be said `aheadMinimumLeadSeconds` before it is given up. It
  /// waits `aheadQuietSeconds` after a maneuver announcement and never talks over a maneuver's
  /// final prompt nor between that prompt and the maneuver: it waits until the maneuver is
  /// passed, and is given up if that is too late.
  mutating func watchAhead(time: Double, into events: inout [NavigationEvent]) {
    guard !ahead.objects.isEmpty, let (i, object) = ahead.candidate(at: distanceAlong) else {
      return
    }
    if configuration.aheadFolding, foldAhead(i, object, time: time, into: &events) { return }
    let c = configuration
    let (v, d, lead) = aheadTiming(object)
    // Far from the object nothing can be due (most fixes): no sentence is measured. No
    // announcement of it takes 15 s to say.
    if d > lead + v * 15 { return }
    let message = AnnouncementMessage.ahead(
      object.kind, distance: d, length: object.isPoint ? nil : object.length)
    let speech = phrasing.speechDuration(for: message)
    guard d <= lead + v * speech else { return }
    // Too close to end its sentence `aheadMinimumLeadSeconds` before the object: never late.
    if d < v * (speech + c.aheadMinimumLeadSeconds) { return ahead.settle(i) }
    if scheduler.spoke(within: c.aheadQuietSeconds, of: time) { return }
    if holdsForManeuver(speed: v, speech: speech) { return }
    ahead.settle(i)
    announce(
      message, kind: .ahead, step: currentStep, id: "ahead.\(i)", time: time, distance: d,
      into: &events)
  }

  /// The speed an `ahead` announcement of `object` is timed at, the metres to the object, and
  /// the lead before the time to say it: the approach prompt's (20 s at that speed, within the
  /// mode's limits) and a margin of a fix interval.
  private func aheadTiming(_ object: RoadObject) -> (v: Double, d: Double, lead: Double) {
    let c = configuration
    let (limits, v) = scheduler.timing(step: currentStep, speed: speed)
    let margin = v * min(fixInterval, c.announcementIntervalLimit) * c.announcementMarginFraction
    let approach = min(
      limits.approachMaximum, max(limits.approachMinimum, v * c.approachLeadSeconds))
    return (v, object.start - distanceAlong, approach + margin)
  }

  /// Folds object `i` into the maneuver prompt made at this fix (the last of `events`) when its
  /// own announcement would have to wait for that maneuver: it would fall due within
  /// `aheadQuietSeconds` of the prompt, or, on the maneuver's approach or final prompt, where
  /// it waits until the maneuver is passed (and may then be too late to be said at all).
  ///
  /// The clause is said with the prompt, so the object is said once and no later than its own
  /// announcement would have been; the prompt must still end `aheadMinimumLeadSeconds` before
  /// the object, or nothing is folded. Returns whether it was.
  private mutating func foldAhead(
    _ i: Int, _ object: RoadObject, time: Double, into events: inout [NavigationEvent]
  ) -> Bool {
    guard let last = events.indices.last, events[last].time == time,
      case .announce(let prompt) = events[last].kind,
      [.prepare, .approach, .now].contains(prompt.kind),
      case .maneuver(let instructions, let distance, let then, let road) = prompt.message
    else { return false }
    let c = configuration
    let (v, d, lead) = aheadTiming(object)
    let own = AnnouncementMessage.ahead(
      object.kind, distance: d, length: object.isPoint ? nil : object.length)
    let speech = phrasing.speechDuration(for: own)
    // Metres until its own announcement falls due (0 or less: due now).
    let dueIn = d - (lead + v * speech)
    let toManeuver = geometry.stepEnd[prompt.step] - distanceAlong
    let final: AnnouncementKind = prompt.step == lastStep ? .approach : .now
    let quiet = dueIn <= v * c.aheadQuietSeconds
    let held =
      prompt.kind != .prepare && dueIn < toManeuver
      && (prompt.kind == final
        || dueIn
          > toManeuver - scheduler.finalLead(step: prompt.step, speed: v) - v
          * (speech + c.aheadQuietSeconds))
    guard quiet || held else { return false }
    var folded = road ?? ManeuverRoad(lanes: [])
    folded.ahead = AheadClause(
      kind: object.kind, distance: d, length: object.isPoint ? nil : object.length,
      afterManeuver: object.start > geometry.stepEnd[prompt.step])
    let message = AnnouncementMessage.maneuver(
      instructions: instructions, distance: distance, then: then, road: folded)
    // Never late: the prompt with its clause ends `aheadMinimumLeadSeconds` before the object.
    guard d >= v * (phrasing.speechDuration(for: message) + c.aheadMinimumLeadSeconds) else {
      return false
    }
    ahead.settle(i)
    var a = prompt
    a.message = message
    a.text = phrasing.text(for: message)
    events[last] = NavigationEvent(
      time: time, kind: .announce(a), estimated: events[last].estimated)
    return true
  }

  /// Whether an announcement `speech` seconds long must wait for the maneuver ahead: its final
  /// prompt was said (its own, or as the "then" of the one before) and it is not yet passed, or
  /// the announcement would not end `aheadQuietSeconds` before that prompt falls due.
  private mutating func holdsForManeuver(speed v: Double, speech: Double) -> Bool {
    let m = currentStep
    if scheduler.saidFinal(m) { return true }
    let toManeuver = geometry.stepEnd[m] - distanceAlong
    let lead = scheduler.finalLead(step: m, speed: v)
    return toManeuver - v * (speech + configuration.aheadQuietSeconds) < lead
  }

  /// The list of objects ahead that the next `PROGRESS` publishes, when it changed (`nil`
  /// otherwise, and off the route).
  mutating func aheadList() -> [RoadObject]? {
    guard phase == .onRoute else { return nil }
    return ahead.list(at: distanceAlong, length: configuration.aheadListLength)
  }
}
