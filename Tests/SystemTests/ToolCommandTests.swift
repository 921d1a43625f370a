import Foundation
import Instructions
import Routes
import TestSupport
import Testing

@testable import stepwise

/// The `stepwise` commands called in-process, on the core's fixtures.
@Suite(.blocking) struct ToolCommandTests {
  static let instructionFixtures = repositoryFile("Tests/Fixtures/osrm-text-instructions/v5")

  @Test func instructionCommandPrintsOneLinePerFixture() throws {
    let files = ["turn/left_name.json", "rotary/name_exit.json", "arrive_short/no_modifier.json"]
    let writer = InstructionWriter(language: .ko, style: .reference)
    let lines = try files.map {
      try StepwiseTool.instructionText("\(Self.instructionFixtures)/\($0)", writer)
    }
    #expect(lines[0] == "좌회전 하시고 Way Name로 가세요.")
    #expect(!lines[1].isEmpty)
    #expect(lines[2] == "")
  }

  @Test func truncatedFileExitsWithStatus2() throws {
    let bytes = readBytes(
      repositoryFile("Tests/Fixtures/routes/osrm/valhalla-osrm_extended_osrm_response.json"))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepwise-\(getpid())-truncated-osrm.json")
    try Data(bytes.prefix(bytes.count / 2)).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let path = url.path
    #expect(StepwiseTool.main(arguments: ["route", "validate", path]) == 2)
  }
}
