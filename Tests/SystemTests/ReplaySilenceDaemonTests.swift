import Foundation
import TestSupport
import Testing

/// The daemon's replays report a receiver that says nothing at all the way the lab does: its
/// `--fast` and paced replays of the silent-receiver scenario both give the scenario's golden.
@Suite(.blocking, .serialized) struct ReplaySilenceDaemonTests {
  static let scenario = "Simulations/045-marais-receiver-silent"

  @Test(arguments: [["--fast"], ["--replay-speed", "60"]])
  func theDaemonsReplayGivesTheGolden(pace: [String]) throws {
    let r = try runTool(
      "stepwised",
      ["--route", "\(Self.scenario)/route.json", "--json"] + pace + ["\(Self.scenario)/drive.nmea"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").filter { !$0.contains(#""class":"PROGRESS""#) }
    let golden = String(
      decoding: readBytes(repositoryFile("\(Self.scenario)/expected.jsonl")), as: UTF8.self)
    #expect(lines.joined(separator: "\n") + "\n" == golden)
  }
}
