import Client
import CommandLineSupport
import Daemon
import Events
import Foundation
import JSON
import POSIX
import Phrasebook
import Routes
import Subscribers
import TestSupport
import Testing
import Wire

@testable import stepwise

/// A `stepwise` process started by a test, its output collected as it comes.
final class ChildProcess: @unchecked Sendable {
  // Invariant: `out` and `err` are written by their reader threads before `group.leave()` and
  // read only after `group.wait()`.
  let process = Process()
  private var out = Data()
  private var err = Data()
  private let group = DispatchGroup()

  /// Starts the built `stepwise` with `arguments`; as user `nobody` with `asNobody`.
  init(_ arguments: [String], environment: [String: String] = [:], asNobody: Bool = false) throws {
    let binary = try #require(productPath("stepwise"), "stepwise is not built")
    if asNobody {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      process.arguments =
        ["--reuid=65534", "--regid=65534", "--clear-groups", "--", binary] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
    }
    var env = ProcessInfo.processInfo.environment
    env["STEPWISE_SOCKET"] = nil
    env["STEPWISE_ESPEAK"] = nil
    for (k, v) in environment { env[k] = v }
    process.environment = env
    process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
    let outPipe = Pipe()
    let errPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
      group.enter()
      let handle = pipe.fileHandleForReading
      onItsOwnThread { [self] in
        let data = handle.readDataToEndOfFile()
        if isOut { out = data } else { err = data }
        group.leave()
      }
    }
  }

  /// Waits for the end (killing the process after `timeout` seconds) and returns its result.
  func finish(timeout: Double = 20) -> ProcessResult {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(5000) }
    var stuck: String?
    if process.isRunning {
      stuck = describeStuckProcess(process.processIdentifier)
      kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    group.wait()
    if let stuck {
      Issue.record(
        """
        stepwise \(process.arguments ?? []) did not finish within \(timeout) s
        stdout: \(String(decoding: out.suffix(2000), as: UTF8.self))
        stderr: \(String(decoding: err.suffix(2000), as: UTF8.self))
        \(stuck)
        """)
    }
    return ProcessResult(
      status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
      stderr: String(decoding: err, as: UTF8.self))
  }
}

func stepwise(
  _ arguments: [String], environment: [String: String] = [:], asNobody: Bool = false
) throws -> ProcessResult {
  try ChildProcess(arguments, environment: environment, asNobody: asNobody).finish()
}

