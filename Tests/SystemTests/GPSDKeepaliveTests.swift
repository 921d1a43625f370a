import Foundation
import TestSupport
import Testing

/// Whether this process may make network namespaces (root with `ip`, and a kernel or container
/// that allows them).
let namespacesUsable: Bool = {
  guard getuid() == 0, toolsInstalled("/usr/sbin/ip", "/usr/sbin/gpsd") else { return false }
  let name = "swprobe\(getpid())"
  func ip(_ args: [String]) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
    p.arguments = args
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return -1 }
    p.waitUntilExit()
    return p.terminationStatus
  }
  guard ip(["netns", "add", name]) == 0 else { return false }
  return ip(["netns", "del", name]) == 0
}()

/// A remote gpsd that vanishes without closing the connection: a real gpsd without devices in a
/// network namespace of its own, reached over a veth pair whose far end is then taken down (the
/// network cut; gpsd itself keeps running and never closes).
///
/// TCP keepalive notices it within seconds, and the daemon reconnects once the network is back.
@Suite(
  .blocking, .serialized, .timeLimit(.minutes(5)),
  .requires(namespacesUsable, "creating a network namespace needs root, ip and gpsd"))
struct GPSDKeepaliveTests {
  /// Runs `ip` and records a failure.
  static func ip(_ args: [String]) throws {
    let r = try runTool("/usr/sbin/ip", args, timeout: 10)
    #expect(r.status == 0, "ip \(args.joined(separator: " ")): \(r.stderr)")
  }

  @Test func aGpsdThatVanishesIsNoticedAndReconnected() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let tag = "swka\(getpid() % 100_000)"
    let (namespace, near, far) = (tag, tag + "h", tag + "p")
    let subnet = 10 + Int(getpid() % 200)
    let (nearAddress, farAddress) = ("10.214.\(subnet).1", "10.214.\(subnet).2")
    try Self.ip(["netns", "add", namespace])
    defer {
      _ = try? runTool("/usr/sbin/ip", ["netns", "del", namespace], timeout: 10)
      _ = try? runTool("/usr/sbin/ip", ["link", "del", near], timeout: 10)
    }
    try Self.ip(["link", "add", near, "type", "veth", "peer", "name", far])
    try Self.ip(["link", "set", far, "netns", namespace])
    try Self.ip(["addr", "add", "\(nearAddress)/30", "dev", near])
    try Self.ip(["link", "set", near, "up"])
    let inside = ["netns", "exec", namespace, "/usr/sbin/ip"]
    try Self.ip(inside + ["addr", "add", "\(farAddress)/30", "dev", far])
    try Self.ip(inside + ["link", "set", far, "up"])
    try Self.ip(inside + ["link", "set", "lo", "up"])

    let port = 29_600 + Int(getpid() % 300)
    let gpsd = try SpawnedProcess(
      [
        "/usr/sbin/ip", "netns", "exec", namespace, "/usr/sbin/gpsd", "-N", "-G", "-S", "\(port)",
        "-F", scratch.file("gpsd.sock"),
      ],
      environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
      stdoutPath: scratch.file("gpsd.out"), stderrPath: scratch.file("gpsd.err"))
    defer { gpsd.killGroup() }
    let binary = try #require(productPath("stepwised"))
    let daemon = try SpawnedProcess(
      [
        binary, "--route", repositoryFile("Simulations/001-marais-drive/route.json"), "--json",
        "gpsd://\(farAddress):\(port)",
      ],
      environment: sanitizerEnvironment(["PATH": "/usr/bin:/bin"]),
      stdoutPath: scratch.file("d.out"), stderrPath: scratch.file("d.err"))
    defer { daemon.killGroup() }
    func count(_ text: String) -> Int { daemon.stdout.components(separatedBy: text).count - 1 }
    let connected = #""status":"connected""#
    #expect(waitUntil(timeout: 20) { count(connected) == 1 }, "\(daemon.stderr) \(gpsd.stderr)")

    let cut = Date()
    try Self.ip(inside + ["link", "set", far, "down"])
    #expect(
      waitUntil(timeout: 20) { count(#""status":"disconnected""#) == 1 }, "\(daemon.stderr)")
    let noticed = Date().timeIntervalSince(cut)
    // Keepalive's timeout, or the kernel's "no route" once the neighbour entry of the far end
    // expires first (seen under ThreadSanitizer, where everything is slower): both are a lost
    // connection, not a silent gpsd.
    #expect(daemon.stderr.contains("connection lost ("), "\(daemon.stderr)")

    let restored = Date()
    try Self.ip(inside + ["link", "set", far, "up"])
    #expect(waitUntil(timeout: 20) { count(connected) == 2 }, "\(daemon.stderr)")
    let back = Date().timeIntervalSince(restored)
    print(
      String(format: "gpsd keepalive: lost after %.1f s, reconnected %.1f s after", noticed, back))
    // Keepalive gives up after 3 s of silence and 3 probes 1 s apart.
    #expect(noticed < 10, "noticed after \(noticed) s")
    #expect(back < 10, "reconnected after \(back) s")
  }
}
