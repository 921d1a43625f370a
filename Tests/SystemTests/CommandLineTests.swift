import Foundation
import JSON
import TestSupport
import Testing

@Suite(.blocking, .serialized) struct StepwisedCommandLineTests {
  static let scenario = "Simulations/001-marais-drive"

  @Test func replaysATrackAndPrintsJSONEventsInOrder() throws {
    let r = try runTool(
      "stepwised",
      ["--route", "\(Self.scenario)/route.json", "--fast", "--json", "\(Self.scenario)/drive.nmea"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    let objects = try lines.map { try JSONParser.parse(String($0)) }
    #expect(objects.first?["class"]?.stringValue == "ROUTE")
    #expect(objects.contains { $0["class"]?.stringValue == "ARRIVED" })
    #expect(objects.allSatisfy { $0["time"]?.stringValue?.hasSuffix("Z") == true })
    let progress = objects.filter { $0["class"]?.stringValue == "PROGRESS" }
    #expect(progress.count > 100)
    for key in [
      "step", "distanceToManeuver", "distanceRemaining", "timeRemaining", "onRoute",
      "latitude", "longitude", "matchedLatitude", "matchedLongitude",
    ] {
      #expect(progress[0][key] != nil, "PROGRESS lacks \(key)")
    }
    // The transcript without PROGRESS is the scenario's golden file.
    let golden = String(
      decoding: readBytes(repositoryFile("\(Self.scenario)/expected.jsonl")), as: UTF8.self)
    let withoutProgress = lines.filter { !$0.contains(#""class":"PROGRESS""#) }.joined(
      separator: "\n")
    #expect(withoutProgress + "\n" == golden)
  }

  @Test func readsTheTrackFromStandardInput() throws {
    let track = Data(readBytes(repositoryFile("\(Self.scenario)/drive.nmea")))
    let r = try runTool(
      "stepwised", ["--route", "\(Self.scenario)/route.json", "--fast", "-"], stdin: track)
    #expect(r.status == 0)
    #expect(r.stdout.contains("ARRIVED"))
    #expect(r.stdout.contains("ANNOUNCE  [step 0 depart  ] Depart from"))
  }

  @Test func pacedReplayGivesTheSameEventsAsFastReplay() throws {
    // 20 s of track at 100x: about 0.2 s of waiting.
    let track = String(
      decoding: readBytes(repositoryFile("\(Self.scenario)/drive.nmea")), as: UTF8.self)
    let first = track.split(separator: "\n", omittingEmptySubsequences: false).prefix(90).joined(
      separator: "\n")
    let fast = try runTool(
      "stepwised", ["--route", "\(Self.scenario)/route.json", "--fast", "--json", "-"],
      stdin: Data(first.utf8))
    let started = Date()
    let paced = try runTool(
      "stepwised",
      ["--route", "\(Self.scenario)/route.json", "--replay-speed", "100", "--json", "-"],
      stdin: Data(first.utf8))
    let elapsed = Date().timeIntervalSince(started)
    #expect(fast.stdout == paced.stdout)
    #expect(elapsed >= 0.15, "a 100x replay of ~20 s of track must wait about 0.2 s")
  }

  @Test func koreanAndImperialOptionsChangeTheWords() throws {
    let r = try runTool(
      "stepwised",
      [
        "--route", "\(Self.scenario)/route.json", "--fast", "--locale", "ko",
        "\(Self.scenario)/drive.nmea",
      ])
    #expect(r.stdout.contains("에서 출발합니다."))
    #expect(r.stdout.contains("미터 앞"))
    let i = try runTool(
      "stepwised",
      [
        "--route", "\(Self.scenario)/route.json", "--fast", "--units", "imperial",
        "\(Self.scenario)/drive.nmea",
      ])
    #expect(
      i.stdout.contains(" feet,") || i.stdout.contains(" miles,") || i.stdout.contains(" mile,"))
    #expect(!i.stdout.contains(" meters"))
  }

  @Test(arguments: [
    (["--fast", "x.nmea"], "--route is required"),
    (
      ["--route", "Simulations/001-marais-drive/route.json", "--locale", "fr", "-"],
      "invalid value 'fr' for --locale"
    ),
    (
      ["--route", "Simulations/001-marais-drive/route.json", "--bogus", "-"],
      "unknown option '--bogus'"
    ),
    (
      ["--route", "Simulations/001-marais-drive/route.json", "--route-index", "3", "-"],
      "route index 3 is out of range"
    ),
    (["--route", "/nonexistent/route.json", "-"], "/nonexistent/route.json: cannot read"),
  ])
  func badArgumentsExitWithStatus2AndSayWhy(arguments: [String], message: String) throws {
    let r = try runTool("stepwised", arguments, stdin: Data())
    #expect(r.status == 2)
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(r.stdout.isEmpty)
  }

  @Test func aBrokenRouteFileNamesTheJSONPathAndLoadsNothing() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepwise-\(getpid())-broken")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var text = String(
      decoding: readBytes(repositoryFile("Tests/Fixtures/routes/example.json")),
      as: UTF8.self)
    text = text.replacingOccurrences(of: #""distance": 430"#, with: #""distance": -430"#)
    let path = dir.appendingPathComponent("route.json").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let r = try runTool("stepwised", ["--route", path, "--fast", "-"], stdin: Data())
    #expect(r.status == 2)
    #expect(r.stderr.contains("routes[0].steps[2].distance: negative value -430"), "\(r.stderr)")
    #expect(r.stdout.isEmpty)
  }

  @Test func garbageInTheTrackIsSurvivedAndCountedWithVerbose() throws {
    var bytes = readBytes(repositoryFile("\(Self.scenario)/drive.nmea"))
    bytes.insert(
      contentsOf: Array("$GPRMC,garbage*00\r\n\u{1}\u{2}\u{ff}binary\n$$$$\n".utf8), at: 200)
    let r = try runTool(
      "stepwised", ["--route", "\(Self.scenario)/route.json", "--fast", "--verbose", "-"],
      stdin: Data(bytes))
    #expect(r.status == 0)
    #expect(r.stdout.contains("ARRIVED"))
    #expect(r.stderr.contains("checksum"), "\(r.stderr.prefix(2000))")
  }
}

@Suite(.blocking, .serialized) struct StepwiseToolTests {
  @Test func routesListsTheAlternatives() throws {
    let r = try runTool("stepwise", ["routes", "Tests/Fixtures/routes/example.json"])
    #expect(r.status == 0)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines[0] == "Fleet Street → South Caroline Street")
    #expect(lines[2].hasPrefix("0") && lines[2].contains("1 min") && lines[2].contains("990 m"))
    #expect(lines[3].contains("tolls") && lines[3].contains("1.4 km"))
  }

