import FleetClient
import Foundation
import JSON
import TestSupport
import Testing
import Uplink

/// stepwised's fleet uplink against a real mosquitto on loopback: what a dispatcher receives,
/// across outages, crashes and restarts.
///
/// Every process is ended by its pid.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct FleetUplinkTests {
  static let route = repositoryFile("Simulations/001-marais-drive/route.json")

  static func stepwised(
    _ arguments: [String], scratch: ScratchDirectory, tag: String
  ) throws -> SpawnedProcess {
    let binary = try #require(productPath("stepwised"), "stepwised is not built")
    return try SpawnedProcess(
      [binary] + arguments, environment: sanitizerEnvironment(["PATH": "/usr/bin:/bin"]),
      stdoutPath: scratch.file("\(tag).out"), stderrPath: scratch.file("\(tag).err"))
  }

  static func uplink(_ broker: MosquittoBroker, _ scratch: ScratchDirectory, _ extra: [String] = [])
    -> [String]
  {
    [
      "--route", route, "--json", "--state-dir", scratch.file("state"), "--mqtt", broker.url,
      "--vehicle", "veh1", "--mqtt-keepalive", "5",
    ] + extra
  }

  @Test func everyEventOfADriveReachesADurableSubscriberAsOnStdoutInOrder() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let sub = try durableSubscriber(
      broker, id: "disp1", topics: ["stepwise/+/events", "stepwise/+/online"], scratch: scratch)
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as disp1 ") })
    let daemon = try Self.stepwised(
      Self.uplink(
        broker, scratch, ["--fast", repositoryFile("Simulations/001-marais-drive/drive.nmea")]),
      scratch: scratch, tag: "d")
    defer { daemon.killGroup() }
    #expect(daemon.wait(timeout: 60) == 0, "\(daemon.stderr)")
    let expected = eventLines(daemon.stdout)
    #expect(expected.count > 20)
    var events: [JSONObject] = []
    waitUntil(timeout: 10) {
      events = dedupedEvents(receivedMessages(sub.stdout), topic: "stepwise/veh1/events")
      return events.count >= expected.count
    }
    #expect(events.map(withoutStamp) == expected)
    let seqs = events.compactMap { $0["seq"]?.doubleValue }
    #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
    let boots = Set(events.compactMap { $0["boot"]?.stringValue })
    #expect(boots.count == 1)
    // online said true with the same boot, then (a clean stop) false.
    let online = receivedMessages(sub.stdout).filter { $0.topic == "stepwise/veh1/online" }
    #expect(online.first?.object?["online"]?.boolValue == true)
    #expect(online.first?.object?["boot"]?.stringValue == boots.first)
    #expect(online.last?.payload == #"{"online":false}"#)
    // The retained state is the STATE of the end of the drive, with the uplink's counters.
    let retained = try retainedMessages(
      broker, ["stepwise/veh1/state", "stepwise/veh1/online"], scratch: scratch)
    #expect(retained["stepwise/veh1/online"] == #"{"online":false}"#)
    let state = try #require(retained["stepwise/veh1/state"].flatMap { try? JSONParser.parse($0) })
    #expect(state["class"]?.stringValue == "STATE")
    #expect(state["arrived"]?.boolValue == true)
    #expect(state["boot"]?.stringValue == boots.first)
    #expect(state["uplink"]?["droppedEvents"]?.doubleValue == 0)
    #expect(state["uplink"]?["pending"]?.doubleValue == 0)
  }

  /// Every change of what lies ahead reaches the `progress` topic, even one that falls within
  /// the progress interval of the message before (it would have been throttled: the drive of
  /// 070, a toll road, a toll booth, a tunnel and a level crossing, with a 30 s interval).
  @Test func everyChangeOfWhatLiesAheadPassesTheProgressThrottle() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let sub = try durableSubscriber(
      broker, id: "disp1", topics: ["stepwise/+/progress"], scratch: scratch)
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as disp1 ") })
    let scenario = "Simulations/070-highway-exit-tunnel-overspeed/"
    let daemon = try Self.stepwised(
      [
        "--route", repositoryFile(scenario + "route.json"), "--json", "--state-dir",
        scratch.file("state"), "--mqtt", broker.url, "--vehicle", "veh1", "--mqtt-keepalive", "5",
        "--mqtt-progress-interval", "30", "--fast", repositoryFile(scenario + "drive.nmea"),
      ], scratch: scratch, tag: "d")
    defer { daemon.killGroup() }
    #expect(daemon.wait(timeout: 60) == 0, "\(daemon.stderr)")
    let progress = daemon.stdout.split(separator: "\n").compactMap {
      (try? JSONParser.parse(String($0)))?.objectValue
    }.filter { $0["class"]?.stringValue == "PROGRESS" }
    let ahead = progress.filter { $0["ahead"] != nil }.map { JSONWriter.string(.object($0)) }
    #expect(ahead.count >= 3)
    // What the throttle alone would have let through: at least one change falls inside it.
    let iso = ISO8601DateFormatter()
    iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var last: Double?
    var throttled = 0
    for p in progress {
      let t = try #require(p["time"]?.stringValue.flatMap(iso.date)).timeIntervalSince1970
      if let l = last, t - l < 30 {
        if p["ahead"] != nil { throttled += 1 }
        continue
      }
      last = t
    }
    #expect(throttled > 0)
    var received: [String] = []
    waitUntil(timeout: 10) {
      received = dedupedEvents(receivedMessages(sub.stdout), topic: "stepwise/veh1/progress")
        .filter { $0["ahead"] != nil }.map(withoutStamp)
      return received.count >= ahead.count
    }
    #expect(received == ahead)
  }

  @Test func aVehicleKilledWithSIGKILLShowsOffline() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let track = try DaemonIntegrationTests.track(scratch)
    let daemon = try Self.stepwised(
      Self.uplink(broker, scratch, ["--replay-speed", "2", track]), scratch: scratch, tag: "d")
    defer { daemon.killGroup() }
    var online: [String: String] = [:]
    let up = waitUntil(timeout: 10) {
      online = (try? retainedMessages(broker, ["stepwise/veh1/online"], scratch: scratch)) ?? [:]
      return online["stepwise/veh1/online"]?.contains(#""online":true"#) == true
    }
    #expect(up, "\(daemon.stderr)")
    daemon.killGroup()
    // The will, 1.5 keepalives (5 s) after the silence began.
    let down = waitUntil(timeout: 15) {
      online = (try? retainedMessages(broker, ["stepwise/veh1/online"], scratch: scratch)) ?? [:]
      return online["stepwise/veh1/online"] == #"{"online":false}"#
    }
    #expect(down, "\(online)")
  }

  /// A daemon killed mid-drive, while its broker is away, and its successor: the fleet gets the
  /// whole drive, nothing lost and in order.
  ///
  /// stdout and the journal are two outputs: `kill -9` may cut either one shorter, so neither
  /// is the reference. The reference is the drive uninterrupted: what the first boot sent is
  /// the beginning of it, and the second boot (which resumes from the saved progress, saved only
  /// once the journal kept what came before) says all the rest, perhaps repeating a little.
  @Test func nothingIsLostOrReorderedAcrossAFrozenAndRestartedBrokerAndAKilledDaemon() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let sub = try durableSubscriber(
      broker, id: "disp2", topics: ["stepwise/+/events"], scratch: scratch)
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as disp2 ") })
    let track = try DaemonIntegrationTests.track(scratch, settle: 5)
    let whole = try Self.stepwised(
      ["--route", Self.route, "--json", "--state-dir", scratch.file("whole"), "--fast", track],
      scratch: scratch, tag: "w")
    defer { whole.killGroup() }
    #expect(whole.wait(timeout: 60) == 0, "\(whole.stderr)")
    let drive = eventLines(whole.stdout)
    let first = try Self.stepwised(
      Self.uplink(broker, scratch, ["--replay-speed", "12", track]), scratch: scratch, tag: "a")
    defer { first.killGroup() }
    sleep(3)
    broker.freeze()
    sleep(3)
    broker.thaw()
    usleep(500_000)
    broker.stop()
    // The daemon journals while the broker is away, and is killed there.
    sleep(3)
    first.killGroup()
    let firstEvents = eventLines(first.stdout)
    #expect(!firstEvents.isEmpty)
    #expect(firstEvents.count < drive.count, "killed after the drive ended")
    #expect(
      firstEvents == Array(drive.prefix(firstEvents.count)), "\(difference(firstEvents, drive))")
    try broker.start()
    // A new daemon resumes the drive (saved state) and first sends what the old one journalled.
    let second = try Self.stepwised(
      Self.uplink(broker, scratch, ["--replay-speed", "12", track]), scratch: scratch, tag: "b")
    defer { second.killGroup() }
    #expect(second.wait(timeout: 90) == 0, "\(second.stderr)")
    let secondEvents = eventLines(second.stdout)
    var byBoot: [String: [String]] = [:]
    var bootOrder: [String] = []
    waitUntil(timeout: 20) {
      let events = dedupedEvents(receivedMessages(sub.stdout), topic: "stepwise/veh1/events")
      byBoot = [:]
      bootOrder = []
      for e in events {
        guard let b = e["boot"]?.stringValue else { continue }
        if byBoot[b] == nil { bootOrder.append(b) }
        byBoot[b, default: []].append(withoutStamp(e))
      }
      return bootOrder.count == 2 && byBoot[bootOrder[1]]?.count == secondEvents.count
    }
    try #require(bootOrder.count == 2, "\(bootOrder) \(second.stderr)")
    let sent = byBoot[bootOrder[0]] ?? []
    #expect(!sent.isEmpty)
    #expect(sent == Array(drive.prefix(sent.count)), "\(difference(sent, drive))")
    #expect(byBoot[bootOrder[1]] == secondEvents)
    // The second boot starts with the resumed route, then says every event of the drive the
    // first did not send, in order, ending where the drive ends.
    let resumed = try #require(secondEvents.first.flatMap { try? JSONParser.parse($0) })
    #expect(resumed["class"]?.stringValue == "ROUTE")
    #expect(resumed["reason"]?.stringValue == "resume")
    let unsent = Array(drive.dropFirst(sent.count))
    let tail = Array(secondEvents.dropFirst().suffix(unsent.count))
    #expect(tail == unsent, "\(difference(tail, unsent))")
    // Per boot, seq only grows after dedupe, and everything of the first boot came before the
    // second's (the journal is sent in order).
    let raw = receivedMessages(sub.stdout).compactMap(\.object)
    let lastOfFirst = raw.lastIndex { $0["boot"]?.stringValue == bootOrder[0] } ?? 0
    let firstOfSecond = raw.firstIndex { $0["boot"]?.stringValue == bootOrder[1] } ?? 0
    #expect(lastOfFirst < firstOfSecond)
  }
}

