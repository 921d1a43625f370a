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
    let c = configuration
    let (limits, v) = scheduler.timing(step: currentStep, speed: speed)
    let d = object.start - distanceAlong
    let margin = v * min(fixInterval, c.announcementIntervalLimit) * c.announcementMarginFraction
    let approach = min(
      limits.approachMaximum, max(limits.approachMinimum, v * c.approachLeadSeconds))
    // Far from the object nothing can be due (most fixes): no sentence is measured. No
    // announcement of it takes 15 s to say.
    if d > approach + v * 15 + margin { return }
    let message = AnnouncementMessage.ahead(
      object.kind, distance: d, length: object.isPoint ? nil : object.length)
    let speech = phrasing.speechDuration(for: message)
    guard d <= approach + v * speech + margin else { return }
    // Too close to end its sentence `aheadMinimumLeadSeconds` before the object: never late.
    if d < v * (speech + c.aheadMinimumLeadSeconds) { return ahead.settle(i) }
    if let last = scheduler.lastAnnouncement, time - last.time < c.aheadQuietSeconds { return }
    if holdsForManeuver(speed: v, speech: speech) { return }
    ahead.settle(i)
    announce(
      message, kind: .ahead, step: currentStep, id: "ahead.\(i)", time: time, distance: d,
      into: &events)
  }

  /// Whether an announcement `speech` seconds long must wait for the maneuver ahead: its final
  /// prompt was said (its own, or as the "then" of the one before) and it is not yet passed, or
  /// the announcement would not end `aheadQuietSeconds` before that prompt falls due.
  private mutating func holdsForManeuver(speed v: Double, speech: Double) -> Bool {
    let m = currentStep
    let final: AnnouncementFlags = m == lastStep ? .approach : .now
    let said = scheduler.said[m]
    if said.contains(final) || said.contains(.mergedFinal) { return true }
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
