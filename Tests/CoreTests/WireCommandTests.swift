import Geodesy
import Guidance
import JSON
import TestSupport
import Testing
import Wire

@Suite struct WireCommandTests {
  static func parse(_ line: String) throws(WireError) -> CommandRequest {
    try CommandRequest.parse(line: Array(line.utf8))
  }

  static func code(_ line: String) -> WireError.Code? {
    do {
      _ = try parse(line)
      return nil
    } catch {
      return error.code
    }
  }

  @Test(arguments: [
    (#"{"cmd":"status"}"#, Command.status),
    (#"{"cmd":"cancel","extra":[1,2]}"#, Command.cancel),
    (#"{"cmd":"routes"}"#, Command.routes(steps: false)),
    (#"{"cmd":"routes","steps":true}"#, Command.routes(steps: true)),
    (#"{"cmd":"routes","geometry":true}"#, Command.routes(steps: false, geometry: true)),
    (#"{"cmd":"select","routeIndex":2}"#, Command.select(routeIndex: 2)),
    (#"{"cmd":"watch"}"#, Command.watch(WatchRequest())),
    (#"{"cmd":"watch","enable":false}"#, Command.watch(WatchRequest(enable: false))),
    (
      #"{"cmd":"watch","classes":["STEP","ANNOUNCE","STEP"]}"#,
      Command.watch(WatchRequest(classes: ["STEP", "ANNOUNCE"]))
    ),
    (
      #"{"cmd":"load","document":{"routes":[]},"routeIndex":1}"#,
      Command.load(document: .object(JSONObject([("routes", .array([]))])), routeIndex: 1)
    ),
  ])
  func parsesEveryCommand(line: String, command: Command) throws {
    #expect(try Self.parse(line).command == command)
  }

  @Test func echoesTheIdOfStringsAndNumbers() throws {
    #expect(try Self.parse(#"{"cmd":"status","id":"x1"}"#).id == .string("x1"))
    #expect(try Self.parse(#"{"id":42,"cmd":"status"}"#).id == .number(42))
    #expect(try Self.parse(#"{"cmd":"status"}"#).id == nil)
  }

  @Test(arguments: [
    ("", WireError.Code.badJSON),
    ("{", .badJSON),
    (#"{"cmd":"status"} trailing"#, .badJSON),
    ("[]", .badCommand),
    ("\"status\"", .badCommand),
    (#"{"command":"status"}"#, .badCommand),
    (#"{"cmd":5}"#, .badCommand),
    (#"{"cmd":"STATUS"}"#, .unknownCommand),
    (#"{"cmd":"status","id":{"a":1}}"#, .badArgument),
    (#"{"cmd":"select"}"#, .badArgument),
    (#"{"cmd":"select","routeIndex":1.5}"#, .badArgument),
    (#"{"cmd":"select","routeIndex":"1"}"#, .badArgument),
    (#"{"cmd":"load"}"#, .badArgument),
    (#"{"cmd":"load","document":"route.json"}"#, .badArgument),
    (#"{"cmd":"watch","enable":"yes"}"#, .badArgument),
    (#"{"cmd":"watch","classes":"STEP"}"#, .badArgument),
    (#"{"cmd":"watch","classes":["VERSION"]}"#, .badArgument),
    (#"{"cmd":"routes","steps":1}"#, .badArgument),
  ])
  func rejectsWithAStableCode(line: String, code: WireError.Code) {
    #expect(Self.code(line) == code)
  }

  @Test func errorsCarryTheCommandAndIdWhenKnown() {
    do {
      _ = try Self.parse(#"{"cmd":"jump","id":"j"}"#)
      Issue.record("accepted an unknown command")
    } catch {
      #expect(error.command == "jump" && error.id == .string("j"))
      #expect(error.message.contains("known: watch, status, routes, select, load, cancel, reroute"))
      let o = error.object
      #expect(
        JSONWriter.string(.object(o)).hasPrefix(
          #"{"class":"ERROR","cmd":"jump","id":"j","code":"unknownCommand""#))
      #expect(WireError(object: o) == error)
    }
  }

  @Test func aRequestWritesTheLineItParsesFrom() throws {
    let requests = [
      CommandRequest(.watch(WatchRequest(enable: true, classes: ["ANNOUNCE"])), id: 1),
      CommandRequest(.load(document: .object(JSONObject([("a", 1)])), routeIndex: 2), id: "z"),
      CommandRequest(.select(routeIndex: 3)), CommandRequest(.routes(steps: true)),
      CommandRequest(.cancel), CommandRequest(.status, id: 0),
    ]
    for r in requests { #expect(try CommandRequest.parse(line: Array(r.line.utf8)) == r) }
  }

  @Test func theFramerAcceptsNLAndCRNLAndSkipsEmptyLines() {
    var f = LineFramer(maximumLength: 100)
    #expect(
      f.feed(Array("a\r\n\nb\n\r\nc".utf8)) == [.line(Array("a".utf8)), .line(Array("b".utf8))])
    #expect(f.pendingBytes == 1)
    #expect(f.feed(Array("d\n".utf8)) == [.line(Array("cd".utf8))])
  }

  @Test func theFramerDiscardsAnOverlongLineAndKeepsGoing() {
    var f = LineFramer(maximumLength: 10, sniffLength: 4)
    var items = f.feed(Array("0123456789\n".utf8))
    #expect(items == [.line(Array("0123456789".utf8))])
    items = f.feed(Array("{\"cmd\":".utf8))
    #expect(items.isEmpty)
    items = f.feed(Array(String(repeating: "x", count: 100_000).utf8))
    #expect(items.isEmpty && f.pendingBytes == 0, "an overlong line is not kept")
    items = f.feed(Array("x\r\nok\n".utf8))
    #expect(
      items == [.overlong(prefix: Array("{\"cm".utf8), length: 100_009), .line(Array("ok".utf8))])
    // Exactly at the limit with CR-NL still fits; one more byte does not.
    #expect(f.feed(Array("0123456789\r\n".utf8)) == [.line(Array("0123456789".utf8))])
    #expect(
      f.feed(Array("0123456789A\n".utf8)) == [.overlong(prefix: Array("0123".utf8), length: 11)])
  }

  @Test func stateFollowsTheEventsAndRoundTrips() throws {
    var s = GuidanceState()
    let events = [
      #"{"class":"ROUTE","time":"2024-05-01T08:00:01.000Z","seq":1,"name":"r","routeIndex":0,"distance":100,"expectedTravelTime":20,"transportType":"automobile","hasTolls":false,"hasHighways":false,"steps":3,"source":"A","destination":"B","reason":"start","revision":0}"#,
      #"{"class":"GPS","time":"2024-05-01T08:00:02.000Z","seq":2,"status":"lost"}"#,
      #"{"class":"PROGRESS","time":"2024-05-01T08:00:03.000Z","seq":3,"step":2,"distanceToManeuver":50,"distanceRemaining":80,"timeRemaining":16,"eta":"2024-05-01T08:00:19.000Z","onRoute":true,"latitude":48.1,"longitude":2.3,"matchedLatitude":48.1,"matchedLongitude":2.3,"distanceAlong":20,"distanceFromRoute":1.5}"#,
      #"{"class":"OFFROUTE","time":"2024-05-01T08:00:04.000Z","seq":4,"distance":40}"#,
      #"{"class":"STEP","time":"2024-05-01T08:00:05.000Z","seq":5,"step":3}"#,
      #"{"class":"ANNOUNCE","time":"2024-05-01T08:00:06.000Z","seq":6,"step":3,"kind":"now","text":"Turn","id":"r0.s3.now"}"#,
    ]
    for e in events { s.apply(try #require(ReceivedEvent(line: Array(e.utf8)))) }
    #expect(s.seq == 6 && s.step == 3 && s.onRoute == false && s.gps == .acquired)
    #expect(s.guiding && s.routeIndex == 0 && !s.arrived)
    #expect(s.time == UTCTime.parseISO8601("2024-05-01T08:00:06.000Z"))
    #expect(GuidanceState(stateObject: s.object) == s)
    // The STATE carries each event as subscribers received it, byte for byte.
    let state = JSONWriter.string(.object(s.object))
    for (key, line) in [("route", events[0]), ("progress", events[2]), ("announce", events[5])] {
      #expect(state.contains(#""\#(key)":"# + line), "\(key)")
    }
    s.apply(try #require(ReceivedEvent(line: Array(#"{"class":"CANCELLED","seq":7}"#.utf8))))
    #expect(!s.guiding && s.route == nil && s.step == nil && s.seq == 7)
  }

  @Test func eventsOfClassesANewerDaemonAddsAreSkippedNotMisread() {
    #expect(
      ReceivedEvent(line: Array(#"{"class":"LANES","time":"2024-05-01T08:00:06.000Z"}"#.utf8))
        == nil)
    #expect(ReceivedEvent(line: Array(#"{"class":"REPLY","id":1}"#.utf8)) == nil)
    #expect(
      ReceivedEvent(line: Array(#"{"class":"STEP","time":"2024-05-01T08:00:06.000Z"}"#.utf8)) == nil
    )
    #expect(Set(EventClass.allCases.map(\.rawValue)).count == EventClass.allCases.count)
  }

  @Test func theVersionObjectNamesTheProtocol() {
    let v = JSONWriter.string(.object(ProtocolVersion.versionObject(release: "9.9")))
    #expect(
      v
        == #"{"class":"VERSION","release":"9.9","protoMajor":1,"protoMinor":\#(ProtocolVersion.minor)}"#
    )
  }
}
