import Foundation
import TestSupport
import Testing

/// `stepwise simulate` takes every recipe key of the scenario lab as an option, so a track made
/// by hand is the track the lab makes.
@Suite(.blocking) struct SimulateFlagsTests {
  /// The sentences of an NMEA log, without its `#` header.
  static func body(_ text: String) -> [Substring] {
    text.split(separator: "\n").filter { !$0.hasPrefix("#") }
  }

  @Test(arguments: [
    (
      "Simulations/041-marais-city-everything",
      [
        "--profile", "town", "--noise", "5", "--seed", "41", "--settle", "2",
        "--pull-out", "120:10:4", "--corner-cut", "22", "--hdop", "1",
        "--sentences", "RMC,GGA,GSA", "--canyon", "-40:600:25", "--glitch-every", "50",
        "--gap", "200:12",
      ]
    ),
    (
      "Simulations/045-marais-receiver-silent",
      ["--noise", "5", "--seed", "1", "--silence", "73:12"]
    ),
    (
      "Simulations/072-monaco-tunnels-coasting-receiver",
      ["--profile", "town", "--speed", "60", "--noise", "5", "--seed", "72", "--coast", "20"]
    ),
    (
      "Simulations/074-car-park-outage-poor-first-fixes",
      [
        "--profile", "town", "--speed", "30", "--noise", "4", "--seed", "47", "--hdop", "1.5",
        "--sentences", "RMC,GGA", "--gap", "30:45", "--reacquire", "30",
      ]
    ),
  ])
  func theOptionsMakeTheScenariosTrack(scenario: String, options: [String]) throws {
    let r = try runTool("stepwise", ["simulate", "\(scenario)/route.json"] + options)
    #expect(r.status == 0, "\(r.stderr)")
    let committed = String(
      decoding: readBytes(repositoryFile("\(scenario)/drive.nmea")), as: UTF8.self)
    let made = Self.body(r.stdout)
    #expect(!made.isEmpty)
    #expect(made == Self.body(committed).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 })
  }

  @Test(arguments: [
    (["--canyon", "10:5:20"], "invalid --canyon '10:5:20'"),
    (["--canyon", "1:2"], "invalid --canyon '1:2'"),
    (["--gap", "x:3"], "invalid --gap 'x:3'"),
    (["--silence", "5:-1"], "invalid --silence '5:-1'"),
    (["--pull-out", "90:0"], "invalid --pull-out '90:0'"),
    (["--pull-out", "90::4"], "invalid --pull-out '90::4'"),
    (["--coast", "-1"], "invalid value '-1' for --coast"),
    (["--reacquire", "600"], "invalid value '600' for --reacquire"),
  ])
  func aBadFlawIsRefusedWithStatus2(options: [String], message: String) throws {
    let r = try runTool(
      "stepwise", ["simulate", "Simulations/001-marais-drive/route.json"] + options)
    #expect(r.status == 2)
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(r.stdout.isEmpty)
  }
}
