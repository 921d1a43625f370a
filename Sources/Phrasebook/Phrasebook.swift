public import Guidance
import Instructions
import Returning
public import Routes

/// Everything the daemon says or shows in its own words, in one language and one unit system.
///
/// A value type with no state beyond its two settings: the same message always gives the same
/// text, so transcripts stay byte-identical across replays. Route instructions come from the
/// router and are embedded as they are; only the glue around them ("In 300 meters, …",
/// "300미터 앞, …입니다.") is produced here. Every sentence ends in exactly one sentence mark.
public struct Phrasebook: Phrasing, Sendable {
  /// The language of every text this phrasebook produces.
  public let language: Language
  /// The units distances are said and shown in.
  public let units: UnitSystem

  /// Creates a phrasebook for `language` and `units` (English and metric by default).
  public init(language: Language = .en, units: UnitSystem = .metric) {
    self.language = language
    self.units = units
  }

  /// The label of the departure row in route tables.
  ///
  /// "Depart" in English, "출발" in Korean.
  public var departLabel: String {
    switch language {
    case .en: "Depart"
    case .ko: "출발"
    }
  }

  /// The text a voice says for `message`, as one or more complete sentences.
  ///
  /// Distances are phrased with ``spokenDistance(_:)``. Instructions have their trailing
  /// periods removed before they are embedded, so no text ends in "..". A maneuver whose
  /// instructions and `then` are both empty has nothing to say and gives "".
  ///
  /// English lower-cases the first letter of an instruction that continues a sentence
  /// ("In 300 meters, turn left", ", then turn right") unless its first word is an acronym or
  /// contains a digit ("I-95"). Korean adds the copula 입니다 to noun-phrase instructions
  /// ("300미터 앞, Rue des Guillemites에서 좌회전입니다.") and uses 앞에서 before instructions
  /// that are already sentences or have no Hangul ("300미터 앞에서 우회전하세요.").
  public func text(for message: AnnouncementMessage) -> String {
    // Announcements with router text are written byte by byte when that text allows it.
    if let text = announcementText(for: message) { return text }
    switch language {
    case .en: return english(message)
    case .ko: return korean(message)
    }
  }

  /// About how long a voice takes to say the text for `message`, in seconds.
  ///
  /// Always equal to `speechDuration(of: text(for: message))`, but cheaper: a maneuver
  /// announcement is measured as it is written into a scratch buffer, and no string is made. The
  /// engine asks this on most fixes near a maneuver to time its announcements.
  public func speechDuration(for message: AnnouncementMessage) -> Double {
    announcementSpeechDuration(for: message) ?? speechDuration(of: text(for: message))
  }

  /// The rounded distance that ``spokenDistance(_:)`` says, as one number: the only way a
  /// distance enters a maneuver announcement, in either language.
  public func spokenDistanceKey(_ metres: Double) -> Int? {
    let (value, unit) =
      switch RoundedDistance(spoken: metres, units: units) {
      case .metres(let n): (n, 0)
      case .kilometres(let t): (t, 1)
      case .feet(let n): (n, 2)
      case .miles(let t): (t, 3)
      }
    guard value.magnitude < 1 << 48 else { return nil }
    return value * 4 + unit
  }

  /// About how long a voice takes to say `text`, in seconds.
  ///
  /// English: 15 characters a second. Korean: 6.5 Hangul syllables a second, plus every
  /// other character (spaces, digits, Latin letters, punctuation) at 15 a second. Both add
  /// 0.3 s for the voice to start and stop, and never return less than 0.5 s. The estimate
  /// never decreases as text is appended.
  public func speechDuration(of text: String) -> Double {
    if let seconds = withSimpleText(text, { $0.speechDuration(language) }) { return seconds }
    var seconds = 0.3
    switch language {
    case .en:
      seconds += Double(text.count) / 15
    case .ko:
      for character in text {
        seconds += isHangul(character) ? 1 / 6.5 : 1 / 15
      }
    }
    return max(0.5, seconds)
  }
}

