import Glibc

/// TCP keepalive with short timers on gpsd's socket, so a gpsd that vanishes without closing
/// the connection (its host powered off, the network cut) is noticed within seconds even while
/// it has no active device and so sends nothing: after ``idle`` seconds of silence the kernel
/// probes every ``interval`` seconds, and after ``probes`` unanswered ones it fails the socket
/// (ETIMEDOUT), which ends the wait and the read like a closed connection.
enum TCPKeepalive {
  /// Seconds of silence before the first probe.
  static let idle: Int32 = 3
  /// Seconds between probes.
  static let interval: Int32 = 1
  /// Unanswered probes after which the connection is dead.
  static let probes: Int32 = 3
  /// How long data sent (the WATCH request) may stay unacknowledged, in milliseconds: the same
  /// bound, so a request sent into the void fails as fast.
  static var userTimeout: Int32 { (idle + interval * probes) * 1000 }

  /// Turns keepalive on for `fd`; a socket that is not TCP (or an option the kernel lacks) is
  /// left as it is.
  ///
  /// The corresponding C function is `setsockopt`.
  static func enable(_ fd: Int32) {
    guard fd >= 0 else { return }
    func set(_ level: Int32, _ name: Int32, _ value: Int32) {
      var v = value
      _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }
    set(SOL_SOCKET, SO_KEEPALIVE, 1)
    let tcp = Int32(IPPROTO_TCP)
    set(tcp, TCP_KEEPIDLE, idle)
    set(tcp, TCP_KEEPINTVL, interval)
    set(tcp, TCP_KEEPCNT, probes)
    set(tcp, TCP_USER_TIMEOUT, userTimeout)
  }

  /// The errors of a read on a socket whose peer became unreachable (keepalive gave up, or the
  /// network says so), as opposed to gpsd closing the connection.
  static let unreachable: Set<Int32> = [ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN]
}
