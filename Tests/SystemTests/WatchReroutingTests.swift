import Client
import JSON
import Phrasebook
import Routes
import TestSupport
import Testing
import Wire

/// `stepwise watch` says where rerouting stands, from `STATE` and the `REROUTE` events.
@Suite(.blocking) struct WatchReroutingTests {
  static func reroute(_ status: String) -> JSONObject {
    JSONObject([
      ("class", "REROUTE"), ("time", "2024-05-01T08:01:12.000Z"), ("seq", 9),
      ("status", .string(status)),
    ])
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
    #expect(view.state.reroute == nil)
    #expect(!view.screen(width: 80).contains { $0.contains("Rerouting") || $0.contains("router") })
  }

  @Test func theStateCarriesItToClientsThatJoinLate() throws {
    var state = GuidanceState()
    state.apply(Self.reroute("offNetwork"))
    let object = state.object
    #expect(object["reroute"]?.stringValue == "offNetwork")
    let read = try #require(GuidanceState(stateObject: object))
    #expect(read.reroute == "offNetwork")
    let line = try #require(WatchView.plainLine(object, progress: false))
    #expect(line.contains("Off the network"), "\(line)")
    #expect(
      WatchView.plainLine(Self.reroute("noRouter"), progress: false)
        == "08:01:12 REROUTE   noRouter")
  }
}