// The time limit guards against a hang, not a slow run: a test that runs the stepwise tool a
// dozen times took more than a minute under ThreadSanitizer on a loaded 2-core machine.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct ClientTests {
  static let example = "Tests/Fixtures/routes/example.json"

  /// A daemon stand-in on a socket that user nobody can reach too (folder 0755, socket group
  /// nogroup, mode 0660), guiding along scenario 001 and 100 fixes into it.
  static func daemon(_ name: String, logs: LogCollector = LogCollector()) throws -> (
    SocketTestDirectory, FakeEngine, SubscriberServer
  ) {
    let dir = try SocketTestDirectory(name, mode: 0o755)
    let engine = try FakeEngine(scenario: SocketServerTests.scenario)
    var config = SubscriberServer.Configuration()
    config.log = logs.sink
    let server = SubscriberServer(
      listener: try ListeningSocket.bind(path: dir.socketPath, mode: 0o660, group: 65534),
      configuration: config, commands: engine.handler)
    server.setRouteDocument(engine.document, selected: 0)
    return (dir, engine, server)
  }

  @Test func statusRoutesSelectLoadAndCancelTalkToTheDaemon() throws {
    let (dir, engine, server) = try Self.daemon("client")
    defer {
      server.shutdown()
      dir.remove()
    }
    _ = engine.replay(to: server, range: 0..<100)
    let socket = ["--socket", dir.socketPath]
    let routeName = engine.document.routes[0].name

    let status = try stepwise(["status"] + socket)
    #expect(status.status == 0, "\(status.stderr)")
    #expect(status.stdout.contains(routeName) && status.stdout.contains("left · "))
    #expect(status.stdout.contains("GPS ok · on route"))
    let json = try stepwise(["status", "--json"], environment: ["STEPWISE_SOCKET": dir.socketPath])
    let state = try #require(try JSONParser.parse(json.stdout).objectValue)
    #expect(state["class"]?.stringValue == "STATE" && state["guiding"]?.boolValue == true)

    // Without a file, routes asks the daemon; with one, it reads the file as before.
    let routes = try stepwise(["routes"], environment: ["STEPWISE_SOCKET": dir.socketPath])
    #expect(routes.status == 0, "\(routes.stderr)")
    let rows = routes.stdout.split(separator: "\n").map(String.init)
    #expect(rows.first == "\(engine.document.source.name) → \(engine.document.destination.name)")
    #expect(rows.contains { $0.hasPrefix("*") && $0.contains(routeName) })
    let file = try stepwise(["routes", Self.example])
    #expect(file.status == 0 && file.stdout.hasPrefix("Fleet Street → South Caroline Street"))

    let load = try stepwise(["load", Self.example, "--route-index", "1"] + socket)
    #expect(load.status == 0 && load.stdout.isEmpty, "\(load.stderr)")
    let select = try stepwise(["select", "0"] + socket)
    #expect(select.status == 0, "\(select.stderr)")
    let missing = try stepwise(["select", "7"] + socket)
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("select: no alternative 7; the document has 2 routes"))
    let cancel = try stepwise(["cancel"] + socket)
    #expect(cancel.status == 0, "\(cancel.stderr)")
    #expect(engine.commands.count == 3)
    if case .load(let doc, let i)? = engine.commands.first {
      #expect(i == 1 && doc.source.name == "Fleet Street")
    } else {
      Issue.record("the engine got no load: \(engine.commands)")
    }
    let after = try stepwise(["status", "--json"] + socket)
    #expect(after.stdout.contains(#""guiding":false"#))
  }

  @Test func exitStatusesAndHelpScriptsCanRelyOn() throws {
    let dir = try SocketTestDirectory("exits")
    defer { dir.remove() }
    let gone = try stepwise(["status", "--socket", dir.socketPath])
    #expect(gone.status == 3)
    #expect(gone.stderr.contains("cannot connect to \(dir.socketPath)"))
    #expect(gone.stderr.contains("is stepwised running"))
    #expect(try stepwise(["select", "--socket", dir.socketPath]).status == 2)
    #expect(try stepwise(["select", "x", "--socket", dir.socketPath]).status == 2)
    let noFile = try stepwise(["load", "/nonexistent/route.json", "--socket", dir.socketPath])
    #expect(noFile.status == 2 && noFile.stderr.contains("/nonexistent/route.json: cannot read"))
    let badIndex = try stepwise([
      "load", Self.example, "--route-index", "5", "--socket", dir.socketPath,
    ])
    #expect(badIndex.status == 2 && badIndex.stderr.contains("route index 5 is out of range"))
    #expect(try stepwise(["watch", "--classes", "SPEED", "--socket", dir.socketPath]).status == 2)
    for command in ["watch", "status", "routes", "select", "load", "cancel", "speak"] {
      let help = try stepwise([command, "--help"])
      #expect(help.status == 0)
      #expect(help.stdout.hasPrefix("usage: stepwise \(command)"), "\(command): \(help.stdout)")
    }
  }

  @Test func anotherUserMayWatchButNotChangeGuidance() throws {
    let logs = LogCollector()
    let (dir, engine, server) = try Self.daemon("nobody", logs: logs)
    defer {
      server.shutdown()
      dir.remove()
    }
    _ = engine.replay(to: server, range: 0..<30)
    let socket = ["--socket", dir.socketPath]
    let status = try stepwise(["status", "--json"] + socket, asNobody: true)
    #expect(status.status == 0, "nobody may ask: \(status.stderr)")
    // A small document is read and refused; a large one is refused from its first bytes.
    for route in [Self.example, "Simulations/001-marais-drive/route.json"] {
      let load = try stepwise(["load", route] + socket, asNobody: true)
      #expect(load.status == 1)
      #expect(load.stderr.contains("load: permission denied"), "\(load.stderr)")
    }
    let cancel = try stepwise(["cancel"] + socket, asNobody: true)
    #expect(cancel.status == 1 && cancel.stderr.contains("cancel: permission denied"))
    #expect(engine.commands.isEmpty)
    #expect(
      logs.all.filter { $0.contains("refused load from pid") && $0.contains("uid 65534") }.count
        == 2)
    #expect(server.statistics.refusedCommands == 3)
  }

  @Test func watchWritesPlainLinesOrTheRawJSONStream() throws {
    let (dir, engine, server) = try Self.daemon("watch")
    defer { dir.remove() }
    let socket = ["--socket", dir.socketPath]
    let plain = try ChildProcess(["watch"] + socket)
    let json = try ChildProcess(["watch", "--json"] + socket)
    let some = try ChildProcess(["watch", "--json", "--classes", "ANNOUNCE,STEP"] + socket)
    SocketServerTests.waitFor("three watchers") { server.statistics.connected == 3 }
    // Let the third one's watch command arrive before the events.
    usleep(200_000)
    let events = engine.replay(to: server, range: 0..<60).events
    server.shutdown()

    let p = plain.finish()
    #expect(p.status == 0, "a daemon that stops ends watch with 0: \(p.stderr)")
    let lines = p.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.contains("STATE") == true && lines.first?.contains("not guiding") == true)
    #expect(
      lines.contains { $0.contains(" ROUTE ") && $0.contains(engine.document.routes[0].name) })
    #expect(lines.contains { $0.contains(" ANNOUNCE  [step 0 depart] Depart from") })
    #expect(!lines.contains { $0.contains("PROGRESS") })
    #expect(p.stderr.contains("stepwised is stopping"))

    let j = json.finish()
    #expect(j.status == 0)
    let objects = j.stdout.split(separator: "\n").compactMap {
      try? JSONParser.parse(String($0)).objectValue
    }
    #expect(objects.count == events.count + 2)
    #expect(objects.first?.className == "VERSION" && objects[1].className == "STATE")
    #expect(objects.dropFirst(2).map { $0.seq ?? -1 } == Array(1...events.count))

    let s = some.finish()
    let classes = Set(
      s.stdout.split(separator: "\n").compactMap {
        try? JSONParser.parse(String($0)).objectValue?.className
      })
    #expect(classes == ["VERSION", "STATE", "ANNOUNCE", "STEP"])
  }

  /// A fake espeak-ng: records its arguments, then waits until the test releases this message.
  static func fakeEspeak(in dir: SocketTestDirectory) throws -> (path: String, log: String) {
    let path = dir.path + "/espeak-ng"
    let log = dir.path + "/said.log"
    let script = """
      #!/bin/sh
      printf '%s\\n' "$*" >> '\(log)'
      n=$(wc -l < '\(log)')
      i=0
      while [ ! -e '\(dir.path)/release-'"$n" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done
      """
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
    return (path, log)
  }

  static func said(_ log: String) -> [String] {
    ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
      String.init)
  }

  static func announce(
    _ step: Int, _ kind: String, _ text: String, distance: Double? = nil, second: Int
  )
    -> JSONObject
  {
    var o = JSONObject()
    o.append("class", "ANNOUNCE")
    o.append("time", .string("2024-05-01T08:00:\(second < 10 ? "0" : "")\(second).000Z"))
    o.append("step", .number(Double(step)))
    o.append("kind", .string(kind))
    o.append("text", .string(text))
    if let distance { o.append("distance", .number(distance)) }
    o.append("id", .string("r0.s\(step).\(kind)"))
    return o
  }

  static func stepEvent(_ step: Int, second: Int) -> JSONObject {
    JSONObject([
      ("class", "STEP"),
      ("time", .string("2024-05-01T08:00:\(second < 10 ? "0" : "")\(second).000Z")),
      ("step", .number(Double(step))),
    ])
  }

  @Test func speakSaysOneAnnouncementAtATimeAndDropsThoseThatWentStale() throws {
    let dir = try SocketTestDirectory("speak", mode: 0o755)
    defer { dir.remove() }
    let server = SubscriberServer(listener: try ListeningSocket.bind(path: dir.socketPath))
    let (espeak, log) = try Self.fakeEspeak(in: dir)
    let speak = try ChildProcess(
      ["speak", "--socket", dir.socketPath, "--verbose"], environment: ["STEPWISE_ESPEAK": espeak])
    SocketServerTests.waitFor("speak to connect") { server.statistics.connected == 1 }
    func release(_ n: Int) {
      _ = FileManager.default.createFile(atPath: dir.path + "/release-\(n)", contents: nil)
    }
    func waitSaid(_ n: Int) {
      SocketServerTests.waitFor("message \(n)") { Self.said(log).count >= n }
    }

    server.publish(Self.stepEvent(4, second: 1))
    server.publish(
      Self.announce(4, "prepare", "In 800 meters, turn left.", distance: 800, second: 2))
    waitSaid(1)
    // While that is said: the approach comes, then the turn is passed; step 5's announcements come,
    // the second replacing the first; an off-route warning is over before its turn.
    server.publish(
      Self.announce(4, "approach", "In 300 meters, turn left.", distance: 300, second: 20))
    server.publish(Self.stepEvent(5, second: 30))
    server.publish(
      Self.announce(5, "prepare", "In 900 meters, turn right.", distance: 900, second: 31))
    server.publish(
      Self.announce(5, "approach", "In 400 meters, turn right.", distance: 400, second: 40))
    server.publish(
      JSONObject([("class", "OFFROUTE"), ("time", "2024-05-01T08:00:41.000Z"), ("distance", 40)]))
    server.publish(Self.announce(5, "offroute", "You are off the route.", second: 41))
    server.publish(JSONObject([("class", "ONROUTE"), ("time", "2024-05-01T08:00:45.000Z")]))
    usleep(300_000)
    release(1)
    waitSaid(2)
    server.publish(Self.announce(5, "now", "터널 입구에서 우회전입니다.", distance: 80, second: 50))
    release(2)
    waitSaid(3)
    release(3)
    usleep(100_000)
    server.shutdown()
    let r = speak.finish()
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      Self.said(log) == [
        "-v en In 800 meters, turn left.", "-v en In 400 meters, turn right.",
        "-v ko 터널 입구에서 우회전입니다.",
      ])
    #expect(r.stderr.contains("dropped (step 4 was passed): In 300 meters, turn left."))
    #expect(r.stderr.contains("dropped (a newer announcement for step 5 follows): In 900 meters"))
    #expect(r.stderr.contains("dropped (back on the route): You are off the route."))
  }

  @Test func speakUsesTheVoiceItIsGivenAndSaysWhenEspeakIsMissing() throws {
    let dir = try SocketTestDirectory("voice", mode: 0o755)
    defer { dir.remove() }
    let server = SubscriberServer(listener: try ListeningSocket.bind(path: dir.socketPath))
    let (espeak, log) = try Self.fakeEspeak(in: dir)
    _ = FileManager.default.createFile(atPath: dir.path + "/release-1", contents: nil)
    let speak = try ChildProcess([
      "speak", "--socket", dir.socketPath, "--espeak", espeak, "--voice", "en-us",
    ])
    SocketServerTests.waitFor("speak to connect") { server.statistics.connected == 1 }
    server.publish(Self.announce(1, "prepare", "In 500 feet, turn left.", distance: 150, second: 1))
    SocketServerTests.waitFor("the message") { Self.said(log).count == 1 }
    server.shutdown()
    let spoken = speak.finish()
    #expect(spoken.status == 0, "\(spoken.stderr)")
    #expect(Self.said(log) == ["-v en-us In 500 feet, turn left."], "\(spoken.stderr)")

    let missing = try stepwise(
      ["speak", "--socket", dir.socketPath], environment: ["PATH": "/nonexistent"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("espeak-ng is not installed (apt install espeak-ng)"))
    let wrong = try stepwise(["speak", "--espeak", "/nonexistent/espeak-ng"])
    #expect(wrong.status == 1 && wrong.stderr.contains("cannot run /nonexistent/espeak-ng"))
  }

  @Test func routesAsksTheDaemonOnlyWithoutAFile() {
    #expect(StepwiseTool.routesAsksDaemon(Arguments([])))
    #expect(StepwiseTool.routesAsksDaemon(Arguments(["--locale", "ko", "--json"])))
    #expect(StepwiseTool.routesAsksDaemon(Arguments(["--socket", "/tmp/s", "x.json"])))
    #expect(!StepwiseTool.routesAsksDaemon(Arguments(["x.json"])))
    #expect(!StepwiseTool.routesAsksDaemon(Arguments(["--route", "x.json"])))
  }

  @Test func theLiveViewShowsInstructionProgressAndState() throws {
    var view = WatchView(phrasebook: Phrasebook(), utcOffset: 3600)
    #expect(
      view.screen(width: 80) == ["Not guiding. Waiting for a route (stepwise load ROUTE.json)."])
    let events = [
      #"{"class":"ROUTE","time":"2024-05-01T08:00:00.000Z","seq":1,"name":"Rue des Archives","routeIndex":0,"distance":3000,"transportType":"automobile","steps":11,"destination":"Rue Moret"}"#,
      #"{"class":"ANNOUNCE","time":"2024-05-01T08:00:57.000Z","seq":2,"step":4,"kind":"approach","text":"In 350 meters, turn left onto Rue de Bretagne.","distance":352,"id":"r0.s4.approach"}"#,
      #"{"class":"PROGRESS","time":"2024-05-01T08:01:00.000Z","seq":3,"step":4,"distanceToManeuver":311.2,"distanceRemaining":1800,"timeRemaining":312.6,"eta":"2024-05-01T08:06:13.000Z","onRoute":true}"#,
      #"{"class":"OFFROUTE","time":"2024-05-01T08:01:01.000Z","seq":4,"distance":47}"#,
    ]
    for e in events { view.state.apply(try #require(ReceivedEvent(line: Array(e.utf8)))) }
    view.steps = (0..<11).map { JSONObject([("instructions", .string("Instruction \($0)"))]) }
    let screen = view.screen(width: 80)
    #expect(screen[0] == "Rue des Archives  ·  step 4/10")
    #expect(screen[1] == "➜ Instruction 4")
    #expect(screen[2] == "  in 310 m")
    #expect(screen[3].hasPrefix("  [") && screen[3].hasSuffix("] 40 %"))
    #expect(screen[4] == "  1.8 km left · 5 min · ETA 09:06")
    #expect(screen[5] == "  GPS ok · OFF ROUTE")
    #expect(screen[6] == "  “In 350 meters, turn left onto Rue de Bretagne.”")
    #expect(view.screen(width: 20).allSatisfy { $0.count <= 20 })
    #expect(WatchView.bar(0.5, width: 10) == "[█████░░░░░]")
    #expect(WatchView.bar(1, width: 4) == "[████]")
    #expect(WatchView.bar(0.0625, width: 4) == "[▎░░░]")
  }

  @Test func theLiveViewDrawsLanesTheLimitAndWhatLiesAhead() throws {
    var view = WatchView(phrasebook: Phrasebook(), utcOffset: 0)
    let events = [
      #"{"class":"ROUTE","time":"2024-05-01T08:00:00.000Z","seq":1,"name":"A 99","routeIndex":0,"distance":5600,"transportType":"automobile","steps":3,"destination":"Rue du Tunnel"}"#,
      #"{"class":"PROGRESS","time":"2024-05-01T08:01:00.000Z","seq":2,"step":1,"distanceToManeuver":900,"distanceRemaining":3500,"timeRemaining":200,"distanceAlong":2100,"onRoute":true,"speedLimit":110,"speedLimitUnit":"km/h","ahead":[{"type":"tunnel","start":2550,"length":500},{"type":"level crossing","start":4000}]}"#,
      // Unchanged list: the view keeps the one it has.
      #"{"class":"PROGRESS","time":"2024-05-01T08:01:20.000Z","seq":3,"step":1,"distanceToManeuver":300,"distanceRemaining":2900,"timeRemaining":150,"distanceAlong":2700,"onRoute":true,"speedLimit":"none"}"#,
    ]
    for e in events.prefix(2) { view.state.apply(try #require(ReceivedEvent(line: Array(e.utf8)))) }
    let lane = { (ind: String, ok: Bool) -> JSONValue in
      .object(
        JSONObject([
          ("indications", .array([.string(ind)])), ("valid", .bool(ok)), ("active", .bool(ok)),
        ]))
    }
    view.steps = [
      JSONObject(),
      JSONObject([
        ("instructions", .string("Take the exit on the right.")),
        (
          "lanes",
          .array([lane("straight", false), lane("straight", false), lane("slight right", true)])
        ),
      ]), JSONObject(),
    ]
    var screen = view.screen(width: 80)
    #expect(screen[3] == "  lanes  ↑  ↑ [↗]")
    #expect(screen[4] == "  limit 110 km/h · tunnel 500 m in 450 m")
    view.state.apply(try #require(ReceivedEvent(line: Array(events[2].utf8))))
    screen = view.screen(width: 80)
    #expect(screen[4] == "  no limit · in the tunnel, 350 m left")
  }

  @Test func announcementsGoStaleByStepDistanceSituationAndAge() throws {
    func o(_ json: String) throws -> Event {
      try #require(ReceivedEvent(line: Array(json.utf8))).event
    }
    var q = AnnouncementQueue()
    q.observe(
      try o(
        #"{"class":"PROGRESS","time":"2024-05-01T08:00:00.000Z","step":2,"distanceToManeuver":900,"onRoute":true}"#
      ))
    q.observe(
      try o(
        #"{"class":"ANNOUNCE","time":"2024-05-01T08:00:00.000Z","step":2,"kind":"prepare","text":"In 900 m","distance":900,"id":"a"}"#
      ))
    q.observe(
      try o(
        #"{"class":"PROGRESS","time":"2024-05-01T08:00:20.000Z","step":2,"distanceToManeuver":300,"onRoute":true}"#
      ))
    var (p, dropped) = q.next()
    #expect(p == nil && dropped.first?.1 == "only 300 m are left")
    q.observe(
      try o(
        #"{"class":"ANNOUNCE","time":"2024-05-01T08:00:20.000Z","step":3,"kind":"notice","text":"Toll road","id":"b"}"#
      ))
    q.observe(
      try o(
        #"{"class":"ANNOUNCE","time":"2024-05-01T08:00:21.000Z","step":2,"kind":"arrive","text":"Arrived","id":"c"}"#
      ))
    q.observe(try o(#"{"class":"GPS","time":"2024-05-01T08:01:30.000Z","status":"lost"}"#))
    (p, dropped) = q.next()
    #expect(p == nil && dropped.map(\.1) == ["more than 30 s old", "more than 30 s old"])
    q.observe(
      try o(
        #"{"class":"ANNOUNCE","time":"2024-05-01T08:01:30.000Z","step":2,"kind":"gps","text":"GPS lost","id":"gps.1.lost"}"#
      ))
    q.observe(
      try o(
        #"{"class":"ANNOUNCE","time":"2024-05-01T08:01:31.000Z","step":2,"kind":"arrive","text":"Arrived","id":"c"}"#
      ))
    (p, dropped) = q.next()
    #expect(p?.text == "GPS lost" && dropped.isEmpty)
    q.observe(
      try o(
        #"{"class":"ANNOUNCE","time":"2024-05-01T08:01:32.000Z","step":0,"kind":"depart","text":"Depart","id":"d"}"#
      ))
    let gone = q.observe(try o(#"{"class":"CANCELLED","time":"2024-05-01T08:01:33.000Z"}"#))
    #expect(gone.map(\.text) == ["Arrived", "Depart"] && q.count == 0)
  }
}
