import Foundation
import JSON
import Testing

/// stepwised's fleet uplink against a real mosquitto on loopback: what a dispatcher receives,
/// across outages, crashes and restarts. Every process is ended by its pid.
@Suite(.serialized, .timeLimit(.minutes(3)))
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

  @Test func nothingIsLostOrReorderedAcrossAFrozenAndRestartedBrokerAndAKilledDaemon() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let sub = try durableSubscriber(
      broker, id: "disp2", topics: ["stepwise/+/events"], scratch: scratch)
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as disp2 ") })
    let track = try DaemonIntegrationTests.track(scratch, settle: 5)
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
    #expect(byBoot[bootOrder[0]] == firstEvents)
    #expect(byBoot[bootOrder[1]] == secondEvents)
    // Per boot, seq only grows after dedupe, and everything of the first boot came before the
    // second's (the journal is sent in order).
    let raw = receivedMessages(sub.stdout).compactMap(\.object)
    let lastOfFirst = raw.lastIndex { $0["boot"]?.stringValue == bootOrder[0] } ?? 0
    let firstOfSecond = raw.firstIndex { $0["boot"]?.stringValue == bootOrder[1] } ?? 0
    #expect(lastOfFirst < firstOfSecond)
  }
}
