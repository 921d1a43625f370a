import Lab
import POSIX

extension Scenario {
  /// Loads the scenario folder at `directory` from the file system.
  init(directory: String) throws {
    try self.init(directory: directory, read: { try readWholeFile($0) })
  }
}
