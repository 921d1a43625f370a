import Daemon
import Events
// In-process measurements for Scripts/bench.py (never run as a test). Prints `key=value` lines.
// bench.py builds this file against the base commit too (its own Package.swift), so it uses
// only what both have: `Instructions` is imported where it exists (InstructionWriter lived in
// Routes before 7c6dc98).
//
//   StepwiseBench nmea TRACK           NMEAReader alone over the file (read into memory first)
//   StepwiseBench load ROUTE           route document read, parsed, validated and indexed
//   StepwiseBench memory ROUTE         the same, with resident memory before and after (bytes
//                                      per route point) and the peak
//   StepwiseBench fixes TRACK          every epoch NMEAReader emits: time, latitude, longitude
//                                      (Benchmarks/corpus_table.py compares them with gpsd)
//   StepwiseBench perfix ROUTE TRACK [REPS]
//                                      guidance cost per fix (NavigationSession.ingest only):
//                                      elapsed and thread CPU time; every fix after the first
//                                      goes through ingestLater, which callgrind can count
//                                      alone (--toggle-collect='*ingestLater*')
//   StepwiseBench pipeline ROUTE TRACK the work of `stepwised --fast --json TRACK > /dev/null`
//                                      in one thread, stage by stage (read, guide, encode,
//                                      write), each a function of its own, for callgrind
//   StepwiseBench phrase ROUTE [REPS]  announcement phrasing alone: each maneuver of the route as
//                                      the engine phrases it near the turn (three announcements),
//                                      per language: text(for:) and speechDuration(for:) per call
//   StepwiseBench reroute URL ROUTE [N] N reroute requests (default 200) to the Valhalla at
//                                      URL from points along ROUTE, heading along it at
//                                      50 km/h, to its destination, through RouterClient:
//                                      latency median and p99 (libcurl total, and as the caller
//                                      waits), failures, connections opened
import Geodesy
import Glibc
import Guidance
import NMEA
import POSIX
import Phrasebook
import Rerouting
import RouteFiles
import Router
import Routes
// The harness also times the round's base commit (Scripts/bench.py), where the route geometry
// was still in Guidance.
#if canImport(Matching)
  import Matching
#endif

#if canImport(Instructions)
  import Instructions
#endif

func seconds(_ d: Duration) -> Double {
  let c = d.components
  return Double(c.seconds) + Double(c.attoseconds) * 1e-18
}

func fail(_ message: String) -> Never {
  print("error=\(message)")
  exit(2)
}

func readFixes(_ bytes: [UInt8]) -> (fixes: [Fix], statistics: NMEAStatistics) {
  var reader = NMEAReader()
  var fixes: [Fix] = []
  bytes.withUnsafeBufferPointer { all in
    var i = 0
    while i < all.count {
      let end = min(all.count, i + 65_536)
      fixes += reader.feed(UnsafeBufferPointer(rebasing: all[i..<end]))
      i = end
    }
  }
  fixes += reader.finish()
  return (fixes, reader.statistics)
}

func load(_ path: String) -> (NavigationSession, Double, Double, Int) {
  let clock = ContinuousClock()
  let t0 = clock.now
  let document: RouteDocument
  do { document = try RouteFiles.load(path) } catch { fail("\(error)") }
  let t1 = clock.now
  let session: NavigationSession
  do {
    session = try NavigationSession(
      document: document, phrasing: Phrasebook(language: .en, units: .metric))
  } catch { fail("\(error)") }
  let t2 = clock.now
  let points = document.routes[0].steps.reduce(0) { $0 + $1.polyline.count }
  return (session, seconds(t1 - t0), seconds(t2 - t1), points)
}

/// A `kB` line of /proc/self/status (`VmRSS`, `VmHWM`), in kilobytes.
func statusKilobytes(_ key: String) -> Int {
  // /proc files report a size of 0: read until the end instead.
  let fd = open("/proc/self/status", O_RDONLY)
  guard fd >= 0 else { return -1 }
  defer { close(fd) }
  var text: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while true {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4096) }
    if n <= 0 { break }
    text += chunk[0..<n]
  }
  for line in String(decoding: text, as: UTF8.self).split(separator: "\n")
  where line.hasPrefix(key + ":") {
    let fields = line.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
    return Int(fields.first ?? "") ?? -1
  }
  return -1
}