extension FleetUplinkTests {
  /// A small fleet (Benchmarks/fleet.py runs 100): ten vehicles into one broker, restarted once
  /// mid-drive; every event of every vehicle arrives, in order, after dedupe.
  @Test func tenVehiclesThroughABrokerRestartLoseNothing() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let sub = try durableSubscriber(
      broker, id: "fleet", topics: ["stepwise/+/events"], scratch: scratch)
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as fleet ") })
    let track = repositoryFile("Simulations/001-marais-drive/drive.nmea")
    var daemons: [(String, SpawnedProcess)] = []
    defer { for (_, d) in daemons { d.killGroup() } }
    for i in 0..<10 {
      let id = "car\(i)"
      daemons.append(
        (
          id,
          try Self.stepwised(
            [
              "--route", Self.route, "--json", "--state-dir", scratch.file("state-\(id)"),
              "--mqtt", broker.url, "--vehicle", id, "--replay-speed", "20", track,
            ], scratch: scratch, tag: id)
        ))
    }
    sleep(5)
    try broker.restart()
    for (id, d) in daemons { #expect(d.wait(timeout: 90) == 0, "\(id): \(d.stderr)") }
    let expected = Dictionary(uniqueKeysWithValues: daemons.map { ($0.0, eventLines($0.1.stdout)) })
    var got: [String: [String]] = [:]
    waitUntil(timeout: 20) {
      let messages = receivedMessages(sub.stdout)
      got = [:]
      for (id, _) in daemons {
        got[id] = dedupedEvents(messages, topic: "stepwise/\(id)/events").map(withoutStamp)
      }
      return got == expected
    }
    for (id, _) in daemons {
      #expect(got[id] == expected[id], "\(id)")
      #expect((expected[id]?.count ?? 0) > 20)
    }
  }
}

