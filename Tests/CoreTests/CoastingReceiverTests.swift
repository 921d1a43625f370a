import Geodesy
import Guidance
import GuidanceSettings
import Routes
import Simulation
import TestSupport
import Testing

import func Glibc.sin

/// A receiver that loses the sky and carries its last fix on in a straight line (a "dead
/// reckoning timeout", reported as ordinary fixes) against one that reports exact motion.
///
/// Scenario 072 has the first at length, in Monaco's tunnels.
@Suite struct CoastingReceiverTests {
  /// 500 m east, a quarter circle of radius 150 m to the left (236 m), 400 m north, then a
  /// right turn and 300 m east.
  static let bend: RouteDocument = {
    let start = Coordinate(latitude: 47.14, longitude: 9.52)
    var line = [start]
    var here = start
    for _ in 0..<20 {
      here = here.destination(distance: 25, bearing: 90)
      line.append(here)
    }
    // The arc in 36 chords of 2.5° each.
    let chord = 2 * 150 * sin(1.25 * .pi / 180)
    for i in 0..<36 {
      here = here.destination(distance: chord, bearing: 90 - 2.5 * (Double(i) + 0.5))
      line.append(here)
    }
    for _ in 0..<16 {
      here = here.destination(distance: 25, bearing: 0)
      line.append(here)
    }
    var east = [here]
    for _ in 0..<12 {
      here = here.destination(distance: 25, bearing: 90)
      east.append(here)
    }
    let first = zip(line, line.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
    let steps = [
      RouteStep(instructions: "", distance: 0, transportType: .automobile, polyline: [start]),
      RouteStep(
        instructions: "Turn right onto B Street.", distance: first, transportType: .automobile,
        polyline: line),
      RouteStep(
        instructions: "Your destination is ahead.", distance: 300, transportType: .automobile,
        polyline: east),
    ]
    let route = Route(
      name: "Bend", distance: first + 300, expectedTravelTime: (first + 300) / 12,
      transportType: .automobile, steps: steps)
    return RouteDocument(
      source: Place(name: "Start", coordinate: start),
      destination: Place(name: "Goal", coordinate: here), routes: [route])
  }()

  /// The bend driven at town speeds with 3 m of noise, dark from 450 to 1,000 m (the whole
  /// curve and more; the turn is at 1,136 m), the receiver coasting `coast` seconds into it.
  static func coasting(_ coast: Double, flagged: Bool = false, settle: Double = 5)
    -> SimulatedDrive
  {
    var o = DriveOptions()
    o.settle = settle
    o.profile = .town
    o.noise = 3
    o.seed = 5
    o.dropouts = [450...1000]
    o.coast = coast
    o.coastFlagged = flagged
    return DriveSimulator.drive(bend.routes[0], options: o)
  }

  static func gpsLost(_ events: [NavigationEvent]) -> Bool {
    events.contains {
      if case .gps(.lost) = $0.kind { return true }
      return false
    }
  }

  @Test func aReceiverCoastingStraightOnThroughACurveIsNoDeparture() throws {
    let d = Self.coasting(25)
    // The coasted fixes run straight on: the last is far off the curve.
    let lastCoasted = try #require(
      Array(zip(d.fixes, d.truth)).last { f, t in !t.hasFix && f.coordinate != nil })
    let off = try #require(lastCoasted.0.coordinate?.distance(to: lastCoasted.1.position))
    #expect(off > 100, "the straight line is \(off) m from the truth")

    let events = try runSession(Self.bend, fixes: d.fixes)
    #expect(!events.contains { $0.isOffRoute })
    // The receiver had no sky: that is said, and the estimate along the route carries on.
    #expect(Self.gpsLost(events))
    #expect(events.compactMap(\.stepIndex) == [1, 2])
    let said = events.compactMap(\.announcement).map(\.id)
    #expect(said.contains { $0.hasPrefix("r0.s1.now") }, "\(said)")
    #expect(events.contains { $0.isArrived })
    // Each echo is judged from its own match: those used are the few before the straight line
    // left the curve (the first to leave a second's drift beyond the fix it repeats).
    let coasted = Dictionary(
      uniqueKeysWithValues: zip(d.fixes, d.truth).compactMap { f, t in
        !t.hasFix ? f.coordinate.map { (f.time, $0.distance(to: t.position)) } : nil
      })
    let used = events.compactMap { e in
      e.progressValue != nil && !e.estimated ? coasted[e.time] : nil
    }
    #expect(!used.isEmpty && used.count < 5 && used.allSatisfy { $0 < 5 }, "\(used)")

    // Taken at its word (every receiver counted as reporting exact motion), the same receiver
    // leaves the route in the curve: the rule is what keeps it on.
    var trusting = GuidanceConfiguration()
    trusting.exactLateral = .infinity
    trusting.exactSeconds = 0
    let taken = try runSession(Self.bend, fixes: d.fixes, configuration: trusting)
    #expect(taken.contains { $0.isOffRoute })
  }

