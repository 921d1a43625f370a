import Foundation
import Geodesy
import Lab
import Routes
import Simulation
import TestSupport
import Testing

/// Mistakes on a rerouted route (`miss:STEP@REV`): spelled, placed on the route of their
/// revision only, and driven in a recorded closed loop that still arrives.
@Suite struct LaterMistakeTests {
  @Test(arguments: ["miss:3@1", "wrong-exit:2@2", "u-turn:800@1", "stop:300:20@1"])
  func mistakesOnALaterRouteAreSpelledBackAsTheyAreWritten(text: String) throws {
    let m = try #require(DrivingMistake(text))
    #expect(m.description == text)
    #expect(m.revision > 0)
    #expect(m.base.revision == 0)
  }

  @Test func revisionZeroIsTheFirstRoute() {
    #expect(DrivingMistake("miss:3@0") == .missTurn(step: 3))
    #expect(DrivingMistake("miss:3@1") == .onRevision(1, .missTurn(step: 3)))
  }

  @Test(arguments: ["ignore@1", "miss:3@", "miss:3@-1", "miss:3@1@2", "miss@1", "@1"])
  func malformedLaterMistakesAreRefused(text: String) {
    #expect(DrivingMistake(text) == nil)
  }

  @Test func aUTurnOnTheNewRouteIsMadeOnlyOnceThatRouteIsFollowed() throws {
    let first = ClosedLoopTests.points
    var driver = ClosedLoopDriver(
      route: first, options: ClosedLoopTests.options(), detours: [],
      mistakes: [.onRevision(1, .uTurn(at: 150))])
    // The first route is driven past 150 m without turning round.
    var samples: [ClosedLoopDriver.Sample] = []
    while samples.last.map({ $0.along < 300 }) ?? true {
      samples.append(driver.step().sample)
    }
    #expect(samples.allSatisfy { $0.revision == 0 })
    #expect(driver.actions.isEmpty)
    // A new route from here, 400 m north: the U-turn comes 150 m along it.
    let here = try #require(samples.last).position
    let next = [here, here.destination(distance: 400, bearing: 0)]
    let taken = driver.offered(revision: 1, route: next)
    #expect(taken)
    var later: [ClosedLoopDriver.Sample] = []
    for _ in 0..<60 { later.append(driver.step().sample) }
    let turned = try #require(later.firstIndex { $0.revision == nil })
    #expect(later[turned - 1].revision == 1 && later[turned - 1].speed == 0)
    #expect(abs(later[turned - 1].along - 150) < 15)
    #expect(driver.actions.map(\.kind) == [.follow, .mistake])
    #expect(driver.actions.last?.mistake == "u-turn:150@1")
    #expect(later.last.map { bearingDifference($0.course, 180) < 1 } == true)
  }

  @Test func theRecordedSecondMistakeIsMadeOnTheNewRouteAndTheDriveArrives() throws {
    let s = try ClosedLoopScenario(
      directory: repositoryFile("Simulations/closed-loop/c07-monaco-missed-turn-twice"),
      read: { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) })
    let run = try #require(s.run)
    let mistakes = run.actions.filter { $0.kind == .mistake }
    #expect(mistakes.map(\.mistake) == ["miss:1", "miss:1@1"])
    let followed = try #require(run.actions.first { $0.kind == .follow && $0.revision == 1 })
    #expect(mistakes[1].time > followed.time)
    let score = try s.score()
    #expect(score.arrived)
    #expect(score.mistakes == 2 && score.reroutes >= 2)
    #expect(score.worstReroutesPerMistake <= 2)
    #expect(score.falseReroutes == 0)
  }
}