/// The stages of `pipeline`, kept out of line so callgrind attributes each one's instructions.
@inline(never) func readStage(_ reader: inout NMEAReader, _ chunk: UnsafeBufferPointer<UInt8>)
  -> [Fix]
{
  reader.feed(chunk)
}

@inline(never) func guideStage(
  _ session: inout NavigationSession, _ fixes: [Fix], into events: inout [NavigationEvent]
) {
  for fix in fixes { events.append(contentsOf: session.ingest(fix)) }
}

@inline(never) func encodeStage(_ events: [NavigationEvent], into out: inout [UInt8]) {
  for e in events { StreamSink.appendLine(e, format: .json, to: &out) }
}

@inline(never) func writeStage(_ fd: Int32, _ out: inout [UInt8]) {
  out.withUnsafeBytes { raw in
    var offset = 0
    while offset < raw.count, let base = raw.baseAddress {
      let n = write(fd, base + offset, raw.count - offset)
      if n <= 0 { break }
      offset += n
    }
  }
  out.removeAll(keepingCapacity: true)
}

/// One announcement text, out of line so callgrind counts its calls; returns its length in bytes.
@inline(never) func phraseText(_ phrasebook: Phrasebook, _ message: AnnouncementMessage) -> Int {
  phrasebook.text(for: message).utf8.count
}

/// One announcement's speech duration, out of line so callgrind counts its calls.
@inline(never) func phraseDuration(_ phrasebook: Phrasebook, _ message: AnnouncementMessage)
  -> Double
{
  phrasebook.speechDuration(for: message)
}

/// What the fixes of a perfix pass produced.
struct IngestTally {
  var events = 0
  var offRoute = 0
  var arrived = false

  mutating func add(_ out: [NavigationEvent]) {
    events += out.count
    for e in out {
      switch e.kind {
      case .offRoute: offRoute += 1
      case .arrived: arrived = true
      default: break
      }
    }
  }
}

/// Every fix of a perfix pass after the first, out of line so that callgrind can count its
/// instructions alone.
@inline(never) func ingestLater(
  _ session: inout NavigationSession, _ fixes: ArraySlice<Fix>, into tally: inout IngestTally
) {
  for fix in fixes { tally.add(session.ingest(fix)) }
}

/// CPU time of the calling thread: what a pass cost, whatever else ran on the machine.
func threadCPUSeconds() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

