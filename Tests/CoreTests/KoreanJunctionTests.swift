import Foundation
import Instructions
import Routes
import TestSupport
import Testing

/// Korean instructions that name a junction ("… Crossing에서 유턴 하세요."), checked against
/// osrm-text-instructions for every instruction type that has a junction-name phrase.
@Suite struct KoreanJunctionTests {
  static var junctionCases: [(String, InstructionStep, InstructionOptions, String)] {
    ((try? InstructionFixtures.cases("ko")) ?? []).filter { $0.0.contains("junction_name") }
  }

  /// The types with a junction-name fixture: the library has one for each of these.
  @Test func everyTypeWithAJunctionPhraseHasFixtures() {
    let types = Set(
      Self.junctionCases.map { $0.0.split(separator: "/").first.map(String.init) ?? "" })
    #expect(types.count >= 8, "\(types.sorted())")
  }

  /// Imported routes use the natural style, which replaces some of the library's Korean words
  /// (급좌회전 for 바로좌회전, 약간 좌회전 for 조금왼쪽, a doubled 회전) but names a junction
  /// exactly where and how the library does: "NAME에서 …" first, or not at all.
  @Test(arguments: junctionCases.map { $0.0 })
  func naturalKoreanNamesTheJunctionAsTheLibraryDoes(_ file: String) throws {
    let (_, step, options, expected) = try #require(Self.junctionCases.first { $0.0 == file })
    let natural = try InstructionWriter(language: .ko, style: .natural)
      .instruction(for: step, options: options)
    let junction = try #require(step.junctionName?.split(separator: ";").first.map(String.init))
    let named = expected.trimmingCharacters(in: .whitespaces).hasPrefix("\(junction)에서 ")
    #expect(natural.hasPrefix("\(junction)에서 ") == named, "\(file): \(natural) / \(expected)")
    #expect(natural.contains(junction) == expected.contains(junction), "\(natural) / \(expected)")
  }
}
