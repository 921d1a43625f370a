// Short texts of the road for tables and screens (`stepwise route show`): a picture of the
// lanes and one line for a sign. Pure, like the rest of Routes.

extension RouteLane.Indication {
  /// An arrow for the indication ("↑", "↗", "↶"); "·" for a lane without markings.
  public var arrow: String {
    switch self {
    case .none: "·"
    case .uturn: "↶"
    case .sharpRight: "↘"
    case .right: "→"
    case .slightRight: "↗"
    case .straight: "↑"
    case .slightLeft: "↖"
    case .left: "←"
    case .sharpLeft: "↙"
    case .mergeToLeft: "⇠"
    case .mergeToRight: "⇢"
    }
  }
}

extension RouteLane {
  /// The lanes from left to right, each as the arrows of its indications, the ones to use in
  /// brackets: "↑ ↑ [↑↗] [↗]".
  public static func picture(_ lanes: [RouteLane]) -> String {
    lanes.map { lane in
      let arrows = lane.indications.isEmpty ? "·" : lane.indications.map(\.arrow).joined()
      return lane.isPreferred ? "[\(arrows)]" : arrows
    }.joined(separator: " ")
  }
}

extension RouteSign {
  /// The sign on one line: the exit number, the branches, where it leads, the exit's name and
  /// the refs ("exit 52 D 6007 → Nice, Monaco (Nice-Est)"; in Korean "52번 출구 …").
  public func line(_ language: Language) -> String {
    var parts: [String] = []
    let exits = exitNumbers.joined(separator: "/")
    if !exits.isEmpty { parts.append(language == .ko ? "\(exits)번 출구" : "exit \(exits)") }
    let roads = branches + texts(.guideBranch)
    if !roads.isEmpty { parts.append(roads.joined(separator: ", ")) }
    let places = toward + texts(.guideToward)
    if !places.isEmpty { parts.append("→ " + places.joined(separator: ", ")) }
    let names = exitNames + texts(.junctionName) + texts(.roundaboutName)
    if !names.isEmpty { parts.append("(\(names.joined(separator: ", ")))") }
    if !refs.isEmpty { parts.append(refs.joined(separator: " / ")) }
    return parts.joined(separator: " ")
  }
}

extension SpeedLimit {
  /// "130 km/h", "30 mph", "no limit" / "제한 없음", "unknown" / "알 수 없음".
  public func text(_ language: Language) -> String {
    switch self {
    case .limit(let v, let unit):
      let number = v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v)
      return "\(number) \(unit.rawValue)"
    case .none: return language == .ko ? "제한 없음" : "no limit"
    case .unknown: return language == .ko ? "알 수 없음" : "unknown"
    }
  }
}
