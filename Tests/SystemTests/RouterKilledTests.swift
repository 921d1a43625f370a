import Foundation
import JSON
import TestSupport
import Testing

/// A real Valhalla killed (SIGKILL, by its pid) while the vehicle drives, then started again on
/// the same port: the driver is guided back to the route within one fix of leaving it, and
/// gets a new route within 2 s of the router answering again, even where the first routes it
/// answers turn too soon after the vehicle to be said.
///
/// The daemon replays `--fast` from a named pipe the test writes one epoch at a time, so the
/// fix clock stands still while the router restarts and each step can be awaited.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct RouterKilledTests {
  /// The daemon's events so far, `PROGRESS` included.
  static func events(_ path: String) -> [JSONObject] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap {
      try? JSONParser.parse(Array($0.utf8)).objectValue
    }
  }

  static func seconds(_ o: JSONObject) -> Double? {
    o["time"]?.stringValue.flatMap { t in
      let parts = t.dropFirst(11).prefix(12).split(separator: ":")
      guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]),
        let s = Double(parts[2])
      else { return nil }
      return h * 3600 + m * 60 + s
    }
  }

  /// The track's epochs: NMEA lines grouped by the time field of their RMC or GGA sentence.
  static func epochs(_ track: String) -> [String] {
    var out: [String] = []
    var current = ""
    var time: Substring?
    for line in track.components(separatedBy: "\r\n") where line.hasPrefix("$") {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      let stamp =
        fields.count > 1
          && (line.dropFirst(3).hasPrefix("RMC") || line.dropFirst(3).hasPrefix("GGA"))
        ? fields[1] : nil
      if let stamp, stamp != time, !current.isEmpty {
        out.append(current)
        current = ""
      }
      if let stamp { time = stamp }
      current += line + "\r\n"
    }
    if !current.isEmpty { out.append(current) }
    return out
  }

  @Test func guidanceGoesOnWithoutTheRouterAndANewRouteComesWhenItIsBack() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let simulated = try runTool(
      "stepwise",
      [
        "simulate", RerouteDaemonTests.route, "--deviate-at", "700", "--deviate-angle", "90",
        "--deviate-length", "800",
      ])
    #expect(simulated.status == 0, "\(simulated.stderr)")
    let epochs = Self.epochs(simulated.stdout)
    #expect(epochs.count > 100)
    var valhalla = try ValhallaService(extract: "paris_bss")
    defer { valhalla.stop() }
    let port = valhalla.port

    let fifo = scratch.file("track.nmea")
    #expect(mkfifo(fifo, 0o600) == 0)
    let out = scratch.file("out")
    let daemon = try SpawnedProcess(
      [
        try #require(productPath("stepwised")), "--route",
        repositoryFile(RerouteDaemonTests.route), "--json", "--fast", "--router",
        valhalla.baseURL, fifo,
      ], environment: ProcessInfo.processInfo.environment, stdoutPath: out,
      stderrPath: scratch.file("err"))
    defer { daemon.killGroup() }
    let writer = try #require(FileHandle(forWritingAtPath: fifo))
    defer { try? writer.close() }
    var written = 0
    /// Writes the next epoch and waits until the daemon has handled the one before (an epoch
    /// is complete once the next one starts).
    func step() throws {
      try writer.write(contentsOf: Data(epochs[written].utf8))
      written += 1
      let progress = written - 1
      let handled = waitUntil(timeout: 20) {
        Self.events(out).filter { $0["class"]?.stringValue == "PROGRESS" }.count >= progress
      }
      #expect(handled, "epoch \(progress) was not handled: \(daemon.stderr)")
    }
    func along() -> Double {
      Self.events(out).last { $0["class"]?.stringValue == "PROGRESS" }?["distanceAlong"]?
        .doubleValue ?? 0
    }
    func has(_ cls: String) -> Bool {
      Self.events(out).contains { $0["class"]?.stringValue == cls }
    }

    // On the route with the router up, then the router killed 150 m before the deviation.
    while along() < 550 && written < epochs.count { try step() }
    #expect(!has("OFFROUTE"))
    valhalla.stop()
    #expect(!isListening(port))
    while !has("OFFROUTE") && written < epochs.count { try step() }
    try step()
    let events = Self.events(out)
    let off = try #require(events.first { $0["class"]?.stringValue == "OFFROUTE" })
    let guided = try #require(events.first { $0["kind"]?.stringValue == "return" })
    let offTime = try #require(Self.seconds(off))
    let guidedTime = try #require(Self.seconds(guided))
    // Guided back within one fix of leaving the route (1 Hz track).
    #expect(guidedTime - offTime <= 1, "off at \(offTime), guided at \(guidedTime)")
    #expect(guided["text"]?.stringValue?.hasPrefix("The route is ") == true)
    #expect(events.filter { $0["class"]?.stringValue == "ROUTE" }.count == 1)
    // Off the route a few more seconds with the router down, then it starts again.
    // Six fixes: the router comes back where the vehicle's line crosses short streets, so the
    // first routes it answers turn within 2 s of the vehicle (asked again from the next fix,
    // they came 5 s after the router was back).
    for _ in 0..<6 { try step() }
    let restartStarted = Date()
    valhalla = try ValhallaService(extract: "paris_bss", port: port)
    let restart = Date().timeIntervalSince(restartStarted)
    let backAt = Date()
    let lastHandled = try #require(
      Self.events(out).last { $0["class"]?.stringValue == "PROGRESS" })
    // The next epoch to be handled is the first the router can answer for.
    let firstBack = try #require(Self.seconds(lastHandled)) + 1
    while Self.events(out).filter({ $0["class"]?.stringValue == "ROUTE" }).count < 2
      && written < epochs.count && Date().timeIntervalSince(backAt) < 30
    {
      try step()
    }
    let wall = Date().timeIntervalSince(backAt)
    let routes = Self.events(out).filter { $0["class"]?.stringValue == "ROUTE" }
    let rerouted = try #require(routes.dropFirst().first)
    let reroutedTime = try #require(Self.seconds(rerouted))
    #expect(reroutedTime - firstBack <= 2, "back at \(firstBack), new route at \(reroutedTime)")
    // The new route's next instruction is said with its first fix.
    try step()
    try step()
    #expect(Self.events(out).contains { $0["kind"]?.stringValue == "reroute" })
    #expect(
      daemon.stderr.components(separatedBy: "connection refused").count == 2, "\(daemon.stderr)")
    print(
      "router killed: guided back \(guidedTime - offTime) s after the off-route fix; "
        + "restart \(restart) s; new route \(reroutedTime - firstBack) s of fix time "
        + "(\(wall) s wall) after the router was back")
  }
}
