/// A broker address, vehicle id or credentials file that cannot be used, said as the option's
/// user should read it; the executables report it as a usage error (exit status 2).
public struct FleetOptionError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
