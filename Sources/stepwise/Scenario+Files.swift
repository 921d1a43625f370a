import Glibc
import Lab
import POSIX

extension Scenario {
  /// Loads the scenario folder at `directory` from the file system.
  init(directory: String) throws {
    try self.init(directory: directory, read: { try readWholeFile($0) })
  }
}

extension ScenarioFolders {
  /// The scenario folders that `paths` name on the file system (the rule is
  /// ``ScenarioFolders/expand(_:entry:list:)``'s).
  ///
  /// The corresponding C functions are `stat`, `opendir` and `readdir`.
  static func expand(_ paths: [String]) throws -> [String] {
    try expand(
      paths,
      entry: { path in
        var s = stat()
        guard stat(path, &s) == 0 else { return .missing }
        guard s.st_mode & S_IFMT == S_IFDIR else { return .file }
        return access(path + "/scenario.json", F_OK) == 0 ? .scenario : .folder
      },
      list: { path in
        guard let folder = opendir(path) else {
          throw SystemError(errno: errno, function: "opendir", subject: path)
        }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
          let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
          }
          if name != "." && name != ".." { names.append(name) }
        }
        return names
      })
  }
}
