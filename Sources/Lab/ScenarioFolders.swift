/// How `stepwise scenario run|make|score` turns the paths it is given into scenario folders.
///
/// The rule, in `Simulations/README.md` and `stepwise help`: a folder that holds a
/// `scenario.json` is a scenario (open-loop or closed-loop, by what the file says); any other
/// folder is a suite, and its entries are walked in name order, folders within folders too;
/// files (`README.md`, notes) and entries whose name starts with a dot are skipped. So
/// `Simulations`, `Simulations/*` and `Simulations/closed-loop` all name scenarios. A path that
/// does not exist is an error, and so is a set of paths with no scenario in it.
public enum ScenarioFolders {
  /// What a path is on disk.
  public enum Entry: Sendable, Equatable {
    /// A folder holding `scenario.json`.
    case scenario
    /// Any other folder.
    case folder
    /// A file, or anything else that is not a folder.
    case file
    /// Nothing at that path.
    case missing
  }

  /// The scenario folders that `paths` name, in the order given (each suite in name order).
  ///
  /// - Parameters:
  ///   - paths: the command's arguments; trailing slashes are dropped.
  ///   - entry: what a path is.
  ///   - list: the entry names of a folder (without `.` and `..`).
  /// - Returns: the scenario folders, at least one.
  /// - Throws: ``ScenarioError`` for a missing path, or when no path names a scenario.
  public static func expand(
    _ paths: [String], entry: (String) -> Entry, list: (String) throws -> [String]
  ) throws -> [String] {
    var found: [String] = []
    func walk(_ path: String) throws {
      switch entry(path) {
      case .scenario: found.append(path)
      case .file: break
      case .missing: throw ScenarioError("\(path): no such file or folder")
      case .folder:
        for name in try list(path).sorted() where !name.hasPrefix(".") {
          try walk(path == "/" ? "/" + name : path + "/" + name)
        }
      }
    }
    for p in paths {
      var path = p
      while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
      try walk(path)
    }
    guard !found.isEmpty else {
      throw ScenarioError(
        "no scenario in \(paths.joined(separator: " ")) (a scenario is a folder with scenario.json)"
      )
    }
    return found
  }
}
