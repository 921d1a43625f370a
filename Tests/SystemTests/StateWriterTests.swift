import Daemon
import Foundation
import Guidance
import TestSupport
import Testing

/// The state files have one writer at a time, and a save never takes another's temporary file.
@Suite(.blocking) struct StateWriterTests {
  static func snapshot(_ i: Int) -> NavigationSession.Snapshot {
    NavigationSession.Snapshot(
      routeIndex: 0, distanceAlong: Double(i), currentStep: 1, said: [255, 1, 0, 0, 0, 0],
      offRoute: false, arrived: false, lastFixTime: 1_714_550_000 + Double(i), speed: 10)
  }

  /// Saves from several threads at once: each one completes, the file always parses as one of
  /// the snapshots written, and no temporary file stays behind.
  @Test func concurrentSavesNeverFailOrTear() throws {
    let dir = try StateStoreTests.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let doc = GuidanceProperties.townRoute
    let store = StateStore(directory: dir)
    try store.saveRoute(doc, routeIndex: 0, routeFile: nil)
    let fingerprint = StateStore.fingerprint(doc, 0)
    let writers = 4
    let savesEach = 100
    let failures = LockedBox<[String]>([])
    DispatchQueue.concurrentPerform(iterations: writers) { w in
      for k in 0..<savesEach {
        do {
          try store.saveProgress(Self.snapshot(w * savesEach + k), fingerprint: fingerprint)
        } catch {
          failures.mutate { $0.append("\(error)") }
        }
      }
    }
    #expect(
      failures.value.isEmpty, "\(failures.value.count) saves failed: \(failures.value.first ?? "")")
    let (result, problem) = store.load()
    #expect(problem == nil, "\(problem.map { "\($0)" } ?? "")")
    let saved = try result.get()
    let along = try #require(saved.snapshot?.distanceAlong)
    #expect(along >= 0 && along < Double(writers * savesEach))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [
        "progress.json", "route.json",
      ])
  }

  /// A whole replay without waiting: the start-up save, the saves while guiding and the save
  /// at exit all succeed, and the file holds the last state (arrived), not an earlier one.
  @Test(arguments: [["--fast"], ["--replay-speed", "30"]])
  func aReplayWithAStateDirectorySavesWithoutAWarning(pace: [String]) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = scratch.file("state")
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    let scenario = "Simulations/001-marais-drive"
    let r = try runTool(
      "stepwised",
      ["--route", "\(scenario)/route.json", "--state-dir", state] + pace + [
        "\(scenario)/drive.nmea"
      ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stderr.contains("cannot save"), "\(r.stderr)")
    let saved = try StateStore(directory: state).load().result.get()
    #expect(saved.snapshot?.arrived == true)
  }

  /// `--state-dir` that does not exist yet is made (mode 0700), as systemd's `StateDirectory=`
  /// makes `/var/lib/stepwised`.
  @Test func aMissingStateDirectoryIsCreated() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = scratch.file("var/lib/stepwised")
    let scenario = "Simulations/001-marais-drive"
    let r = try runTool(
      "stepwised",
      [
        "--route", "\(scenario)/route.json", "--state-dir", state, "--fast",
        "\(scenario)/drive.nmea",
      ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stderr.contains("cannot save"), "\(r.stderr)")
    var info = stat()
    #expect(stat(state, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700)
    #expect(FileManager.default.fileExists(atPath: state + "/progress.json"))
  }
}

/// A value shared between threads in a test.
final class LockedBox<Value>: @unchecked Sendable {
  // Invariant: `stored` is only touched while holding `lock`.
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  var value: Value { lock.withLock { stored } }
  func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
