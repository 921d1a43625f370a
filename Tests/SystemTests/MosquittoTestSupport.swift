import Foundation
import JSON
import TestSupport
import Testing

// A real mosquitto broker on loopback for the fleet-uplink tests: its own config, port and
// folder; started and ended by its pid (never by name).

/// `mosquitto` and `mosquitto_sub`/`_pub` paths, or a test failure when they are missing
/// (Scripts/install-deps.sh installs them).
func mosquittoTool(_ name: String) throws -> String {
  let path = (name == "mosquitto" ? "/usr/sbin/" : "/usr/bin/") + name
  try #require(
    FileManager.default.isExecutableFile(atPath: path),
    "\(path) is missing: run Scripts/install-deps.sh (Debian mosquitto, mosquitto-clients)")
  return path
}

/// One broker.
///
/// `restart()` keeps its port, folder and persistence file.
final class MosquittoBroker {
  let port: Int
  let folder: String
  private(set) var process: SpawnedProcess?
  private var starts = 0

  /// A broker on a free loopback port; `config` holds extra mosquitto.conf lines
  /// (password_file, acl_file …), and without any, anonymous clients are allowed.
  init(scratch: ScratchDirectory, config: [String] = []) throws {
    port = try freeLoopbackPort()
    folder = scratch.file("broker")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    // mosquitto drops to user "mosquitto" when started as root; it must write its database.
    chmod(scratch.path, 0o755)
    chmod(folder, 0o1777)
    var lines = [
      "listener \(port) 127.0.0.1",
      "persistence true",
      "persistence_location \(folder)/",
      "autosave_interval 1",
      "max_queued_messages 100000",
      "log_dest file \(folder)/mosquitto.log",
      "log_type error",
      "log_type warning",
      "log_type notice",
    ]
    if !config.contains(where: { $0.hasPrefix("allow_anonymous") }) {
      lines.append("allow_anonymous true")
    }
    lines += config
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: folder + "/mosquitto.conf", atomically: true, encoding: .utf8)
    try start()
  }

  deinit { process?.killGroup() }

  var url: String { "mqtt://127.0.0.1:\(port)" }

  func start() throws {
    starts += 1
    process = try SpawnedProcess(
      [try mosquittoTool("mosquitto"), "-c", folder + "/mosquitto.conf"],
      environment: ["PATH": "/usr/bin:/bin"], stdoutPath: folder + "/out.\(starts)",
      stderrPath: folder + "/err.\(starts)")
    let up = waitUntil(timeout: 10) { isListening(port) }
    try #require(up, "mosquitto did not start: \(process?.stderr ?? "")")
  }

  /// A clean outage: SIGTERM (the broker saves its database), waiting for the exit.
  func stop() {
    guard let p = process else { return }
    p.signal(SIGCONT)
    p.signal(SIGTERM)
    if p.wait(timeout: 10) == nil { p.killGroup() }
    process = nil
  }

  func restart() throws {
    stop()
    try start()
  }

  /// Freezes the broker (a half-open link, as in a tunnel) or thaws it.
  func freeze() { process?.signal(SIGSTOP) }
  func thaw() { process?.signal(SIGCONT) }

  var log: String {
    (try? String(contentsOfFile: folder + "/mosquitto.log", encoding: .utf8)) ?? ""
  }
}

/// `mosquitto_sub` as a durable MQTT 5 subscriber (`-c`, session expiry 1 h, QoS 1): it
/// reconnects by itself after a broker restart and writes "topic payload" lines.
func durableSubscriber(
  _ broker: MosquittoBroker, id: String, topics: [String], scratch: ScratchDirectory,
  extra: [String] = []
) throws -> SpawnedProcess {
  var argv = [
    try mosquittoTool("mosquitto_sub"), "-h", "127.0.0.1", "-p", "\(broker.port)", "-V", "5",
    "-c", "-i", id, "-x", "3600", "-q", "1", "-v",
  ]
  for t in topics { argv += ["-t", t] }
  return try SpawnedProcess(
    argv + extra, environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file("\(id).out"),
    stderrPath: scratch.file("\(id).err"))
}

/// One message as `mosquitto_sub -v` printed it.
struct ReceivedMessage {
  var topic: String
  var payload: String
  var object: JSONObject? { (try? JSONParser.parse(payload))?.objectValue ?? nil }
}

func receivedMessages(_ text: String) -> [ReceivedMessage] {
  text.split(separator: "\n").compactMap { (line: Substring) -> ReceivedMessage? in
    let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return nil }
    return ReceivedMessage(topic: String(parts[0]), payload: String(parts[1]))
  }
}

