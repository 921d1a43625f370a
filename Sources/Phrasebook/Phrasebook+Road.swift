internal import Guidance
public import Routes

// The lanes and the sign of a maneuver, in words (issue 34): "use the right two lanes to turn
// right onto …", "Take exit 52 toward Nice."; "오른쪽 2개 차로를 이용하여 …", "52번 출구로 나가
// 니스 방향으로 가세요.". Korean numbers lanes from the left (1차로 is the leftmost), as Korean
// road law and navigation voices do.

extension Phrasebook {
  /// The lanes to use, as a noun phrase ("the right two lanes", "오른쪽 2개 차로"), or `nil` when
  /// ``ManeuverRoad/advises(_:)`` says there is nothing to advise.
  public func laneDescription(_ lanes: [RouteLane]) -> String? {
    guard ManeuverRoad.advises(lanes) else { return nil }
    let preferred = lanes.indices.filter { lanes[$0].isPreferred }
    let n = lanes.count
    let k = preferred.count
    let (low, high) = (preferred[0], preferred[k - 1])
    let contiguous = high - low + 1 == k
    let side: String? =
      !contiguous
      ? nil : low == 0 ? "left" : high == n - 1 ? "right" : low == n - 1 - high ? "middle" : nil
    switch language {
    case .en:
      if let side { return k == 1 ? "the \(side) lane" : "the \(side) \(englishCount(k)) lanes" }
      let numbers = preferred.map { String($0 + 1) }
      if k == 1 { return "lane \(numbers[0]) from the left" }
      return
        "lanes \(numbers.dropLast().joined(separator: ", ")) and \(numbers[k - 1]) from the left"
    case .ko:
      if let side {
        let word = side == "left" ? "왼쪽" : side == "right" ? "오른쪽" : "가운데"
        return k == 1 ? "\(word) 차로" : "\(word) \(k)개 차로"
      }
      return preferred.map { String($0 + 1) }.joined(separator: ", ") + "차로"
    }
  }

  /// `instruction` with the lane clause before it, or `nil` when it cannot take one.
  ///
  /// English: "Use the left lane to turn left onto A" when the instruction starts with a verb
  /// that can follow "to"; otherwise `nil`, and the clause becomes a sentence of its own
  /// (``laneSentence(_:)``). Korean always puts the clause first: "왼쪽 차로를 이용하여 A에서
  /// 좌회전".
  func withLaneClause(_ instruction: String, _ lanes: String) -> String? {
    switch language {
    case .en:
      let verb = instruction.prefix { $0 != " " }
      guard Self.leadingVerbs.contains(String(verb)) else { return nil }
      return "Use \(lanes) to \(lowercasingLead(instruction))"
    case .ko:
      return "\(lanes)를 이용하여 \(instruction)"
    }
  }

  /// The lane clause as a sentence of its own: "Use the left lane.", "왼쪽 차로를 이용하세요.".
  func laneSentence(_ lanes: String) -> String {
    switch language {
    case .en: "Use \(lanes)."
    case .ko: "\(lanes)를 이용하세요."
    }
  }

  /// First words of English instructions that read on after "Use the left lane to".
  static let leadingVerbs: Set<String> = [
    "Turn", "Keep", "Take", "Continue", "Make", "Go", "Merge", "Enter", "Exit", "Head", "Bear",
    "Stay", "Follow", "Drive", "Cross",
  ]

  /// The sign as a sentence, without what `instructions` already say, or `nil` when nothing is
  /// left: "Take exit 52 toward Nice.", "Take the A8 toward Italy.", "Follow the signs for
  /// Nice."; "52번 출구로 나가 니스 방향으로 가세요.", "A8 도로를 타고 이탈리아 방향으로 가세요.".
  public func signSentence(_ sign: RouteSign?, instructions: String) -> String? {
    guard let sign else { return nil }
    let exit = sign.exitNumbers.first.flatMap { instructions.contains($0) ? nil : $0 }
    // A road is said by its number ("A8"), never by a street name the instructions carry.
    let road = (sign.branches + sign.refs).first {
      $0.contains(where: \.isNumber) && !instructions.contains($0)
    }
    let places = sign.toward.filter { !instructions.contains($0) }.prefix(2)
    switch language {
    case .en:
      let toward = places.isEmpty ? "" : " toward \(places.joined(separator: " and "))"
      if let exit { return "Take exit \(exit)\(toward)." }
      if let road { return "Take the \(road)\(toward)." }
      return places.isEmpty ? nil : "Follow the signs for \(places.joined(separator: " and "))."
    case .ko:
      let toward = places.isEmpty ? nil : "\(places.joined(separator: ", ")) 방향으로 가세요."
      if let exit { return toward.map { "\(exit)번 출구로 나가 \($0)" } ?? "\(exit)번 출구로 나가세요." }
      if let road { return toward.map { "\(road) 도로를 타고 \($0)" } ?? "\(road) 도로를 타세요." }
      return toward
    }
  }
}

/// "two" to "nine", then digits.
private func englishCount(_ k: Int) -> String {
  let words = ["two", "three", "four", "five", "six", "seven", "eight", "nine"]
  return (2...9).contains(k) ? words[k - 2] : String(k)
}
