import Foundation
import Testing

/// Runs a built executable and collects its output.
public struct ProcessResult {
  public var status: Int32
  public var stdout: String
  public var stderr: String

  public init(status: Int32, stdout: String, stderr: String) {
    self.status = status
    self.stdout = stdout
    self.stderr = stderr
  }
}

public func runTool(
  _ name: String, _ arguments: [String], stdin: Data? = nil, timeout: Double = 60
) throws -> ProcessResult {
  let binary = try #require(productPath(name), "\(name) is not built")
  let p = Process()
  p.executableURL = URL(fileURLWithPath: binary)
  p.arguments = arguments
  p.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
  let out = Pipe()
  let err = Pipe()
  p.standardOutput = out
  p.standardError = err
  let input = Pipe()
  p.standardInput = input
  try p.run()
  // A watchdog ends the child at the deadline even if it never closes its output.
  let pid = p.processIdentifier
  let watchdog = DispatchWorkItem {
    if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
  }
  DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
  defer { watchdog.cancel() }
  if let stdin { input.fileHandleForWriting.write(stdin) }
  try input.fileHandleForWriting.close()
  // Read both pipes fully before waiting, so a large output cannot block the child.
  final class Box: @unchecked Sendable {
    // Invariant: written once by the reader thread before `group.leave()`, read after `wait()`.
    var data = Data()
  }
  let outBox = Box()
  let group = DispatchGroup()
  group.enter()
  let reader = out.fileHandleForReading
  onItsOwnThread {
    outBox.data = reader.readDataToEndOfFile()
    group.leave()
  }
  let errData = err.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  let outData = outBox.data
  let deadline = Date().addingTimeInterval(timeout)
  while p.isRunning && Date() < deadline { usleep(10_000) }
  if p.isRunning {
    kill(p.processIdentifier, SIGKILL)
    Issue.record("\(name) \(arguments) did not finish within \(timeout) s")
  }
  p.waitUntilExit()
  if p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL {
    Issue.record("\(name) \(arguments) was killed after \(timeout) s")
  }
  return ProcessResult(
    status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self))
}

/// The path of a built product next to the test bundle (same configuration).
public func productPath(_ name: String) -> String? {
  if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
  var candidates: [String] = []
  let bundle = Bundle.main.bundlePath
  candidates.append(
    URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent(name).path)
  for arg in CommandLine.arguments.prefix(1) {
    candidates.append(
      URL(fileURLWithPath: arg).deletingLastPathComponent().appendingPathComponent(name).path)
  }
  candidates.append(repositoryFile(".build/debug/\(name)"))
  return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A private TMPDIR, removed with everything in it.
public final class ScratchDirectory {
  public let path: String
  public init() throws {
    var template = Array(
      (FileManager.default.temporaryDirectory.path + "/stepwise-gpsd-XXXXXX").utf8CString)
    guard let p = mkdtemp(&template) else { throw POSIXError(.EIO) }
    path = String(cString: p)
  }
  public func file(_ name: String) -> String { path + "/" + name }
  public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