// MARK: - English

extension Phrasebook {
  /// The English text for `message`.
  private func english(_ message: AnnouncementMessage) -> String {
    switch message {
    case .depart(let source, let tolls, let advisories):
      let source = withoutTrailingPeriods(source)
      var sentences = [source.isEmpty ? "Depart." : terminated("Depart from \(source)")]
      if tolls { sentences.append("This route has tolls.") }
      sentences += advisories.map(terminated).filter { !$0.isEmpty }
      return sentences.joined(separator: " ")
    case .maneuver(let instructions, let distance, let then, let road):
      let (bareFirst, bareSecond) = instructionPair(instructions, then)
      guard !bareFirst.isEmpty else { return "" }
      let (first, roadSecond, roadAfter) = withRoad(bareFirst, bareSecond, road)
      var (second, after) = (roadSecond, roadAfter)
      if let a = road?.ahead {
        let object = englishObject(a.kind, length: a.length)
        if a.afterManeuver && second.isEmpty {
          second = object
        } else {
          after.append("In \(spokenDistance(a.distance)), \(object).")
        }
      }
      var sentence =
        distance.map { "In \(spokenDistance($0)), \(lowercasingLead(first))" }
        ?? capitalizingLead(first)
      if !second.isEmpty { sentence += ", then \(lowercasingLead(second))" }
      return ([terminated(sentence)] + after).joined(separator: " ")
    case .arrive(let destination):
      let destination = withoutTrailingPeriods(destination)
      return destination.isEmpty
        ? "You have arrived at your destination."
        : terminated("You have arrived at \(destination)")
    case .waypoint(let number):
      return "You have reached your \(englishOrdinal(number)) waypoint."
    case .notice(let notice):
      return terminated(notice)
    case .modeChange(let transport):
      switch transport {
      case .walking: return "Continue on foot."
      case .cycling: return "Continue by bicycle."
      case .automobile: return "Continue by car."
      case .transit: return "Continue by public transport."
      }
    case .continueFor(let distance):
      return "Continue for \(spokenDistance(distance))."
    case .offRoute:
      return "You are off the route."
    case .backOnRoute:
      return "You are back on the route."
    case .newRoute(let instructions, let distance):
      let next = english(.maneuver(instructions: instructions, distance: distance, then: nil))
      return next.isEmpty ? "New route." : "New route. \(next)"
    case .returnToRoute(let distance, let direction, let turnAround):
      let place =
        switch direction {
        case .ahead: "ahead"
        case .behind: "behind you"
        case .left: "to your left"
        case .right: "to your right"
        case .compass(let point): "to the \(englishCompass(point))"
        }
      let sentence = "The route is \(spokenDistance(distance)) \(place)."
      return turnAround ? "Turn around when possible. \(sentence)" : sentence
    case .overspeed(let limit, let unit):
      let per = unit == .milesPerHour ? "miles per hour" : "kilometers per hour"
      return "You are over the speed limit of \(spokenLimit(limit)) \(per)."
    case .ahead(let kind, let distance, let length):
      return "In \(spokenDistance(distance)), \(englishObject(kind, length: length))."
    case .gpsLost:
      return "GPS signal lost."
    case .gpsAcquired:
      return "GPS signal restored."
    }
  }
}

extension Phrasebook {
  /// A length as a voice says it: as ``spokenDistance(_:)``, but from 1 km to the tenth of a
  /// kilometre ("2.3 kilometers"): a tunnel's length is a fact about it, not a lead that
  /// shrinks as the vehicle nears (miles are said to the tenth up to 3 already).
  func spokenLength(_ metres: Double) -> String {
    let m = sanitized(metres)
    guard units == .metric, m >= 1000, m < 100_000 else { return spokenDistance(m) }
    let t = Int((m / 100).rounded())
    switch language {
    case .en: return "\(spokenDecimal(tenths: t)) kilometer\(t == 10 ? "" : "s")"
    case .ko: return "\(spokenDecimal(tenths: t))킬로미터"
    }
  }

