import Geodesy
import Guidance
import Lab
import TestSupport
import Testing

/// The lab replays tracks with the daemon's rule for silence: a receiver that says nothing at
/// all is reported as silent 5 s after its last epoch, so the goldens cover GPS loss by silence.
@Suite struct ReplaySilenceTests {
  @Test func silenceIsReportedOnlyAfterAGapLongerThanTheLossLimit() {
    var rule = ReplaySilence(lostAfter: 5)
    #expect(rule.before(100) == nil)
    #expect(rule.before(105) == nil)
    #expect(rule.before(112) == 110)
    // An epoch from the past does not move the newest time back.
    #expect(rule.before(90) == nil)
    #expect(rule.before(117.5) == 117)
  }

  static let silent = repositoryFile("Simulations/045-marais-receiver-silent")

  @Test func theSilentReceiverScenarioLosesTheGPSAndStillAnnouncesTheTurn() throws {
    let scenario = try Scenario(directory: Self.silent)
    #expect(scenario.silences == [73...85])
    let events = try scenario.events()
    let lost = try #require(events.first { $0.kind == .gps(.lost) })
    let fixes = try scenario.trackFixes()
    let lastBefore = try #require(fixes.last { $0.time < lost.time })
    #expect(lost.time == lastBefore.time + 5)
    #expect(!fixes.contains { $0.time > lastBefore.time && $0.time <= lost.time })
    let turn = try #require(events.first { $0.announcement?.id == "r0.s4.now" })
    #expect(turn.time == lost.time)
    // Fed only the epochs, the session makes the same estimates when the fixes return: the
    // same announcement at the same time (an edge's silence only makes it come on time).
    var plain = try scenario.session()
    var without: [NavigationEvent] = []
    for fix in fixes { without += plain.ingest(fix) }
    #expect(without.first { $0.announcement?.id == "r0.s4.now" }?.time == turn.time)
  }
}
