import Routes

/// The phrase tables of osrm-text-instructions v0.15.0 for English and Korean.
///
/// Keys are slash-separated paths into the library's `v5` object. The tables were rebuilt from
/// the library's translation files and checked against all of its test fixtures that this
/// repository carries (`Tests/Fixtures/osrm-text-instructions`); see
/// `docs/instructions.md` for the few Korean phrases no fixture pins down.
enum InstructionPhrases {
  /// Every object path of the English table (`turn`, `turn/left`, `rotary/default/exit`, …).
  static let englishObjects = objectPaths(english)
  /// Every object path of the Korean table.
  static let koreanObjects = objectPaths(korean)

  /// Korean phrases that the natural style says differently: ordinals spelt with a space and
  /// without the library's "쩨" typo, the arrival without its leading space, modifiers as
  /// verbs ("약간 우회전"), merges that name the road after the side, and "가나서" → "나가서".
  static let koreanNatural: [String: String] = [
    "constants/ordinalize/1": "첫 번째",
    "constants/ordinalize/2": "두 번째",
    "constants/ordinalize/3": "세 번째",
    "constants/ordinalize/4": "네 번째",
    "constants/ordinalize/5": "다섯 번째",
    "constants/ordinalize/6": "여섯 번째",
    "constants/ordinalize/7": "일곱 번째",
    "constants/ordinalize/8": "여덟 번째",
    "constants/ordinalize/9": "아홉 번째",
    "constants/ordinalize/10": "열 번째",
    "arrive/default/default": "{nth} 목적지에 도착하였습니다.",
    "constants/modifier/sharp left": "급좌회전",
    "constants/modifier/sharp right": "급우회전",
    "constants/modifier/slight left": "약간 좌회전",
    "constants/modifier/slight right": "약간 우회전",
    "merge/slight left/name": "좌측으로 합류하여 {way_name}로 가세요.",
    "merge/sharp left/name": "좌측으로 합류하여 {way_name}로 가세요.",
    "merge/slight right/name": "우측으로 합류하여 {way_name}로 가세요.",
    "merge/sharp right/name": "우측으로 합류하여 {way_name}로 가세요.",
    "fork/default/default": "갈림길에서 {modifier}하세요.",
    "depart/default/name": "{direction}로 가서 {way_name}를 이용하세요.",
    "rotary/default/exit/default": "로터리로 진입해서 {exit_number} 출구로 나가세요.",
    "roundabout/default/exit/default": "로터리로 진입해서 {exit_number} 출구로 나가세요.",
    "roundabout/default/exit/name": "로터리로 진입해서 {exit_number} 출구로 나가서 {way_name}로 가세요.",
    "roundabout/default/exit/destination":
      "로터리로 진입해서 {exit_number} 출구로 나가서 {destination}로 가세요.",
    "rotary/default/name_exit/default": "{rotary_name}로 진입해서 {exit_number} 출구로 나가세요.",
    "rotary/default/name_exit/name":
      "{rotary_name}로 진입해서 {exit_number} 출구로 나가 {way_name}로 가세요.",
    "rotary/default/name_exit/destination":
      "{rotary_name}로 진입해서 {exit_number} 출구로 나가 {destination}로 가세요.",
    "rotary/default/default/name": "로터리로 진입해서 {way_name}로 나가세요.",
    "roundabout/default/default/name": "로터리로 진입해서 {way_name}로 나가세요.",
    "off ramp/left/exit_destination": "{exit} 왼쪽의 출구로 나가서 {destination}까지 가세요.",
    "off ramp/right/exit_destination": "{exit} 오른쪽의 출구로 나가서 {destination}까지 가세요.",
    "off ramp/sharp left/exit_destination":
      "{exit} 왼쪽의 출구로 나가서 {destination}까지 가세요.",
    "off ramp/sharp right/exit_destination":
      "{exit} 오른쪽의 출구로 나가서 {destination}까지 가세요.",
    "off ramp/slight left/exit_destination":
      "{exit} 왼쪽의 출구로 나가서 {destination}까지 가세요.",
    "off ramp/slight right/exit_destination":
      "{exit} 오른쪽의 출구로 나가서 {destination}까지 가세요.",
  ]

  private static func objectPaths(_ table: [String: String]) -> Set<String> {
    var paths: Set<String> = []
    for key in table.keys {
      var parts = key.split(separator: "/")
      parts.removeLast()
      while !parts.isEmpty {
        paths.insert(parts.joined(separator: "/"))
        parts.removeLast()
      }
    }
    return paths
  }
}
