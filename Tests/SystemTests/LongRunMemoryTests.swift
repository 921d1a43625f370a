import Foundation
import TestSupport
import Testing

// The short version of `make bench`'s long run (section 7): tens of thousands of 10 Hz epochs
// through the daemon's live path (libgps on a gpsd stand-in, Benchmarks/longrun.py), as fast as it
// takes them, with subscribers connecting and leaving, and its resident memory from /proc.

@Suite(
  .blocking, .serialized, .timeLimit(.minutes(5)),
  .requires(python3Installed, "python3 is not installed"))
struct LongRunMemoryTests {
  /// Epochs fed: 20 minutes of a 10 Hz receiver, a few seconds of a debug build of the daemon
  /// (about 2,000 epochs a second; a release build takes 10,000).
  static let epochs = sanitizerUnderTest == nil ? 12_000 : 3_000
  /// How much the daemon's VmRSS may grow from the first quarter of the run to its end.
  ///
  /// 90 bytes an epoch. The live set does not grow at all (heaptrack: the same peak heap after
  /// 60,000 and 200,000 epochs); what moves is the allocator's free memory, a few hundred kB,
  /// while fixes piling up behind the engine made megabytes.
  static let allowedGrowthKB = 1_024

  static func run(_ arguments: [String]) throws -> [String: String] {
    let r = try runTool(
      "/usr/bin/python3", [repositoryFile("Benchmarks/longrun.py")] + arguments, timeout: 150)
    var values: [String: String] = [:]
    for line in r.stdout.split(separator: "\n") {
      guard let eq = line.firstIndex(of: "=") else { continue }
      values[String(line[..<eq])] = String(line[line.index(after: eq)...])
    }
    #expect(r.status == 0, "longrun.py \(arguments.first ?? ""): \(r.stdout) \(r.stderr)")
    return values
  }

  @Test func theStandInSpeaksAsGpsd322Does() throws {
    // Every class the stand-in sends, with the members of a real gpsd's line of that class.
    let out = try runTool(
      "/usr/bin/python3",
      [
        repositoryFile("Benchmarks/longrun.py"), "check",
        repositoryFile("Tests/Fixtures/gpsd/gpsd-3.22-sky.json"),
      ])
    #expect(out.status == 0, "\(out.stdout)")
    #expect(out.stdout.contains("8 classes compared, 0 differ"), "\(out.stdout)")
  }

  @Test func residentMemoryStaysFlatWhileEveryEpochIsGuided() throws {
    let daemon = try #require(productPath("stepwised"), "stepwised is not built")
    let v = try Self.run([
      "run", "--stepwised", daemon, "--epochs", String(Self.epochs), "--churn-rounds", "5",
      "--churn", "20", "--stay", "3",
    ])
    #expect(v["failures"] == "none")
    #expect(v["sent"] == String(Self.epochs))
    // One PROGRESS per epoch on the daemon's standard output: none lost, none merged away.
    #expect(v["consumed"] == String(Self.epochs))
    #expect(v["churn_clients"] == "100")
    #expect(Int(v["churn_completed"] ?? "") ?? 0 > 0, "subscribers that read their events and left")
    #expect(Int(v["stay_lines"] ?? "") ?? 0 >= Self.epochs)
    guard sanitizerUnderTest == nil else { return }
    // Every thread Dispatch starts would otherwise get a glibc arena of its own, each keeping
    // free memory resident (HeapRelease.configureForLongRunning).
    #expect(v["extra_arenas"] == "0", "glibc arenas besides the main one")
    // Standard output's writer is a thread of its own (SerialThread): while it waited on a
    // slow pipe, Dispatch started a worker for the next queue that woke, and kept it. This run
    // went from 8 threads at 10 % to 12 at the end, 300,000 epochs from 13 to 17, each keeping
    // a cache of freed blocks in the heap.
    let early = try #require(Int(v["threads_10"] ?? ""))
    let most = try #require(Int(v["threads_max"] ?? ""))
    #expect(early > 0)
    #expect(most <= early + 2, "threads: \(early) at 10 %, \(most) at most")
    let quarter = try #require(Int(v["rss_kb_25"] ?? ""))
    let end = try #require(Int(v["rss_kb_100"] ?? ""))
    #expect(quarter > 0)
    #expect(
      end <= quarter + Self.allowedGrowthKB,
      "VmRSS \(quarter) kB after a quarter, \(end) kB at the end: \(v["samples"] ?? "")")
  }
}

let python3Installed = toolsInstalled("/usr/bin/python3")