  /// A road object ahead as English says it after "In 500 meters, ": "a tunnel of 2.3
  /// kilometers", "the toll road begins", "a level crossing".
  func englishObject(_ kind: RoadObject.Kind, length: Double?) -> String {
    let of = length.map { $0 > 0 ? " of \(spokenLength($0))" : "" } ?? ""
    switch kind {
    case .tunnel: return "a tunnel\(of)"
    case .bridge: return "a bridge\(of)"
    case .tollRoad: return "the toll road begins"
    case .tollBooth: return "a toll booth"
    case .ferry: return "a ferry crossing"
    case .border: return "a border crossing"
    case .levelCrossing: return "a level crossing"
    case .speedCamera: return "a speed camera"
    }
  }

  /// A road object ahead in Korean, `at` being the spoken distance: "500미터 앞에 길이
  /// 2.3킬로미터의 터널이 있습니다.", "500미터 앞에서 유료 도로가 시작됩니다.", as Korean
  /// navigation voices say what lies ahead (있습니다 for what is there, 시작됩니다 for a stretch
  /// that begins); the names end so that 이/가 and 의 fit as written. Without `at`, the object
  /// that follows a maneuver just said: "이어서 길이 2.3킬로미터의 터널이 있습니다."
  func koreanObject(_ kind: RoadObject.Kind, at: String?, length: Double?) -> String {
    let of = length.map { $0 > 0 ? "길이 \(spokenLength($0))의 " : "" } ?? ""
    let there = at.map { "\($0) 앞에 " } ?? "이어서 "
    switch kind {
    case .tunnel: return "\(there)\(of)터널이 있습니다."
    case .bridge: return "\(there)\(of)다리가 있습니다."
    case .tollRoad: return "\(at.map { "\($0) 앞에서 " } ?? "이어서 ")유료 도로가 시작됩니다."
    case .tollBooth: return "\(there)요금소가 있습니다."
    case .ferry: return "\(there)페리 구간이 있습니다."
    case .border: return "\(there)국경이 있습니다."
    case .levelCrossing: return "\(there)철도 건널목이 있습니다."
    case .speedCamera: return "\(there)과속 단속 카메라가 있습니다."
    }
  }
}

/// A posted limit as said: "50", or "12.5" for the rare limit that is not whole.
func spokenLimit(_ value: Double) -> String {
  let tenths = Int((value * 10).rounded())
  return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
}

/// "north", "northeast", …: the compass point towards the route.
func englishCompass(_ point: CompassPoint) -> String {
  switch point {
  case .north: "north"
  case .northEast: "northeast"
  case .east: "east"
  case .southEast: "southeast"
  case .south: "south"
  case .southWest: "southwest"
  case .west: "west"
  case .northWest: "northwest"
  }
}

/// "북쪽", "북동쪽", …; every one ends in 쪽, so 으로 always follows.
func koreanCompass(_ point: CompassPoint) -> String {
  switch point {
  case .north: "북쪽"
  case .northEast: "북동쪽"
  case .east: "동쪽"
  case .southEast: "남동쪽"
  case .south: "남쪽"
  case .southWest: "남서쪽"
  case .west: "서쪽"
  case .northWest: "북서쪽"
  }
}

/// "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "112th".
func englishOrdinal(_ number: Int) -> String {
  let lastTwo = Int(number.magnitude % 100)
  let suffix =
    switch (lastTwo, lastTwo % 10) {
    case (11...13, _): "th"
    case (_, 1): "st"
    case (_, 2): "nd"
    case (_, 3): "rd"
    default: "th"
    }
  return "\(number)\(suffix)"
}

