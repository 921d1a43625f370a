/// Makes the session's announcements into events: their text, their ids (which carry the
/// route's index and revision), and how many were made.
struct Announcer: Sendable {
  let phrasing: any Phrasing
  let routeIndex: Int
  /// The route's revision: 0 for the route guidance started with, n for the n-th route applied
  /// since (select, load, reload, reroute).
  var revision = 0
  /// Number of announcements made so far.
  private(set) var count = 0

  init(phrasing: any Phrasing, routeIndex: Int) {
    self.phrasing = phrasing
    self.routeIndex = routeIndex
  }

  /// The event that says `message`, for step `step`, with `id` (unique within the route's
  /// revision) at `time`.
  mutating func event(
    _ message: AnnouncementMessage, kind: AnnouncementKind, step: Int, id: String, time: Double,
    distance: Double?
  ) -> NavigationEvent {
    count += 1
    let a = Announcement(
      step: step, kind: kind, message: message, text: phrasing.text(for: message),
      distance: distance,
      id: revision == 0 ? "r\(routeIndex).\(id)" : "r\(routeIndex).v\(revision).\(id)")
    return NavigationEvent(time: time, kind: .announce(a))
  }
}
