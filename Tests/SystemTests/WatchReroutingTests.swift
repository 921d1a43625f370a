import Client
import Geodesy
import JSON
import Phrasebook
import Routes
import TestSupport
import Testing
import Wire

/// `stepwise watch` says where rerouting stands, from `STATE` and the `REROUTE` events.
@Suite(.blocking) struct WatchReroutingTests {
  static func reroute(_ status: String) -> ReceivedEvent {
    let time = UTCTime.parseISO8601("2024-05-01T08:01:12.000Z") ?? 0
    let status = ReroutingEvent.Status(rawValue: status) ?? .idle
    return ReceivedEvent(event: .rerouting(ReroutingEvent(time: time, status: status)), seq: 9)
  }

  @Test func theViewShowsReroutingNoRouterAndOffTheNetwork() throws {
    var view = WatchView(phrasebook: Phrasebook(language: .en), utcOffset: 0)
    view.state.guiding = true
    view.state.onRoute = false
    for (status, label) in [
      ("rerouting", "Rerouting…"), ("noRouter", "No router"), ("offNetwork", "Off the network"),
    ] {
      view.state.apply(Self.reroute(status))
      #expect(view.screen(width: 80).contains { $0.contains("OFF ROUTE · \(label)") })
    }
    view.state.apply(Self.reroute("idle"))
    #expect(view.state.rerouting == nil)
    #expect(!view.screen(width: 80).contains { $0.contains("Rerouting") || $0.contains("router") })
  }

  @Test func theStateCarriesItToClientsThatJoinLate() throws {
    var state = GuidanceState()
    state.apply(Self.reroute("offNetwork"))
    let object = state.object
    #expect(object["reroute"]?.stringValue == "offNetwork")
    let read = try #require(GuidanceState(stateObject: object))
    #expect(read.rerouting == .offNetwork)
    let line = try #require(WatchView.plainLine(object, progress: false))
    #expect(line.contains("Off the network"), "\(line)")
    #expect(
      WatchView.plainLine(
        try #require(
          JSONParser.parse(EventLine(Self.reroute("noRouter").event, seq: 9).bytes).objectValue),
        progress: false)
        == "08:01:12 REROUTE   noRouter")
  }
}
