import Client
import Guidance
import JSON
import TestSupport
import Testing
import Wire

/// `stepwise watch` prints an `OFFROUTE` event as `stepwised` prints it on stdout: a wrong way
/// is said, so the driver reading either learns why guidance stopped.
@Suite(.blocking) struct WatchWrongWayTests {
  static func watchLine(_ event: NavigationEvent) throws -> String {
    let object = try #require(JSONParser.parse(EventLine.text(.navigation(event))).objectValue)
    return try #require(WatchView.plainLine(object, progress: false))
  }

  @Test(arguments: [OffRouteReason.distance, .wrongWay])
  func anOffRouteLineSaysWhatTheDaemonSays(_ reason: OffRouteReason) throws {
    let event = NavigationEvent(
      time: 1_714_550_472, kind: .offRoute(distance: 41.6, reason: reason))
    let daemon = Event.navigation(event).readableLine
    let watch = try Self.watchLine(event)
    #expect(watch == daemon, "watch: \(watch)\ndaemon: \(daemon)")
    #expect(watch.hasSuffix(", the wrong way") == (reason == .wrongWay))
  }
}
