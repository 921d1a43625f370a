import Guidance
import Lab
import Phrasebook
import Routes
import Simulation
import TestSupport
import Testing

/// Outages of 10–60 s cut out of simulated drives at any point, around maneuvers too, scored
/// against the same drives without them (issue #35's measures).
@Suite struct OutageScoreTests {
  static let marais = repositoryFile("Simulations/001-marais-drive")
  static let a8 = repositoryFile("Simulations/027-a8-imperial-highway")
  static let liechtenstein = repositoryFile("Simulations/040-liechtenstein-glitches-and-gaps")

  /// Every outage of `lengths` seconds starting at each of `starts`, on `seeds`.
  static func scores(
    _ directory: String, profile: SpeedProfile?, seeds: [UInt64], starts: [Double],
    lengths: [Double]
  ) throws -> [(String, OutageScore)] {
    let scenario = try Scenario(directory: directory)
    var out: [(String, OutageScore)] = []
    for seed in seeds {
      var o = DriveOptions()
      o.profile = profile
      o.noise = 5
      o.seed = seed
      o.tunnels = false
      for at in starts {
        for length in lengths {
          let score = try OutageScore(
            document: scenario.document, routeIndex: scenario.routeIndex,
            phrasing: Phrasebook(language: .en), options: o, outage: at...(at + length))
          out.append(("seed \(seed), \(Int(at))+\(Int(length)) s", score))
        }
      }
    }
    return out
  }

  static func check(_ all: [(String, OutageScore)], steady: Bool = false) {
    var compared = 0
    var returns = 0
    for (name, s) in all {
      #expect(s.unprompted.isEmpty, "\(name): maneuvers \(s.unprompted) prompted late or never")
      #expect(s.falseOffRoute == 0, "\(name): off-route")
      #expect(s.offRouteAfterReturn == 0, "\(name): off-route after the return")
      #expect(s.backwardJump <= 10, "\(name): jumped \(s.backwardJump) m back")
      if let e = s.returnError, s.steady, !s.held {
        returns += 1
        #expect(e <= 0.05 * s.blindDistance, "\(name): \(e) m off after \(s.blindDistance) m")
      }
      for p in s.prompts where p.steady {
        guard let shift = p.shift else { continue }
        compared += 1
        #expect(abs(shift) <= 2, "\(name): \(p.id) \(shift) s off the schedule")
      }
    }
    if steady {
      #expect(compared > 0, "no prompt from an estimate to compare")
      #expect(returns > 0, "no return at steady speed to measure")
    }
  }

  @Test func steadyDrivesKeepTheirScheduleThroughOutages() throws {
    // The classic model: 50 km/h, slowing only for turns; the A8 has long steady stretches.
    Self.check(
      try Self.scores(
        Self.a8, profile: nil, seeds: [1, 2, 3], starts: [30, 90, 150, 210],
        lengths: [10, 30, 60]), steady: true)
    Self.check(
      try Self.scores(
        Self.marais, profile: nil, seeds: [1, 2], starts: [30, 60, 90, 120], lengths: [10, 30, 60]
      ))
  }

  @Test func townAndHighwayDrivesStayInTimeThroughOutages() throws {
    // Changing speed: accelerating, braking for turns and bends.
    Self.check(
      try Self.scores(
        Self.marais, profile: .town, seeds: [4, 5], starts: [40, 80, 120], lengths: [20, 45]))
    Self.check(
      try Self.scores(
        Self.liechtenstein, profile: .highway, seeds: [6], starts: [60, 150, 300],
        lengths: [30, 60]))
  }
}
