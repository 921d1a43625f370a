import Lab
import Testing

/// Which paths `stepwise scenario run|make|score` take as scenarios, on a made-up tree.
@Suite struct ScenarioFoldersTests {
  /// `Simulations` as it is laid out: scenarios, a README, a folder of closed-loop scenarios
  /// with a README of its own, and a hidden folder.
  static let tree: [String: [String]] = [
    "Sim": ["002-b", "README.md", "001-a", "closed-loop", ".cache"],
    "Sim/closed-loop": ["c02-y", "c01-x", "notes.txt"],
    "Sim/.cache": ["003-hidden"],
  ]
  static let scenarios: Set = [
    "Sim/001-a", "Sim/002-b", "Sim/closed-loop/c01-x", "Sim/closed-loop/c02-y",
    "Sim/.cache/003-hidden",
  ]

  static func expand(_ paths: [String]) throws -> [String] {
    try ScenarioFolders.expand(
      paths,
      entry: { path in
        if scenarios.contains(path) { return .scenario }
        if tree[path] != nil { return .folder }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return tree[parent]?.contains(name) == true ? .file : .missing
      },
      list: { tree[$0] ?? [] })
  }

  @Test func aFolderOfScenariosIsWalkedInNameOrderIntoSubfolders() throws {
    #expect(
      try Self.expand(["Sim/"])
        == ["Sim/001-a", "Sim/002-b", "Sim/closed-loop/c01-x", "Sim/closed-loop/c02-y"])
  }

  @Test func aShellGlobGivesTheSameScenariosAndItsFilesAreSkipped() throws {
    let glob = ["Sim/001-a", "Sim/002-b", "Sim/README.md", "Sim/closed-loop"]
    #expect(try Self.expand(glob) == (try Self.expand(["Sim"])))
  }

  @Test func aScenarioNamedItselfIsTakenAsIs() throws {
    #expect(try Self.expand(["Sim/002-b", "Sim/001-a"]) == ["Sim/002-b", "Sim/001-a"])
  }

  @Test func aMissingPathOrNoScenarioAtAllIsAnError() {
    #expect(throws: ScenarioError.self) { try Self.expand(["Sim/009-typo"]) }
    #expect(throws: ScenarioError.self) { try Self.expand(["Sim/README.md"]) }
  }
}
