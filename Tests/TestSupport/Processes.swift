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
  // A watchdog ends the child at the deadline even if it never closes its output, saying
  // first what it was doing.
  final class Stuck: @unchecked Sendable {
    // Invariant: `value` is touched only with `lock` held. The kill and the reaping of the
    // child do not order the watchdog's write before the read (ThreadSanitizer says so).
    private let lock = NSLock()
    private var value: String?
    var state: String? {
      get { lock.withLock { value } }
      set { lock.withLock { value = newValue } }
    }
  }
  let stuck = Stuck()
  let pid = p.processIdentifier
  let watchdog = DispatchWorkItem {
    if kill(pid, 0) == 0 {
      stuck.state = describeStuckProcess(pid)
      kill(pid, SIGKILL)
    }
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
  // The watchdog, cancelled only on return, ends a child that outlives its output too.
  p.waitUntilExit()
  if let state = stuck.state {
    Issue.record("\(name) \(arguments) did not finish within \(timeout) s:\n\(state)")
  } else if p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL {
    Issue.record("\(name) \(arguments) was killed (SIGKILL) by someone else")
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

/// What a process that did not finish in time is doing, for the test's failure message.
///
/// Each thread's name, state and kernel wait channel from `/proc`, then every thread's stack
/// when `gdb` is installed. Called just before the process is killed: a stall that cannot be
/// reproduced is at least described.
public func describeStuckProcess(_ pid: Int32) -> String {
  var lines: [String] = []
  let taskDir = "/proc/\(pid)/task"
  let tasks = ((try? FileManager.default.contentsOfDirectory(atPath: taskDir)) ?? [])
    .compactMap { Int($0) }.sorted()
  func read(_ path: String) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "?")
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
  for t in tasks {
    let base = "\(taskDir)/\(t)"
    // The state is the field after the parenthesized name, which may hold spaces.
    let stat = read(base + "/stat")
    let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init)
    lines.append(
      "thread \(t) \(read(base + "/comm")) state \(state ?? "?") wchan \(read(base + "/wchan"))"
        + " syscall \(read(base + "/syscall").split(separator: " ").first ?? "?")")
  }
  if tasks.isEmpty { lines.append("process \(pid) is gone from /proc") }
  let gdb = ["/usr/bin/gdb", "/usr/local/bin/gdb"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  if let gdb, !tasks.isEmpty {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: gdb)
    p.arguments = ["-p", "\(pid)", "-batch", "-nx", "-ex", "thread apply all bt 30"]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    p.standardInput = FileHandle.nullDevice
    if (try? p.run()) != nil {
      let gdbPid = p.processIdentifier
      let watchdog = DispatchWorkItem { if kill(gdbPid, 0) == 0 { kill(gdbPid, SIGKILL) } }
      DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
      let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      p.waitUntilExit()
      watchdog.cancel()
      lines += text.split(separator: "\n").map(String.init)
        .filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }.prefix(400)
    }
  }
  return lines.joined(separator: "\n")
}
