import Geodesy
import Guidance
import JSON

/// The heads-ups of a slow vehicle without fixes in the progress file (README, "Heads-ups"),
/// and the speeds of the last seconds of fixes they and dead reckoning go on from.
extension StateStore {
  static func encode(_ h: HeadsUpProgress) -> JSONValue {
    var o = JSONObject()
    o.append("since", .number(h.since))
    o.append("along", .number(h.along))
    o.append("speed", .number(h.speed))
    o.append("cruise", .number(h.cruise))
    o.append("step", .number(Double(h.step)))
    o.append("through", .number(Double(h.through)))
    o.append("named", .number(Double(h.named)))
    o.append("recap", .bool(h.recap))
    if let t = h.next { o.append("next", .number(t)) }
    return .object(o)
  }

  /// `nil` when a member is missing; the session refuses values it would not make.
  static func decodeHeadsUp(_ o: JSONObject) -> HeadsUpProgress? {
    func count(_ key: String) -> Int { Int(max(0, min(1e9, o[key]?.doubleValue ?? 0))) }
    guard let since = o["since"]?.doubleValue, let along = o["along"]?.doubleValue,
      let speed = o["speed"]?.doubleValue, let cruise = o["cruise"]?.doubleValue
    else { return nil }
    return HeadsUpProgress(
      since: since, along: along, speed: speed, cruise: cruise, step: count("step"),
      through: count("through"), named: count("named"), recap: o["recap"]?.boolValue ?? false,
      next: o["next"]?.doubleValue)
  }
}

extension StateStore {
  /// `[[time, high, low], …]`, oldest first.
  static func encode(_ speeds: [SpeedSecond]) -> JSONValue {
    .array(speeds.map { .array([.number(Double($0.time)), .number($0.high), .number($0.low)]) })
  }

  /// The seconds that are three numbers with a time in range (the session checks the speeds);
  /// at most as many as a session keeps.
  static func decodeSpeeds(_ a: [JSONValue]) -> [SpeedSecond] {
    a.suffix(SpeedSecond.kept).compactMap { v in
      guard let n = v.arrayValue?.compactMap(\.doubleValue), n.count == 3,
        let t = Int(exactly: n[0].rounded(.down))
      else { return nil }
      return SpeedSecond(time: t, high: n[1], low: n[2])
    }
  }
}
