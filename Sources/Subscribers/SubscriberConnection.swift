import Commands
import Dispatch
import Glibc
import POSIX
import Wire

/// One client of the subscriber server: its socket, its command channel, its watch settings
/// and its bounded queue of outgoing lines.
///
/// Every member is used only on the server's queue (see ``SubscriberServer``); this is the
/// invariant behind `@unchecked Sendable`, which lets Dispatch handlers on that queue capture it.
final class SubscriberConnection: @unchecked Sendable {
  // What the fan-out reads of every subscriber for every event comes first, so that it shares
  // the object's first cache lines with its reference count (`SubscriberServer.drain()` is
  // bound by the cache misses of 500 connections, not by instructions).
  let fd: Int32
  /// No more events or answers are queued; the connection closes once the queue is sent.
  var closing = false
  /// The client closed its sending side; the connection closes once it is idle.
  var readClosed = false
  var closed = false
  /// Whether the write source is resumed (the socket was full and is being waited on).
  var writeArmed = false
  /// Bytes queued and not yet sent.
  private(set) var queuedBytes = 0
  /// The most bytes queued since the queue was last empty (the server trims the heap after a
  /// large one).
  var backlogPeak = 0
  /// The `seq` of the state this client was sent on connect: it gets the events after it.
  var joinedAfter: UInt64 = 0
  var watch = WatchRequest()
  let id: UInt64
  let peer: PeerCredentials
  /// Its commands: framed, limited and run one guidance command at a time.
  var commands: CommandChannel?

  var readSource: (any DispatchSourceRead)?
  var writeSource: (any DispatchSourceWrite)?
  /// Whether the read source is suspended (a guidance command is in flight).
  var readSuspended = false
  /// Sources whose cancel handler has not yet run; the descriptor is closed after the last one.
  var liveSources = 0

  /// Outgoing lines; `outgoing[head]` is the next, of which `headOffset` bytes are already sent.
  ///
  /// Lines are shared (copy-on-write) between subscribers, so a line costs one reference each.
  private var outgoing: [[UInt8]] = []
  private var head = 0
  private var headOffset = 0

  init(id: UInt64, fd: Int32, peer: PeerCredentials) {
    self.id = id
    self.fd = fd
    self.peer = peer
  }

  var hasQueued: Bool { queuedBytes > 0 }

  /// Appends one line (with its line end).
  func enqueue(_ line: [UInt8]) {
    outgoing.append(line)
    queuedBytes += line.count
  }

  /// Drops every queued line except the rest of a line already partly sent, so that whatever
  /// follows starts on a line of its own.
  func dropQueuedLines() {
    guard head < outgoing.count else { return }
    let keep = headOffset > 0 ? [outgoing[head]] : []
    outgoing = keep
    head = 0
    queuedBytes = keep.first.map { $0.count - headOffset } ?? 0
  }

  /// Sends as much of the queue as the socket takes.
  ///
  /// - Parameter scratch: a buffer to gather small lines into one `send`.
  /// - Returns: `true` when the queue is empty, `false` when the socket is full.
  /// - Throws: ``SystemError`` when the peer is gone (`EPIPE`, `ECONNRESET`).
  func flush(_ scratch: inout [UInt8]) throws(SystemError) -> Bool {
    while head < outgoing.count {
      let sent: Int?
      if head + 1 == outgoing.count || outgoing[head].count - headOffset >= scratch.count {
        let line = outgoing[head]
        let offset = headOffset
        sent = try line.withUnsafeBytes { raw in
          Result { () throws(SystemError) in
            try SocketCalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
          }
        }.get()
      } else {
        var filled = 0
        var i = head
        var offset = headOffset
        while i < outgoing.count && filled < scratch.count {
          let line = outgoing[i]
          let n = min(line.count - offset, scratch.count - filled)
          scratch.withUnsafeMutableBytes { dst in
            line.withUnsafeBytes { src in
              UnsafeMutableRawBufferPointer(rebasing: dst[filled..<(filled + n)]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: src[offset..<(offset + n)]))
            }
          }
          filled += n
          offset = 0
          i += 1
        }
        let count = filled
        sent = try scratch.withUnsafeBytes { raw in
          Result { () throws(SystemError) in
            try SocketCalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[0..<count]))
          }
        }.get()
      }
      guard let sent else { return false }
      consume(sent)
    }
    return true
  }

  /// Forgets the first `count` queued bytes: they were sent.
  func consume(_ count: Int) {
    var n = count
    queuedBytes -= n
    while n > 0 && head < outgoing.count {
      let left = outgoing[head].count - headOffset
      if n >= left {
        n -= left
        head += 1
        headOffset = 0
      } else {
        headOffset += n
        n = 0
      }
    }
    if head == outgoing.count {
      outgoing.removeAll(keepingCapacity: outgoing.capacity <= 1024)
      head = 0
    } else if head >= 64 && head * 2 >= outgoing.count {
      outgoing.removeFirst(head)
      head = 0
    }
  }
}
