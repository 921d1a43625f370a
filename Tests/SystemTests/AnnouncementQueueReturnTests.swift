import Client
import JSON
import TestSupport
import Testing
import Wire

/// `stepwise speak` drops a direction to the route that went stale: once back on the route,
/// or when a newer one is waiting.
@Suite(.blocking) struct AnnouncementQueueReturnTests {
  static func o(_ json: String) throws -> Event {
    try #require(ReceivedEvent(line: Array(json.utf8))).event
  }

  static func returnAnnouncement(_ second: Int, _ text: String) throws -> Event {
    try o(
      #"{"class":"ANNOUNCE","time":"2024-05-01T08:00:\#(second).000Z","step":2,"kind":"return","text":"\#(text)","distance":60,"id":"r0.return.1.\#(second)"}"#
    )
  }

  @Test func aNewerDirectionReplacesAnOlderOne() throws {
    var q = AnnouncementQueue()
    q.observe(try Self.o(#"{"class":"OFFROUTE","time":"2024-05-01T08:00:10.000Z","distance":60}"#))
    q.observe(try Self.returnAnnouncement(10, "The route is 60 meters to your left."))
    q.observe(try Self.returnAnnouncement(16, "Turn around when possible."))
    let (p, dropped) = q.next()
    #expect(p?.text == "Turn around when possible.")
    #expect(dropped.map(\.1) == ["a newer direction to the route follows"])
  }

  @Test func backOnTheRouteNoDirectionIsSaid() throws {
    var q = AnnouncementQueue()
    q.observe(try Self.o(#"{"class":"OFFROUTE","time":"2024-05-01T08:00:10.000Z","distance":40}"#))
    q.observe(try Self.returnAnnouncement(10, "The route is 40 meters to your right."))
    q.observe(try Self.o(#"{"class":"ONROUTE","time":"2024-05-01T08:00:14.000Z"}"#))
    let (p, dropped) = q.next()
    #expect(p == nil)
    #expect(dropped.map(\.1) == ["back on the route"])
  }
}
