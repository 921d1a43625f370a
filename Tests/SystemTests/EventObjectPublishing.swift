import Events
import Geodesy
import JSON
import Subscribers

@testable import Guidance

extension SubscriberServer {
  /// Publishes a navigation event through the server's own publisher, as the engine would.
  func publish(_ event: NavigationEvent) {
    publisher.publish([event])
  }

  /// Publishes a hand-written event object (`STEP`, `ANNOUNCE`, `OFFROUTE`, `ONROUTE`) as the
  /// typed event it stands for, so client tests can script a stream event by event.
  func publish(_ object: JSONObject) {
    guard let event = NavigationEvent(testObject: object) else {
      preconditionFailure("not a scriptable event: \(object)")
    }
    publish(event)
  }
}

extension NavigationEvent {
  /// The event of `object`; the announcement's message is a notice of its text (only the text
  /// reaches the wire).
  init?(testObject o: JSONObject) {
    guard let t = o["time"]?.stringValue, let time = UTCTime.parseISO8601(t) else { return nil }
    let step = o["step"]?.doubleValue.map { Int($0) }
    switch o["class"]?.stringValue {
    case "STEP":
      guard let step else { return nil }
      self.init(time: time, kind: .step(step))
    case "ANNOUNCE":
      guard let step, let k = o["kind"]?.stringValue, let kind = AnnouncementKind(rawValue: k),
        let text = o["text"]?.stringValue, let id = o["id"]?.stringValue
      else { return nil }
      self.init(
        time: time,
        kind: .announce(
          Announcement(
            step: step, kind: kind, message: .notice(text), text: text,
            distance: o["distance"]?.doubleValue, id: id)))
    case "OFFROUTE":
      self.init(time: time, kind: .offRoute(distance: o["distance"]?.doubleValue ?? 0))
    case "ONROUTE":
      self.init(time: time, kind: .onRoute)
    default:
      return nil
    }
  }
}
