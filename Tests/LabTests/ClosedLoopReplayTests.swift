import Foundation
import Lab
import TestSupport
import Testing

/// Every closed-loop scenario replays as a golden without a router or a daemon: its recorded
/// fixes through the guidance core, each route request answered from its `router.jsonl`; a
/// recording the core no longer matches is an error that says so.
@Suite struct ClosedLoopReplayTests {
  static let scenarios: [String] = {
    let root = repositoryFile("Simulations/closed-loop")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return names.filter { $0.hasPrefix("c") }.sorted().map { root + "/" + $0 }
  }()

  static func load(_ dir: String, router: ((String) -> String)? = nil) throws
    -> ClosedLoopScenario
  {
    try ClosedLoopScenario(directory: dir) { path in
      let bytes = readBytes(path)
      guard let router, path.hasSuffix("/router.jsonl") else { return bytes }
      return Array(router(String(decoding: bytes, as: UTF8.self)).utf8)
    }
  }

  @Test func thereAreSevenRecordedScenarios() {
    #expect(Self.scenarios.count == 7, "\(Self.scenarios)")
  }

  @Test(arguments: scenarios)
  func aRecordedDriveReplaysToItsGolden(dir: String) throws {
    let scenario = try Self.load(dir)
    let actual = try scenario.transcript()
    let expected = try #require(scenario.expected(), "\(dir): no expected.jsonl")
    #expect(actual == expected, "\(transcriptDiff(expected: expected, actual: actual))")
    // Each drive leaves its route by mistake and is rerouted onto a route said as new.
    #expect(actual.contains { $0.contains(#""class":"ROUTE""#) && $0.contains(#""revision":1"#) })
    #expect(actual.contains { $0.contains(#""kind":"reroute""#) })
    #expect(actual.last?.contains(#""class":"ARRIVED""#) == true, "\(actual.last ?? "")")
  }

  @Test func aRecordingWithoutTheRouteTheCoreAsksForIsStale() throws {
    // The answers gone, and the requests: the core's first request is not in the recording.
    let dir = try #require(Self.scenarios.first)
    let scenario = try Self.load(dir) { text in
      text.split(separator: "\n").filter { $0.contains(#""class":"ROUTER""#) }
        .joined(separator: "\n")
    }
    #expect {
      try scenario.transcript()
    } throws: { error in
      let text = "\(error)"
      return text.contains("the recording is stale: the core asks for route stepwise-1")
        && text.contains("which the recording does not have")
        && text.contains("stepwise drive \(dir) --router URL --record")
    }
  }

  @Test func aRequestFromAnotherOriginIsStale() throws {
    // The recorded requests' origins moved (43.7… becomes 53.7… degrees of latitude): the
    // core's first request is not the one answered.
    let dir = try #require(Self.scenarios.first)
    let scenario = try Self.load(dir) { text in
      text.replacingOccurrences(of: #""origin":[4"#, with: #""origin":[5"#)
    }
    #expect {
      try scenario.transcript()
    } throws: { error in
      "\(error)".contains("the recording is stale: the core asks for route stepwise-1 at ")
        && "\(error)".contains("the recording from (53.")
    }
  }

  @Test func anAnswerNeverTakenIsStale() throws {
    // An answer after a fix the drive does not have (1970-01-01T00:00:01Z).
    let dir = try #require(Self.scenarios.first)
    let scenario = try Self.load(dir) { text in
      text
        + #"{"class":"ANSWER","id":"stepwise-99","after":1,"time":1,"failure":{"code":"timeout"}}"#
        + "\n"
    }
    #expect {
      try scenario.transcript()
    } throws: { error in
      "\(error)".contains("the recording answers route stepwise-99 after the fix of 1970-01-01")
    }
  }
}
