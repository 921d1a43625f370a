import Foundation
import JSON
import TestSupport
import Testing

/// `stepwised --router` end to end: a drive that leaves the Marais route, replayed `--fast`
/// against a real Valhalla on loopback, and against a router that is down.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct RerouteDaemonTests {
  static let route = "Simulations/001-marais-drive/route.json"

  /// A drive that turns off the route 700 m in and goes 400 m east off it.
  static func deviatingDrive(_ scratch: ScratchDirectory) throws -> String {
    let r = try runTool(
      "stepwise",
      [
        "simulate", route, "--deviate-at", "700", "--deviate-angle", "90", "--deviate-length",
        "400",
      ])
    #expect(r.status == 0, "\(r.stderr)")
    let path = scratch.file("deviate.nmea")
    try r.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func objects(_ transcript: String) throws -> [JSONObject] {
    try transcript.split(separator: "\n").compactMap {
      try JSONParser.parse(Array($0.utf8)).objectValue
    }.filter { $0["class"]?.stringValue != "PROGRESS" }
  }

  @Test func aFastReplayReroutesAgainstARealValhallaTheSameWayEveryTime() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let track = try Self.deviatingDrive(scratch)
    let valhalla = try ValhallaService(extract: "paris_bss")
    defer { valhalla.stop() }
    let arguments = [
      "--route", Self.route, "--json", "--fast", "--router", valhalla.baseURL, track,
    ]
    let first = try runTool("stepwised", arguments)
    #expect(first.status == 0, "\(first.stderr)")
    let again = try runTool("stepwised", arguments)
    #expect(again.stdout == first.stdout)
    let events = try Self.objects(first.stdout)
    let routes = events.filter { $0["class"]?.stringValue == "ROUTE" }
    #expect(routes.count >= 2)
    let announcements = events.filter { $0["class"]?.stringValue == "ANNOUNCE" }
    let kinds = announcements.compactMap { $0["kind"]?.stringValue }
    #expect(kinds.filter { $0 == "depart" }.count == 1)
    let reroutes = announcements.filter { $0["kind"]?.stringValue == "reroute" }
    #expect(!reroutes.isEmpty)
    #expect(reroutes.allSatisfy { $0["text"]?.stringValue?.hasPrefix("New route. In ") == true })
    let ids = announcements.compactMap { $0["id"]?.stringValue }
    #expect(Set(ids).count == ids.count, "an announcement id repeats: \(ids)")
    #expect(reroutes.first?["id"]?.stringValue == "r0.v1.reroute")
    // The first new route comes after the vehicle was declared off its route, not before.
    let classes = events.compactMap { $0["class"]?.stringValue }
    let off = try #require(classes.firstIndex(of: "OFFROUTE"))
    let second = try #require(classes.indices.filter { classes[$0] == "ROUTE" }.dropFirst().first)
    #expect(off < second)

    let korean = try runTool("stepwised", ["--locale", "ko"] + arguments)
    let koreanReroutes = try Self.objects(korean.stdout).filter {
      $0["kind"]?.stringValue == "reroute"
    }
    #expect(!koreanReroutes.isEmpty)
    #expect(
      koreanReroutes.allSatisfy { $0["text"]?.stringValue?.hasPrefix("새 경로로 안내합니다. ") == true })
  }

  @Test func aRestartAfterARerouteResumesTheNewRoute() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let track = try Self.deviatingDrive(scratch)
    let valhalla = try ValhallaService(extract: "paris_bss")
    defer { valhalla.stop() }
    let common = ["--route", Self.route, "--json", "--fast", "--router", valhalla.baseURL]
    let whole = try Self.objects(runTool("stepwised", common + [track]).stdout)
    let reroute = try #require(whole.first { $0["kind"]?.stringValue == "reroute" })
    // The track up to 10 s after the first reroute, then the rest, with state in between.
    let time = try #require(reroute["time"]?.stringValue)  // 2024-05-01T08:01:15.000Z
    let parts = time.dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
    let cut = parts[0] * 3600 + parts[1] * 60 + parts[2] + 10
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let stamp = "," + two(cut / 3600) + two(cut / 60 % 60) + two(cut % 60)
    // NMEA lines end in CR LF.
    let lines = try String(contentsOfFile: track, encoding: .utf8).components(separatedBy: "\r\n")
    let split = try #require(lines.firstIndex { $0.contains(stamp) })
    #expect(split > 100, "\(stamp) at line \(split) of \(lines.count)")
    try lines[..<split].joined(separator: "\r\n").appending("\r\n").write(
      toFile: scratch.file("a.nmea"), atomically: true, encoding: .utf8)
    try lines[split...].joined(separator: "\r\n").write(
      toFile: scratch.file("b.nmea"), atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(
      atPath: scratch.file("state"), withIntermediateDirectories: false)
    let state = ["--state-dir", scratch.file("state")]
    let first = try runTool("stepwised", common + state + [scratch.file("a.nmea")])
    #expect(first.status == 0, "\(first.stderr)")
    let before = try Self.objects(first.stdout).filter { $0["class"]?.stringValue == "ROUTE" }
    #expect(before.count >= 2)
    let second = try runTool("stepwised", common + state + [scratch.file("b.nmea")])
    #expect(second.stderr.contains("resuming the rerouted route"), "\(second.stderr)")
    let after = try Self.objects(second.stdout)
    let route = try #require(after.first { $0["class"]?.stringValue == "ROUTE" })
    #expect(route["steps"] == before.last?["steps"])
    #expect(route["distance"] == before.last?["distance"])
    let ids = after.filter { $0["class"]?.stringValue == "ANNOUNCE" }.compactMap {
      $0["id"]?.stringValue
    }
    #expect(!ids.isEmpty)
    #expect(ids.allSatisfy { $0.hasPrefix("r0.v") }, "\(ids)")
    #expect(!ids.contains { $0.hasSuffix(".depart") })
  }

  @Test func aRouterThatIsDownChangesNothingAndIsSaidOnce() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let track = try Self.deviatingDrive(scratch)
    let port = try freeLoopbackPort()
    let without = try runTool("stepwised", ["--route", Self.route, "--json", "--fast", track])
    let down = try runTool(
      "stepwised",
      [
        "--route", Self.route, "--json", "--fast", "--router", "http://127.0.0.1:\(port)",
        "--router-timeout", "1", track,
      ])
    #expect(down.status == 0)
    #expect(down.stdout == without.stdout)
    let said = down.stderr.split(separator: "\n").filter { $0.contains("connection refused") }
    #expect(said.count == 1, "\(down.stderr)")
  }

  @Test func routerOptionsNeedARouterAndAUsableURL() throws {
    let orphan = try runTool("stepwised", ["--route", Self.route, "--router-api", "osrm", "-"])
    #expect(orphan.status == 2)
    #expect(orphan.stderr.contains("need --router URL"))
    let bad = try runTool("stepwised", ["--route", Self.route, "--router", "ftp://x", "-"])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("--router: the router URL must start with http://"))
  }
}