/// Commands from dispatchers over MQTT (`--mqtt-commands`), under the fleet ACL.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct FleetCommandTests {
  static let users = [
    "veh1": "pw-veh1", "veh2": "pw-veh2", "dispatcher": "pw-disp", "console": "pw-console",
    "owntracks": "pw-owntracks",
  ]

  static func credentials(_ scratch: ScratchDirectory, _ user: String) throws -> String {
    let path = scratch.file("\(user).credentials")
    try "\(user)\n\(users[user] ?? "")\n".write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func vehicle(
    _ broker: MosquittoBroker, _ scratch: ScratchDirectory, tag: String, track: String
  ) throws -> SpawnedProcess {
    try FleetUplinkTests.stepwised(
      [
        "--route", FleetUplinkTests.route, "--json", "--state-dir", scratch.file("state"),
        "--mqtt", broker.url, "--vehicle", "veh1", "--mqtt-keepalive", "5", "--mqtt-commands",
        "--mqtt-credentials", try credentials(scratch, "veh1"), "--replay-speed", "4", track,
      ], scratch: scratch, tag: tag)
  }

  static func replies(_ sub: SpawnedProcess) -> [JSONObject] {
    receivedMessages(sub.stdout).filter { $0.topic == "stepwise/veh1/reply" }.compactMap(\.object)
  }

  @Test func aCommandSentWhileTheVehicleWasOfflineIsAnsweredOnceOnReconnect() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try fleetBroker(scratch: scratch, users: Self.users)
    let sub = try durableSubscriber(
      broker, id: "dispatcher", topics: ["stepwise/+/reply", "stepwise/+/events"],
      scratch: scratch, extra: ["-u", "dispatcher", "-P", "pw-disp"])
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as dispatcher ") })
    let track = try DaemonIntegrationTests.track(scratch)
    // The first run makes the persistent session (with its subscription), then dies.
    let first = try Self.vehicle(broker, scratch, tag: "a", track: track)
    defer { first.killGroup() }
    try #require(
      waitUntil(timeout: 10) {
        receivedMessages(sub.stdout).contains { $0.topic == "stepwise/veh1/events" }
      }, "\(first.stderr)")
    first.killGroup()
    // While it is away: a command, the same command again (a replay), and a command from
    // another vehicle, which the ACL refuses.
    let select = #"{"cmd":"select","routeIndex":0,"id":"c1"}"#
    #expect(
      try publish(
        broker, user: "console", password: "pw-console", topic: "stepwise/veh1/command",
        message: select
      ).status == 0)
    try publish(
      broker, user: "console", password: "pw-console", topic: "stepwise/veh1/command",
      message: select)
    let spoofed = try publish(
      broker, user: "veh2", password: "pw-veh2", topic: "stepwise/veh1/command",
      message: #"{"cmd":"cancel","id":"evil"}"#)
    #expect(spoofed.status != 0 || spoofed.stderr.contains("authori"), "\(spoofed)")
    let second = try Self.vehicle(broker, scratch, tag: "b", track: track)
    defer { second.killGroup() }
    let answered = waitUntil(timeout: 15) { !Self.replies(sub).isEmpty }
    #expect(answered, "\(second.stderr)")
    // One more command after the answer, so the replay had its chance to be answered first.
    try publish(
      broker, user: "console", password: "pw-console", topic: "stepwise/veh1/command",
      message: #"{"cmd":"status","id":"c2"}"#)
    #expect(waitUntil(timeout: 10) { Self.replies(sub).contains { $0["id"] == "c2" } })
    let replies = Self.replies(sub)
    let ids = replies.compactMap { $0["id"]?.stringValue }
    #expect(ids == ["c1", "c2"], "\(replies)")
    #expect(replies.first?["class"]?.stringValue == "REPLY")
    #expect(replies.first?["routeIndex"]?.doubleValue == 0)
    #expect(replies.last?["state"]?["class"]?.stringValue == "STATE")
    #expect(broker.log.contains("Denied PUBLISH from veh2"), "\(broker.log)")
    #expect(!second.stdout.contains("CANCELLED"))
  }

  /// `--mqtt-owntracks`: an OwnTracks reader (its own account, as for OwnTracks Recorder) gets
  /// each published progress as an OwnTracks location, the last one retained; under the ACL a
  /// vehicle cannot post locations as another device.
  @Test func ownTracksLocationsReachAReaderAndNoVehicleMayPostAsAnother() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try fleetBroker(scratch: scratch, users: Self.users)
    let sub = try durableSubscriber(
      broker, id: "owntracks", topics: ["owntracks/#"], scratch: scratch,
      extra: ["-u", "owntracks", "-P", "pw-owntracks"])
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as owntracks ") })
    func drive(_ vehicle: String, _ ownTracks: String) throws -> String {
      let daemon = try FleetUplinkTests.stepwised(
        [
          "--route", FleetUplinkTests.route, "--json", "--state-dir", scratch.file(vehicle),
          "--mqtt", broker.url, "--vehicle", vehicle, "--mqtt-keepalive", "5",
          "--mqtt-credentials", try Self.credentials(scratch, vehicle), "--mqtt-owntracks",
          ownTracks, "--fast", repositoryFile("Simulations/001-marais-drive/drive.nmea"),
        ], scratch: scratch, tag: vehicle)
      defer { daemon.killGroup() }
      #expect(daemon.wait(timeout: 60) == 0, "\(daemon.stderr)")
      return daemon.stdout
    }
    let stdout = try drive("veh1", "fleet")
    let positions = Set(
      stdout.split(separator: "\n").compactMap { line -> String? in
        guard let o = try? JSONParser.parse(String(line)), o["class"]?.stringValue == "PROGRESS",
          let lat = o["latitude"]?.doubleValue, let lon = o["longitude"]?.doubleValue
        else { return nil }
        return "\(lat),\(lon)"
      })
    func locations() -> [JSONObject] {
      receivedMessages(sub.stdout).filter { $0.topic == "owntracks/fleet/veh1" }.compactMap(
        \.object)
    }
    // One a progress interval (5 s) of a drive of about 7 minutes.
    #expect(waitUntil(timeout: 10) { locations().count >= 40 }, "\(locations().count)")
    let received = locations()
    for o in received {
      #expect(o["_type"]?.stringValue == "location")
      #expect(o["tid"]?.stringValue == "h1")
      let lat = try #require(o["lat"]?.doubleValue)
      let lon = try #require(o["lon"]?.doubleValue)
      #expect(positions.contains("\(lat),\(lon)"), "not a published position: \(o)")
    }
    let times = received.compactMap { $0["tst"]?.doubleValue }
    #expect(times.count == received.count)
    #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 5 }, "\(times)")
    // Another vehicle naming veh1's device is refused by the ACL and adds nothing.
    _ = try drive("veh2", "fleet/veh1")
    #expect(broker.log.contains("Denied PUBLISH from veh2"), "\(broker.log)")
    #expect(locations().count == received.count)
    let retained = try retainedMessages(
      broker, ["owntracks/fleet/veh1"], scratch: scratch,
      extra: ["-u", "owntracks", "-P", "pw-owntracks"])
    let last = try #require(retained["owntracks/fleet/veh1"].flatMap { try? JSONParser.parse($0) })
    #expect(last["tst"]?.doubleValue == times.last)
  }

  @Test func oversizedMalformedStaleAndIdlessCommandsGetTheSocketsErrors() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try fleetBroker(scratch: scratch, users: Self.users)
    let sub = try durableSubscriber(
      broker, id: "dispatcher", topics: ["stepwise/+/reply"], scratch: scratch,
      extra: ["-u", "dispatcher", "-P", "pw-disp"])
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as dispatcher ") })
    let track = try DaemonIntegrationTests.track(scratch)
    let vehicle = try Self.vehicle(broker, scratch, tag: "v", track: track)
    defer { vehicle.killGroup() }
    try #require(waitUntil(timeout: 10) { broker.log.contains(" as veh1 ") })
    let big = scratch.file("big.json")
    let filler = String(repeating: "x", count: 5 << 20)
    try #"{"cmd":"load","id":"big","document":{"pad":"\#(filler)"}}"#.write(
      toFile: big, atomically: true, encoding: .utf8)
    let messages = [
      #"{"cmd":"status""#,
      #"{"cmd":"status"}"#,
      #"{"cmd":"fly","id":"u1"}"#,
      #"{"cmd":"status","id":"old","notAfter":"2001-01-01T00:00:00Z"}"#,
      #"{"cmd":"select","routeIndex":7,"id":"s7"}"#,
      #"{"cmd":"status","id":1e999}"#,
    ]
    for m in messages {
      try publish(
        broker, user: "console", password: "pw-console", topic: "stepwise/veh1/command",
        message: m)
    }
    try publish(
      broker, user: "console", password: "pw-console", topic: "stepwise/veh1/command", file: big)
    try publish(
      broker, user: "console", password: "pw-console", topic: "stepwise/veh1/command",
      message: #"{"cmd":"status","id":"last"}"#)
    #expect(waitUntil(timeout: 15) { Self.replies(sub).count >= 8 })
    // Each reply names its command's id; their order is not promised (an id-less or stale
    // command is answered at once, the rest after the daemon carried them out).
    let codes = Self.replies(sub).map { r in
      "\(r["id"]?.stringValue ?? "-") \(r["class"]?.stringValue ?? "") \(r["code"]?.stringValue ?? "")"
    }
    #expect(
      codes.sorted() == [
        "- ERROR badArgument", "- ERROR badArgument", "- ERROR badJSON",
        "- ERROR documentTooLarge", "last REPLY ", "old ERROR expired", "s7 ERROR noSuchRoute",
        "u1 ERROR unknownCommand",
      ], "\(vehicle.stderr)")
    // An id beyond a double (1e999) is not echoed as null: no reply carries an id it could not
    // write.
    #expect(!Self.replies(sub).contains { $0["id"] == .null })
    // Guidance went on.
    #expect(vehicle.isRunning)
  }

  @Test func refusedCredentialsAreSaidClearlyRetriedAndLeaveGuidanceAlone() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try fleetBroker(scratch: scratch, users: Self.users)
    let wrong = scratch.file("wrong.credentials")
    try "veh1\nnot-the-password\n".write(toFile: wrong, atomically: true, encoding: .utf8)
    let drive = repositoryFile("Simulations/001-marais-drive/drive.nmea")
    let daemon = try FleetUplinkTests.stepwised(
      [
        "--route", FleetUplinkTests.route, "--json", "--state-dir", scratch.file("state"),
        "--mqtt", broker.url, "--vehicle", "veh1", "--mqtt-credentials", wrong,
        "--replay-speed", "40", drive,
      ], scratch: scratch, tag: "d")
    defer { daemon.killGroup() }
    #expect(daemon.wait(timeout: 60) == 0, "\(daemon.stderr)")
    let plain = try FleetUplinkTests.stepwised(
      ["--route", FleetUplinkTests.route, "--json", "--fast", drive], scratch: scratch, tag: "p")
    defer { plain.killGroup() }
    #expect(plain.wait(timeout: 60) == 0)
    #expect(daemon.stdout == plain.stdout)
    let refusals = daemon.stderr.split(separator: "\n").filter { $0.contains("refused") }
    #expect(refusals.count == 1, "\(daemon.stderr)")
    #expect(refusals.first?.contains("Not authorized") == true, "\(daemon.stderr)")
    // Retried (libmosquitto's back-off: after 1 s, then 4 s more) during the 10 s drive.
    let attempts = broker.log.components(separatedBy: "disconnected, not authorised").count - 1
    #expect(attempts >= 2, "\(broker.log)")
  }
}