extension Phrasebook {
  /// The bare main and follow-up instructions with the lane clause worked into the one its
  /// lanes belong to, and the sentences said after the maneuver's: a lane clause English
  /// cannot work in ("Use the left lane."), then the sign ("Take exit 52 toward Nice.").
  fileprivate func withRoad(_ first: String, _ second: String, _ road: ManeuverRoad?)
    -> (String, String, [String])
  {
    guard let road, !road.isEmpty else { return (first, second, []) }
    var (first, second) = (first, second)
    var after: [String] = []
    if let lanes = laneDescription(road.lanes) {
      if road.lanesForThen && !second.isEmpty {
        if let s = withLaneClause(second, lanes) {
          second = s
        } else {
          after.append(laneSentence(lanes))
        }
      } else if !road.lanesForThen {
        if let f = withLaneClause(first, lanes) {
          first = f
        } else {
          after.append(laneSentence(lanes))
        }
      }
    }
    if let sign = signSentence(road.sign, instructions: first) { after.append(sign) }
    return (first, second, after)
  }
}

/// The bare main and follow-up instructions of a maneuver; when the main one is empty, the
/// follow-up takes its place.
private func instructionPair(_ instructions: String, _ then: String?) -> (String, String) {
  let first = withoutTrailingPeriods(instructions)
  let second = withoutTrailingPeriods(then ?? "")
  return first.isEmpty ? (second, "") : (first, second)
}

// MARK: - Korean

extension Phrasebook {
  /// The Korean text for `message`, in the polite 합쇼체 of navigation voices, with 해요체
  /// requests ("…하세요") as T map and Kakao Navi use them.
  private func korean(_ message: AnnouncementMessage) -> String {
    switch message {
    case .depart(let source, let tolls, let advisories):
      let source = withoutTrailingPeriods(source)
      var sentences = [source.isEmpty ? "출발합니다." : "\(source)에서 출발합니다."]
      if tolls { sentences.append("이 경로에는 유료 도로가 있습니다.") }
      sentences += advisories.map(terminated).filter { !$0.isEmpty }
      return sentences.joined(separator: " ")
    case .maneuver(let instructions, let distance, let then, let road):
      return koreanManeuver(instructions, distance: distance, then: then, road: road)
    case .arrive(let destination):
      // "목적지인 X에" names the place and says it is the destination; 인 and 에 do not
      // alternate, so any name fits.
      let destination = withoutTrailingPeriods(destination)
      return destination.isEmpty ? "목적지에 도착했습니다." : "목적지인 \(destination)에 도착했습니다."
    case .waypoint(let number):
      return "\(koreanOrdinal(number)) 경유지에 도착했습니다."
    case .notice(let notice):
      return terminated(notice)
    case .modeChange(let transport):
      let means =
        switch transport {
        case .walking: "도보"
        case .cycling: "자전거"
        case .automobile: "자동차"
        case .transit: "대중교통"
        }
      return "이제 \(attachParticle(means, .euroRo)) 이동하세요."
    case .continueFor(let distance):
      return koreanContinue(distance)
    case .offRoute:
      return "경로를 벗어났습니다."
    case .backOnRoute:
      return "경로로 돌아왔습니다."
    case .newRoute(let instructions, let distance):
      let next = koreanManeuver(instructions, distance: distance, then: nil)
      return next.isEmpty ? "새 경로로 안내합니다." : "새 경로로 안내합니다. \(next)"
    case .returnToRoute(let distance, let direction, let turnAround):
      // "경로는 왼쪽으로 120미터 떨어져 있습니다.": where the route is and how far, in the
      // order a Korean voice says it; 방향을 돌리세요 fits driving, cycling and walking alike
      // (유턴 is for cars only).
      let side =
        switch direction {
        case .ahead: "앞쪽"
        case .behind: "뒤쪽"
        case .left: "왼쪽"
        case .right: "오른쪽"
        case .compass(let point): koreanCompass(point)
        }
      let sentence = "경로는 \(side)으로 \(spokenDistance(distance)) 떨어져 있습니다."
      return turnAround ? "가능한 곳에서 방향을 돌리세요. \(sentence)" : sentence
    case .overspeed(let limit, let unit):
      // 킬로미터를, 마일을: the object particle after the unit's last syllable.
      let per = unit == .milesPerHour ? "마일을" : "킬로미터를"
      return "제한 속도 시속 \(spokenLimit(limit))\(per) 초과했습니다."
    case .ahead(let kind, let distance, let length):
      return koreanObject(kind, at: spokenDistance(distance), length: length)
    case .gpsLost:
      return "GPS 신호가 끊겼습니다."
    case .gpsAcquired:
      return "GPS 신호가 다시 잡혔습니다."
    }
  }

