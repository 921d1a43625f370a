import GuidanceSettings
import Matching
import Routes

extension AheadWatch {
  /// The vehicle an `ahead` announcement is timed for: the time, metres along the route, the
  /// step travelled and the last one, metres per second, seconds between fixes.
  struct Vehicle {
    var time: Double, along: Double, step: Int, lastStep: Int, speed: Double, fixInterval: Double
  }

  /// The `ahead` announcement of the road object that falls due for `v`: its message, id and
  /// metres to the object; `nil` when none is due, or when it was folded into the maneuver
  /// prompt last in `events`.
  ///
  /// Timed like a maneuver's approach prompt: its lead at the speed driven (20 s, 120–800 m by
  /// car) plus the time to say it. Said once, never for an object reached or passed, never late:
  /// an object that can no longer be said `aheadMinimumLeadSeconds` before it is given up. It
  /// waits `aheadQuietSeconds` after a maneuver announcement and never talks over a maneuver's
  /// final prompt nor between that prompt and the maneuver: it waits until the maneuver is
  /// passed, and is given up if that is too late.
  mutating func due(
    for v: Vehicle, events: inout [NavigationEvent], scheduler: inout AnnouncementScheduler,
    geometry: RouteGeometry, phrasing: any Phrasing, _ c: GuidanceConfiguration
  ) -> (message: AnnouncementMessage, id: String, distance: Double)? {
    guard let (i, object) = candidate(at: v.along) else { return nil }
    if c.aheadFolding,
      fold(
        i, object, for: v, events: &events, scheduler: &scheduler, geometry: geometry,
        phrasing: phrasing, c)
    {
      return nil
    }
    let (speed, d, lead) = Self.timing(object, for: v, scheduler: scheduler, c)
    // Far from the object nothing can be due (most fixes): no sentence is measured. No
    // announcement of it takes 15 s to say.
    if d > lead + speed * 15 { return nil }
    let message = AnnouncementMessage.ahead(
      object.kind, distance: d, length: object.isPoint ? nil : object.length)
    let speech = phrasing.speechDuration(for: message)
    guard d <= lead + speed * speech else { return nil }
    // Too close to end its sentence `aheadMinimumLeadSeconds` before the object: never late.
    if d < speed * (speech + c.aheadMinimumLeadSeconds) {
      settle(i)
      return nil
    }
    if scheduler.spoke(within: c.aheadQuietSeconds, of: v.time) { return nil }
    // It must wait for the maneuver ahead: its final prompt was said (its own, or as the "then"
    // of the one before) and it is not yet passed, or the announcement would not end
    // `aheadQuietSeconds` before that prompt falls due.
    if scheduler.saidFinal(v.step) { return nil }
    let toManeuver = geometry.stepEnd[v.step] - v.along
    let final = scheduler.finalLead(step: v.step, speed: speed)
    if toManeuver - speed * (speech + c.aheadQuietSeconds) < final { return nil }
    settle(i)
    return (message, "ahead.\(i)", d)
  }

  /// The speed an `ahead` announcement of `object` is timed at, the metres to the object, and
  /// the lead before the time to say it: the approach prompt's (20 s at that speed, within the
  /// mode's limits) and a margin of a fix interval.
  private static func timing(
    _ object: RoadObject, for v: Vehicle, scheduler: AnnouncementScheduler,
    _ c: GuidanceConfiguration
  ) -> (v: Double, d: Double, lead: Double) {
    let (limits, speed) = scheduler.timing(step: v.step, speed: v.speed)
    let margin =
      speed * min(v.fixInterval, c.announcementIntervalLimit) * c.announcementMarginFraction
    let approach = min(
      limits.approachMaximum, max(limits.approachMinimum, speed * c.approachLeadSeconds))
    return (speed, object.start - v.along, approach + margin)
  }

  /// Folds object `i` into the maneuver prompt made at this fix (the last of `events`) when its
  /// own announcement would have to wait for that maneuver: it would fall due within
  /// `aheadQuietSeconds` of the prompt, or, on the maneuver's approach or final prompt, where
  /// it waits until the maneuver is passed (and may then be too late to be said at all).
  ///
  /// The clause is said with the prompt, so the object is said once and no later than its own
  /// announcement would have been; the prompt must still end `aheadMinimumLeadSeconds` before
  /// the object, or nothing is folded. Returns whether it was.
  private mutating func fold(
    _ i: Int, _ object: RoadObject, for vehicle: Vehicle, events: inout [NavigationEvent],
    scheduler: inout AnnouncementScheduler, geometry: RouteGeometry, phrasing: any Phrasing,
    _ c: GuidanceConfiguration
  ) -> Bool {
    guard let last = events.indices.last, events[last].time == vehicle.time,
      case .announce(let prompt) = events[last].kind,
      [.prepare, .approach, .now].contains(prompt.kind),
      case .maneuver(let instructions, let distance, let then, let road) = prompt.message
    else { return false }
    let (v, d, lead) = Self.timing(object, for: vehicle, scheduler: scheduler, c)
    let own = AnnouncementMessage.ahead(
      object.kind, distance: d, length: object.isPoint ? nil : object.length)
    let speech = phrasing.speechDuration(for: own)
    // Metres until its own announcement falls due (0 or less: due now).
    let dueIn = d - (lead + v * speech)
    let toManeuver = geometry.stepEnd[prompt.step] - vehicle.along
    let final: AnnouncementKind = prompt.step == vehicle.lastStep ? .approach : .now
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
    settle(i)
    var a = prompt
    a.message = message
    a.text = phrasing.text(for: message)
    events[last] = NavigationEvent(
      time: vehicle.time, kind: .announce(a), estimated: events[last].estimated)
    return true
  }
}
