import Foundation
import TestSupport
import Testing

/// The toolchain's binary `name` (clang, swift): next to `swift` on PATH, or in /opt/swift.
func toolchainBinary(_ name: String) -> String? {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
  let folders = path.split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
  return folders.map { "\($0)/\(name)" }.first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
}

/// A build without libgps-dev stops with a message naming the package, unless a replay-only
/// build is asked for (`STEPWISE_REPLAY_ONLY=1`, README "Building").
@Suite(.blocking, .requires(toolchainBinary("clang") != nil, "the toolchain's clang is not found"))
struct ReplayOnlyBuildTests {
  /// Compiles the shim as the build does, with libgps's headers taken away.
  static func compileShim(_ defines: [String]) throws -> ProcessResult {
    let clang = try #require(toolchainBinary("clang"))
    return try runTool(
      clang,
      ["-fsyntax-only", "-DGPSSHIM_HIDE_LIBGPS"] + defines.map { "-D\($0)" } + [
        "-I", "Sources/GPSShim/include", "Sources/GPSShim/GPSShim.c",
      ])
  }

  @Test func withoutLibgpsTheBuildFailsNamingThePackage() throws {
    let r = try Self.compileShim([])
    #expect(r.status != 0)
    #expect(r.stderr.contains("install libgps-dev"), "\(r.stderr)")
    #expect(r.stderr.contains("STEPWISE_REPLAY_ONLY=1"), "\(r.stderr)")
  }

  @Test func aReplayOnlyBuildIsAskedForExplicitly() throws {
    let r = try Self.compileShim(["GPSSHIM_REPLAY_ONLY"])
    #expect(r.status == 0, "\(r.stderr)")
  }

  /// Package.swift turns STEPWISE_REPLAY_ONLY=1 into the shim's define, and only then.
  @Test func theManifestReadsTheVariable() throws {
    let swift = try #require(toolchainBinary("swift"))
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    func dump(_ value: String?) throws -> String {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: swift)
      p.arguments = ["package", "--scratch-path", scratch.path, "dump-package"]
      p.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
      var environment = ProcessInfo.processInfo.environment
      environment["STEPWISE_REPLAY_ONLY"] = value
      p.environment = environment
      let out = Pipe()
      p.standardOutput = out
      p.standardError = FileHandle.nullDevice
      try p.run()
      let data = out.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      #expect(p.terminationStatus == 0)
      return String(decoding: data, as: UTF8.self)
    }
    #expect(try dump("1").contains("GPSSHIM_REPLAY_ONLY"))
    #expect(try !dump(nil).contains("GPSSHIM_REPLAY_ONLY"))
  }
}
