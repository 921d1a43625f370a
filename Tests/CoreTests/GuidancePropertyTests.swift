import Geodesy
import Guidance
import Phrasebook
import Routes
import Simulation
import TestSupport
import Testing

@Suite struct GuidancePropertyTests {
  static let townRoute = GuidanceProperties.townRoute

  @Test(arguments: [0.0, 5, 10])
  func finalAnnouncementsComeBeforeEveryManeuver(noise: Double) throws {
    for seed in UInt64(1)...5 {
      var o = DriveOptions()
      o.noise = noise
      o.seed = seed
      let drive = DriveSimulator.drive(Self.townRoute.routes[0], options: o)
      let events = try runSession(Self.townRoute, fixes: drive.fixes)
      try GuidanceProperties.checkAnnouncementsBeforeManeuvers(Self.townRoute, drive, events)
      #expect(GuidanceProperties.duplicateIDs(events).isEmpty)
    }
  }

  @Test(arguments: [0.0, 10])
  func cleanAndNoisyDrivesNeverGoOffRoute(noise: Double) throws {
    for seed in UInt64(1)...20 {
      var o = DriveOptions()
      o.noise = noise
      o.seed = seed
      let drive = DriveSimulator.drive(Self.townRoute.routes[0], options: o)
      let events = try runSession(Self.townRoute, fixes: drive.fixes)
      #expect(GuidanceProperties.offRouteCount(events) == 0, "seed \(seed)")
      #expect(
        events.contains {
          if case .arrived = $0.kind { return true }
          return false
        })
    }
  }

  @Test func arrivalIsWithin25MetresOfTheDestination() throws {
    for seed in UInt64(1)...10 {
      var o = DriveOptions()
      o.noise = 5
      o.seed = seed
      let drive = DriveSimulator.drive(Self.townRoute.routes[0], options: o)
      let events = try runSession(Self.townRoute, fixes: drive.fixes)
      let arrival = try #require(
        events.first {
          if case .arrived = $0.kind { return true }
          return false
        })
      let truth = try #require(drive.truth.first { $0.time == arrival.time })
      let end = Self.townRoute.routes[0].steps.last!.polyline.last!
      #expect(truth.position.distance(to: end) <= 25, "seed \(seed)")
    }
  }

  @Test(arguments: [30.0, 60, 90, -60])
  func deviationIsReportedWithinFiveFixesOfBeing50MetresOff(angle: Double) throws {
    for seed in UInt64(1)...5 {
      var o = DriveOptions()
      o.noise = 5
      o.seed = seed
      o.deviation = Deviation(at: 550, angle: angle, length: 250, rejoin: true)
      let drive = DriveSimulator.drive(Self.townRoute.routes[0], options: o)
      let events = try runSession(Self.townRoute, fixes: drive.fixes)
      let fiftyOff = try #require(drive.truth.firstIndex { $0.offset >= 50 })
      let off = try #require(events.first { $0.isOffRoute }, "seed \(seed)")
      let offIndex = try #require(drive.truth.firstIndex { $0.time == off.time })
      #expect(offIndex - fiftyOff <= 5, "angle \(angle) seed \(seed): \(offIndex - fiftyOff) fixes")
      // And back on route afterwards, with guidance resumed to the end.
      #expect(events.contains { $0.kind == .onRoute })
      #expect(
        events.contains {
          if case .arrived = $0.kind { return true }
          return false
        })
      // No maneuver announcements while off route.
      var offRoute = false
      for e in events {
        if e.isOffRoute { offRoute = true }
        if e.kind == .onRoute { offRoute = false }
        if offRoute, let a = e.announcement {
          #expect(
            ![.prepare, .approach, .now].contains(a.kind), "announcement while off route: \(a.text)"
          )
        }
      }
    }
  }

  @Test func outAndBackRouteIsFollowedWithoutSkippingOrJumping() throws {
    let doc = makeRoute(legs: [
      (90, 500, "Make a U-turn"),
      (270, 300, "Turn right onto North Road"),
      (0, 200, "Turn around at the end of North Road"),
      (180, 200, "Turn right"),
      (270, 200, "Your destination is ahead"),
    ])
    for seed in UInt64(1)...10 {
      var o = DriveOptions()
      o.noise = 8
      o.seed = seed
      let drive = DriveSimulator.drive(doc.routes[0], options: o)
      let events = try runSession(doc, fixes: drive.fixes)
      let steps = events.compactMap(\.stepIndex)
      #expect(steps == Array(1...5), "seed \(seed): \(steps)")
      #expect(GuidanceProperties.offRouteCount(events) == 0, "seed \(seed)")
      // Progress never jumps ahead of the truth by more than the noise allows.
      let truthByTime = Dictionary(uniqueKeysWithValues: drive.truth.map { ($0.time, $0) })
      for e in events {
        guard let p = e.progressValue, let t = truthByTime[e.time] else { continue }
        #expect(abs(p.distanceAlong - t.distanceAlong) < 60, "seed \(seed) at \(e.time)")
      }
    }
  }

  @Test func figureOfEightIsFollowedThroughTheCrossing() throws {
    // Square loop east-north-west-south, then through the start again and a second loop.
    let doc = makeRoute(legs: [
      (90, 300, "Turn left"), (0, 300, "Turn left"), (270, 300, "Turn left"),
      (180, 600, "Turn right"), (270, 300, "Turn right"), (0, 300, "Turn right"),
      (90, 300, "Arrive"),
    ])
    for seed in UInt64(1)...5 {
      var o = DriveOptions()
      o.noise = 8
      o.seed = seed
      let drive = DriveSimulator.drive(doc.routes[0], options: o)
      let events = try runSession(doc, fixes: drive.fixes)
      #expect(events.compactMap(\.stepIndex) == Array(1...7), "seed \(seed)")
      #expect(GuidanceProperties.offRouteCount(events) == 0)
      try GuidanceProperties.checkAnnouncementsBeforeManeuvers(doc, drive, events)
    }
  }

  @Test func gpsDropoutReportsLossHoldsProgressAndResumes() throws {
    var o = DriveOptions()
    o.noise = 5
    o.dropouts = [700...1100]
    let drive = DriveSimulator.drive(Self.townRoute.routes[0], options: o)
    let events = try runSession(Self.townRoute, fixes: drive.fixes)
    let lost = try #require(events.firstIndex { $0.kind == .gps(.lost) })
    let back = try #require(events.firstIndex { $0.kind == .gps(.acquired) })
    #expect(lost < back)
    #expect(events.filter { $0.kind == .gps(.lost) }.count == 1)
    #expect(GuidanceProperties.offRouteCount(events) == 0)
    // While lost, progress, steps and announcements come only from dead reckoning, marked as
    // estimated, and still before the vehicle reaches each maneuver.
    for e in events[lost..<back] where e.kind != .gps(.lost) {
      if e.announcement?.kind != .gps { #expect(e.estimated) }
    }
    try GuidanceProperties.checkAnnouncementsBeforeManeuvers(Self.townRoute, drive, events)
    #expect(
      events.contains {
        if case .arrived = $0.kind { return true }
        return false
      })
  }

  @Test func slowWalkGetsAnnouncementsInTime() throws {
    let doc = makeRoute(
      legs: [(0, 150, "Turn right"), (90, 60, "Turn left"), (0, 200, "Arrive")], mode: .walking,
      spacing: 10)
    var o = DriveOptions()
    o.noise = 3
    let drive = DriveSimulator.drive(doc.routes[0], options: o)
    let events = try runSession(doc, fixes: drive.fixes)
    try GuidanceProperties.checkAnnouncementsBeforeManeuvers(doc, drive, events)
    #expect(GuidanceProperties.offRouteCount(events) == 0)
  }

  @Test func closeManeuversAreMergedWithThen() throws {
    let doc = makeRoute(legs: [
      (90, 800, "Turn left onto Short Lane"), (0, 60, "Turn right onto Long Road"),
      (90, 800, "Arrive"),
    ])
    let drive = DriveSimulator.drive(doc.routes[0], options: DriveOptions())
    let events = try runSession(doc, fixes: drive.fixes)
    let texts = events.compactMap(\.announcement).map(\.text)
    #expect(texts.contains { $0.contains("then turn right onto Long Road") }, "\(texts)")
    // The second maneuver gets no early announcements of its own, only its final one.
    let second = events.compactMap(\.announcement).filter { $0.step == 2 }.map(\.kind)
    #expect(!second.contains(.prepare) && !second.contains(.approach), "\(second)")
  }
}