  /// The Korean "continue for" announcement, such as "도로를 따라 2킬로미터 계속 가세요".
  ///
  /// Not "2킬로미터 동안 …": 동안 measures time, and a bare distance before the verb is how
  /// Korean says how far. "도로를 따라" rather than 직진 because a long step may bend, and
  /// 가세요 fits walking, cycling and driving alike.
  private func koreanContinue(_ distance: Double) -> String {
    "도로를 따라 \(spokenDistance(distance)) 계속 가세요."
  }

  /// A maneuver announcement: "300미터 앞, A입니다.", "잠시 후 A, 이어서 B입니다.",
  /// "300미터 앞에서 A하세요.
  ///
  /// 이어서 B입니다." and so on.
  ///
  /// Noun phrases share one copula at the end ("A, 이어서 B입니다."). When either instruction
  /// is a finished sentence the announcement becomes two sentences, because a sentence ending
  /// cannot be followed by ", 이어서".
  private func koreanManeuver(
    _ instructions: String, distance: Double?, then: String?, road: ManeuverRoad? = nil
  ) -> String {
    let (bareFirst, bareSecond) = instructionPair(instructions, then)
    guard !bareFirst.isEmpty else { return "" }
    // The lane clause goes before an instruction and leaves its ending, so whether it is a
    // noun phrase is read from the instruction alone.
    let firstIsNoun = isKoreanNounPhrase(bareFirst)
    let secondIsNoun = isKoreanNounPhrase(bareSecond)
    let (first, second, roadAfter) = withRoad(bareFirst, bareSecond, road)
    var after = roadAfter
    if let a = road?.ahead {
      // After the maneuver and nothing else to follow it: "이어서 …"; else with its distance.
      let at = a.afterManeuver && second.isEmpty ? nil : spokenDistance(a.distance)
      after.append(koreanObject(a.kind, at: at, length: a.length))
    }
    let said = koreanManeuver(
      first, second, distance: distance, firstIsNoun: firstIsNoun, secondIsNoun: secondIsNoun)
    return ([said] + after).joined(separator: " ")
  }

  private func koreanManeuver(
    _ first: String, _ second: String, distance: Double?, firstIsNoun: Bool, secondIsNoun: Bool
  ) -> String {
    let lead: String
    if let distance {
      lead = "\(spokenDistance(distance)) \(firstIsNoun ? "앞," : "앞에서") \(first)"
    } else {
      lead = "잠시 후 \(first)"
    }
    guard !second.isEmpty else { return firstIsNoun ? "\(lead)입니다." : terminated(lead) }
    if firstIsNoun && secondIsNoun { return "\(lead), 이어서 \(second)입니다." }
    let opening = firstIsNoun ? "\(lead)입니다." : terminated(lead)
    let closing = secondIsNoun ? "\(second)입니다." : terminated(second)
    return "\(opening) 이어서 \(closing)"
  }
}

/// "첫 번째", "두 번째", "세 번째", "네 번째", then "5번째".
func koreanOrdinal(_ number: Int) -> String {
  switch number {
  case 1: "첫 번째"
  case 2: "두 번째"
  case 3: "세 번째"
  case 4: "네 번째"
  default: "\(number)번째"
  }
}
