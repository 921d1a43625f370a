import Geodesy
import Guidance
public import JSON
import Routes

/// One event as a reader receives it: the event, and the members the stream adds around it.
public struct ReceivedEvent: Sendable, Equatable {
  public var event: Event
  /// The socket's sequence number (absent on standard output).
  public var seq: UInt64?
  /// The daemon run that published it (the fleet uplink's messages only).
  public var boot: String?

  public init(event: Event, seq: UInt64? = nil, boot: String? = nil) {
    self.event = event
    self.seq = seq
    self.boot = boot
  }

  /// Reads one event object of the stream; `nil` when it is no event this version knows (a
  /// `REPLY`, `STATE` or `VERSION`, or a class a newer daemon added, which a client skips),
  /// or an event without a member it must have.
  ///
  /// Numbers come back as the writer rounded them. The wire carries an announcement's words,
  /// not the message they were made from: a read announcement's message is `.notice(text)`, or
  /// `.maneuver` with its words and the lanes and sign it carries.
  public init?(object o: JSONObject) {
    guard let name = o["class"]?.stringValue, let eventClass = EventClass(rawValue: name) else {
      return nil
    }
    seq = o["seq"]?.doubleValue.flatMap { $0 >= 0 ? UInt64(exactly: $0.rounded()) : nil }
    boot = o["boot"]?.stringValue
    let time = o["time"]?.stringValue.flatMap(UTCTime.parseISO8601)
    if eventClass == .cancelled {
      event = .cancelled(time: time)
      return
    }
    guard let time, let e = Self.event(eventClass, time: time, o) else { return nil }
    event = e
  }

  /// Reads one line of the stream (its line end may be there).
  public init?(line: some Collection<UInt8>) {
    guard case .object(let o)? = try? JSONParser.parse(line) else { return nil }
    self.init(object: o)
  }

  /// `PROGRESS`'s `speedLimit` (a number with `speedLimitUnit`, km/h when it is missing, or
  /// `"none"`); `nil` when absent or not understood.
  private static func speedLimit(_ o: JSONObject) -> SpeedLimit? {
    if let value = o["speedLimit"]?.doubleValue, value.isFinite {
      let unit =
        o["speedLimitUnit"]?.stringValue.flatMap(SpeedLimit.Unit.init) ?? .kilometresPerHour
      return .limit(value, unit)
    }
    return o["speedLimit"]?.stringValue == "none" ? SpeedLimit.none : nil
  }

  private static func event(_ c: EventClass, time: Double, _ o: JSONObject) -> Event? {
    func number(_ key: String) -> Double? { o[key]?.doubleValue }
    func integer(_ key: String) -> Int? { number(key).flatMap { Int(exactly: $0.rounded()) } }
    func string(_ key: String) -> String? { o[key]?.stringValue }
    func navigation(_ kind: NavigationEvent.Kind) -> Event {
      .navigation(
        NavigationEvent(time: time, kind: kind, estimated: o["estimated"]?.boolValue ?? false))
    }
    switch c {
    case .route:
      guard let name = string("name"),
        let transport = string("transportType").flatMap(TransportType.init)
      else { return nil }
      return navigation(
        .route(
          RouteSummary(
            name: name, routeIndex: integer("routeIndex") ?? 0, distance: number("distance") ?? 0,
            expectedTravelTime: number("expectedTravelTime") ?? 0, transportType: transport,
            hasTolls: o["hasTolls"]?.boolValue ?? false,
            hasHighways: o["hasHighways"]?.boolValue ?? false, steps: integer("steps") ?? 0,
            source: string("source") ?? "", destination: string("destination") ?? "",
            reason: string("reason").flatMap(RouteReason.init) ?? .start,
            revision: integer("revision") ?? 0)))
    case .announce:
      guard let step = integer("step"), let kind = string("kind").flatMap(AnnouncementKind.init),
        let text = string("text")
      else { return nil }
      var message = AnnouncementMessage.notice(text)
      // A "then" clause's words are in `text`; its step is `step` + 1 (`thenSteps`).
      let then: String? = (o["then"]?.arrayValue?.isEmpty ?? true) ? nil : ""
      if o["lanes"] != nil || o["sign"] != nil, let (lanes, sign) = NativeRouteFormat.decodeRoad(o)
      {
        let road = ManeuverRoad(lanes: lanes, lanesForThen: o["lanesStep"] != nil, sign: sign)
        message = .maneuver(
          instructions: text, distance: number("distance"), then: then, road: road)
      } else if then != nil {
        message = .maneuver(instructions: text, distance: number("distance"), then: then)
      }
      return navigation(
        .announce(
          Announcement(
            step: step, kind: kind, message: message, text: text, distance: number("distance"),
            id: string("id") ?? "")))
    case .step:
      guard let step = integer("step") else { return nil }
      return navigation(.step(step))
    case .progress:
      guard let step = integer("step") else { return nil }
      // A position the line does not give stays unknown (NaN), never made up.
      let raw = Coordinate(
        latitude: number("latitude") ?? .nan, longitude: number("longitude") ?? .nan)
      let matched =
        number("matchedLatitude").flatMap { mlat in
          number("matchedLongitude").map { Coordinate(latitude: mlat, longitude: $0) }
        } ?? raw
      return navigation(
        .progress(
          Progress(
            step: step, distanceToManeuver: number("distanceToManeuver") ?? 0,
            distanceRemaining: number("distanceRemaining") ?? 0,
            timeRemaining: number("timeRemaining") ?? 0,
            distanceAlong: number("distanceAlong") ?? 0,
            onRoute: o["onRoute"]?.boolValue ?? true, raw: raw, matched: matched,
            distanceFromRoute: number("distanceFromRoute") ?? 0, speed: number("speed"),
            course: number("course"), discardedFixes: integer("discardedFixes") ?? 0,
            speedLimit: speedLimit(o)),
          ahead: EventLineWriter.ahead(o["ahead"])))
    case .offRoute:
      return navigation(
        .offRoute(
          distance: number("distance") ?? 0,
          reason: string("reason").flatMap(OffRouteReason.init) ?? .distance))
    case .onRoute:
      return navigation(.onRoute)
    case .arrived:
      return navigation(.arrived(distance: number("distance") ?? 0))
    case .gps:
      guard let status = string("status").flatMap(GPSStatus.init) else { return nil }
      return navigation(.gps(status))
    case .source:
      guard let status = string("status").flatMap(SourceEvent.Status.init) else { return nil }
      return .source(
        SourceEvent(
          time: time, status: status, source: string("source") ?? "", reason: string("reason")))
    case .reroute:
      guard let status = string("status").flatMap(ReroutingEvent.Status.init) else { return nil }
      return .rerouting(ReroutingEvent(time: time, status: status))
    case .cancelled:
      return .cancelled(time: time)
    }
  }
}
