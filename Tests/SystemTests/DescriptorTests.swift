import Foundation
import TestSupport
import Testing

/// Whether `strace` is installed and may trace here (a container can forbid `ptrace`).
let straceUsable: Bool = {
  guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else { return false }
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
  p.arguments = ["-o", "/dev/null", "/bin/true"]
  p.standardOutput = FileHandle.nullDevice
  p.standardError = FileHandle.nullDevice
  guard (try? p.run()) != nil else { return false }
  p.waitUntilExit()
  return p.terminationStatus == 0
}()

/// Descriptors are closed exactly once.
///
/// A second `close` of a number is harmless only while nobody has been given that number again; in
/// a program with threads (the daemon, the test runner) it closes somebody else's socket or file.
@Suite(.blocking, .requires(straceUsable, "strace is missing or may not trace here"))
struct DescriptorTests {
  /// `DaemonConnection.init` closed its socket after a failed connect, and then `deinit` closed
  /// it again (a class whose initializer throws once every stored property is set is
  /// deinitialized).
  ///
  /// Seen with `strace`: `close(3) = -1 EBADF` after the first `close(3)`.
  @Test func aFailedConnectClosesItsSocketOnce() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let trace = scratch.file("trace")
    let stepwise = try #require(productPath("stepwise"), "stepwise is not built")
    let r = try runTool(
      "/usr/bin/strace",
      [
        "-f", "-e", "trace=socket,close", "-o", trace, stepwise, "status", "--socket",
        scratch.file("nobody-listens.sock"),
      ])
    #expect(r.stderr.contains("cannot connect"), "\(r.stderr)")
    let lines = String(decoding: readBytes(trace), as: UTF8.self).split(separator: "\n")
    // The Unix socket the client made, then every close of its number after that.
    let made = try #require(
      lines.firstIndex { $0.contains("socket(AF_UNIX") && !$0.contains("= -1") },
      "no Unix socket in the trace:\n\(lines.joined(separator: "\n"))")
    let number = try #require(
      lines[made].split(separator: "=").last.map {
        $0.trimmingCharacters(in: .whitespaces)
      })
    let closes = lines[(made + 1)...].filter { $0.contains("close(\(number))") }
    #expect(closes.count == 1, "\(closes.joined(separator: "\n"))")
    #expect(!closes.contains { $0.contains("EBADF") })
  }
}
