import Geodesy
import Guidance
import Phrasebook
import Routes
import TestSupport
import Testing

/// A session that takes over from another on a new route: no departure, one "new route"
/// announcement, announcement ids of its own, and no maneuver announced twice from the same tier.
@Suite struct NavigationSessionRerouteTests {
  static let start = Coordinate(latitude: 47.14, longitude: 9.52)

  static func fixes(along points: [Coordinate], from t0: Double, speed: Double = 10)
    -> [Fix]
  {
    var out: [Fix] = []
    var t = t0
    for (a, b) in zip(points, points.dropFirst()) {
      let bearing = planarBearing(from: a, to: b)
      let length = a.distance(to: b)
      var done = 0.0
      while done < length {
        out.append(
          Fix(
            time: t, coordinate: a.destination(distance: done, bearing: bearing), speed: speed,
            course: bearing, horizontalAccuracy: 3))
        done += speed
        t += 1
      }
    }
    return out
  }

  @Test func theNewRouteIsSaidOnceAndAManeuverAlreadyAnnouncedIsNotAnnouncedAgain() throws {
    // East 800 m to a left turn, then north 600 m.
    let old = makeRoute(
      start: Self.start, legs: [(90, 800, "Turn left onto A"), (0, 600, "Arrive at Goal")])
    var session = try NavigationSession(document: old, phrasing: Phrasebook(language: .en))
    var events: [NavigationEvent] = []
    let drive = Self.fixes(
      along: [Self.start, Self.start.destination(distance: 700, bearing: 90)], from: 0)
    for f in drive { events += session.ingest(f) }
    let before = events.compactMap(\.announcement)
    #expect(before.contains { $0.kind == .approach && $0.step == 1 })
    // The same turn, reached from where the vehicle is now: a new route of revision 1.
    let here = try #require(drive.last?.coordinate)
    let turn = Self.start.destination(distance: 800, bearing: 90)
    let new = makeRoute(
      start: here,
      legs: [(90, here.distance(to: turn), "Turn left onto A"), (0, 600, "Arrive at Goal")])
    var next = try session.rerouted(onto: new, revision: 1, announce: true)
    var after: [NavigationEvent] = []
    let t0 = (drive.last?.time ?? 0) + 1
    for f in Self.fixes(along: [here, turn, turn.destination(distance: 600, bearing: 0)], from: t0)
    {
      after += next.ingest(f)
    }
    let said = after.compactMap(\.announcement)
    #expect(!said.contains { $0.kind == .depart })
    #expect(!after.contains { if case .route = $0.kind { return true } else { return false } })
    let reroutes = said.filter { $0.kind == .reroute }
    #expect(reroutes.count == 1)
    #expect(reroutes.first?.text.hasPrefix("New route. In ") == true)
    #expect(reroutes.first?.id == "r0.v1.reroute")
    // The approach to the left turn was made on the old route: not again.
    #expect(!said.contains { $0.kind == .approach && $0.step == 1 })
    #expect(said.contains { $0.kind == .now && $0.step == 1 })
    #expect(said.allSatisfy { $0.id.hasPrefix("r0.v1.") })
    #expect(next.routeRevision == 1)
  }

  @Test func aRouteLeadingBackIsAppliedWithoutSayingSo() throws {
    let old = makeRoute(
      start: Self.start, legs: [(90, 800, "Turn left onto A"), (0, 600, "Arrive at Goal")])
    let session = try NavigationSession(document: old, phrasing: Phrasebook(language: .en))
    var next = try session.rerouted(onto: old, revision: 2, announce: false)
    var said: [Announcement] = []
    for f in Self.fixes(
      along: [Self.start, Self.start.destination(distance: 300, bearing: 90)], from: 0)
    {
      said += next.ingest(f).compactMap(\.announcement)
    }
    #expect(!said.contains { $0.kind == .reroute || $0.kind == .depart })
  }
}
