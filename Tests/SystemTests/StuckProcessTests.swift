import Foundation
import TestSupport
import Testing

/// `describeStuckProcess`, which the tests' process harnesses call before they kill a child that
/// did not finish in time: a rare stall is then described in the failure, not only named.
@Suite struct StuckProcessTests {
  @Test func aSleepingChildIsDescribedThreadByThread() throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sleep")
    p.arguments = ["60"]
    try p.run()
    defer {
      kill(p.processIdentifier, SIGKILL)
      p.waitUntilExit()
    }
    // Wait until the child is sleep itself, asleep: not the forked test process on its way to
    // exec, nor sleep starting up.
    let stat = "/proc/\(p.processIdentifier)/stat"
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline,
      (try? String(contentsOfFile: stat, encoding: .utf8))?.contains("(sleep) S ") != true
    {
      usleep(2_000)
    }
    let text = describeStuckProcess(p.processIdentifier)
    let first = try #require(text.split(separator: "\n").first.map(String.init))
    #expect(first.hasPrefix("thread \(p.processIdentifier) sleep state S wchan "), "\(text)")
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
      #expect(text.contains("\n#0 "), "no stack from gdb: \(text)")
    }
  }

  /// `runTool`'s watchdog ends a child that overstays and says what it was doing.
  @Test func runToolEndsAndDescribesAChildThatOverstays() {
    let started = Date()
    var result: ProcessResult?
    withKnownIssue {
      result = try? runTool("/bin/sleep", ["30"], timeout: 1)
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined() + "\(issue)"
      return text.contains("did not finish within 1.0 s") && text.contains(" sleep state ")
    }
    #expect(result?.status == SIGKILL)
    #expect(Date().timeIntervalSince(started) < 25, "the child was not ended at its deadline")
  }

  @Test func aChildThatHasEndedIsSaidToBeGone() throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/true")
    try p.run()
    p.waitUntilExit()
    #expect(describeStuckProcess(p.processIdentifier).contains("is gone from /proc"))
  }
}
