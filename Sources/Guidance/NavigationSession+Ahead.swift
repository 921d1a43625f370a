import GuidanceSettings
import Routes

extension NavigationSession {
  /// Metres within which a road object of a new route is the same one as an object of the
  /// route it replaces: routers place a tunnel's or a toll booth's start at the same node, give
  /// or take the geometry's resolution.
  public static let sameObjectDistance = 30.0

  /// Announces the road object ahead when it falls due (`ahead` announcements,
  /// ``AheadWatch/due(for:events:scheduler:geometry:phrasing:_:)``).
  mutating func watchAhead(time: Double, into events: inout [NavigationEvent]) {
    guard !ahead.objects.isEmpty else { return }
    let vehicle = AheadWatch.Vehicle(
      time: time, along: distanceAlong, step: currentStep, lastStep: lastStep, speed: speed,
      fixInterval: fixInterval)
    guard
      let due = ahead.due(
        for: vehicle, events: &events, scheduler: &scheduler, geometry: geometry,
        phrasing: phrasing, configuration)
    else { return }
    announce(
      due.message, kind: .ahead, step: currentStep, id: due.id, time: time,
      distance: due.distance, into: &events)
  }

  /// The list of objects ahead that the next `PROGRESS` publishes, when it changed (`nil`
  /// otherwise, and off the route).
  mutating func aheadList() -> [RoadObject]? {
    guard phase == .onRoute else { return nil }
    return ahead.list(at: distanceAlong, length: configuration.aheadListLength)
  }
}