let args = Array(CommandLine.arguments.dropFirst())
let clock = ContinuousClock()
switch (args.first, args.count) {
case ("nmea", 2):
  let bytes: [UInt8]
  do { bytes = try readWholeFile(args[1]) } catch { fail("\(error)") }
  var best = Double.infinity
  var stats = NMEAStatistics()
  for _ in 0..<3 {
    let t0 = clock.now
    let r = readFixes(bytes)
    best = min(best, seconds(clock.now - t0))
    stats = r.statistics
  }
  let lines = bytes.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
  print("lines=\(lines)")
  print("epochs=\(stats.epochs)")
  print("seconds=\(best)")
  print("sentences_per_second=\(Int(Double(lines) / best))")
case ("fixes", 2):
  let bytes: [UInt8]
  do { bytes = try readWholeFile(args[1]) } catch { fail("\(error)") }
  let (fixes, stats) = readFixes(bytes)
  for fix in fixes {
    if let c = fix.coordinate, fix.isValid {
      print("fix \(fix.time) \(c.latitude) \(c.longitude)")
    } else {
      print("nofix \(fix.time)")
    }
  }
  print("statistics \(stats)")
case ("load", 2):
  let (_, parse, index, points) = load(args[1])
  print("points=\(points)")
  print("load_seconds=\(parse)")
  print("index_seconds=\(index)")
case ("memory", 2):
  // Resident memory of a loaded route: VmRSS before anything is read, after the document is
  // loaded and the session (geometry and matcher index) built, and the peak (VmHWM) on the way.
  let before = statusKilobytes("VmRSS")
  let (session, parse, index, points) = load(args[1])
  let after = statusKilobytes("VmRSS")
  print("points=\(points)")
  print("kept_points=\(session.geometry.points.count)")
  print("load_seconds=\(parse)")
  print("index_seconds=\(index)")
  print("rss_before_kb=\(before)")
  print("rss_after_kb=\(after)")
  print("peak_kb=\(statusKilobytes("VmHWM"))")
  print("bytes_per_point=\(Double(after - before) * 1024 / Double(points))")
  withExtendedLifetime(session) {}
case ("perfix", 3), ("perfix", 4):
  let reps = args.count == 4 ? Int(args[3]) ?? 5 : 5
  let (session, parse, index, points) = load(args[1])
  let bytes: [UInt8]
  do { bytes = try readWholeFile(args[2]) } catch { fail("\(error)") }
  let fixes = readFixes(bytes).fixes
  guard let firstFix = fixes.first else { fail("no fixes in \(args[2])") }
  var times: [Double] = []
  var cpuTimes: [Double] = []
  var firstTimes: [Double] = []
  var tally = IngestTally()
  for _ in 0..<reps {
    var s = session
    tally = IngestTally()
    // The first fix is matched against the whole route (once per session): timed apart.
    let t0 = clock.now
    tally.add(s.ingest(firstFix))
    let t1 = clock.now
    let c1 = threadCPUSeconds()
    ingestLater(&s, fixes[1...], into: &tally)
    cpuTimes.append(threadCPUSeconds() - c1)
    times.append(seconds(clock.now - t1))
    firstTimes.append(seconds(t1 - t0))
  }
  let later = Double(max(1, fixes.count - 1))
  print("points=\(points)")
  print("load_seconds=\(parse)")
  print("index_seconds=\(index)")
  print("fixes=\(fixes.count)")
  print("events=\(tally.events)")
  print("off_route_events=\(tally.offRoute)")
  print("arrived=\(tally.arrived)")
  print("kept_points=\(session.geometry.points.count)")
  print("ns_per_fix=\(Int(median(times) / later * 1e9))")
  print("cpu_ns_per_fix=\(Int(median(cpuTimes) / later * 1e9))")
  print("first_fix_us=\(Int(median(firstTimes) * 1e6))")
case ("pipeline", 3):
  let (loaded, parse, index, points) = load(args[1])
  var session = loaded
  let bytes: [UInt8]
  do { bytes = try readWholeFile(args[2]) } catch { fail("\(error)") }
  let fd = open("/dev/null", O_WRONLY | O_CLOEXEC)
  var reader = NMEAReader()
  var events: [NavigationEvent] = []
  var out: [UInt8] = []
  out.reserveCapacity(1 << 17)
  var spent = [Duration](repeating: .zero, count: 4)
  var fixCount = 0
  var lines = 0
  func run(_ chunk: UnsafeBufferPointer<UInt8>?) {
    var t = clock.now
    let fixes = chunk.map { readStage(&reader, $0) } ?? reader.finish()
    var now = clock.now
    spent[0] += now - t
    t = now
    events.removeAll(keepingCapacity: true)
    guideStage(&session, fixes, into: &events)
    now = clock.now
    spent[1] += now - t
    t = now
    encodeStage(events, into: &out)
    now = clock.now
    spent[2] += now - t
    t = now
    if out.count >= 1 << 16 || chunk == nil { writeStage(fd, &out) }
    spent[3] += clock.now - t
    fixCount += fixes.count
    lines += events.count
  }
  bytes.withUnsafeBufferPointer { all in
    var i = 0
    while i < all.count {
      let end = min(all.count, i + 65_536)
      run(UnsafeBufferPointer(rebasing: all[i..<end]))
      i = end
    }
  }
  run(nil)
  print("points=\(points)")
  print("load_seconds=\(parse)")
  print("index_seconds=\(index)")
  print("fixes=\(fixCount)")
  print("lines=\(lines)")
  for (name, d) in zip(["read", "guide", "encode", "write"], spent) {
    print("\(name)_seconds=\(seconds(d))")
  }
case ("phrase", 2), ("phrase", 3):
  let reps = args.count == 3 ? Int(args[2]) ?? 20 : 20
  for language in Language.allCases {
    let document: RouteDocument
    do { document = try RouteFiles.load(args[1], language: language) } catch { fail("\(error)") }
    let steps = document.routes[0].steps
    var messages: [AnnouncementMessage] = []
    for (i, step) in steps.enumerated() where !step.instructions.isEmpty {
      let then = i + 1 < steps.count ? steps[i + 1].instructions : nil
      messages.append(.maneuver(instructions: step.instructions, distance: 620, then: nil))
      messages.append(.maneuver(instructions: step.instructions, distance: 180, then: then))
      messages.append(.maneuver(instructions: step.instructions, distance: nil, then: then))
    }
    let phrasebook = Phrasebook(language: language, units: .metric)
    var bytes = 0
    var speech = 0.0
    let t0 = clock.now
    for _ in 0..<reps {
      for message in messages { bytes &+= phraseText(phrasebook, message) }
    }
    let t1 = clock.now
    for _ in 0..<reps {
      for message in messages { speech += phraseDuration(phrasebook, message) }
    }
    let t2 = clock.now
    let calls = Double(max(1, reps * messages.count))
    print("\(language.rawValue)_announcements=\(messages.count)")
    print("\(language.rawValue)_text_bytes=\(bytes)")
    print("\(language.rawValue)_speech_seconds=\(speech)")
    print("\(language.rawValue)_text_ns_per_call=\(Int(seconds(t1 - t0) / calls * 1e9))")
    print("\(language.rawValue)_speech_duration_ns_per_call=\(Int(seconds(t2 - t1) / calls * 1e9))")
  }
case ("reroute", 3), ("reroute", 4):
  let count = args.count == 4 ? max(1, Int(args[3]) ?? 200) : 200
  let (session, _, _, _) = load(args[2])
  let client: RouterClient
  do {
    client = try RouterClient(
      baseURL: args[1], api: .valhalla, timeout: 5, writer: InstructionWriter(language: .en))
  } catch { fail("\(error)") }
  let g = session.geometry
  let clock = ContinuousClock()
  var curl: [Double] = []
  var waited: [Double] = []
  var failures = 0
  var connections = 0
  for i in 0..<count {
    // Origins spread over the first 90 % of the route, each heading along it.
    let s = g.length * 0.9 * Double(i % 50) / 50
    let here = g.coordinate(at: s)
    let ahead = g.coordinate(at: min(g.length, s + 10))
    let request = RouteRequest(
      origin: .init(
        coordinate: here, course: planarBearing(from: here, to: ahead), speed: 13.9, accuracy: 5),
      waypoints: [.init(coordinate: session.document.destination.coordinate)],
      transportType: session.route.transportType, language: "en-US", imperial: false,
      id: "bench-\(i)")
    let t0 = clock.now
    let answer = client.fetch(request)
    waited.append(seconds(clock.now - t0))
    curl.append(answer.seconds)
    if case .failure = answer.result { failures += 1 }
    if answer.connected { connections += 1 }
  }
  func quantile(_ values: [Double], _ q: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
  }
  print("reroute_requests=\(count)")
  print("reroute_failures=\(failures)")
  print("reroute_connections=\(connections)")
  print("reroute_curl_median_ms=\(quantile(curl, 0.5) * 1000)")
  print("reroute_curl_p99_ms=\(quantile(curl, 0.99) * 1000)")
  print("reroute_waited_median_ms=\(quantile(waited, 0.5) * 1000)")
  print("reroute_waited_p99_ms=\(quantile(waited, 0.99) * 1000)")
default:
  print(
    "usage: StepwiseBench nmea TRACK | fixes TRACK | load ROUTE | memory ROUTE | perfix ROUTE TRACK [REPS]"
      + " | pipeline ROUTE TRACK"
      + " | phrase ROUTE [REPS] | reroute URL ROUTE [N]")
  exit(2)
}
