import Dispatch
import Foundation
import GPSD
import GPSDProtocol
import TestSupport
import Testing

/// The libgps connection against a made-up gpsd on loopback: libgps connects and sends the
/// watch, and each line gpsd writes comes back once, whole, however the writes split it.
@Suite(.blocking) struct GPSDConnectionTests {
  /// A listening TCP socket on 127.0.0.1 and a free port.
  static func listener() throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
        bind(fd, a, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, a, &length) == 0
      }
    }
    try #require(bound, "bind: errno \(errno)")
    return (fd, UInt16(bigEndian: address.sin_port))
  }

  @Test func everyLineComesBackOnceWholeHoweverItWasSplit() throws {
    let (server, port) = try Self.listener()
    defer { close(server) }
    let version: String =
      #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
    let tpv: String =
      #"{"class":"TPV","device":"/dev/ttyS0","mode":3,"time":"2024-05-01T08:00:00.000Z","#
      + #""lat":48.8566,"lon":2.3522,"speed":1.5,"track":90.0}"#
    let long: String =
      #"{"class":"SKY","device":"/dev/ttyS0","satellites":[]"#
      + String(repeating: " ", count: 9000) + "}"
    // gpsd's side: the watch libgps sends, then lines in awkward pieces, then the end.
    let peer = BackgroundWork { () -> String in
      let c = accept(server, nil, nil)
      guard c >= 0 else { return "" }
      defer { close(c) }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let n = read(c, &buffer, buffer.count)
      let watch = String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self)
      let crlf = "\r\n"
      let first: String = version + crlf + String(tpv.prefix(30))
      let second: String = String(tpv.dropFirst(30)) + crlf
      let third: String = "not a report" + crlf + tpv + crlf + String(long.prefix(5000))
      let fourth: String = String(long.dropFirst(5000)) + crlf
      let pieces: [String] = [first, second, third, fourth]
      for piece in pieces {
        _ = Array(piece.utf8).withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
        usleep(50_000)
      }
      return watch
    }
    let queue = DispatchQueue(label: "test.gpsd-connection")
    let results: [GPSDReadResult] = try queue.sync {
      let connection = try GPSDConnection.open(host: "127.0.0.1", port: "\(port)", queue: queue)
      defer { connection.close() }
      try connection.watch()
      var results: [GPSDReadResult] = []
      let deadline = Date().addingTimeInterval(10)
      while Date() < deadline {
        guard connection.waiting(timeout: 0.5) else { continue }
        let r = connection.read()
        if r == .partial { continue }
        results.append(r)
        if r == .closed {
          #expect(errno == 0, "the end of the stream is no error")
          break
        }
      }
      return results
    }
    let watch = peer.join() ?? ""
    #expect(watch.hasPrefix("?WATCH={") && watch.contains(#""json":true"#), "\(watch)")
    #expect(results.count == 6, "\(results)")
    guard results.count == 6 else { return }
    #expect(results[0] == .report(try GPSDReport.decode(Array(version.utf8))))
    #expect(results[1] == .report(try GPSDReport.decode(Array(tpv.utf8))))
    #expect(results[2] == .undecodable("not a report"))
    #expect(results[3] == results[1])
    #expect(results[4] == .report(try GPSDReport.decode(Array(long.utf8))))
    #expect(results[5] == .closed)
  }
}