  @Test func routeShowPrintsTheDepartureRowThenEachStep() throws {
    let r = try runTool(
      "stepwise", ["route", "show", "Tests/Fixtures/routes/example.json"])
    #expect(r.status == 0)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines[1].contains("Depart") && lines[1].contains("Fleet Street"))
    #expect(
      lines[2].contains("560 m") && lines[2].contains("Turn right onto South Caroline Street."))
    #expect(lines[3].contains("[Railroad crossing: look out for trains.]"))
    let ko = try runTool(
      "stepwise",
      [
        "route", "show", "--locale", "ko", "--route-index", "1",
        "Tests/Fixtures/routes/example.json",
      ])
    #expect(ko.stdout.contains("출발") && ko.stdout.contains("유료 도로"))
  }

  @Test func routeShowListsTheLanesAndTheSignOfEachStepAndTheRoad() throws {
    // Valhalla's format=osrm answer on the map of Tests/Valhalla/extracts/stepwise_lanes.osm.
    let file = "Tests/Fixtures/routes/osrm/stepwise_lanes.valhalla-osrm.json"
    let r = try runTool("stepwise", ["route", "show", file])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    let exit = try #require(lines.firstIndex { $0.contains("Take exit 52") })
    #expect(lines[exit + 1].hasSuffix("exit 52 D 6007 → Nice, Monaco"))
    #expect(lines[exit + 2].hasSuffix("↑ ↑ [↑↗] [↗]"))
    #expect(lines.contains { $0.hasSuffix("[←] →") })
    let road = try #require(lines.firstIndex(of: "Road:"))
    #expect(lines[(road + 1)...].contains { $0.hasSuffix("90 km/h") })
    #expect(lines[(road + 1)...].contains { $0.contains("tunnel 790 m") })
    #expect(lines[(road + 1)...].contains { $0.contains("toll booth") })
    let ko = try runTool("stepwise", ["route", "show", "--locale", "ko", file])
    #expect(ko.stdout.contains("52번 출구") && ko.stdout.contains("도로:"))
  }

