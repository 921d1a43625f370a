// In-process measurements for Scripts/bench.sh (never run as a test). Prints `key=value` lines.
//
//   StepwiseBench nmea TRACK           NMEAReader alone over the file (read into memory first)
//   StepwiseBench load ROUTE           route document read, parsed, validated and indexed
//   StepwiseBench fixes TRACK          every epoch NMEAReader emits: time, latitude, longitude
//                                      (Benchmarks/corpus_table.py compares them with gpsd)
//   StepwiseBench perfix ROUTE TRACK [REPS]
//                                      guidance cost per fix (NavigationSession.ingest only)
import Geodesy
import Glibc
import Guidance
import NMEA
import Phrasebook
import Routes
import StepwiseIO

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
case ("perfix", 3), ("perfix", 4):
  let reps = args.count == 4 ? Int(args[3]) ?? 5 : 5
  let (session, parse, index, points) = load(args[1])
  let bytes: [UInt8]
  do { bytes = try readWholeFile(args[2]) } catch { fail("\(error)") }
  let fixes = readFixes(bytes).fixes
  var times: [Double] = []
  var firstTimes: [Double] = []
  var events = 0
  var offRoute = 0
  var arrived = false
  for _ in 0..<reps {
    var s = session
    events = 0
    offRoute = 0
    arrived = false
    var first = true
    var t0 = clock.now
    for fix in fixes {
      let out = s.ingest(fix)
      if first {
        // The first fix is matched against the whole route (once per session): timed apart.
        first = false
        let now = clock.now
        firstTimes.append(seconds(now - t0))
        t0 = now
      }
      events += out.count
      for e in out {
        switch e.kind {
        case .offRoute: offRoute += 1
        case .arrived: arrived = true
        default: break
        }
      }
    }
    times.append(seconds(clock.now - t0))
  }
  firstTimes.sort()
  times.sort()
  let median = times[times.count / 2]
  print("points=\(points)")
  print("load_seconds=\(parse)")
  print("index_seconds=\(index)")
  print("fixes=\(fixes.count)")
  print("events=\(events)")
  print("off_route_events=\(offRoute)")
  print("arrived=\(arrived)")
  print("ns_per_fix=\(Int(median / Double(max(1, fixes.count - 1)) * 1e9))")
  print("first_fix_us=\(Int(firstTimes[firstTimes.count / 2] * 1e6))")
default:
  print(
    "usage: StepwiseBench nmea TRACK | fixes TRACK | load ROUTE | perfix ROUTE TRACK [REPS]")
  exit(2)
}
