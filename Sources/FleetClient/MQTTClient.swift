import CMosquitto
import Dispatch
import Glibc
// Defines the libmosquitto functions called here, opening the library on first use.
import MosquittoShim
import POSIX
import Synchronization

/// An MQTT 5 (or 3.1.1) client on a network thread of its own that runs libmosquitto's loop.
///
/// The connection is persistent (clean start off, a Session Expiry Interval, the client id
/// fixed), so the broker keeps the subscriptions and queues commands while the vehicle is away
/// (libmosquitto adds no session expiry by itself, and without one an MQTT 5 session ends with
/// the connection). The will is set before connecting.
///
/// The thread is ours, not `mosquitto_loop_start`'s: libmosquitto's own loop gives up, silently
/// and for good, after an error it counts as fatal (a TLS handshake that fails on the network
/// thread, a refused CONNACK), and sleeps through its back-off where nothing can wake it. Here
/// every failure, whatever its kind, is retried after the same back-off
/// (``Options/reconnectDelay``), counted from the last accepted connect, in a wait that
/// ``close()`` ends at once; ``lastFailure`` keeps what libmosquitto said about the last one.
/// With ``Options/alternates`` (the other nodes of a cluster), each retry goes to the next
/// broker of the list, round and round: libmosquitto keeps the unacknowledged QoS 1 messages
/// and sends them again to whichever broker takes the next connection.
/// The back-off doubles (libmosquitto's own grows quadratically, 1, 4, 9 s: a two-second broker
/// restart kept vehicles away for five) and is jittered, so that a fleet that lost its broker
/// at once does not come back in one burst.
///
/// Callbacks run on the network thread and only hand over to ``Handlers`` (which must return
/// at once). The C callbacks are created in this nonisolated type, never in `@MainActor` code:
/// Swift 6 traps when libmosquitto calls a main-actor closure from its thread.
///
/// Invariant behind `@unchecked Sendable`: `handle` is set once in `init` and only destroyed in
/// `deinit`, after ``close()`` joined the network thread; libmosquitto itself is thread-safe
/// (built with threads, and told so by `mosquitto_threaded_set`), so the methods may be called
/// from any thread.
public final class MQTTClient: @unchecked Sendable {
  /// Where to connect and how.
  public struct Options: Sendable {
    public var host: String
    public var port: Int32
    public var clientID: String
    /// TLS: the CA file, and the client certificate and key when the broker asks for one.
    public var tls: TLS?
    public var username: String?
    public var password: String?
    /// Seconds between PINGs; the broker sends the will after 1.5 times this of silence.
    public var keepalive: Int32 = 30
    /// How long the broker keeps the session (subscriptions, queued commands), in seconds.
    public var sessionExpiry: Int32 = 7 * 24 * 3600
    /// `false` for a passing client (a viewer): clean start, no session kept.
    public var persistent = true
    /// Messages sent before waiting for acknowledgements.
    public var sendMaximum: Int32 = 20
    /// Reconnect delays, in seconds: the first and the largest.
    ///
    /// The n-th failure in a row waits first × 2ⁿ⁻¹, at most the largest, so (1, 30) retries
    /// after 1, 2, 4, 8, 16, then every 30 seconds; each wait is shortened by a random part of up
    /// to ``reconnectJitter``.
    public var reconnectDelay: (first: UInt32, maximum: UInt32) = (1, 30)
    public var will: (topic: String, payload: [UInt8])?
    /// Other brokers, tried in turn after ``host``:``port`` (and then it again) on each
    /// failure: the other nodes of a cluster.
    public var alternates: [(host: String, port: Int32)] = []
    /// MQTT 3.1.1 instead of 5, for brokers without MQTT 5 (RabbitMQ 3.10): the session has no
    /// expiry (the broker keeps it until a clean connect), messages no expiry, and ``close()``
    /// publishes the will itself, since a 3.1.1 DISCONNECT discards it.
    public var version311 = false

    /// ``host``:``port`` first, then the alternates.
    public var brokers: [(host: String, port: Int32)] { [(host, port)] + alternates }

    public struct TLS: Sendable {
      public var caFile: String?
      public var certificate: String?
      public var key: String?
      public init(caFile: String?, certificate: String?, key: String?) {
        self.caFile = caFile
        self.certificate = certificate
        self.key = key
      }
    }

