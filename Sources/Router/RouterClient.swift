internal import CurlShim
import Glibc
public import Instructions
import POSIX
public import Rerouting
public import Routes

/// A router's answer to one request, as the client hands it back.
public struct RouterAnswer: Sendable {
  /// The request's id.
  public var id: String
  public var result: Result<RouteDocument, RouterFailure>
  /// Seconds from sending the request to the end of the answer (libcurl's total time; the
  /// timeout for a request that got none).
  public var seconds: Double
  /// Whether the exchange opened a new connection (false: it reused one).
  public var connected: Bool

  public init(
    id: String, result: Result<RouteDocument, RouterFailure>, seconds: Double, connected: Bool
  ) {
    self.id = id
    self.result = result
    self.seconds = seconds
    self.connected = connected
  }
}

/// Why a router client cannot be made.
public struct RouterClientError: Error, Sendable, CustomStringConvertible {
  public var description: String
}

/// An HTTP client for one router, on a thread of its own.
///
/// The thread keeps one libcurl easy handle, so consecutive requests reuse the connection
/// (keep-alive) and its TLS session. Every request, connecting included, is bounded by the
/// timeout. At most one request is in flight: a request sent while another is waiting its
/// turn replaces it (only the latest position is worth asking about); one already on the wire
/// is answered first. Nothing here blocks the caller except ``fetch(_:)``.
public final class RouterClient: @unchecked Sendable {
  /// The largest reply accepted, in bytes (a 20 km Valhalla route is about 20 KB).
  public static let maximumReplySize = 8 << 20

  public let baseURL: String
  public let api: RouterAPI
  /// Seconds a request may take, connecting included.
  public let timeout: Double
  private let writer: InstructionWriter
  private let caFile: String?

  /// What the caller and the client thread share.
  private struct Shared {
    /// The request waiting for its turn, with where its answer goes.
    var pending: (RouteRequest, @Sendable (RouterAnswer) -> Void)?
    var stopping = false
    /// The client thread, once started.
    var thread: pthread_t?
  }

  // Invariant: `handle` is used by the client thread only (libcurl handles are not
  // thread-safe); everything else the threads share is inside `shared`.
  private let shared = Monitor(Shared())
  private let handle: OpaquePointer

  /// A client for the router at `baseURL` ("http://127.0.0.1:8002", "https://host/valhalla").
  ///
  /// - Parameters:
  ///   - baseURL: the router's address, without the API path.
  ///   - api: the router's API.
  ///   - timeout: seconds a request may take, connecting included.
  ///   - writer: writes instructions the router did not give in the wanted language.
  ///   - caFile: a certificate authority bundle for https (the system's otherwise).
  /// - Throws: ``RouterClientError`` when libcurl or the client's thread cannot be set up.
  public init(
    baseURL: String, api: RouterAPI, timeout: Double, writer: InstructionWriter,
    caFile: String? = nil
  ) throws(RouterClientError) {
    var base = baseURL
    while base.hasSuffix("/") { base.removeLast() }
    guard base.hasPrefix("http://") || base.hasPrefix("https://"),
      base.split(separator: "/", omittingEmptySubsequences: true).count >= 2
    else {
      throw RouterClientError(
        description: "the router URL must start with http:// or https:// and name a host: "
          + baseURL)
    }
    guard timeout.isFinite, timeout > 0 else {
      throw RouterClientError(description: "the router timeout must be positive")
    }
    guard let h = curlshim_new() else {
      throw RouterClientError(description: "libcurl cannot make a handle")
    }
    self.baseURL = base
    self.api = api
    self.timeout = timeout
    self.writer = writer
    self.caFile = caFile
    handle = h
  }

  deinit {
    close()
    curlshim_free(handle)
  }

  /// Sends `request` on the client's thread; `deliver` is called on that thread with the
  /// answer.
  ///
  /// A request still waiting for its turn is replaced (its `deliver` is not called).
  public func send(
    _ request: RouteRequest, deliver: @escaping @Sendable (RouterAnswer) -> Void
  ) {
    shared.change(wakingWhen: { s in
      guard !s.stopping else { return false }
      s.pending = (request, deliver)
      if s.thread == nil {
        // The thread holds the client until it ends (``close()``). Without a thread the
        // request waits and a later send tries again.
        if case .success(let t) = startThread({ [self] in loop() }) { s.thread = t }
      }
      return true
    })
  }

