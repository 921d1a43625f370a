import Foundation
import Instructions
import JSON
import Phrasebook
import Routes
import TestSupport
import Testing

/// The osrm-text-instructions fixtures in `Fixtures/osrm-text-instructions/v5`.
enum InstructionFixtures {
  static let directory = repositoryFile("Tests/Fixtures/osrm-text-instructions/v5")

  /// Every fixture file, relative to `v5/`, sorted.
  static let files: [String] = {
    var out: [String] = []
    let dirs = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for d in dirs.sorted() {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(d)")) ?? []
      out += names.filter { $0.hasSuffix(".json") }.sorted().map { "\(d)/\($0)" }
    }
    return out
  }()

  /// (file, step, options, expected text) for every fixture with a `step`.
  static func cases(_ language: String) throws -> [(
    String, InstructionStep, InstructionOptions, String
  )] {
    var out: [(String, InstructionStep, InstructionOptions, String)] = []
    for file in files {
      let value = try JSONParser.parse(readBytes("\(directory)/\(file)"))
      guard let step = value["step"] else { continue }
      let options = try value["options"].map {
        try InstructionOptions(fixtureOptions: $0, path: "options")
      }
      guard let expected = value["instructions"]?[language]?.stringValue else { continue }
      out.append(
        (file, try InstructionStep(osrmStep: step, path: "step"), options ?? .init(), expected))
    }
    return out
  }
}

@Suite struct InstructionWriterTests {
  /// The exact-match rate of the reference style over every fixture with a step.
  @Test(arguments: [Language.en, .ko])
  func fixturesMatchTheLibraryExactly(language: Language) throws {
    let cases = try InstructionFixtures.cases(language.rawValue)
    #expect(cases.count >= 500)
    let writer = InstructionWriter(language: language, style: .reference)
    var differences: [String] = []
    for (file, step, options, expected) in cases {
      let got = try writer.instruction(for: step, options: options)
      if got != expected { differences.append("\(file): got \"\(got)\", expected \"\(expected)\"") }
    }
    let rate = Double(cases.count - differences.count) / Double(cases.count) * 100
    print(
      "osrm-text-instructions \(language.rawValue): \(cases.count - differences.count)/\(cases.count) exact (\(rate) %)"
    )
    for d in differences { print("  \(d)") }
    #expect(rate >= 99, "\(differences.joined(separator: "\n"))")
  }

  @Test func templateOnlyFixturesAreCountedOut() throws {
    let withoutStep = try InstructionFixtures.files.filter {
      try JSONParser.parse(readBytes("\(InstructionFixtures.directory)/\($0)"))["step"] == nil
    }
    #expect(
      withoutStep.allSatisfy {
        $0.hasPrefix("arrive_short") || $0.hasPrefix("arrive_upcoming") || $0.hasPrefix("phrase/")
      })
  }

  @Test func unknownManeuverTypesAreWrittenAsTurns() throws {
    let writer = InstructionWriter(language: .en, style: .reference)
    let step = InstructionStep(type: "deliberately unknown", modifier: "left", name: "Elm Street")
    #expect(try writer.instruction(for: step) == "Turn left onto Elm Street")
  }

  @Test func aTurnWithoutModifierIsRefused() {
    let writer = InstructionWriter(language: .en)
    #expect(throws: RouteDocumentError.self) {
      try writer.instruction(for: InstructionStep(type: "turn", name: "Elm Street"))
    }
  }

  @Test func naturalKoreanChoosesParticlesByTheFinalSound() throws {
    let writer = InstructionWriter(language: .ko)
    let turn = { (name: String) throws -> String in
      try writer.instruction(for: InstructionStep(type: "turn", modifier: "left", name: name))
    }
    #expect(try turn("종로") == "좌회전 하시고 종로로 가세요.")
    #expect(try turn("세종대왕길") == "좌회전 하시고 세종대왕길로 가세요.")
    #expect(try turn("강남대로") == "좌회전 하시고 강남대로로 가세요.")
    #expect(try turn("테헤란역") == "좌회전 하시고 테헤란역으로 가세요.")
    #expect(try turn("Main Street") == "좌회전 하시고 Main Street로 가세요.")
    #expect(try turn("Station") == "좌회전 하시고 Station으로 가세요.")
    let depart = InstructionStep(type: "depart", bearingAfter: 0, name: "금강로")
    #expect(try writer.instruction(for: depart) == "북쪽으로 가서 금강로를 이용하세요.")
    #expect(
      try writer.instruction(for: InstructionStep(type: "depart", bearingAfter: 90, name: "중앙길"))
        == "동쪽으로 가서 중앙길을 이용하세요.")
  }

  @Test func naturalKoreanFixesTheLibrarysSpacingAndOrdinals() throws {
    let writer = InstructionWriter(language: .ko)
    let arrive = InstructionStep(type: "arrive")
    #expect(try writer.instruction(for: arrive) == "목적지에 도착하였습니다.")
    #expect(
      try writer.instruction(for: arrive, options: InstructionOptions(legIndex: 0, legCount: 2))
        == "첫 번째 목적지에 도착하였습니다.")
    let endOfRoad = InstructionStep(type: "end of road", modifier: "left", name: "Duke Street")
    #expect(try writer.instruction(for: endOfRoad) == "좌회전하고 Duke Street로 가세요.")
    let reference = InstructionWriter(language: .ko, style: .reference)
    #expect(try reference.instruction(for: arrive) == " 목적지에 도착하였습니다.")
    #expect(try reference.instruction(for: endOfRoad) == "좌회전회전하고 Duke Street로 가세요.")
  }

  @Test func englishIsTheSameInBothStyles() throws {
    let cases = try InstructionFixtures.cases("en")
    let natural = InstructionWriter(language: .en)
    let reference = InstructionWriter(language: .en, style: .reference)
    for (_, step, options, _) in cases.prefix(200) {
      #expect(
        try natural.instruction(for: step, options: options)
          == reference.instruction(for: step, options: options))
    }
  }

}
