import Foundation
import JSON
import Testing

/// Runs a built executable and collects its output.
struct ProcessResult {
  var status: Int32
  var stdout: String
  var stderr: String
}

func runTool(
  _ name: String, _ arguments: [String], stdin: Data? = nil, timeout: Double = 60
) throws -> ProcessResult {
  let binary = try #require(productPath(name), "\(name) is not built")
  let p = Process()
  p.executableURL = URL(fileURLWithPath: binary)
  p.arguments = arguments
  p.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
  let out = Pipe()
  let err = Pipe()
  p.standardOutput = out
  p.standardError = err
  let input = Pipe()
  p.standardInput = input
  try p.run()
  // A watchdog ends the child at the deadline even if it never closes its output.
  let pid = p.processIdentifier
  let watchdog = DispatchWorkItem {
    if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
  }
  DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
  defer { watchdog.cancel() }
  if let stdin { input.fileHandleForWriting.write(stdin) }
  try input.fileHandleForWriting.close()
  // Read both pipes fully before waiting, so a large output cannot block the child.
  final class Box: @unchecked Sendable {
    // Invariant: written once by the reader thread before `group.leave()`, read after `wait()`.
    var data = Data()
  }
  let outBox = Box()
  let group = DispatchGroup()
  group.enter()
  let reader = out.fileHandleForReading
  DispatchQueue.global().async {
    outBox.data = reader.readDataToEndOfFile()
    group.leave()
  }
  let errData = err.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  let outData = outBox.data
  let deadline = Date().addingTimeInterval(timeout)
  while p.isRunning && Date() < deadline { usleep(10_000) }
  if p.isRunning {
    kill(p.processIdentifier, SIGKILL)
    Issue.record("\(name) \(arguments) did not finish within \(timeout) s")
  }
  p.waitUntilExit()
  if p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL {
    Issue.record("\(name) \(arguments) was killed after \(timeout) s")
  }
  return ProcessResult(
    status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self))
}

/// The path of a built product next to the test bundle (same configuration).
func productPath(_ name: String) -> String? {
  if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
  var candidates: [String] = []
  let bundle = Bundle.main.bundlePath
  candidates.append(
    URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent(name).path)
  for arg in CommandLine.arguments.prefix(1) {
    candidates.append(
      URL(fileURLWithPath: arg).deletingLastPathComponent().appendingPathComponent(name).path)
  }
  candidates.append(repositoryFile(".build/debug/\(name)"))
  return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

@Suite(.serialized) struct StepwisedCommandLineTests {
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
    #expect(r.stdout.contains("SAY       [step 0 depart  ] Depart from"))
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
      decoding: readBytes(repositoryFile("Tests/StepwiseTests/Fixtures/routes/example.json")),
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

@Suite(.serialized) struct StepwiseToolTests {
  @Test func routesListsTheAlternatives() throws {
    let r = try runTool("stepwise", ["routes", "Tests/StepwiseTests/Fixtures/routes/example.json"])
    #expect(r.status == 0)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines[0] == "Fleet Street → South Caroline Street")
    #expect(lines[2].hasPrefix("0") && lines[2].contains("1 min") && lines[2].contains("990 m"))
    #expect(lines[3].contains("tolls") && lines[3].contains("1.4 km"))
  }

  @Test func routeShowPrintsTheDepartureRowThenEachStep() throws {
    let r = try runTool(
      "stepwise", ["route", "show", "Tests/StepwiseTests/Fixtures/routes/example.json"])
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
        "Tests/StepwiseTests/Fixtures/routes/example.json",
      ])
    #expect(ko.stdout.contains("출발") && ko.stdout.contains("유료 도로"))
  }

  @Test func convertWritesADocumentThatLoadsAgain() throws {
    let r = try runTool(
      "stepwise", ["route", "convert", "Tests/StepwiseTests/Fixtures/routes/example.json"])
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