/// The events of `messages` on `topic`, deduplicated by (`boot`, `seq`) the way docs/fleet.md
/// tells consumers to: per boot, a `seq` not above the last one seen is a duplicate.
func dedupedEvents(_ messages: [ReceivedMessage], topic: String) -> [JSONObject] {
  var last: [String: Double] = [:]
  var out: [JSONObject] = []
  for m in messages where m.topic == topic {
    guard let o = m.object, let boot = o["boot"]?.stringValue, let seq = o["seq"]?.doubleValue
    else { continue }
    if let l = last[boot], seq <= l { continue }
    last[boot] = seq
    out.append(o)
  }
  return out
}

/// `object` without the members the uplink adds (`seq`, `boot`), as `stepwised --json` prints it.
func withoutStamp(_ object: JSONObject) -> String {
  var o = JSONObject()
  for m in object where m.key != "seq" && m.key != "boot" { o.append(m.key, m.value) }
  return JSONWriter.string(.object(o))
}

/// Where two event sequences part, for a failure message: their lengths and the first lines
/// that differ.
func difference(_ a: [String], _ b: [String]) -> String {
  let common = min(a.count, b.count)
  let i = (0..<common).first { a[$0] != b[$0] } ?? common
  let left = i < a.count ? a[i] : "(end)"
  let right = i < b.count ? b[i] : "(end)"
  return "\(a.count) against \(b.count) events; at \(i): \(left)\n  against \(right)"
}

/// The JSON lines of a `--json` transcript that the uplink's `events` topic carries (all but
/// `PROGRESS`), normalised through the same writer.
func eventLines(_ transcript: String) -> [String] {
  transcript.split(separator: "\n").compactMap { line in
    guard case .object(let o)? = try? JSONParser.parse(String(line)),
      o["class"]?.stringValue != "PROGRESS"
    else { return nil }
    return JSONWriter.string(.object(o))
  }
}

/// The retained messages of `topics` now, via a short-lived subscriber that stops once it has
/// one message per topic or after 3 s (its own `-W` relies on SIGALRM, which the test runner's
/// inherited signal mask may block).
func retainedMessages(
  _ broker: MosquittoBroker, _ topics: [String], scratch: ScratchDirectory, extra: [String] = []
) throws -> [String: String] {
  var argv = [
    try mosquittoTool("mosquitto_sub"), "-h", "127.0.0.1", "-p", "\(broker.port)", "-v",
    "--retained-only", "-C", "\(topics.count)",
  ]
  for t in topics { argv += ["-t", t] }
  argv += extra
  let p = try SpawnedProcess(
    argv, environment: ["PATH": "/usr/bin:/bin"], stdoutPath: scratch.file("retained.out"),
    stderrPath: scratch.file("retained.err"))
  if p.wait(timeout: 3) == nil { p.killGroup() }
  var out: [String: String] = [:]
  for m in receivedMessages(p.stdout) { out[m.topic] = m.payload }
  return out
}

/// A broker that admits only named users (mosquitto_passwd) under the fleet ACL of
/// docs/fleet/mosquitto.acl, with user names as client ids.
func fleetBroker(scratch: ScratchDirectory, users: [String: String]) throws -> MosquittoBroker {
  let passwords = scratch.file("passwd")
  try "".write(toFile: passwords, atomically: true, encoding: .utf8)
  for (user, password) in users {
    let r = try runTool(try mosquittoTool("mosquitto_passwd"), ["-b", passwords, user, password])
    try #require(r.status == 0, "mosquitto_passwd: \(r.stderr)")
  }
  chmod(passwords, 0o644)
  let acl = scratch.file("acl")
  // The documented file, plus a second dispatcher account as docs/fleet.md says to add one.
  var rules = try String(
    contentsOfFile: repositoryFile("docs/fleet/mosquitto.acl"), encoding: .utf8)
  rules += "\nuser console\ntopic read stepwise/+/reply\ntopic write stepwise/+/command\n"
  try rules.write(toFile: acl, atomically: true, encoding: .utf8)
  chmod(acl, 0o644)
  return try MosquittoBroker(
    scratch: scratch,
    config: [
      "allow_anonymous false", "password_file \(passwords)", "acl_file \(acl)",
      "use_username_as_clientid true", "log_type all",
    ])
}

/// Publishes one QoS 1 MQTT 5 message as `user` (mosquitto_pub); returns its exit status and
/// what it printed on stderr.
@discardableResult
func publish(
  _ broker: MosquittoBroker, user: String, password: String, topic: String, message: String? = nil,
  file: String? = nil
) throws -> ProcessResult {
  var argv = [
    "-h", "127.0.0.1", "-p", "\(broker.port)", "-V", "5", "-q", "1", "-u", user, "-P", password,
    "-i", user, "-t", topic,
  ]
  if let message { argv += ["-m", message] }
  if let file { argv += ["-f", file] }
  return try runTool(try mosquittoTool("mosquitto_pub"), argv, timeout: 10)
}
