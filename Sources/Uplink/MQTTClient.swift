import CMosquitto
import Dispatch
import Glibc
import Synchronization

/// An MQTT 5 client on libmosquitto's own network thread (`mosquitto_loop_start`).
///
/// The connection is persistent (clean start off, a Session Expiry Interval, the client id
/// fixed), so the broker keeps the subscriptions and queues commands while the vehicle is away
/// (libmosquitto adds no session expiry by itself, and without one an MQTT 5 session ends with
/// the connection). The will is set before connecting. libmosquitto reconnects by itself with
/// its back-off, which is quadratic (delay × (n+1)², up to the maximum), not exponential as its
/// header says.
///
/// Callbacks run on the network thread and only hand over to ``Handlers`` (which must return
/// at once). The C callbacks are created in this nonisolated type, never in `@MainActor` code:
/// Swift 6 traps when libmosquitto calls a main-actor closure from its thread.
///
/// Invariant behind `@unchecked Sendable`: `handle` is set once in `init` and only destroyed in
/// ``close()``, after the network thread has stopped; libmosquitto itself is thread-safe (built
/// with threads), so the methods may be called from any thread.
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
    /// libmosquitto waits first × (n+1)² before attempt n+1, so (1, 30) retries after 1, 4,
    /// 9, 16, 25, then every 30 seconds.
    public var reconnectDelay: (first: UInt32, maximum: UInt32) = (1, 30)
    public var will: (topic: String, payload: [UInt8])?

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
    public var description: String {
      "\(function): " + String(cString: mosquitto_strerror(code))
    }
  }

  private static let library: Int32 = mosquitto_lib_init()

  public let options: Options
  private let handlers: Handlers
  private let handle: OpaquePointer
  private let connector = DispatchQueue(label: "stepwise.mqtt.connect")
  /// Refused connects in a row (bad credentials, not authorised, server unavailable).
  private let refusals = Mutex(0)
  private let closing = Atomic<Bool>(false)

  public init(_ options: Options, handlers: Handlers) throws(Failure) {
    _ = Self.library
    self.options = options
    self.handlers = handlers
    // The object pointer is filled in below, once `self` exists.
    guard let m = mosquitto_new(options.clientID, !options.persistent, nil) else {
      throw Failure(code: MOSQ_ERR_NOMEM.rawValue, function: "mosquitto_new")
    }
    handle = m
    mosquitto_user_data_set(m, Unmanaged.passUnretained(self).toOpaque())
    try check(
      mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "protocol version")
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
    try check(
      mosquitto_reconnect_delay_set(
        m, options.reconnectDelay.first, options.reconnectDelay.maximum, true),
      "mosquitto_reconnect_delay_set")
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
      client.handlers.connected(rc, flags & 1 != 0)
      if rc == 0 {
        client.refusals.withLock { $0 = 0 }
      } else {
        client.retryAfterRefusal()
      }
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

  /// Connects and starts the network thread, without waiting: the first connect (name lookup
  /// and TCP, which can take seconds on a dead cellular link) runs on a queue of its own; a
  /// failed one is retried by the network thread with the back-off.
  public func start(onFirstFailure: @escaping @Sendable (Failure) -> Void) {
    connector.async { [self] in
      var props: OpaquePointer?
      if options.persistent {
        mosquitto_property_add_int32(
          &props, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32(options.sessionExpiry))
      }
      let rc = mosquitto_connect_bind_v5(
        handle, options.host, options.port, options.keepalive, nil, props)
      mosquitto_property_free_all(&props)
      if rc != MOSQ_ERR_SUCCESS.rawValue {
        onFirstFailure(Failure(code: rc, function: "connect to \(options.host):\(options.port)"))
      }
      _ = mosquitto_loop_start(handle)
    }
  }

  /// A refused CONNACK ends libmosquitto's network thread (its loop retries lost connections,
  /// not refusals), so the retry is ours: after the same quadratic back-off, stop the ended
  /// thread, reconnect and start it again, off the network thread (which cannot join itself).
  private func retryAfterRefusal() {
    let n = refusals.withLock { r -> Int in
      r += 1
      return r
    }
    let first = Double(options.reconnectDelay.first)
    let delay = min(Double(options.reconnectDelay.maximum), first * Double(n * n))
    connector.asyncAfter(deadline: .now() + delay) { [self] in
      guard !closing.load(ordering: .acquiring) else { return }
      mosquitto_disconnect_v5(handle, 0, nil)
      mosquitto_loop_stop(handle, false)
      _ = mosquitto_reconnect(handle)
      _ = mosquitto_loop_start(handle)
    }
  }

  /// Publishes one message; returns libmosquitto's code and the message id.
  ///
  /// QoS 1 messages stay in libmosquitto's (unbounded, in-memory) queue until acknowledged,
  /// across reconnects: the caller limits how many it hands over.
  ///
  /// - Parameter expiry: the MQTT 5 message expiry interval, in seconds.
  public func publish(
    _ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool, expiry: UInt32? = nil
  ) -> (rc: Int32, mid: Int32) {
    var mid: Int32 = 0
    var props: OpaquePointer?
    if let expiry {
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

  /// Waits for the connector (the first connect attempt), then disconnects with reason 4
  /// ("disconnect with will message": the broker publishes the will, so a stopped vehicle
  /// shows offline as a vanished one does) and stops the network thread.
  public func close() {
    closing.store(true, ordering: .releasing)
    connector.sync {}
    mosquitto_disconnect_v5(handle, 4, nil)
    mosquitto_loop_stop(handle, false)
  }

  /// The text of an MQTT 5 reason code (CONNACK, DISCONNECT).
  public static func reason(_ code: Int32) -> String {
    String(cString: mosquitto_reason_string(code))
  }

  /// libmosquitto's text for one of its error codes (`MOSQ_ERR_…`), as a disconnect reports.
  public static func error(_ code: Int32) -> String {
    String(cString: mosquitto_strerror(code))
  }
}
