import POSIX

/// Credentials for the broker from a file (never the command line, where `ps` shows them):
/// the first line is the user name, the second the password.
public struct BrokerCredentials: Sendable {
  public var username: String
  public var password: String?

  public static func read(_ path: String) throws -> BrokerCredentials {
    let bytes = try readWholeFile(path, limit: 64 << 10)
    let lines = String(decoding: bytes, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false
    ).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    guard let user = lines.first, !user.isEmpty else {
      throw FleetOptionError("\(path): the first line must be the user name")
    }
    let password = lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil
    return BrokerCredentials(username: user, password: password)
  }
}