/// `stepwise send` and `stepwise fleet` against a vehicle on a real broker.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct FleetToolTests {
  @Test func sendWaitsForTheReplyAndTakesItsExitStatusFromIt() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let track = try DaemonIntegrationTests.track(scratch)
    let vehicle = try FleetUplinkTests.stepwised(
      FleetUplinkTests.uplink(broker, scratch, ["--mqtt-commands", "--replay-speed", "4", track]),
      scratch: scratch, tag: "v")
    defer { vehicle.killGroup() }
    let viewer = try SpawnedProcess(
      [try #require(productPath("stepwise")), "fleet", broker.url, "--json"],
      environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file("fleet.out"),
      stderrPath: scratch.file("fleet.err"))
    defer { viewer.killGroup() }
    // A vehicle that never connected has no session yet to keep commands in.
    try #require(
      waitUntil(timeout: 10) {
        let r = try? retainedMessages(broker, ["stepwise/veh1/online"], scratch: scratch)
        return r?["stepwise/veh1/online"]?.contains("true") == true
      })
    let status = try runTool(
      "stepwise", ["send", "--mqtt", broker.url, "--vehicle", "veh1", "status"])
    #expect(status.status == 0, "\(status.stderr)")
    let reply = try JSONParser.parse(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(reply["class"]?.stringValue == "REPLY")
    #expect(reply["state"]?["class"]?.stringValue == "STATE")
    let select = try runTool(
      "stepwise", ["send", "--mqtt", broker.url, "--vehicle", "veh1", "select", "3"])
    #expect(select.status == 1)
    #expect(select.stdout.contains(#""code":"noSuchRoute""#))
    let load = try runTool(
      "stepwise",
      ["send", "--mqtt", broker.url, "--vehicle", "veh1", "load", FleetUplinkTests.route])
    #expect(load.status == 0, "\(load.stderr)")
    #expect(load.stdout.contains(#""routeIndex":0"#))
    let absent = try runTool(
      "stepwise", ["send", "--mqtt", broker.url, "--vehicle", "veh9", "--timeout", "1", "cancel"])
    #expect(absent.status == 1)
    #expect(absent.stderr.contains("no reply from veh9"))
    // The viewer saw the vehicle online, its state and its events, each tagged with its id.
    let seen = waitUntil(timeout: 10) {
      let lines = viewer.stdout.split(separator: "\n").compactMap {
        try? JSONParser.parse(String($0))
      }
      let topics = Set(
        lines.filter { $0["vehicle"] == "veh1" }.compactMap { $0["topic"]?.stringValue })
      return topics.isSuperset(of: ["online", "state", "events", "progress"])
    }
    #expect(seen, "\(viewer.stdout.prefix(2000)) \(viewer.stderr)")
  }

  @Test func theFleetTableShowsEachVehiclesGuidance() throws {
    var table = FleetTable()
    let route = try JSONParser.parse(
      #"{"class":"ROUTE","time":"2024-05-01T08:00:00.000Z","seq":1,"boot":"b1","name":"Depot to Market","routeIndex":0,"distance":3000,"expectedTravelTime":400,"transportType":"automobile","hasTolls":false,"hasHighways":false,"steps":11,"source":"Depot","destination":"Market","reason":"start","revision":0}"#
    )
    let say = try JSONParser.parse(
      #"{"class":"ANNOUNCE","time":"2024-05-01T08:00:01.000Z","seq":2,"boot":"b1","step":3,"kind":"approach","text":"Turn left onto Rue X.","id":"r0.s3.approach"}"#
    )
    let progress = try JSONParser.parse(
      #"{"class":"PROGRESS","time":"2024-05-01T08:00:02.000Z","seq":3,"boot":"b1","step":3,"distanceToManeuver":120.4,"distanceRemaining":2450,"timeRemaining":392,"eta":"2024-05-01T08:06:34.000Z","onRoute":true,"latitude":48.1,"longitude":2.3}"#
    )
    var up = JSONObject()
    up.append("online", true)
    var down = JSONObject()
    down.append("online", false)
    table.apply(vehicle: "bus-7", kind: "online", up, at: 100)
    table.apply(vehicle: "bus-7", kind: "events", try #require(route.objectValue), at: 100)
    table.apply(vehicle: "bus-7", kind: "events", try #require(say.objectValue), at: 100)
    table.apply(vehicle: "bus-7", kind: "progress", try #require(progress.objectValue), at: 101)
    table.apply(vehicle: "van-2", kind: "online", down, at: 90)
    let lines = table.render(now: 104).split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[0].hasPrefix("VEHICLE"))
    let bus = lines[1].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    #expect(
      bus == "bus-7 yes Depot to Market 3/10 Turn left onto Rue X. 120 m 2.5 km 08:06 on 3 s")
    #expect(lines[2].hasPrefix("van-2    no "))
  }

  /// Ten thousand vehicles: sorted, filtered and paged; the silent ones shown stale and the
  /// ones that said so offline, counted in the footer.
  @Test func theFleetTableSortsFiltersAndPagesTenThousandVehicles() throws {
    var table = FleetTable()
    var up = JSONObject()
    up.append("online", true)
    var down = JSONObject()
    down.append("online", false)
    for i in 0..<10_000 {
      let id = "v" + String(10_000 + i).dropFirst()
      // Vehicle i has 10,000 - i metres to go; every 100th went offline, every 7th was last
      // heard from 300 s ago.
      let seen = i % 7 == 0 ? 700.0 : 1000.0
      table.apply(vehicle: id, kind: "online", i % 100 == 0 ? down : up, at: seen)
      let progress = try JSONParser.parse(
        #"{"class":"PROGRESS","time":"2024-05-01T08:00:02.000Z","seq":3,"boot":"b1","step":3,"distanceToManeuver":120,"distanceRemaining":"#
          + "\(10_000 - i)"
          + #","timeRemaining":392,"eta":"2024-05-01T08:06:34.000Z","onRoute":true,"latitude":48.1,"longitude":2.3}"#
      )
      table.apply(vehicle: id, kind: "progress", try #require(progress.objectValue), at: seen)
    }
    var view = FleetTable.View()
    view.rows = 50
    view.page = 3
    let (page, footer) = table.render(now: 1001, view)
    let ids = page.split(separator: "\n").dropFirst().map { String($0.prefix(5)) }
    #expect(ids == (100..<150).map { "v" + String(10_000 + $0).dropFirst() })
    let offline = 100
    let stale = (0..<10_000).filter { $0 % 7 == 0 && $0 % 100 != 0 }.count
    #expect(
      footer == "10000 vehicles, 10000 shown (id), \(offline) offline, \(stale) stale; page 3/200")
    view.order = .remaining
    #expect(table.selected(view, now: 1001).prefix(2) == ["v9999", "v9998"])
    view.order = .seen
    #expect(table.selected(view, now: 1001).first == "v0000")
    view.filter = "stale"
    view.order = .id
    let staleIDs = table.selected(view, now: 1001)
    #expect(staleIDs.count == stale && staleIDs.first == "v0007")
    view.filter = "offline"
    #expect(table.selected(view, now: 1001).count == offline)
    view.filter = "V12"
    #expect(table.selected(view, now: 1001).count == 100)
    view.filter = "nothing-like-it"
    view.page = 9
    let empty = table.render(now: 1001, view)
    #expect(empty.table.split(separator: "\n").count == 1)
    #expect(empty.footer.hasSuffix("page 1/1"))
  }
}

