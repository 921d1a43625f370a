import Foundation
import Geodesy
public import Routes

/// What a router's own JSON says about lanes, signs and speed limits, read with Foundation's
/// `JSONSerialization` (not Stepwise's JSON reader or importers), and the same read back from an
/// imported route, as strings both sides can be compared by.
///
/// A lane is written `indications/valid/active/validIndication` in OSRM's words ("-" where a
/// member is absent), so a lane survives an import only if every member does.
public enum RouterRoadOracle {
  /// Every lane array of the first route of an OSRM-shaped response (OSRM v5, Mapbox, Valhalla
  /// `format=osrm`), one string per array, in route order.
  public static func osrmLaneArrays(_ data: Data) throws -> [String] {
    var out: [String] = []
    for step in try osrmSteps(data) {
      for x in step["intersections"] as? [[String: Any]] ?? [] {
        guard let lanes = x["lanes"] as? [[String: Any]] else { continue }
        out.append(lanes.map(laneString).joined(separator: " | "))
      }
    }
    return out
  }

  /// The alphanumeric words of each step's `exits` and `destinations` (the sign texts OSRM
  /// gives), one sorted list per step with any, keyed by the step's index in the route.
  ///
  /// An `exit roundabout` or `exit rotary` right after entering one, whose sign repeats the
  /// entry's, is left out: the importers fold the two into one maneuver with one sign.
  public static func osrmSignWords(_ data: Data) throws -> [Int: [String]] {
    var out: [Int: [String]] = [:]
    var previous: (type: String, texts: [String])?
    for (i, step) in try osrmSteps(data).enumerated() {
      let texts = ["exits", "destinations"].compactMap { step[$0] as? String }
      let type = (step["maneuver"] as? [String: Any])?["type"] as? String ?? ""
      defer { previous = (type, texts) }
      if type.hasPrefix("exit ro"), let previous, ["roundabout", "rotary"].contains(previous.type),
        previous.texts == texts
      {
        continue
      }
      let w = words(texts)
      if !w.isEmpty { out[i] = w }
    }
    return out
  }

  /// The speed limits of the first route's first leg, one per run of equal `annotation.maxspeed`
  /// entries ("130 km/h", "none", "unknown").
  public static func osrmSpeedLimits(_ data: Data) throws -> [String] {
    let legs = try osrmRoute(data)["legs"] as? [[String: Any]] ?? []
    let annotation = legs.first?["annotation"] as? [String: Any]
    var out: [String] = []
    for e in annotation?["maxspeed"] as? [[String: Any]] ?? [] {
      let text: String
      if e["none"] as? Bool == true {
        text = "none"
      } else if let speed = e["speed"] as? Double {
        text = "\(speed) \(e["unit"] as? String ?? "km/h")"
      } else {
        text = "unknown"
      }
      if out.last != text { out.append(text) }
    }
    return out
  }

  /// The texts of each Valhalla maneuver's `sign` elements, sorted, keyed by the maneuver's
  /// index in the first leg.
  public static func valhallaSignTexts(_ data: Data) throws -> [Int: [String]] {
    let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let trip = root?["trip"] as? [String: Any]
    let leg = (trip?["legs"] as? [[String: Any]])?.first
    var out: [Int: [String]] = [:]
    for (i, m) in (leg?["maneuvers"] as? [[String: Any]] ?? []).enumerated() {
      guard let sign = m["sign"] as? [String: Any] else { continue }
      var texts: [String] = []
      for (_, v) in sign {
        for e in v as? [[String: Any]] ?? [] {
          if let t = e["text"] as? String { texts.append(t) }
        }
      }
      out[i] = texts.sorted()
    }
    return out
  }

  // MARK: - The imported side

  /// Every lane array of an imported route (its steps' and its road's), as
  /// ``osrmLaneArrays(_:)`` writes them, in order along the route.
  public static func laneArrays(of route: Route) -> [String] {
    var placed: [(at: Double, text: String)] = []
    var along = 0.0
    for step in route.steps {
      along += zip(step.polyline, step.polyline.dropFirst()).reduce(0) {
        $0 + $1.0.distance(to: $1.1)
      }
      if !step.lanes.isEmpty { placed.append((along, lanesString(step.lanes))) }
    }
    placed += route.road.lanes.map { ($0.at, lanesString($0.lanes)) }
    return placed.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
      .map(\.element.text)
  }

  /// The words of each step's sign of the kinds OSRM gives in `exits` and `destinations`,
  /// sorted, keyed by the index of the router's step (the native step's, by the MapKit shift).
  public static func osrmSignWords(of route: Route) -> [Int: [String]] {
    var out: [Int: [String]] = [:]
    for (i, step) in route.steps.enumerated() {
      guard let sign = step.sign else { continue }
      let w = words(
        sign.elements.filter { [.exitNumber, .branch, .toward].contains($0.kind) }.map(\.text))
      if !w.isEmpty { out[i] = w }
    }
    return out
  }

  /// The sorted texts of each step's sign, keyed by the step's index.
  public static func signTexts(of route: Route) -> [Int: [String]] {
    var out: [Int: [String]] = [:]
    for (i, step) in route.steps.enumerated() {
      if let sign = step.sign { out[i] = sign.elements.map(\.text).sorted() }
    }
    return out
  }

  /// The route's speed limits as ``osrmSpeedLimits(_:)`` writes them.
  public static func speedLimits(of route: Route) -> [String] {
    var out: [String] = []
    for span in route.road.speedLimits {
      let text: String
      switch span.limit {
      case .limit(let v, let unit): text = "\(v) \(unit.rawValue)"
      case .none: text = "none"
      case .unknown: text = "unknown"
      }
      if out.last != text { out.append(text) }
    }
    return out
  }

  // MARK: - Helpers

  private static func osrmRoute(_ data: Data) throws -> [String: Any] {
    let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return (root?["routes"] as? [[String: Any]])?.first ?? [:]
  }

  private static func osrmSteps(_ data: Data) throws -> [[String: Any]] {
    let legs = try osrmRoute(data)["legs"] as? [[String: Any]] ?? []
    return legs.flatMap { $0["steps"] as? [[String: Any]] ?? [] }
  }

  private static func laneString(_ lane: [String: Any]) -> String {
    let indications = (lane["indications"] as? [String] ?? []).joined(separator: ",")
    let valid = (lane["valid"] as? Bool).map(String.init) ?? "-"
    let active = (lane["active"] as? Bool).map(String.init) ?? "-"
    let validIndication = lane["valid_indication"] as? String ?? "-"
    return "\(indications)/\(valid)/\(active)/\(validIndication)"
  }

  private static func lanesString(_ lanes: [RouteLane]) -> String {
    lanes.map { lane in
      let indications = lane.indications.map(\.rawValue).joined(separator: ",")
      let active = lane.active.map(String.init) ?? "-"
      return "\(indications)/\(lane.valid)/\(active)/\(lane.validIndication?.rawValue ?? "-")"
    }.joined(separator: " | ")
  }

  private static func words(_ texts: [String]) -> [String] {
    texts.flatMap { $0.split { !$0.isLetter && !$0.isNumber }.map(String.init) }.sorted()
  }
}