  @Test func convertWritesADocumentThatLoadsAgain() throws {
    let r = try runTool(
      "stepwise", ["route", "convert", "Tests/Fixtures/routes/example.json"])
    #expect(r.status == 0)
    let again = try runTool("stepwise", ["route", "validate", "-"], stdin: Data(r.stdout.utf8))
    #expect(again.status == 0, "\(again.stderr)")
  }

  @Test func simulateIsDeterministicForASeed() throws {
    let args = [
      "simulate", "Simulations/001-marais-drive/route.json", "--noise", "5", "--seed", "9",
    ]
    let a = try runTool("stepwise", args)
    let b = try runTool("stepwise", args)
    #expect(a.status == 0 && a.stdout == b.stdout)
    #expect(a.stdout.contains("$GPRMC") && a.stdout.contains("$GPGST"))
    let c = try runTool("stepwise", args.dropLast() + ["10"])
    #expect(c.stdout != a.stdout)
  }

  @Test func scenarioRunReportsPassAndFail() throws {
    let r = try runTool("stepwise", ["scenario", "run", "Simulations/001-marais-drive"])
    #expect(r.status == 0, "\(r.stdout)")
    #expect(r.stdout.contains("1 passed, 0 failed"))
  }
}

/// `stepwise scenario run` on a folder laid out as `Simulations/` is: scenarios, a README and a
/// folder of closed-loop scenarios.
@Suite(.blocking, .serialized) struct ScenarioRunFoldersTests {
  static func suite() throws -> URL {
    let fm = FileManager.default
    let dir = fm.temporaryDirectory.appendingPathComponent("stepwise-\(getpid())-scenarios")
    try? fm.removeItem(at: dir)
    try fm.createDirectory(
      at: dir.appendingPathComponent("closed-loop"), withIntermediateDirectories: true)
    for (from, to) in [
      ("Simulations/001-marais-drive", "001-marais-drive"),
      ("Simulations/002-out-and-back", "002-out-and-back"),
      ("Simulations/README.md", "README.md"),
      ("Simulations/closed-loop/c01-monaco-missed-turn", "closed-loop/c01-monaco-missed-turn"),
    ] {
      try fm.copyItem(
        at: URL(fileURLWithPath: repositoryFile(from)), to: dir.appendingPathComponent(to))
    }
    return dir
  }

  @Test func aFolderAndItsGlobReplayTheSameScenariosClosedLoopOnesIncluded() throws {
    let dir = try Self.suite()
    defer { try? FileManager.default.removeItem(at: dir) }
    let root = dir.path
    let expected = [
      "\(root)/001-marais-drive: ok",
      "\(root)/002-out-and-back: ok",
      "\(root)/closed-loop/c01-monaco-missed-turn: ok",
      "3 passed, 0 failed",
    ]
    let glob = ["001-marais-drive", "002-out-and-back", "README.md", "closed-loop"].map {
      "\(root)/\($0)"
    }
    for arguments in [[root], [root + "/"], glob] {
      let r = try runTool("stepwise", ["scenario", "run"] + arguments)
      #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
      let lines = r.stdout.split(separator: "\n").map(String.init)
      #expect(lines.count == expected.count, "\(r.stdout)")
      for (line, start) in zip(lines, expected) {
        #expect(line.hasPrefix(start), "\(line)")
      }
    }
  }