  /// Sends `request` and waits for its answer (at most the timeout, plus the answer to a
  /// request already on the wire).
  public func fetch(_ request: RouteRequest) -> RouterAnswer {
    let box = AnswerBox()
    send(request) { box.put($0) }
    return box.take()
      ?? RouterAnswer(
        id: request.id, result: .failure(.transport("the client was closed")), seconds: 0,
        connected: false)
  }

  /// Ends the client's thread after the request on the wire, if any; later sends are ignored.
  ///
  /// The thread keeps the client alive until then, so an owner that is done with it calls
  /// this (never from a `deliver` closure, which runs on that thread).
  public func close() {
    var thread: pthread_t?
    shared.change(wakingWhen: { s in
      s.stopping = true
      s.pending = nil
      thread = s.thread
      s.thread = nil
      return true
    })
    if let thread { pthread_join(thread, nil) }
  }

  // MARK: - The thread

  /// The client thread: one request at a time, until ``close()``.
  private func loop() {
    while true {
      var job: (RouteRequest, @Sendable (RouterAnswer) -> Void)?
      var stop = false
      shared.wait(
        until: { s in
          stop = s.stopping
          job = s.pending
          s.pending = nil
          return stop || job != nil
        }, timeout: 60)
      if stop { return }
      guard let (request, deliver) = job else { continue }
      deliver(perform(request))
    }
  }

  /// One exchange on the handle, classified.
  ///
  /// Runs on the client thread only.
  func perform(_ request: RouteRequest) -> RouterAnswer {
    let http = RouterRequestBuilder.request(request, api: api)
    let url = baseURL + http.path
    let timeoutMilliseconds = max(1, Int((timeout * 1000).rounded()))
    let reply: curlshim_reply =
      if let body = http.body {
        body.withUnsafeBytes { raw in
          curlshim_exchange(
            handle, url, http.contentType, raw.baseAddress, raw.count, timeoutMilliseconds,
            Self.maximumReplySize, caFile)
        }
      } else {
        curlshim_exchange(
          handle, url, nil, nil, 0, timeoutMilliseconds, Self.maximumReplySize, caFile)
      }
    let seconds = reply.total_seconds
    let connected = reply.connects > 0
    let result: Result<RouteDocument, RouterFailure>
    if Int(reply.result) == CURLSHIM_OK {
      let body =
        reply.length > 0 && reply.body != nil
        ? [UInt8](UnsafeBufferPointer(start: reply.body, count: reply.length)) : []
      result = RouterReply.classify(
        api: api, status: reply.status, body: body, id: request.id, writer: writer)
    } else {
      result = .failure(
        Self.failure(
          code: Int(reply.result), errno: Int32(truncatingIfNeeded: reply.os_errno),
          message: String(cString: reply.message)))
    }
    return RouterAnswer(id: request.id, result: result, seconds: seconds, connected: connected)
  }

  /// The failure a libcurl result stands for.
  static func failure(code: Int, errno: Int32, message: String) -> RouterFailure {
    switch code {
    case CURLSHIM_COULDNT_CONNECT: errno == ECONNREFUSED ? .refused : .unreachable(message)
    case CURLSHIM_COULDNT_RESOLVE_HOST: .unreachable(message)
    case CURLSHIM_OPERATION_TIMEDOUT: .timeout
    case CURLSHIM_WRITE_ERROR: .malformed(message)
    default: .transport(message)
    }
  }
}

/// One answer handed from the client thread to a waiting caller.
private final class AnswerBox: Sendable {
  private let answer = Monitor<RouterAnswer?>(nil)

  func put(_ a: RouterAnswer) {
    answer.change(wakingWhen: { value in
      value = a
      return true
    })
  }

  /// Blocks until the answer is there.
  func take() -> RouterAnswer? {
    var taken: RouterAnswer?
    while taken == nil {
      answer.wait(
        until: { value in
          taken = value
          return value != nil
        }, timeout: 60)
    }
    return taken
  }
}