extension FleetUplinkTests {
  /// Runs openssl with `arguments` in `folder`, failing the test when it is missing or fails.
  static func openssl(_ arguments: [String], in folder: String) throws {
    let tool = "/usr/bin/openssl"
    try #require(FileManager.default.isExecutableFile(atPath: tool), "openssl is missing")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = arguments
    p.currentDirectoryURL = URL(fileURLWithPath: folder)
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    try #require(p.terminationStatus == 0, "openssl \(arguments)")
  }

  /// A test CA and a server certificate for 127.0.0.1 in `pki` (ca.crt, server.crt,
  /// server.key), readable by a broker running as another user.
  static func makePKI(_ pki: String) throws {
    try FileManager.default.createDirectory(atPath: pki, withIntermediateDirectories: true)
    try Self.openssl(
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
        "-days", "2", "-subj", "/CN=Stepwise test CA",
      ], in: pki)
    try Self.openssl(
      [
        "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=127.0.0.1",
      ], in: pki)
    try "subjectAltName=IP:127.0.0.1\n".write(
      toFile: pki + "/ext", atomically: true, encoding: .utf8)
    try Self.openssl(
      [
        "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "ext",
      ], in: pki)
    chmod(pki, 0o755)
    for f in ["ca.crt", "server.crt", "server.key"] { chmod(pki + "/" + f, 0o644) }
  }

  @Test func mqttsWithTheBrokersCAWorksAndAnotherCAIsRefusedClearly() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let pki = scratch.file("pki")
    try Self.makePKI(pki)
    let broker = try MosquittoBroker(
      scratch: scratch,
      config: [
        "cafile \(pki)/ca.crt", "certfile \(pki)/server.crt", "keyfile \(pki)/server.key",
      ])
    let url = "mqtts://127.0.0.1:\(broker.port)"
    let drive = repositoryFile("Simulations/001-marais-drive/drive.nmea")
    let good = try Self.stepwised(
      [
        "--route", Self.route, "--json", "--fast", "--state-dir", scratch.file("state"),
        "--mqtt", url, "--mqtt-cafile", pki + "/ca.crt", "--vehicle", "veh1", drive,
      ], scratch: scratch, tag: "good")
    defer { good.killGroup() }
    #expect(good.wait(timeout: 60) == 0, "\(good.stderr)")
    #expect(good.stderr.contains("connected to \(url)"), "\(good.stderr)")
    // The system's CA bundle does not vouch for this broker: said, retried, guidance unchanged.
    // Paced (about 9 s), not --fast: a fast replay could end before the first handshake failed,
    // and then there is nothing to say.
    let bad = try Self.stepwised(
      [
        "--route", Self.route, "--json", "--replay-speed", "30", "--state-dir",
        scratch.file("state2"),
        "--mqtt", url, "--vehicle", "veh2", drive,
      ], scratch: scratch, tag: "bad")
    defer { bad.killGroup() }
    #expect(bad.wait(timeout: 60) == 0, "\(bad.stderr)")
    // Said once, five seconds in, with OpenSSL's reason as libmosquitto logged it, whether the
    // handshake failed inside the first connect or later on the network thread.
    let said = bad.stderr.split(separator: "\n").filter { $0.contains("MQTT") }
    #expect(said.count == 1, "\(bad.stderr)")
    #expect(
      said.first?.contains("not connected to \(url) 5 s after connecting began") == true,
      "\(bad.stderr)")
    #expect(said.first?.contains("certificate verify failed") == true, "\(bad.stderr)")
    #expect(!bad.stderr.contains("connected to \(url) as"))
    #expect(bad.stdout == good.stdout)
  }
}
