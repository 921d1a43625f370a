import CommandLineSupport
import FleetClient
import Foundation
import Glibc
import JSON
import TestSupport
import Testing
import Uplink
import stepwised

/// A three-node RabbitMQ cluster (Scripts/rabbitmq-cluster.sh) on loopback: per-vehicle
/// credentials, a vehicle failing over when its node is killed, and a command sent while that
/// node is down.
///
/// One test, because starting the cluster takes most of a minute; every process is ended by its
/// pid (the nodes and epmd by the script's `stop`).
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct FleetClusterTests {
  /// The cluster's first port (epmd); the nodes use the next 40.
  static let basePort = 26_700

  /// A started cluster, stopped by ``stop()``.
  final class Cluster {
    let folder: String
    let env: [String: String]

    /// Starts the cluster, with MQTT over TLS too when given a `tls` folder
    /// (``FleetUplinkTests/makePKI(_:)``); stops whatever it started when that fails.
    init(folder: String, tls: String? = nil) throws {
      self.folder = folder
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let r = try Self.run(["start", folder], folder: folder, timeout: 150, tls: tls)
      let text = (try? String(contentsOfFile: folder + "/cluster.env", encoding: .utf8)) ?? ""
      var env: [String: String] = [:]
      for line in text.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { env[String(parts[0])] = String(parts[1]) }
      }
      self.env = env
      if r.status != 0 || env["READY"] != "1" {
        stop()
        try #require(Bool(false), "the cluster did not start: \(r.stderr)")
      }
    }

    static let script = repositoryFile("Scripts/rabbitmq-cluster.sh")

    /// Runs the script through posix_spawn, not Foundation's `Process`, whose wait never ends
    /// while the nodes the script started hold a descriptor it gave the child.
    static func run(
      _ arguments: [String], folder: String, timeout: Double, tls: String? = nil
    ) throws -> (status: Int32?, stderr: String) {
      let tag = arguments[0] + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
      var environment = [
        "PATH": "/usr/bin:/bin:/usr/sbin:/sbin",
        "RABBITMQ_CLUSTER_PORT": "\(FleetClusterTests.basePort)",
      ]
      if let tls { environment["RABBITMQ_CLUSTER_TLS"] = tls }
      let p = try SpawnedProcess(
        ["/bin/sh", script] + arguments, environment: environment,
        stdoutPath: folder + "/\(tag).out", stderrPath: folder + "/\(tag).err")
      let status = p.wait(timeout: timeout)
      if status == nil { p.signal(SIGKILL) }
      return (status, p.stderr)
    }

    func mqttPort(_ node: Int) -> String { env["MQTT_PORT_\(node)"] ?? "0" }
    func url(_ node: Int) -> String { "mqtt://127.0.0.1:" + mqttPort(node) }

    func user(_ name: String, _ password: String, _ role: String) throws {
      let r = try Self.run(["user", folder, name, password, role], folder: folder, timeout: 60)
      try #require(r.status == 0, "\(r.stderr)")
    }

    /// Kills node `node` with SIGKILL, by its pid.
    func kill(_ node: Int) throws {
      let pid = try #require(env["PID_\(node)"].flatMap { pid_t($0) })
      #expect(Glibc.kill(pid, SIGKILL) == 0)
    }

    /// Ends every node and epmd, each by its pid (the script's `stop`).
    func stop() {
      _ = try? Self.run(["stop", folder], folder: folder, timeout: 150)
    }
  }

  /// `mosquitto_pub` of one QoS 1 MQTT 3.1.1 message to node `node`.
  static func publish(
    _ cluster: Cluster, node: Int, user: String, password: String, topic: String, message: String
  ) throws -> ProcessResult {
    try runTool(
      try mosquittoTool("mosquitto_pub"),
      [
        "-h", "127.0.0.1", "-p", cluster.mqttPort(node), "-V", "mqttv311", "-q", "1", "-u", user,
        "-P", password, "-i", user + "-pub", "-t", topic, "-m", message,
      ], timeout: 20)
  }

  /// Runs `argv` to its end (at most `timeout` s), its output in the scratch directory.
  static func runToEnd(_ argv: [String], scratch: ScratchDirectory, tag: String, timeout: Double)
    throws -> (status: Int32?, stdout: String, stderr: String)
  {
    let p = try SpawnedProcess(
      argv, environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file(tag + ".out"),
      stderrPath: scratch.file(tag + ".err"))
    let status = p.wait(timeout: timeout)
    if status == nil { p.killGroup() }
    return (status, p.stdout, p.stderr)
  }

  /// `vehicles` simulated vehicles (Benchmarks/fleet_load.c, built here with cc and
  /// libmosquitto), each with its own account, spread over the three nodes, publishing one
  /// message a second for `seconds` s once all are connected (returned then), with their own
  /// durable dispatcher on node 3 that checks every message arrives, in order per vehicle.
  static func startLoad(
    _ cluster: Cluster, scratch: ScratchDirectory, vehicles: Int, seconds: Int
  ) throws -> SpawnedProcess {
    let binary = scratch.file("fleet_load")
    let built = try runToEnd(
      [
        "/usr/bin/cc", "-O2", "-o", binary, repositoryFile("Benchmarks/fleet_load.c"),
        "-lmosquitto", "-lm", "-lpthread",
      ], scratch: scratch, tag: "cc", timeout: 120)
    try #require(built.status == 0, "\(built.stderr)")
    let definitions = scratch.file("vehicles.json")
    let written = try runToEnd(
      [
        "/usr/bin/python3", repositoryFile("Scripts/fleet-bench.py"), "--definitions",
        "\(vehicles)", definitions,
      ], scratch: scratch, tag: "definitions", timeout: 60)
    try #require(written.status == 0, "\(written.stderr)")
    let imported = try Cluster.run(
      ["definitions", cluster.folder, definitions], folder: cluster.folder, timeout: 120)
    try #require(imported.status == 0, "\(imported.stderr)")
    try cluster.user("loaddisp", "pw-loaddisp", "dispatcher")
    let load = try SpawnedProcess(
      [
        binary, "--brokers",
        [1, 2, 3].map { "127.0.0.1:" + cluster.mqttPort($0) }.joined(
          separator: ","),
        "--mqtt311", "--vehicles", "\(vehicles)", "--seconds", "\(seconds)", "--drain", "40",
        "--recording", repositoryFile("Benchmarks/fleet-recording.txt"), "--dispatcher",
        "loaddisp:pw-loaddisp",
      ], environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file("load.out"),
      stderrPath: scratch.file("load.err"))
    try #require(
      waitUntil(timeout: 60) { load.stdout.contains("connect_s=") }, "\(load.stderr)")
    return load
  }

  /// The generator's `key=value` report.
  static func report(_ text: String) -> [String: String] {
    var r: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1)
      if parts.count == 2 { r[String(parts[0])] = String(parts[1]) }
    }
    return r
  }

  /// The `class` of an event line.
  static func eventClass(_ line: String) -> String {
    (try? JSONParser.parse(line))?["class"]?.stringValue ?? "?"
  }

  @Test func aVehicleFailsOverWhenItsNodeIsKilledAndLosesNothing() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let pki = scratch.file("pki")
    try FleetUplinkTests.makePKI(pki)
    let cluster = try Cluster(folder: scratch.file("cluster"), tls: pki)
    defer { cluster.stop() }
    try cluster.user("veh1", "pw-veh1", "vehicle")
    try cluster.user("veh2", "pw-veh2", "vehicle")
    try cluster.user("disp", "pw-disp", "dispatcher")
    // A back-office AMQP consumer (docs/fleet/consumer.py): its quorum queue bound now, read
    // after the drive.
    try cluster.user("bo", "pw-bo", "backoffice")
    let consumer = ["/usr/bin/python3", repositoryFile("docs/fleet/consumer.py")]
    let amqp = "amqp://bo:pw-bo@127.0.0.1:\(cluster.env["AMQP_PORT_2"] ?? "0")/stepwise"
    let declared = try SpawnedProcess(
      consumer + ["--url", amqp, "--declare-only"], environment: ["PATH": "/usr/bin:/bin"],
      stdoutPath: scratch.file("declare.out"), stderrPath: scratch.file("declare.err"))
    #expect(declared.wait(timeout: 30) == 0, "\(declared.stderr)")
    let credentials = scratch.file("veh1.credentials")
    try "veh1\npw-veh1\n".write(toFile: credentials, atomically: true, encoding: .utf8)

    // The dispatcher on node 3, which stays up: a durable (clean session off) subscriber, whose
    // queue is a quorum queue on all three nodes.
    let sub = try SpawnedProcess(
      [
        try mosquittoTool("mosquitto_sub"), "-h", "127.0.0.1", "-p", cluster.mqttPort(3), "-V",
        "mqttv311", "-c", "-i", "disp", "-q", "1", "-v", "-u", "disp", "-P", "pw-disp", "-t",
        "stepwise/+/events", "-t", "stepwise/+/reply", "-t", "stepwise/+/online", "-t",
        "owntracks/+/+",
      ], environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file("disp.out"),
      stderrPath: scratch.file("disp.err"))
    defer { sub.killGroup() }

    // Only the vehicle speaks for the vehicle: veh2 cannot publish under veh1's topics (the
    // broker closes its connection) and nothing it sent arrives.
    sleep(2)
    let spoofed = try Self.publish(
      cluster, node: 2, user: "veh2", password: "pw-veh2", topic: "stepwise/veh1/events",
      message: #"{"class":"FORGED"}"#)
    #expect(spoofed.status != 0, "\(spoofed)")

    // TLS as on mosquitto, and OwnTracks under the vehicles' topic permissions: veh2 drives
    // over mqtts:// to node 2 with the cluster's CA, and its locations reach the dispatcher.
    let credentials2 = scratch.file("veh2.credentials")
    try "veh2\npw-veh2\n".write(toFile: credentials2, atomically: true, encoding: .utf8)
    let mqtts = "mqtts://127.0.0.1:" + (cluster.env["MQTTS_PORT_2"] ?? "0")
    let veh2 = try FleetUplinkTests.stepwised(
      [
        "--route", FleetUplinkTests.route, "--json", "--state-dir", scratch.file("state2"),
        "--mqtt", mqtts, "--mqtt-cafile", pki + "/ca.crt", "--mqtt-protocol", "3.1.1",
        "--vehicle", "veh2", "--mqtt-credentials", credentials2, "--mqtt-owntracks", "fleet",
        "--fast", repositoryFile("Simulations/001-marais-drive/drive.nmea"),
      ], scratch: scratch, tag: "veh2")
    defer { veh2.killGroup() }
    #expect(veh2.wait(timeout: 60) == 0, "\(veh2.stderr)")
    #expect(veh2.stderr.contains("connected to \(mqtts) as veh2"), "\(veh2.stderr)")
    #expect(
      waitUntil(timeout: 10) {
        receivedMessages(sub.stdout).filter { $0.topic == "owntracks/fleet/veh2" }.count >= 40
      }, "\(veh2.stderr)")

    // A hundred more vehicles under load on all three nodes while node 1 dies.
    let load = try Self.startLoad(cluster, scratch: scratch, vehicles: 100, seconds: 40)
    defer { load.killGroup() }

    let daemon = try FleetUplinkTests.stepwised(
      [
        "--route", FleetUplinkTests.route, "--json", "--state-dir", scratch.file("state"),
        "--mqtt", [1, 2, 3].map(cluster.url).joined(separator: ","), "--mqtt-protocol", "3.1.1",
        "--vehicle", "veh1", "--mqtt-keepalive", "5", "--mqtt-commands", "--mqtt-credentials",
        credentials, "--replay-speed", "6",
        repositoryFile("Simulations/001-marais-drive/drive.nmea"),
      ], scratch: scratch, tag: "veh1")
    defer { daemon.killGroup() }
    try #require(
      waitUntil(timeout: 20) {
        receivedMessages(sub.stdout).contains { $0.topic == "stepwise/veh1/events" }
      }, "\(daemon.stderr)\n\(sub.stderr)")
    #expect(daemon.stderr.contains("connected to \(cluster.url(1)) as veh1"), "\(daemon.stderr)")

    // Node 1 dies under the vehicle; a command is sent (through node 3) while it is down.
    try cluster.kill(1)
    let killed = Date()
    // Right after a node dies, the cluster's MQTT client-id tracker (a Raft group) may have
    // to elect a leader, and a new connection is closed until it has: a dispatcher retries, as
    // a vehicle does. A retried command that did arrive is run once (its id is remembered).
    var sent = false
    waitUntil(timeout: 15) {
      sent =
        (try? Self.publish(
          cluster, node: 3, user: "disp", password: "pw-disp", topic: "stepwise/veh1/command",
          message: #"{"cmd":"status","id":"while-down"}"#
        ).status) == 0
      if !sent { usleep(500_000) }
      return sent
    }
    #expect(sent)
    let movedOn = waitUntil(timeout: 10) {
      daemon.stderr.contains("connected to \(cluster.url(2)) as veh1")
        || daemon.stderr.contains("connected to \(cluster.url(3)) as veh1")
    }
    #expect(movedOn, "\(daemon.stderr)")
    #expect(Date().timeIntervalSince(killed) < 10)

    #expect(daemon.wait(timeout: 90) == 0, "\(daemon.stderr)")
    let expected = eventLines(daemon.stdout)
    #expect(expected.count > 20)
    var events: [String] = []
    waitUntil(timeout: 15) {
      events = dedupedEvents(receivedMessages(sub.stdout), topic: "stepwise/veh1/events").map(
        withoutStamp)
      return events == expected
    }
    #expect(events == expected, "\(difference(events, expected))")
    var replies: [JSONObject] = []
    waitUntil(timeout: 10) {
      replies = receivedMessages(sub.stdout).filter { $0.topic == "stepwise/veh1/reply" }
        .compactMap(\.object)
      return !replies.isEmpty
    }
    #expect(replies.map { $0["id"]?.stringValue } == ["while-down"], "\(replies)")
    #expect(replies.first?["class"]?.stringValue == "REPLY")
    #expect(!sub.stdout.contains("FORGED"))
    // The AMQP consumer on node 2 reads the same events from its queue: "vehicle boot seq class".
    let reader = try SpawnedProcess(
      consumer + ["--url", amqp, "--timeout", "5"],
      environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file("consumer.out"),
      stderrPath: scratch.file("consumer.err"))
    defer { reader.killGroup() }
    #expect(reader.wait(timeout: 30) == 0, "\(reader.stderr)")
    // The queue has the simulated vehicles' events too: veh1's, read until the queue is idle.
    let read = reader.stdout.split(separator: "\n").map { $0.split(separator: " ") }.filter {
      $0.first == "veh1"
    }
    #expect(read.map { $0.count == 4 ? String($0[3]) : "?" } == expected.map(Self.eventClass))
    let readSeqs = read.compactMap { $0.count == 4 ? Int($0[2]) : nil }
    #expect(zip(readSeqs, readSeqs.dropFirst()).allSatisfy { $0 < $1 })
    // The simulated vehicles: every message at their dispatcher, in order per vehicle, none
    // missing after dedupe; those on node 1 (a third) each back on another node within 10 s.
    #expect(load.wait(timeout: 120) == 0, "\(load.stdout)\n\(load.stderr)")
    let r = Self.report(load.stdout)
    #expect(r["result"] == "ok", "\(load.stdout)")
    #expect(r["missing"] == "0" && r["out_of_order"] == "0", "\(load.stdout)")
    #expect(Int(r["sent"] ?? "") == 4000, "\(load.stdout)")
    let lost = Int(r["link_losses"] ?? "") ?? 0
    #expect(lost >= 30, "\(load.stdout)")
    #expect(r["failovers"] == r["link_losses"], "\(load.stdout)")
    #expect((Double(r["failover_max_s"] ?? "") ?? 99) < 10, "\(load.stdout)")
    // A clean stop says offline under MQTT 3.1.1 too (the client publishes its will).
    var online: [ReceivedMessage] = []
    waitUntil(timeout: 5) {
      online = receivedMessages(sub.stdout).filter { $0.topic == "stepwise/veh1/online" }
      return online.last?.payload == #"{"online":false}"#
    }
    #expect(online.last?.payload == #"{"online":false}"#, "\(online)")
  }
}

