import Foundation
import JSON
import Simulation
import TestSupport
import Testing

/// gpsd killed and restarted ten times under a live daemon (fault injection, issue 8; the helpers
/// are FaultInjectionTests').
///
/// A suite of its own: it feeds a whole drive through gpsfake at five times real time, 100 s
/// here and 240 s under ThreadSanitizer, the longest part of FaultInjectionTests' serialized
/// chain. Its timed assertion (guidance back within 2 s of each gpsd return) is checked only
/// without a sanitizer, and then it still runs apart from FaultInjectionTests, whose tests load
/// the machine (a 100 MB route, a thousand misbehaving clients, a daemon killed ten times): beside
/// them one return took 2.75 s. Under a sanitizer the two suites run at the same time.
@Suite(
  .blocking, .timeLimit(.minutes(5)),
  .oneSuiteAtATime("fault injection", when: sanitizerUnderTest == nil))
struct GPSDRestartTests {
  @Test(.requires(gpsfakeInstalled, "gpsfake is not installed"))
  func gpsdKilledAndRestartedTenTimesGuidanceIsBackWithinTwoSecondsEachTime() throws {
    let seed = faultSeed("gpsd restarts", fixed: 20_261_129)
    var rng = RandomSource(seed: seed)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // RMC and GGA only, 0.1 s apart (as a 4800-baud receiver trickles them): an epoch every
    // 0.2 s, five times real time (STEPWISE_GPSFAKE_DELAY=0.5: real time).
    let track = try FaultInjectionTests.track(scratch, settle: 10, sentences: "RMC,GGA")
    let reference = jsonObjects(try FaultInjectionTests.directReplay(track).split(separator: "\n"))
    let (header, epochs) = FaultInjectionTests.epochs(
      String(decoding: readBytes(track), as: UTF8.self))
    let start = try #require(epochs.first?.time)
    // Cut the drive into eleven parts with a gap of 1-2 s between them (the fixes the receiver
    // sends while gpsd is down). A new gpsd also takes about a second to recognise the
    // receiver, 5 or 6 epochs here, so a maneuver's last announcement or a step change must not
    // fall near a cut: a maneuver passed while nothing comes in gets no announcement, rightly, and
    // the test could not tell that from an announcement lost by the daemon. Earlier announcements
    // may come late or merge (the "prepare" left out when the "approach" is due at once).
    let quiet = Set(
      reference.filter {
        ["STEP", "ARRIVED"].contains($0.className ?? "")
          || ["now", "arrive", "depart"].contains($0["kind"]?.stringValue ?? "")
      }.compactMap { FaultInjectionTests.seconds($0["time"]?.stringValue) })
    let restarts = 10
    var cuts: [(from: Int, to: Int)] = []
    var candidates = Array((start + 25)...(epochs[epochs.count - 1].time - 15))
    candidates.shuffle(using: &rng)
    for c in candidates where cuts.count < restarts {
      let gap = Int.random(in: 1...2, using: &rng)
      let blind = (c - 2)...(c + gap + 8)
      guard !blind.contains(where: quiet.contains),
        cuts.allSatisfy({ abs($0.from - c) >= 10 })
      else { continue }
      cuts.append((c, c + gap))
    }
    try #require(cuts.count == restarts, "only \(cuts.count) places to cut the drive")
    cuts.sort { $0.from < $1.from }
    var parts: [String] = []
    var bounds = [(start, cuts[0].from)]
    for i in 0..<restarts {
      bounds.append((cuts[i].to, i + 1 < restarts ? cuts[i + 1].from : Int.max))
    }
    for (i, (from, to)) in bounds.enumerated() {
      let lines = header + epochs.filter { $0.time >= from && $0.time < to }.flatMap(\.lines)
      let path = scratch.file("part\(i).nmea")
      try (lines.joined(separator: "\r\n") + "\r\n").write(
        toFile: path, atomically: true, encoding: .utf8)
      parts.append(path)
    }
    print("gpsd restarts: cuts at \(cuts.map { "+\($0.from - start)..\($0.to - start) s" })")

    let port = try freeLoopbackPort()
    let (first, firstListened) = try Self.gpsfake(parts[0], port: port, scratch: scratch, tag: "0")
    var gpsd = first
    defer { gpsd.killGroup() }
    // How long gpsd itself takes to report a position, seen by a plain watcher (on the first
    // gpsd only: a watcher on a restarted gpsd could hasten it for the daemon).
    let warmUp = Self.firstPosition(port: port, timeout: 10).map {
      $0.timeIntervalSince(firstListened)
    }
    let binary = try #require(productPath("stepwised"), "stepwised is not built")
    let daemon = try SpawnedProcess(
      [
        binary, "--route", repositoryFile(FaultInjectionTests.route), "--json",
        "gpsd://127.0.0.1:\(port)",
      ],
      environment: sanitizerEnvironment(["PATH": "/usr/bin:/bin"]),
      stdoutPath: scratch.file("stepwised.out"),
      stderrPath: scratch.file("stepwised.err"))
    defer { daemon.killGroup() }
    let out = GrowingFile(daemon.stdoutPath)
    var recoveries: [Double] = []
    var lost: [Int] = []
    var replaced = 0
    for part in 0...restarts {
      if part > 0 {
        var back: Date?
        var listened = Date()
        // A new gpsd that sends no usable position (with a time) even to a plain watcher is a
        // hiccup of gpsfake and gpsd, not of the daemon: that gpsd is replaced once, and the
        // clock starts again.
        for attempt in 0..<2 where back == nil {
          out.poll()
          let disconnected = out.lines.filter { $0.contains(#""status":"disconnected""#) }.count
          gpsd.killGroup()
          if attempt == 0 {
            #expect(
              waitUntil(timeout: 5) {
                out.poll()
                return out.lines.filter { $0.contains(#""status":"disconnected""#) }.count
                  > disconnected
              }, "restart \(part): no SOURCE disconnected")
          }
          // The new gpsd: the clock runs from the moment its port accepts connections.
          let started = try Self.gpsfake(
            parts[part], port: port, scratch: scratch, tag: "\(part)-\(attempt)")
          gpsd = started.process
          listened = started.listening
          // Guidance is back with the first PROGRESS from a fix after the new connection: the
          // first fix the session handled. (Without fixes for a while the daemon carries the
          // vehicle on and reports estimated PROGRESS: those tell nothing of gpsd's return.)
          var connected = false
          var scanned = out.poll()
          while Date().timeIntervalSince(listened) < 8 {
            out.poll()
            for line in out.lines[scanned...] {
              if line.contains(#""status":"connected""#) { connected = true }
              if connected && Self.isFixProgress(line) {
                back = Date()
                let t =
                  FaultInjectionTests.seconds((try? JSONParser.parse(line))?["time"]?.stringValue)
                  ?? 0
                lost.append(t - bounds[part].0)
                break
              }
            }
            scanned = out.lines.count
            if back != nil { break }
            usleep(5_000)
          }
          if back == nil {
            let delivers = Self.firstPosition(port: port, timeout: 3) != nil
            #expect(
              !delivers, "restart \(part): gpsd delivers, the daemon does not\n\(daemon.stderr)")
            if delivers { break }
            replaced += 1
            print("gpsd restarts: restart \(part): the new gpsd sent no usable fix; replaced")
          }
        }
        let recovery = try #require(
          back.map { $0.timeIntervalSince(listened) },
          "restart \(part): no guidance within 8 s\n\(daemon.stderr)")
        recoveries.append(recovery)
      }
      // Let this part play (almost) to its end before the next kill.
      let last =
        epochs.filter { $0.time >= bounds[part].0 && $0.time < bounds[part].1 }
        .last?.time ?? 0
      let until = min(last - 2, bounds[part].1 - 3)
      // gpsfake paces a part at 0.1 s a sentence, but on a loaded machine one gpsfake and gpsd
      // pair was seen (under AddressSanitizer, about once in ten runs) to feed a 40 s part in
      // over 30 s, while the daemon followed every fix it was sent. So the wait fails when the
      // daemon's position stands still, no PROGRESS from a fix newer than the last for 10 s, not
      // when the part is slow; the part may take up to 90 s. (Estimates do not count: in CI a
      // new gpsd under load sent nothing, and the estimates' PROGRESS, carrying the vehicle to
      // the route's end, passed for its fixes, so the test waited for an arrival no fix made.)
      let stall = 10 * Self.sentenceDelay / 0.1
      var newest = -1
      var moved = Date()
      var arrived = false
      let began = Date()
      _ = waitUntil(timeout: 90 * Self.sentenceDelay / 0.1) {
        out.poll()
        arrived = out.lines.contains { $0.hasPrefix(#"{"class":"ARRIVED""#) }
        if let line = out.lines.last(where: Self.isFixProgress),
          let t = FaultInjectionTests.seconds((try? JSONParser.parse(line))?["time"]?.stringValue),
          t > newest
        {
          newest = t
          moved = Date()
        }
        return arrived || newest >= until || Date().timeIntervalSince(moved) > stall
      }
      let took = Date().timeIntervalSince(began)
      if took > 3 * stall { print("gpsd restarts: part \(part) took \(Int(took)) s to play") }
      #expect(
        arrived || newest >= until,
        """
        part \(part) did not play to +\(until - start) s: the daemon's position stood at \
        +\(newest - start) s for \(Int(Date().timeIntervalSince(moved))) s
        \(daemon.stderr)
        its last lines:
        \(out.lines.suffix(30).joined(separator: "\n"))
        """)
    }
    #expect(
      waitUntil(timeout: 20 * Self.sentenceDelay / 0.1) {
        out.poll()
        return out.lines.contains { $0.hasPrefix(#"{"class":"ARRIVED""#) }
      },
      """
      no arrival
      \(daemon.stderr)
      its last lines:
      \(out.lines.suffix(40).joined(separator: "\n"))
      """)
    daemon.signal(SIGTERM)
    #expect(daemon.wait(timeout: 10) == 0)
    out.poll()
    let live = jsonObjects(out.lines)

    func list(_ values: [Double]) -> String {
      values.map { String(format: "%.2f", $0) }.joined(separator: ", ")
    }
    let formatted = list(recoveries)
    print("gpsd restarts: guidance back \(formatted) s after each new gpsd listened")
    print(
      "gpsd restarts: gpsd alone reports its first position \(warmUp.map { String(format: "%.2f", $0) } ?? "?") s "
        + "after it listens (a plain watcher on the first gpsd)")
    print(
      "gpsd restarts: epochs missed at the start of each part: \(lost); gpsds replaced: \(replaced)"
    )
    // The issue's bound. gpsd itself reports its first position about 1.1 s after it listens
    // (printed above); the daemon, already connected by then (a retry at least every 0.5 s,
    // ReconnectBackoff), adds the rest of that epoch and the merger's 0.3 s settle: about
    // 1.5 s in all. Nothing is widened for noise but one outlier, at most 2.5 s. A part whose
    // feed itself slowed (gpsfake and gpsd on a loaded machine: seen once in a full run, 2.59 s
    // with 4 epochs missed against the usual 5 or 6) is late only if it also missed over 2 s of
    // the feed at its pace (an epoch is two sentences): the daemon sees the feed's time, and a
    // daemon slow to come back misses the epochs gpsd sends meanwhile.
    let epoch = 2 * Self.sentenceDelay
    let late = recoveries.indices.filter {
      recoveries[$0] > 2 && ($0 >= lost.count || Double(lost[$0]) * epoch > 2)
    }.map { recoveries[$0] }
    if sanitizerUnderTest == nil {
      #expect(late.count <= 1 && late.allSatisfy { $0 <= 2.5 }, "recoveries: \(formatted) s")
    }
    let sources = live.filter { $0.className == "SOURCE" }.compactMap { $0["status"]?.stringValue }
    // One connection per gpsd that answered, one loss per kill of such a gpsd. A gpsd the test
    // replaced (it sent no usable fix) may have answered before it was killed: the daemon then
    // rightly counts it too (seen once under ThreadSanitizer: 12 and 11 with one replaced).
    let connected = sources.filter { $0 == "connected" }.count
    #expect((restarts + 1...restarts + 1 + replaced).contains(connected), "\(sources)")
    #expect(sources.filter { $0 == "disconnected" }.count == connected - 1, "\(sources)")
    // No maneuver twice, none skipped: every step change of the drive without any
    // interruption, and each maneuver's last announcement, exactly once.
    #expect(FaultInjectionTests.steps(live) == FaultInjectionTests.steps(reference))
    let ids = live.filter { $0.className == "ANNOUNCE" }.compactMap { $0["id"]?.stringValue }
    #expect(Set(ids).count == ids.count, "\(ids)")
    let last = reference.filter {
      ["now", "arrive", "depart"].contains($0["kind"]?.stringValue ?? "")
    }
    .compactMap { $0["id"]?.stringValue }
    #expect(ids.filter(Set(last).contains) == last)
    let differences = FaultInjectionTests.announcements(live).difference(
      from: FaultInjectionTests.announcements(reference))
    print(
      "gpsd restarts: earlier announcements late or merged against the uninterrupted drive: \(differences.count)"
    )
    #expect(live.filter { $0.className == "ARRIVED" }.count == 1)
  }

  /// Whether `line` is a PROGRESS made from a fix (not from an estimate without fixes).
  static func isFixProgress(_ line: String) -> Bool {
    line.hasPrefix(#"{"class":"PROGRESS""#) && !line.contains(#""estimated":true"#)
  }

  /// The moment gpsd on `port` sends its first usable position (a `TPV` with a latitude and a
  /// time) to a plain watcher, or `nil` after `timeout` seconds.
  static func firstPosition(port: Int, timeout: Double) -> Date? {
    guard let fd = connectLoopback(port) else { return nil }
    defer { close(fd) }
    let watch = Array(#"?WATCH={"enable":true,"json":true};"#.utf8)
    guard watch.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0
    else { return nil }
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 14)
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 50) >= 0 else { return nil }
      if p.revents == 0 { continue }
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { return nil }
      text += chunk[0..<n]
      let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
      if lines.contains(where: {
        $0.contains(#""class":"TPV""#) && $0.contains(#""lat":"#) && $0.contains(#""time":"#)
      }) {
        return Date()
      }
    }
    return nil
  }

  /// Seconds between two sentences fed by gpsfake: 0.1 (five times real time for RMC and GGA),
  /// or `STEPWISE_GPSFAKE_DELAY` (0.5 drives the gpsd restarts at real time, 1 epoch a second;
  /// the drive then takes about seven minutes).
  static let sentenceDelay =
    ProcessInfo.processInfo.environment["STEPWISE_GPSFAKE_DELAY"].flatMap(Double.init) ?? 0.1

  /// Starts gpsfake on `port` in its own session; returns it and the moment its gpsd accepted
  /// a connection (polled every 2 ms).
  static func gpsfake(_ track: String, port: Int, scratch: ScratchDirectory, tag: String) throws
    -> (process: SpawnedProcess, listening: Date)
  {
    let p = try SpawnedProcess(
      [
        "/usr/bin/python3", "/usr/bin/gpsfake", "-1", "-q", "-c", "\(sentenceDelay)", "-W", "15",
        "-P",
        "\(port)", track,
      ],
      environment: ["TMPDIR": scratch.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
      stdoutPath: scratch.file("gpsfake-\(tag).out"), stderrPath: scratch.file("gpsfake-\(tag).err")
    )
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if isListening(port) { return (p, Date()) }
      usleep(2_000)
    }
    p.killGroup()
    throw POSIXError(.ETIMEDOUT)
  }
}