  @Test func standingOnTheRoutesVeryStartDoesNotMakeAReceiverExact() throws {
    // The fixes of a 30-s standing start put exactly on the route's first point (a receiver's
    // static hold where a recorded track begins): standing, any receiver repeats itself.
    var fixes = Self.coasting(25, settle: 30).fixes
    let start = Self.bend.routes[0].steps[0].polyline[0]
    for i in fixes.indices.prefix(30) { fixes[i].coordinate = start }
    let events = try runSession(Self.bend, fixes: fixes)
    #expect(!events.contains { $0.isOffRoute })
    #expect(Self.gpsLost(events))
  }

  @Test func coastedFixesMarkedAsEstimatesAreNoDepartureEither() throws {
    let d = Self.coasting(25, flagged: true)
    #expect(d.fixes.contains { $0.quality == .deadReckoning })
    let events = try runSession(Self.bend, fixes: d.fixes)
    #expect(!events.contains { $0.isOffRoute })
    #expect(events.compactMap(\.stepIndex) == [1, 2])
    #expect(events.contains { $0.isArrived })
  }

  @Test func anExactReceiverGoingStraightOnPastTheTurnIsOffRouteNotLost() throws {
    // No noise: speed and course repeat exactly on every straight, as a simulator's do.
    var o = DriveOptions()
    o.profile = .town
    o.seed = 3
    o.deviation = Deviation(at: 1100, angle: 0, length: 300, rejoin: false)
    let d = DriveSimulator.drive(Self.bend.routes[0], options: o)
    let events = try runSession(Self.bend, fixes: d.fixes)
    let left = try #require(d.truth.first { $0.offset > 50 }?.time)
    let reported = try #require(events.first { $0.isOffRoute }?.time)
    #expect(reported - left <= 5, "\(reported - left) s after 50 m off")
    #expect(!Self.gpsLost(events))
  }

  @Test func aReceiverStandingStillRepeatingItselfIsNoEcho() throws {
    let route = makeRoute(legs: [(90, 600, "Your destination is ahead.")])
    let start = Coordinate(latitude: 47.14, longitude: 9.52)
    var fixes: [Fix] = []
    var t = 1_714_550_400.0
    // Drive 200 m at 10 m/s, then stand for a minute with the fix, speed and course frozen
    // (a receiver's static hold).
    for i in 0...20 {
      fixes.append(
        Fix(
          time: t, coordinate: start.destination(distance: 10 * Double(i), bearing: 90),
          speed: i == 0 ? 0 : 10 + 0.01 * Double(i % 3), course: 90 + 0.1 * Double(i % 4),
          horizontalAccuracy: 3))
      t += 1
    }
    let held = start.destination(distance: 200, bearing: 90)
    for _ in 0..<60 {
      fixes.append(Fix(time: t, coordinate: held, speed: 0, course: 91.3, horizontalAccuracy: 3))
      t += 1
    }
    let events = try runSession(route, fixes: fixes)
    #expect(!Self.gpsLost(events))
    #expect(!events.contains { $0.isOffRoute })
  }

}