  @Test func aChangedTranscriptFailsAndAMissingFolderIsAnError() throws {
    let dir = try Self.suite()
    defer { try? FileManager.default.removeItem(at: dir) }
    let golden = dir.appendingPathComponent("002-out-and-back/expected.jsonl")
    var text = try String(contentsOf: golden, encoding: .utf8)
    text = text.replacingOccurrences(of: "Depart", with: "Leave")
    try Data(text.utf8).write(to: golden)
    let r = try runTool("stepwise", ["scenario", "run", dir.path])
    #expect(r.status == 1)
    #expect(r.stdout.contains("002-out-and-back: FAIL"), "\(r.stdout)")
    #expect(r.stdout.contains("2 passed, 1 failed"), "\(r.stdout)")
    // A closed-loop recording the core no longer matches fails that scenario only.
    let router = dir.appendingPathComponent("closed-loop/c01-monaco-missed-turn/router.jsonl")
    let lines = try String(contentsOf: router, encoding: .utf8).split(separator: "\n")
    try Data(
      (lines.filter { !$0.contains(#""class":"REQUEST""#) }.joined(separator: "\n") + "\n").utf8
    )
    .write(to: router)
    let stale = try runTool("stepwise", ["scenario", "run", dir.path])
    #expect(stale.status == 1)
    #expect(
      stale.stdout.contains(
        "c01-monaco-missed-turn: FAIL (\(dir.path)/closed-loop/c01-monaco-missed-turn: the recording is stale"
      ),
      "\(stale.stdout)")
    #expect(stale.stdout.contains("1 passed, 2 failed"), "\(stale.stdout)")
    let missing = try runTool("stepwise", ["scenario", "run", dir.path + "/009-typo"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("009-typo: no such file or folder"), "\(missing.stderr)")
    #expect(missing.stdout.isEmpty)
  }
}

/// A replay whose every line is rejected fails and says why; one with a good epoch among bad
/// lines replays it, and an empty track is an empty drive.
@Suite(.blocking, .serialized) struct CorruptedReplayTests {
  static let route = "Simulations/001-marais-drive/route.json"

  @Test func anNMEALogOfRejectedLinesFailsWithTheCountByReason() throws {
    var track = Array("$GPRMC,080000.00,A,4851.2000,N,00221.3000,E,0.0,0.0,010524,,,A*00\r\n".utf8)
    track += Array("$GPGGA,080001.00,4851.2000,N*37\r\n".utf8)
    track += (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }.filter { $0 != 0x24 }
    let r = try runTool("stepwised", ["--route", Self.route, "--fast", "-"], stdin: Data(track))
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stdout.isEmpty, "\(r.stdout)")
    #expect(
      r.stderr.contains("standard input: nothing to replay: not one epoch,"), "\(r.stderr)")
    #expect(r.stderr.contains("(1 bad checksum, 1 malformed, "), "\(r.stderr)")
    #expect(r.stderr.contains(" not NMEA)"), "\(r.stderr)")
    // The same paced (no prefetch) and from a file.
    let paced = try runTool(
      "stepwised", ["--route", Self.route, "--replay-speed", "1000", "-"], stdin: Data(track))
    #expect(paced.status == 1)
    #expect(paced.stderr.contains("nothing to replay"), "\(paced.stderr)")
  }

  @Test func aGpsdCaptureOfRejectedLinesFailsWithTheCountByReason() throws {
    let lines = [
      #"{"class":"VERSION","release":"3.22"}"#, #"{"class":"TPV","mode":"#,
      #"{"class":"TPV","mode":"#, "not json at all",
    ]
    let r = try runTool(
      "stepwised", ["--route", Self.route, "--fast", "-"],
      stdin: Data((lines.dropFirst().joined(separator: "\n") + "\n").utf8))
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stderr.contains("nothing to replay: not one epoch, 3 rejected ("), "\(r.stderr)")
    #expect(r.stderr.contains("1 no JSON object"), "\(r.stderr)")
    // A report that is not a fix is no rejection: an empty drive, status 0.
    let quiet = try runTool(
      "stepwised", ["--route", Self.route, "--fast", "-"], stdin: Data((lines[0] + "\n").utf8))
    #expect(quiet.status == 0, "\(quiet.stderr)")
  }

  @Test func goodEpochsAmongBadLinesAndAnEmptyTrackStillSucceed() throws {
    var track = readBytes(repositoryFile("Simulations/001-marais-drive/drive.nmea"))
    track.insert(contentsOf: Array("$GPRMC,garbage*00\r\n\u{1}\u{2}binary\n".utf8), at: 200)
    let r = try runTool("stepwised", ["--route", Self.route, "--fast", "-"], stdin: Data(track))
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("ARRIVED"))
    let empty = try runTool("stepwised", ["--route", Self.route, "--fast", "-"], stdin: Data())
    #expect(empty.status == 0, "\(empty.stderr)")
  }
}
