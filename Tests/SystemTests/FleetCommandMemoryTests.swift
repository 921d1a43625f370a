import Foundation
import JSON
import TestSupport
import Testing
import Uplink

/// Commands over MQTT that change guidance: a `cancel` reaches the `events` topic like every
/// other event, and a command id answered before a crash is not carried out again after it.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct FleetCommandMemoryTests {
  static func replies(_ sub: SpawnedProcess) -> [JSONObject] {
    receivedMessages(sub.stdout).filter { $0.topic == "stepwise/veh1/reply" }.compactMap(\.object)
  }

  static func send(_ broker: MosquittoBroker, _ message: String) throws {
    let r = try publish(
      broker, user: "console", password: "-", topic: "stepwise/veh1/command", message: message)
    try #require(r.status == 0, "\(r.stderr)")
  }

  @Test func aCancelIsPublishedOnEventsWithTheSocketsSeqAndClearsTheRetainedState() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let sub = try durableSubscriber(
      broker, id: "disp", topics: ["stepwise/+/events", "stepwise/+/reply"], scratch: scratch)
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as disp ") })
    let track = try DaemonIntegrationTests.track(scratch)
    let sock = scratch.file("s.sock")
    let vehicle = try FleetUplinkTests.stepwised(
      FleetUplinkTests.uplink(
        broker, scratch, ["--mqtt-commands", "--socket", sock, "--replay-speed", "4", track]),
      scratch: scratch, tag: "v")
    defer { vehicle.killGroup() }
    try #require(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: sock) })
    let watcher = try SocketTestClient(path: sock)
    try #require(
      waitUntil(timeout: 15) {
        dedupedEvents(receivedMessages(sub.stdout), topic: "stepwise/veh1/events").contains {
          $0["class"]?.stringValue == "STEP"
        }
      }, "\(vehicle.stderr)")
    try Self.send(broker, #"{"cmd":"cancel","id":"x1"}"#)
    let onSocket = try #require(watcher.until("CANCELLED", timeout: 10).last)
    #expect(onSocket["class"]?.stringValue == "CANCELLED")
    var events: [JSONObject] = []
    let published = waitUntil(timeout: 10) {
      events = dedupedEvents(receivedMessages(sub.stdout), topic: "stepwise/veh1/events")
      return events.contains { $0["class"]?.stringValue == "CANCELLED" }
    }
    try #require(published, "\(vehicle.stderr)")
    let i = try #require(events.firstIndex { $0["class"]?.stringValue == "CANCELLED" })
    let cancelled = events[i]
    // Numbered as on the socket, after the events before it.
    #expect(cancelled["seq"]?.doubleValue == onSocket["seq"]?.doubleValue)
    #expect((cancelled["seq"]?.doubleValue ?? 0) > (events[i - 1]["seq"]?.doubleValue ?? .infinity))
    #expect(cancelled["boot"] == events[i - 1]["boot"])
    #expect(cancelled["time"]?.stringValue != nil)
    // The retained state follows: no longer guiding.
    let idle = waitUntil(timeout: 10) {
      let r = try? retainedMessages(broker, ["stepwise/veh1/state"], scratch: scratch)
      let state = r?["stepwise/veh1/state"].flatMap { try? JSONParser.parse($0) }
      return state?["guiding"]?.boolValue == false
    }
    #expect(idle)
    // Guidance taken up again: the next ROUTE follows the CANCELLED, its seq one above.
    try Self.send(broker, #"{"cmd":"select","routeIndex":0,"id":"x2"}"#)
    let onSocketRoute = try #require(watcher.until("ROUTE", timeout: 10).last)
    let resumed = waitUntil(timeout: 10) {
      events = dedupedEvents(receivedMessages(sub.stdout), topic: "stepwise/veh1/events")
      return events.count > i + 1
    }
    try #require(resumed, "\(vehicle.stderr)")
    #expect(events[i + 1]["class"]?.stringValue == "ROUTE")
    #expect(events[i + 1]["seq"]?.doubleValue == (cancelled["seq"]?.doubleValue ?? 0) + 1)
    #expect(events[i + 1]["seq"]?.doubleValue == onSocketRoute["seq"]?.doubleValue)
    #expect(Self.replies(sub).compactMap { $0["id"]?.stringValue } == ["x1", "x2"])
  }

  @Test func aCommandDeliveredAgainAfterASIGKILLAndARestartIsNotCarriedOutTwice() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let broker = try MosquittoBroker(scratch: scratch)
    let sub = try durableSubscriber(
      broker, id: "disp", topics: ["stepwise/+/reply"], scratch: scratch)
    defer { sub.killGroup() }
    try #require(waitUntil(timeout: 5) { broker.log.contains(" as disp ") })
    let track = try DaemonIntegrationTests.track(scratch)
    let arguments = FleetUplinkTests.uplink(
      broker, scratch, ["--mqtt-commands", "--replay-speed", "4", track])
    let first = try FleetUplinkTests.stepwised(arguments, scratch: scratch, tag: "a")
    defer { first.killGroup() }
    // The retained state goes out after the subscription to command, on the same connection:
    // once it is there, a command reaches the vehicle (a new session keeps nothing before).
    try #require(
      waitUntil(timeout: 10) {
        let r = try? retainedMessages(broker, ["stepwise/veh1/state"], scratch: scratch)
        return r?["stepwise/veh1/state"] != nil
      }, "\(first.stderr)")
    let select = #"{"cmd":"select","routeIndex":0,"id":"k1"}"#
    try Self.send(broker, select)
    try #require(waitUntil(timeout: 10) { Self.replies(sub).count == 1 }, "\(first.stderr)")
    first.killGroup()
    let second = try FleetUplinkTests.stepwised(arguments, scratch: scratch, tag: "b")
    defer { second.killGroup() }
    try #require(
      waitUntil(timeout: 15) {
        broker.log.components(separatedBy: " as veh1 ").count == 3
      }, "\(second.stderr)")
    // What the broker would send again had the first run's PUBACK been lost in the crash.
    try Self.send(broker, select)
    try Self.send(broker, #"{"cmd":"status","id":"k2"}"#)
    #expect(
      waitUntil(timeout: 10) { Self.replies(sub).contains { $0["id"]?.stringValue == "k2" } },
      "\(second.stderr)")
    // Carried out by the first run only. Its reply may come twice (QoS 1: the first run may
    // have died before it saw the broker's PUBACK, and the journal sends it again), which
    // dispatchers dedupe by id.
    #expect(first.stderr.contains("select by"), "\(first.stderr)")
    #expect(!second.stderr.contains("select by"), "\(second.stderr)")
    #expect(second.stderr.contains("command sk1 again; ignored"), "\(second.stderr)")
    var ids: [String] = []
    for id in Self.replies(sub).compactMap({ $0["id"]?.stringValue }) where ids.last != id {
      ids.append(id)
    }
    #expect(ids == ["k1", "k2"])
  }

  @Test func theCommandMemoryIsBoundedAndSurvivesATornLastLine() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("mqtt-commands")
    do {
      let memory = try CommandMemory(path: path, capacity: 10)
      for i in 0..<25 { memory.remember("s\(i)") }
      memory.remember("s" + String(repeating: "y", count: 1000))
      #expect(memory.count == 10)
      #expect(!memory.contains("s15") && memory.contains("s16") && memory.contains("s24"))
    }
    // A power cut in the middle of the next id: the torn line is not an id.
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(#""s99"#.utf8))
    try handle.close()
    let reopened = try CommandMemory(path: path, capacity: 10)
    #expect(reopened.count == 10)
    #expect(reopened.contains("s24") && !reopened.contains("s99") && !reopened.contains("s15"))
    #expect(reopened.contains("s" + String(repeating: "y", count: 1000)))
    #expect(!reopened.contains("s" + String(repeating: "y", count: 999)))
    // The file was rewritten with the ids kept, one line each.
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 10)
  }
}