    public init(host: String, port: Int32, clientID: String) {
      self.host = host
      self.port = port
      self.clientID = clientID
    }
  }

  /// What the network thread reports; each must return at once.
  public struct Handlers: Sendable {
    /// A CONNACK: reason 0 is success (with whether the broker still had the session).
    public var connected: @Sendable (_ reason: Int32, _ sessionPresent: Bool) -> Void = { _, _ in }
    /// The connection ended (0 when asked to).
    public var disconnected: @Sendable (_ reason: Int32) -> Void = { _ in }
    /// The broker acknowledged the QoS 1 message `mid`.
    public var acknowledged: @Sendable (_ mid: Int32) -> Void = { _ in }
    /// A message arrived on a subscribed topic.
    public var message: @Sendable (_ topic: String, _ payload: [UInt8]) -> Void = { _, _ in }
    public init() {}
  }

  /// A libmosquitto error, with its text.
  public struct Failure: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public var function: String

    public init(code: Int32, function: String) {
      self.code = code
      self.function = function
    }

    public var description: String {
      "\(function): " + String(cString: mosquitto_strerror(code))
    }
  }

  private static let library: Int32 = mosquitto_lib_init()

  public let options: Options
  private let handlers: Handlers
  private let handle: OpaquePointer
  /// Failed connects and lost links since the last accepted connect: the back-off's n.
  private let failures = Locked(0)
  private let closing = Atomic<Bool>(false)
  /// Ends a back-off wait early (``close()``).
  private let wake = DispatchSemaphore(value: 0)
  private let thread = Locked<pthread_t?>(nil)
  /// libmosquitto's last error code and last error or warning line (its log: OpenSSL's reason
  /// for a failed handshake is only said there), since the last accepted connect.
  private let failure = Locked<(code: Int32?, log: String?)>((nil, nil))
  private let current: Locked<(host: String, port: Int32)>
  /// A CONNACK libmosquitto handled in the running `mosquitto_loop`, told to ``Handlers`` when
  /// that loop returns (``networkLoop(onFirstFailure:)``).
  private let connack = Locked<(rc: Int32, sessionPresent: Bool)?>(nil)

  public init(_ options: Options, handlers: Handlers) throws(Failure) {
    _ = Self.library
    self.options = options
    self.handlers = handlers
    current = Locked((options.host, options.port))
    // The object pointer is filled in below, once `self` exists.
    guard let m = mosquitto_new(options.clientID, !options.persistent, nil) else {
      throw Failure(code: MOSQ_ERR_NOMEM.rawValue, function: "mosquitto_new")
    }
    handle = m
    mosquitto_user_data_set(m, Unmanaged.passUnretained(self).toOpaque())
    try check(
      mosquitto_int_option(
        m, MOSQ_OPT_PROTOCOL_VERSION, options.version311 ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5),
      "protocol version")
    try check(mosquitto_int_option(m, MOSQ_OPT_SEND_MAXIMUM, options.sendMaximum), "send maximum")
    if let will = options.will {
      try check(
        mosquitto_will_set_v5(m, will.topic, Int32(will.payload.count), will.payload, 1, true, nil),
        "mosquitto_will_set")
    }
    if let user = options.username {
      try check(mosquitto_username_pw_set(m, user, options.password), "mosquitto_username_pw_set")
    }
    if let tls = options.tls {
      try check(
        mosquitto_tls_set(m, tls.caFile, nil, tls.certificate, tls.key, nil), "mosquitto_tls_set")
    }
    try check(mosquitto_threaded_set(m, true), "mosquitto_threaded_set")
    Self.installCallbacks(m)
  }

  deinit {
    mosquitto_destroy(handle)
  }

  private func check(_ rc: Int32, _ what: String) throws(Failure) {
    guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw Failure(code: rc, function: what) }
  }

  private static func client(_ obj: UnsafeMutableRawPointer?) -> MQTTClient? {
    obj.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
  }

  /// The C callbacks, created here (nonisolated) and not in main-actor code.
  private static func installCallbacks(_ m: OpaquePointer) {
    mosquitto_connect_v5_callback_set(m) { _, obj, rc, flags, _ in
      guard let client = MQTTClient.client(obj) else { return }
      if rc == 0 {
        client.failures.withLock { $0 = 0 }
        client.failure.withLock { $0 = (nil, nil) }
      }
      // Told when the loop returns: libmosquitto calls this before it resends the messages
      // left unacknowledged by the last link, and a publish made now from another thread
      // (a handler that hands over at once) would go out ahead of them.
      client.connack.withLock { $0 = (rc, flags & 1 != 0) }
    }
    mosquitto_log_callback_set(m) { _, obj, level, text in
      guard level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text,
        let client = MQTTClient.client(obj)
      else { return }
      let line = String(cString: text)
      client.failure.withLock { $0.log = line }
    }
    mosquitto_disconnect_v5_callback_set(m) { _, obj, rc, _ in
      MQTTClient.client(obj)?.handlers.disconnected(rc)
    }
    mosquitto_publish_v5_callback_set(m) { _, obj, mid, _, _ in
      MQTTClient.client(obj)?.handlers.acknowledged(mid)
    }
    mosquitto_message_v5_callback_set(m) { _, obj, message, _ in
      guard let client = MQTTClient.client(obj), let message else { return }
      let m = message.pointee
      let topic = m.topic.map { String(cString: $0) } ?? ""
      var payload: [UInt8] = []
      if let p = m.payload, m.payloadlen > 0 {
        payload = Array(UnsafeRawBufferPointer(start: p, count: Int(m.payloadlen)))
      }
      client.handlers.message(topic, payload)
    }
  }

  /// Starts the network thread, which connects and then runs libmosquitto's loop; returns at
  /// once: the first connect (name lookup and TCP, which can take seconds on a dead cellular
  /// link) runs there too.
  ///
  /// A connect that fails at once is also told to `onFirstFailure`.
  public func start(onFirstFailure: @escaping @Sendable (Failure) -> Void) {
    guard thread.withLock({ $0 == nil }) else { return }
    switch startThread({ [self] in networkLoop(onFirstFailure: onFirstFailure) }) {
    case .success(let t):
      thread.withLock { $0 = t }
    case .failure:
      noteFailure(MOSQ_ERR_ERRNO.rawValue)
      onFirstFailure(Failure(code: MOSQ_ERR_ERRNO.rawValue, function: "pthread_create"))
    }
  }

  /// The network thread: connect, loop until something fails, back off, reconnect; until
  /// ``close()``, after which it lets the loop send the DISCONNECT (for at most a second).
  private func networkLoop(onFirstFailure: @Sendable (Failure) -> Void) {
    let brokers = options.brokers
    var next = 0
    var rc = connect(to: brokers[next])
    if rc != MOSQ_ERR_SUCCESS.rawValue {
      noteFailure(rc)
      onFirstFailure(Failure(code: rc, function: "connect to \(options.host):\(options.port)"))
    }
    while true {
      if closing.load(ordering: .acquiring) {
        let end = DispatchTime.now() + Self.disconnectGrace
        while rc == MOSQ_ERR_SUCCESS.rawValue && DispatchTime.now() < end {
          rc = mosquitto_loop(handle, 100, 1)
        }
        return
      }
      if rc == MOSQ_ERR_SUCCESS.rawValue {
        rc = mosquitto_loop(handle, Self.loopTimeout, 1)
        if rc != MOSQ_ERR_SUCCESS.rawValue { noteFailure(rc) }
        if let c = connack.take() {
          handlers.connected(c.rc, c.sessionPresent)
        }
        continue
      }
      // A lost link, a failed connect or handshake, a refused CONNACK: all alike.
      let n = failures.withLock { f -> Int in
        f += 1
        return f
      }
      let delay = Self.backOff(failures: n, options.reconnectDelay)
      if wake.wait(timeout: .now() + delay) == .success { continue }
      if brokers.count > 1 {
        next = (next + 1) % brokers.count
        rc = connect(to: brokers[next])
      } else {
        rc = mosquitto_reconnect(handle)
      }
      if rc != MOSQ_ERR_SUCCESS.rawValue { noteFailure(rc) }
    }
  }

  /// Connects to `broker` (the session's properties under MQTT 5) and remembers it as
  /// ``broker``.
  private func connect(to broker: (host: String, port: Int32)) -> Int32 {
    current.withLock { $0 = broker }
    var props: OpaquePointer?
    if options.persistent && !options.version311 {
      mosquitto_property_add_int32(
        &props, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32(options.sessionExpiry))
    }
    let rc = mosquitto_connect_bind_v5(
      handle, broker.host, broker.port, options.keepalive, nil, props)
    mosquitto_property_free_all(&props)
    return rc
  }

  /// The broker connected to, or being connected to (`HOST:PORT`).
  public var broker: String {
    let b = current.withLock { $0 }
    return (b.host.contains(":") ? "[\(b.host)]" : b.host) + ":\(b.port)"
  }

  /// The largest part of a reconnect wait taken off at random.
  public static let reconnectJitter = 0.5

  /// Seconds to wait after the `failures`-th failure in a row (from 1).
  public static func backOff(
    failures: Int, _ delay: (first: UInt32, maximum: UInt32),
    random: Double = Double.random(in: 0..<1)
  ) -> Double {
    let doubled = Double(delay.first) * Double(1 << min(max(failures - 1, 0), 20))
    return min(Double(delay.maximum), doubled) * (1 - reconnectJitter * random)
  }

  /// Milliseconds libmosquitto's loop waits for the socket before its housekeeping (PINGs);
  /// a publish from another thread wakes it at once.
  static let loopTimeout: Int32 = 1000
  /// How long ``close()`` lets the loop send the DISCONNECT.
  static let disconnectGrace = DispatchTimeInterval.seconds(1)

  private func noteFailure(_ rc: Int32) {
    failure.withLock { $0.code = rc }
  }

  /// What libmosquitto said about the last failure since the last accepted connect: its error
  /// text and its last logged error line (for TLS, OpenSSL's reason); `nil` when nothing failed.
  public var lastFailure: String? {
    let f = failure.withLock { $0 }
    switch (f.code.map(Self.error), f.log) {
    case (let code?, let log?): return code + " (" + log + ")"
    case (let code?, nil): return code
    case (nil, let log?): return log
    case (nil, nil): return nil
    }
  }

  /// Publishes one message; returns libmosquitto's code and the message id.
  ///
  /// QoS 1 messages stay in libmosquitto's (unbounded, in-memory) queue until acknowledged,
  /// across reconnects: the caller limits how many it hands over.
  ///
  /// `expiry` is the MQTT 5 message expiry interval, in seconds.
  public func publish(
    _ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool, expiry: UInt32? = nil
  ) -> (rc: Int32, mid: Int32) {
    var mid: Int32 = 0
    var props: OpaquePointer?
    if let expiry, !options.version311 {
      mosquitto_property_add_int32(
        &props, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry)
    }
    let rc = mosquitto_publish_v5(
      handle, &mid, topic, Int32(payload.count), payload, qos, retain, props)
    mosquitto_property_free_all(&props)
    return (rc, mid)
  }

  /// Subscribes to `topic` at QoS 1.
  @discardableResult
  public func subscribe(_ topic: String) -> Int32 {
    mosquitto_subscribe_v5(handle, nil, topic, 1, 0, nil)
  }

  /// Disconnects with reason 4 ("disconnect with will message": the broker publishes the
  /// will, so a stopped vehicle shows offline as a vanished one does; under MQTT 3.1.1 the will
  /// is published here before a plain DISCONNECT) and ends the network
  /// thread, after the first connect attempt if it is still under way.
  ///
  /// Call once.
  public func close() {
    closing.store(true, ordering: .releasing)
    if options.version311, let will = options.will {
      // QoS 0: written at once, ahead of the DISCONNECT, where a QoS 1 message could wait
      // behind a full window of unacknowledged ones and never leave.
      var mid: Int32 = 0
      mosquitto_publish_v5(
        handle, &mid, will.topic, Int32(will.payload.count), will.payload, 0, true, nil)
    }
    mosquitto_disconnect_v5(handle, 4, nil)
    wake.signal()
    if let t = thread.take() {
      pthread_join(t, nil)
    }
  }

  /// The text of an MQTT 5 reason code (CONNACK, DISCONNECT).
  public static func reason(_ code: Int32) -> String {
    String(cString: mosquitto_reason_string(code))
  }

  /// libmosquitto's text for one of its error codes (`MOSQ_ERR_…`), as a disconnect reports.
  public static func error(_ code: Int32) -> String {
    // libmosquitto 2.0.11 has no text for a keepalive timeout ("Unknown error.").
    if code == MOSQ_ERR_KEEPALIVE.rawValue { return "no answer within 1.5 × keepalive" }
    return String(cString: mosquitto_strerror(code))
  }
}
