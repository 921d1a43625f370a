import Foundation
import TestSupport
import Testing

/// The processes the system tests start (gpsd, brokers, servers) do not keep the test process's
/// descriptors: a file another test is writing must not stay open for writing in them.
@Suite struct SpawnedProcessTests {
  @Test func aDescriptorWithoutCloseOnExecIsNotInherited() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // What Foundation's write(toFile:atomically:) leaves open while it writes: no O_CLOEXEC.
    let fd = open(scratch.file("being-written"), O_WRONLY | O_CREAT, 0o755)
    try #require(fd >= 3)
    defer { close(fd) }
    let p = try SpawnedProcess(
      ["/bin/sh", "-c", "ls /proc/$$/fd"], environment: ["PATH": "/usr/bin:/bin"],
      stdoutPath: scratch.file("out"), stderrPath: scratch.file("err"))
    defer { p.killGroup() }
    #expect(p.wait(timeout: 30) == 0)
    let listed = try String(contentsOfFile: scratch.file("out"), encoding: .utf8)
      .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    #expect(!listed.isEmpty, "the child listed no descriptors")
    #expect(!listed.contains(Int(fd)), "the child has descriptor \(fd): \(listed)")
  }
}
