import Wire

/// The socket's subscribers receive every event the engine publishes, in the engine's order.
/// `publish` only queues (per client, bounded), so it never blocks the engine.
extension SubscriberServer: EventSink {
  public func receive(_ publication: Publication) {
    switch publication.event {
    case .navigation(let e): publish(EventEncoder.object(e))
    case .source(let s): publish(EventEncoder.object(s))
    }
  }

  public func finish() {}
}
