import Daemon
import Foundation
import POSIX
import TestSupport
import Testing

// The live source against a gpsd that delivers faster than the engine takes fixes: the gpsd
// stand-in of Benchmarks/longrun.py writes its epochs as fast as the socket drains, and nothing
// handles the engine's inputs at all.

// The guard is for a hang: inside the whole suite on 2 cores an async test can wait minutes for a
// thread of the shared pool (one run took 137 s), alone it takes under a second.
@Suite(.blocking, .timeLimit(.minutes(5)), .requires(python3Installed, "python3 is not installed"))
struct GPSDBacklogTests {
  /// Epochs the stand-in has to send: far more than the source may hold.
  static let epochs = 3_000

  @Test func fixesTheEngineHasNotTakenWaitInTheSocketNotInMemory() async throws {
    let feeder = Process()
    feeder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    feeder.arguments = [repositoryFile("Benchmarks/longrun.py"), "serve", String(Self.epochs)]
    let out = Pipe()
    feeder.standardOutput = out
    feeder.standardError = FileHandle.nullDevice
    try feeder.run()
    defer {
      kill(feeder.processIdentifier, SIGKILL)
      feeder.waitUntilExit()
    }
    // Its first line is `port=P`.
    var line: [UInt8] = []
    while let byte = try out.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A {
      line.append(byte)
    }
    let port = try #require(String(decoding: line, as: UTF8.self).split(separator: "=").last)
    let inputs = EngineInputs()
    let stop = StopFlag()
    let source = GPSDSource(address: GPSDAddress(host: "127.0.0.1", port: String(port)))
    let limit = source.maximumBacklog
    let run = Task { await source.run(into: inputs, stop: stop) }
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(20)
    while inputs.pending <= limit && clock.now < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    // Time for more to arrive, were the source still reading.
    try await Task.sleep(for: .milliseconds(500))
    let pending = inputs.pending
    stop.set()
    let report = await run.value
    #expect(pending > limit, "the source delivered up to its limit")
    // The limit's fixes, the one read while it was reached, and `SOURCE connected`.
    #expect(pending <= limit + 2, "\(pending) inputs wait for the engine")
    #expect(report.epochs < Self.epochs)
  }
}
