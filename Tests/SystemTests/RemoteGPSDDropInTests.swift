import Foundation
import TestSupport
import Testing

/// The drop-in for a remote gpsd: systemd reads it without a warning, and with it the service's
/// address allow list names the remote host (which the unit alone keeps to loopback).
@Suite(
  .blocking,
  .requires(toolsInstalled("/usr/bin/systemd-analyze"), "systemd-analyze is not installed"))
struct RemoteGPSDDropInTests {
  /// `systemd-analyze security --offline` of the unit, with the drop-in when `dropIn`.
  static func analyze(dropIn: Bool) throws -> (verify: ProcessResult, security: ProcessResult) {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let binary = try #require(productPath("stepwised"))
    let unit = try String(
      contentsOfFile: repositoryFile("systemd/stepwised.service"), encoding: .utf8)
    let folder = URL(fileURLWithPath: binary).deletingLastPathComponent().path
    try unit.replacingOccurrences(of: "/usr/bin/", with: folder + "/")
      .write(toFile: scratch.file("stepwised.service"), atomically: true, encoding: .utf8)
    try FileManager.default.copyItem(
      atPath: repositoryFile("systemd/stepwised.socket"), toPath: scratch.file("stepwised.socket"))
    if dropIn {
      try FileManager.default.createDirectory(
        atPath: scratch.file("stepwised.service.d"), withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: repositoryFile("systemd/remote-gpsd.conf"),
        toPath: scratch.file("stepwised.service.d/remote-gpsd.conf"))
    }
    let unitFile = scratch.file("stepwised.service")
    let verify = try runTool(
      "/usr/bin/systemd-analyze",
      ["verify", "--man=no", unitFile, scratch.file("stepwised.socket")])
    let security = try runTool(
      "/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", unitFile])
    return (verify, security)
  }

  @Test func theDropInAllowsTheRemoteHostOnly() throws {
    let plain = try Self.analyze(dropIn: false)
    #expect(plain.security.stdout.contains("allow list with only localhost entries"))
    let remote = try Self.analyze(dropIn: true)
    let warnings = remote.verify.stderr.split(separator: "\n").filter { !$0.contains("gpsd.") }
    #expect(warnings.isEmpty, "\(warnings)")
    #expect(
      remote.security.stdout.contains("allow list with non-localhost entries"),
      "\(remote.security.stdout)")
    #expect(remote.security.stdout.contains("OK"), "\(remote.security.stdout)")
  }
}
