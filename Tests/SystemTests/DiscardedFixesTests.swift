import Foundation
import JSON
import TestSupport
import Testing

/// The receiver's jumps that the engine discards are counted on `PROGRESS`, so a dashboard or a
/// fleet can see a receiver that keeps jumping.
@Suite(.blocking) struct DiscardedFixesTests {
  @Test func progressCountsTheDiscardedJumpsOfAGlitchyReceiver() throws {
    let scenario = "Simulations/039-marais-glitches"
    let r = try runTool(
      "stepwised",
      ["--route", "\(scenario)/route.json", "--fast", "--json", "\(scenario)/drive.nmea"])
    #expect(r.status == 0, "\(r.stderr)")
    let counts = try r.stdout.split(separator: "\n").compactMap { line -> Int? in
      let o = try JSONParser.parse(String(line))
      guard o["class"]?.stringValue == "PROGRESS" else { return nil }
      return Int(o["discardedFixes"]?.doubleValue ?? 0)
    }
    #expect(counts.count > 100)
    // Missing (0) until the first jump, then it only grows, one jump at a time.
    #expect(counts.first == 0)
    #expect(zip(counts, counts.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 })
    #expect((counts.last ?? 0) >= 3, "\(counts.last ?? 0) jumps discarded")
    let plain = try runTool(
      "stepwised",
      [
        "--route", "Simulations/001-marais-drive/route.json", "--fast", "--json",
        "Simulations/001-marais-drive/drive.nmea",
      ])
    #expect(plain.status == 0 && !plain.stdout.contains("discardedFixes"))
  }
}
