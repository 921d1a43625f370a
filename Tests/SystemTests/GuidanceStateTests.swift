import Daemon
import Foundation
import Geodesy
import Guidance
import GuidanceSettings
import Phrasebook
import TestSupport
import Testing

/// The session's explicit states: the phase, the announcement flags and their on-disk values, the
/// progress file's versions, and the one rule for when silence must be checked.
@Suite(.blocking) struct GuidanceStateTests {
  @Test func announcementFlagRawValuesAreStable() {
    // These numbers are written to progress files: they must never change meaning.
    #expect(AnnouncementFlags.prepare.rawValue == 1)
    #expect(AnnouncementFlags.approach.rawValue == 2)
    #expect(AnnouncementFlags.now.rawValue == 4)
    #expect(AnnouncementFlags.stepStarted.rawValue == 8)
    #expect(AnnouncementFlags.merged.rawValue == 16)
    #expect(AnnouncementFlags.mergedFinal.rawValue == 32)
    #expect(AnnouncementFlags.passed.rawValue == 255)
    let all: AnnouncementFlags = [.prepare, .approach, .now, .stepStarted, .merged, .mergedFinal]
    #expect(AnnouncementFlags.passed.isSuperset(of: all))
    #expect(
      GuidancePhase.allCases.map(\.rawValue) == [
        "acquiring", "joining", "onRoute", "offRoute", "arrived",
      ])
  }

  @Test func aVersionOneProgressFileStillLoads() throws {
    let dir = try StateStoreTests.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let doc = GuidanceProperties.townRoute
    let store = StateStore(directory: dir)
    try store.saveRoute(doc, routeIndex: 0, routeFile: nil)
    for (offRoute, arrived, phase) in [
      (false, false, GuidancePhase.onRoute), (true, false, .offRoute), (true, true, .arrived),
    ] {
      // Exactly what the first progress format wrote.
      let v1 = """
        {"format":"stepwise-state","version":1,"route":"\(StateStore.fingerprint(doc, 0))",\
        "routeIndex":0,"distanceAlong":812.5,"currentStep":3,"said":[255,255,15,1,0,0],\
        "offRoute":\(offRoute),"arrived":\(arrived),"lastFixTime":1714550460,"speed":12.5,\
        "gpsLost":false,"gpsLossCount":0,"offRouteCount":1,"reckonedSteps":0}
        """
      try Data(v1.utf8).write(to: URL(fileURLWithPath: store.progressPath))
      let (result, problem) = store.load()
      #expect(problem == nil)
      let snap = try #require(try result.get().snapshot)
      #expect(snap.phase == phase)
      #expect(
        snap.said == [
          .passed, .passed, [.prepare, .approach, .now, .stepStarted], .prepare, [], [],
        ])
      #expect(snap.offRouteCount == 1 && snap.currentStep == 3)
    }
  }

  @Test func progressIsWrittenAsVersionTwoWithItsPhase() throws {
    let dir = try StateStoreTests.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let doc = GuidanceProperties.townRoute
    let store = StateStore(directory: dir)
    try store.saveRoute(doc, routeIndex: 0, routeFile: nil)
    var snap = StateStoreTests.snap
    snap.phase = .offRoute
    try store.saveProgress(snap, of: doc)
    let text = try String(contentsOfFile: store.progressPath, encoding: .utf8)
    #expect(text.contains("\"version\":2") && text.contains("\"phase\":\"offRoute\""))
    #expect(!text.contains("\"arrived\""))
    #expect(try store.load().result.get().snapshot == snap)
    // A phase no departed session can be in is refused, and the route starts afresh.
    try Data(text.replacingOccurrences(of: "offRoute\"", with: "acquiring\"").utf8).write(
      to: URL(fileURLWithPath: store.progressPath))
    let (result, problem) = store.load()
    #expect(try result.get().snapshot == nil)
    #expect(problem != nil)
  }

  @Test func silenceChecksFollowThePhaseAndTheFixes() throws {
    var s = try GPSDEngineLoopTests.session()
    #expect(s.phase == .acquiring && s.nextSilenceCheck(now: 100) == nil)
    let start = EngineTickTests.start
    _ = s.ingest(Fix(time: 100, coordinate: start, speed: 0))
    #expect(s.phase == .onRoute)
    let lost = s.configuration.gpsLostAfter
    // Standing: one check, when the loss falls due.
    #expect(
      s.nextSilenceCheck(now: 101) == .init(lossDue: 100 + lost, periodic: false))
    _ = s.ingest(
      Fix(
        time: 101, coordinate: Coordinate(latitude: 47.14, longitude: 9.52012), speed: 10,
        course: 90))
    // Moving: periodic checks for dead reckoning, and the loss.
    #expect(s.nextSilenceCheck(now: 102) == .init(lossDue: 101 + lost, periodic: true))
    _ = s.silence(at: 101 + lost)
    #expect(s.gpsLost)
    #expect(s.nextSilenceCheck(now: 101 + lost) == .init(lossDue: nil, periodic: true))
    #expect(
      s.nextSilenceCheck(now: 101 + NavigationSession.deadReckoningLimit) == nil,
      "nothing left to check once dead reckoning ends and the loss is said")
  }
}
