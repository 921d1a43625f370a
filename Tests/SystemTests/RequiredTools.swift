import Foundation
import TestSupport
import Testing

/// Whether the tests run in CI (`CI` set and not empty).
///
/// A tool missing there is a missing install step (`Scripts/install-deps.sh`), so the tests that
/// need it fail instead of being skipped, which would hide them.
let runningInCI = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty

/// Whether every one of `paths` is an executable file.
func toolsInstalled(_ paths: String...) -> Bool {
  paths.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A tool a test needs is missing where it must be there.
struct MissingTool: Error, CustomStringConvertible {
  var description: String
}

extension Trait where Self == ConditionTrait {
  /// Runs the test or suite only when `available`.
  ///
  /// Otherwise it is skipped with `reason`, which the test output shows; with `CI` set it fails
  /// with `reason` instead.
  static func requires(_ available: Bool, _ reason: Comment) -> Self {
    .enabled(reason) {
      if available { return true }
      if runningInCI { throw MissingTool(description: "CI is set and \(reason)") }
      return false
    }
  }
}

/// `systemd-socket-activate`, which the socket-activation tests start the daemon through.
let socketActivateInstalled = toolsInstalled("/usr/bin/systemd-socket-activate")