/// The cluster's options: a list of brokers and the MQTT version, as stepwised parses them.
@Suite struct ClusterOptionsTests {
  @Test func aCommaSeparatedListIsTheFirstBrokerAndItsAlternatesInOrder() throws {
    var args = Arguments([
      "--mqtt", "mqtt://n1:1883,mqtt://n2,mqtt://[::1]:1885", "--vehicle", "bus-7",
      "--mqtt-protocol", "3.1.1",
    ])
    let c = try #require(try UplinkConfiguration.parse(&args))
    #expect(c.broker.description == "mqtt://n1:1883")
    #expect(c.alternates.map(\.description) == ["mqtt://n2:1883", "mqtt://[::1]:1885"])
    #expect(c.version311)
    #expect(args.isEmpty)
  }

  @Test func oneBrokerHasNoAlternatesAndSpeaksMQTT5() throws {
    var args = Arguments(["--mqtt", "mqtt://n1", "--vehicle", "bus-7"])
    let c = try #require(try UplinkConfiguration.parse(&args))
    #expect(c.alternates.isEmpty)
    #expect(!c.version311)
  }

  @Test(arguments: [
    ["--mqtt", "mqtt://n1,mqtts://n2", "--vehicle", "v"],
    ["--mqtt", "mqtt://n1,", "--vehicle", "v"],
    ["--mqtt", "mqtt://n1", "--vehicle", "v", "--mqtt-protocol", "4"],
    ["--mqtt-protocol", "3.1.1"],
  ])
  func mixedSchemesEmptyEntriesAndOtherVersionsAreUsageErrors(_ argv: [String]) {
    var args = Arguments(argv)
    #expect(throws: UsageError.self) { try UplinkConfiguration.parse(&args) }
  }
}
