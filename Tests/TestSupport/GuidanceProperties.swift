import Geodesy
import Guidance
import Matching
import Phrasebook
import Routes
import Simulation
import Testing

/// Checks of the guidance promises on whole drives: announcements before maneuvers, no false
/// off-route, quick deviation reports, arrival where the route ends, nothing skipped.
public enum GuidanceProperties {
  /// A small town drive of five legs, used by many suites.
  public static let townRoute = makeRoute(legs: [
    (90, 400, "Turn left onto A Street"),
    (0, 300, "Turn right onto B Street"),
    (90, 120, "Turn right onto C Street"),
    (180, 600, "Turn left onto D Avenue"),
    (90, 900, "Your destination is on the right"),
  ])

  /// When the vehicle (truth) first reached `s` metres along the route.
  public static func timeReaching(_ s: Double, in drive: SimulatedDrive) -> Double? {
    drive.truth.first { $0.offset == 0 && $0.distanceAlong >= s - 0.01 }?.time
  }

  /// Every maneuver's final announcement came before the vehicle reached the maneuver point.
  public static func checkAnnouncementsBeforeManeuvers(
    _ doc: RouteDocument, _ drive: SimulatedDrive, _ events: [NavigationEvent],
    in context: String = "", sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let session = try NavigationSession(document: doc, phrasing: Phrasebook())
    let g = session.geometry
    let steps = doc.routes[0].steps
    let announcements = events.compactMap { e in e.announcement.map { (e.time, $0) } }
    for m in 1..<steps.count {
      guard let reached = timeReaching(g.stepEnd[m], in: drive), !drive.skips(g.stepEnd[m]) else {
        continue
      }
      let own = announcements.filter {
        $0.1.step == m && [.prepare, .approach, .now].contains($0.1.kind)
      }
      let merged = announcements.filter {
        $0.1.step == m - 1 && [.approach, .now].contains($0.1.kind)
          && {
            if case .maneuver(_, _, let then, _) = $0.1.message { return then != nil }
            return false
          }($0)
      }
      let last = (own + merged).map(\.0).max()
      if m == steps.count - 1 {
        // The arrival: its announcement comes when arriving; no earlier announcement is required
        // when the last step is short.
        continue
      }
      #expect(
        last != nil, "maneuver \(m) (\(steps[m].instructions)) was never announced\(context)",
        sourceLocation: sourceLocation)
      if let last {
        #expect(
          last < reached,
          "maneuver \(m): final announcement at \(last - drive.truth[0].time) s, reached at \(reached - drive.truth[0].time) s\(context)",
          sourceLocation: sourceLocation)
      }
    }
  }

  public static func offRouteCount(_ events: [NavigationEvent]) -> Int {
    events.filter(\.isOffRoute).count
  }

  public static func duplicateIDs(_ events: [NavigationEvent]) -> [String] {
    var seen = Set<String>()
    var dups: [String] = []
    for a in events.compactMap(\.announcement) where !seen.insert(a.id).inserted {
      dups.append(a.id)
    }
    return dups
  }
}
