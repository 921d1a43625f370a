import Foundation
import Guidance
import RouteFiles
import Routes
import Simulation
import TestSupport
import Testing

@testable import Phrasebook

// The byte-level announcement phrasing (SimpleText, AnnouncementBuffer, Phrasebook+Announcements)
// must give exactly what the Character-based phrasing gave. The reference below is that phrasing as
// it was before issue 8, kept verbatim apart from names; outputs are compared as bytes, because
// `String.==` treats canonically equivalent texts as equal.

private let phrasebooks = [
  Phrasebook(language: .en, units: .metric), Phrasebook(language: .en, units: .imperial),
  Phrasebook(language: .ko, units: .metric), Phrasebook(language: .ko, units: .imperial),
]

@Suite struct PhrasebookFastPathTests {
  // MARK: Simple scalars

  @Test func simpleScalarsAreGraphemeClustersOfTheirOwnWithKnownProperties() {
    // One scalar of every grapheme cluster break class that occurs among simple scalars, and
    // scalars that join when a class is wrong: Extend, SpacingMark, Prepend, L, V, T, RI, ZWJ.
    let neighbours = ["a", "\t", "\r", "\n", "가", "각", "\u{3000}", "ㄱ", "é", "\u{85}", "\u{AD}"]
    let compared: [Character] = [
      ".", "!", "?", "…", "。", "！", "？", "시", "오", "다", "요", "죠", "Y", "o", "u", " ", "h", "a",
      "v", "e", "r", "i", "d", "c",
    ]
    var checked = 0
    var failures: [String] = []
    for value in UInt32(0)...0xFFFF where isSimpleScalar(value) {
      guard let scalar = Unicode.Scalar(value) else { continue }
      checked += 1
      let alone = String(Character(scalar))
      for neighbour in neighbours + [alone] {
        let before = (neighbour == "\r" && value == 0x0A) ? 1 : 2
        let after = (value == 0x0D && neighbour == "\n") ? 1 : 2
        if (neighbour + alone).count != before || (alone + neighbour).count != after {
          failures.append(
            "U+\(String(value, radix: 16)) joins \(neighbour.unicodeScalars.map(\.value))")
        }
      }
      let character = Character(scalar)
      if character.isWhitespace != isSimpleWhitespace(value) {
        failures.append("U+\(String(value, radix: 16)) white space")
      }
      if isHangul(character) != isSimpleHangul(value) {
        failures.append("U+\(String(value, radix: 16)) Hangul")
      }
      // The Korean speech duration tells syllables by their lead byte alone.
      if let lead = alone.utf8.first, (0xEA...0xED).contains(lead), !isSimpleHangul(value) {
        failures.append("U+\(String(value, radix: 16)) lead byte")
      }
      for other in compared where other == character && other.unicodeScalars.first?.value != value {
        failures.append("U+\(String(value, radix: 16)) equals \(other)")
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(20))")
    #expect(checked > 33_000)
    #expect(!isSimpleScalar(0x301) && !isSimpleScalar(0x1100) && !isSimpleScalar(0x1F44D))
    #expect(!isSimpleScalar(0x600) && !isSimpleScalar(0x200D) && !isSimpleScalar(0x1F1F0))
  }

  @Test func typicalAnnouncementsTakeTheByteLevelPath() {
    let messages: [AnnouncementMessage] = [
      .maneuver(instructions: "Turn right onto Bench Road 1.", distance: 300, then: "Keep left."),
      .maneuver(instructions: "Rue des Guillemites에서 좌회전", distance: nil, then: "우회전하세요"),
      .maneuver(instructions: "Tournez à droite sur l'Élysée", distance: 1250, then: nil),
      .depart(source: "서울역", tolls: true, advisories: ["Ferry ahead."]),
      .arrive(destination: "Place de la République"), .notice("철길 건널목이 있습니다"),
    ]
    for phrasebook in phrasebooks {
      for message in messages {
        #expect(phrasebook.announcementText(for: message) != nil, "\(message)")
        #expect(phrasebook.announcementSpeechDuration(for: message) != nil, "\(message)")
      }
      // A message without router text has no byte-level twin: the one phrasing says it.
      let overspeed = AnnouncementMessage.overspeed(limit: 50, unit: .kilometresPerHour)
      #expect(phrasebook.announcementText(for: overspeed) == nil)
      #expect(phrasebook.speechDuration(for: overspeed) > 0)
      // A combining mark leaves the bytes to the Character-based phrasing.
      let decomposed = AnnouncementMessage.maneuver(
        instructions: "Turn onto Re\u{301}publique", distance: 9, then: nil)
      #expect(phrasebook.announcementText(for: decomposed) == nil)
      #expect(
        phrasebook.text(for: decomposed).utf8.elementsEqual(
          reference(phrasebook, decomposed).utf8))
    }
  }

  @Test func aAnnouncementBufferThatIsTooSmallOverflowsInsteadOfWriting() {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { storage in
      guard var buffer = AnnouncementBuffer(storage) else {
        Issue.record("no buffer")
        return
      }
      buffer.append("abc")
      buffer.append(decimal: 123)
      #expect(buffer.overflowed)
      #expect(!buffer.isComplete)
      #expect(buffer.count == 3)
    }
  }

  @Test(arguments: [0, 7, 10, 1234, Int.max, -5, Int.min])
  func decimalsAreWrittenAsInterpolationWritesThem(value: Int) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { storage in
      guard var buffer = AnnouncementBuffer(storage) else { return }
      buffer.append(decimal: value)
      #expect(Array(buffer.text().bytes) == Array("\(value)".utf8))
    }
  }

  // MARK: Helpers against the reference, on random text

  @Test(arguments: [1, 2, 3, 4])
  func sentenceHelpersMatchTheCharacterBasedReference(seed: UInt64) {
    var random = RandomSource(seed: seed)
    var mismatches: [String] = []
    func check(_ name: String, _ text: String, _ fast: String, _ slow: String) {
      if !fast.utf8.elementsEqual(slow.utf8) {
        mismatches.append("\(name)(\(debugText(text))): \(debugText(fast)) ≠ \(debugText(slow))")
      }
    }
    for _ in 0..<4000 {
      let text = randomText(&random)
      check("trimmed", text, trimmed(text), referenceTrimmed(text))
      check(
        "withoutTrailingPeriods", text, withoutTrailingPeriods(text),
        referenceWithoutTrailingPeriods(text))
      check("terminated", text, terminated(text), referenceTerminated(text))
      check("lowercasingLead", text, lowercasingLead(text), referenceLowercasingLead(text))
      check("capitalizingLead", text, capitalizingLead(text), referenceCapitalizingLead(text))
      if isKoreanNounPhrase(text) != referenceIsKoreanNounPhrase(text) {
        mismatches.append("isKoreanNounPhrase(\(debugText(text)))")
      }
      for phrasebook in phrasebooks.prefix(3) where phrasebook.units == .metric {
        let fast = phrasebook.speechDuration(of: text)
        let slow = referenceSpeechDuration(phrasebook.language, text)
        if fast != slow {
          mismatches.append("speechDuration(\(debugText(text))) \(fast) ≠ \(slow)")
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
  }

  @Test(arguments: [11, 12, 13, 14])
  func announcementsMatchTheCharacterBasedReference(seed: UInt64) {
    var random = RandomSource(seed: seed)
    var mismatches: [String] = []
    var byteLevel = 0
    for _ in 0..<1500 {
      let message = randomMessage(&random)
      for phrasebook in phrasebooks {
        if phrasebook.announcementText(for: message) != nil { byteLevel += 1 }
        compare(phrasebook, message, into: &mismatches)
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    // Most random announcements are simple text; the rest exercise the Character path.
    #expect(byteLevel > 1500)
  }

  // MARK: Spoken distance keys

  /// The engine reuses a maneuver sentence's speech duration for every distance with the same
  /// key, so two distances share a key exactly when they are said alike, and a maneuver
  /// sentence differs in nothing else.
  @Test func distancesShareASpokenKeyExactlyWhenTheyAreSaidAlike() {
    var distances: [Double] = [-1, 0, .nan, .infinity, 1e300, 9.99, 10, 974.99, 975, 1e9]
    var x = 0.0
    while x < 12_000 {
      distances.append(x)
      x += 0.731
    }
    for book in phrasebooks {
      var saidBy: [Int: String] = [:]
      var keyOf: [String: Int] = [:]
      var first: [Int: Double] = [:]
      for d in distances {
        guard let key = book.spokenDistanceKey(d) else {
          Issue.record("\(book.language) \(book.units): no key for \(d)")
          continue
        }
        let said = book.spokenDistance(d)
        #expect(saidBy[key, default: said] == said, "\(d): key \(key)")
        #expect(keyOf[said, default: key] == key, "\(d): \(said)")
        saidBy[key] = said
        keyOf[said] = key
        let message = { (m: Double) in
          book.text(for: .maneuver(instructions: "Turn left", distance: m, then: "Keep right"))
        }
        if let other = first[key] {
          #expect(message(other) == message(d))
        } else {
          first[key] = d
        }
      }
      #expect(saidBy.count > 40)
    }
  }

  // MARK: Fixture announcements

  @Test func everyFixtureAnnouncementMatchesTheReferenceAndItsSpeechDuration() throws {
    var instructions: Set<String> = []
    var routes = 0
    for path in fixtureRoutePaths() {
      for language in Language.allCases {
        guard let document = try? RouteFiles.load(path, language: language) else { continue }
        for route in document.routes {
          routes += 1
          instructions.formUnion(route.advisoryNotices)
          for step in route.steps {
            instructions.insert(step.instructions)
            if let notice = step.notice { instructions.insert(notice) }
          }
        }
        instructions.insert(document.source.name)
        instructions.insert(document.destination.name)
      }
    }
    #expect(routes >= 40)
    #expect(instructions.contains { $0.unicodeScalars.contains { isSimpleHangul($0.value) } })
    let texts = instructions.sorted()
    var mismatches: [String] = []
    var announcements = 0
    for (i, text) in texts.enumerated() {
      let next = texts[(i + 1) % texts.count]
      let messages: [AnnouncementMessage] = [
        .maneuver(instructions: text, distance: nil, then: nil),
        .maneuver(instructions: text, distance: 35, then: nil),
        .maneuver(instructions: text, distance: 420, then: next),
        .maneuver(instructions: text, distance: 2600, then: next),
        .maneuver(instructions: text, distance: nil, then: next),
        .depart(source: text, tolls: true, advisories: [next]), .arrive(destination: text),
        .notice(text),
      ]
      for message in messages {
        for phrasebook in phrasebooks {
          announcements += 1
          compare(phrasebook, message, into: &mismatches)
        }
      }
    }
    #expect(announcements > 1000)
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
  }
}

// MARK: - Comparison

/// Compares the text and both speech durations of `message` with the reference.
private func compare(
  _ phrasebook: Phrasebook, _ message: AnnouncementMessage, into mismatches: inout [String]
) {
  let text = phrasebook.text(for: message)
  let expected = reference(phrasebook, message)
  let name = "\(phrasebook.language)/\(phrasebook.units) \(message)"
  if !text.utf8.elementsEqual(expected.utf8) {
    mismatches.append("\(name): \(debugText(text)) ≠ \(debugText(expected))")
  }
  let duration = phrasebook.speechDuration(for: message)
  let fromText = phrasebook.speechDuration(of: text)
  let referenceDuration = referenceSpeechDuration(phrasebook.language, expected)
  if duration != fromText || fromText != referenceDuration {
    mismatches.append("\(name): durations \(duration), \(fromText), \(referenceDuration)")
  }
}

/// Every route document among the fixtures and simulations.
private func fixtureRoutePaths() -> [String] {
  var paths: [String] = []
  for root in ["Simulations", "Tests/Fixtures/routes"] {
    let base = repositoryFile(root)
    let relatives = (try? FileManager.default.subpathsOfDirectory(atPath: base)) ?? []
    for relative in relatives where relative.hasSuffix(".json") || relative.hasSuffix(".gpx") {
      paths.append(base + "/" + relative)
    }
  }
  return paths.sorted()
}

/// `text` with its scalars spelled out, for failure messages.
private func debugText(_ text: String) -> String {
  let scalars = text.unicodeScalars.map { scalar in
    scalar.isASCII && scalar.value >= 0x20
      ? String(scalar) : "\\u{\(String(scalar.value, radix: 16))}"
  }
  return "\"" + scalars.joined() + "\""
}

// MARK: - Random text

/// Pieces random text is made of: words and marks that the phrasing treats specially, and
/// the scalars that make text not simple.
private let fragments: [String] = [
  // ASCII words, names and marks.
  "Turn", "turn", "left", " onto ", "Main Street", "You have arrived", "You have reached",
  "You have arrived at", "I-95", "US", "BMW", "A1", "a", "Z", "x1", "Exit 12", "exit", ".", "..",
  " . ", "!", "?", ",", "-", "'", "(2)", "0", "42",
  // White space of every kind.
  " ", "  ", "\t", "\n", "\r\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{3000}",
  "\u{2003}", "\u{2028}", "\u{1680}", "\u{200B}", "\u{FEFF}", "\u{1C}",
  // Hangul, sentence endings and jamo.
  "좌회전", "우회전하세요", "직진하십시오", "시오", "시", "오", "다", "요", "죠", "입니다", "방향", "ㄱ",
  "ㅏ", "서울역", "\u{1100}\u{1161}", "\u{1100}", "\u{11A8}",
  // Accents, other scripts and case mappings that change length.
  "é", "É", "Élysée", "Über", "ß", "ŉ", "İ", "ǅ", "ǆ", "Ω", "Ωμέγα", "Привет", "ﬃ", "ΐ",
  "e\u{301}", "\u{301}", " \u{301}", ".\u{301}", "E\u{301}cole",
  // Final marks of other scripts.
  "…", "。", "！", "？",
  // Emoji, flags, Prepend, canonical singletons, numbers that are not digits, CJK.
  "👍", "👍🏽", "👨‍👩‍👧", "🇰🇷", "🇰", "❤️", "©", "\u{600}", "\u{600} ", "\u{212A}", "\u{37E}",
  "\u{1FEF}", "½", "²", "一", "٣", "東京", "ひらがな",
]

/// A random text of zero to eight fragments, sometimes with a random scalar mixed in.
private func randomText(_ random: inout RandomSource) -> String {
  var text = ""
  for _ in 0..<Int.random(in: 0...8, using: &random) {
    if Int.random(in: 0..<8, using: &random) == 0 {
      text.unicodeScalars.append(randomScalar(&random))
    } else {
      text += fragments[Int.random(in: 0..<fragments.count, using: &random)]
    }
  }
  return text
}

/// A random scalar: mostly from the blocks announcements use, sometimes from anywhere.
private func randomScalar(_ random: inout RandomSource) -> Unicode.Scalar {
  let blocks: [ClosedRange<UInt32>] = [
    0x20...0x7E, 0x00...0x1F, 0x80...0x2FF, 0x300...0x36F, 0x370...0x52F, 0x1100...0x11FF,
    0x2000...0x206F, 0x3000...0x30FF, 0x3130...0x318F, 0xAC00...0xD7A3, 0xFF00...0xFFEF,
    0x1F300...0x1FAFF, 0x0...0x10FFFF,
  ]
  while true {
    let block = blocks[Int.random(in: 0..<blocks.count, using: &random)]
    if let scalar = Unicode.Scalar(UInt32.random(in: block, using: &random)) { return scalar }
  }
}

/// A random message of the kinds phrased from bytes, plus a few others.
private func randomMessage(_ random: inout RandomSource) -> AnnouncementMessage {
  let distances: [Double?] = [
    nil, 0, 9.9, 14, 96, 310, 974, 976, 1250, 1609.344, 2414, 5633, 23_400, -5, .nan, .infinity,
    1e300, Double.random(in: 0...50_000, using: &random),
  ]
  let distance = distances[Int.random(in: 0..<distances.count, using: &random)]
  switch Int.random(in: 0..<10, using: &random) {
  case 0...5:
    let then: String? = Bool.random(using: &random) ? randomText(&random) : nil
    return .maneuver(instructions: randomText(&random), distance: distance, then: then)
  case 6:
    let advisories = (0..<Int.random(in: 0...3, using: &random)).map { _ in randomText(&random) }
    return .depart(
      source: randomText(&random), tolls: Bool.random(using: &random), advisories: advisories)
  case 7:
    return .arrive(destination: randomText(&random))
  case 8:
    return .notice(randomText(&random))
  default:
    return .continueFor(distance: distance ?? 0)
  }
}

// MARK: - The reference: the Character-based phrasing before issue 8

private let referenceFinalPunctuation: Set<Character> = [".", "!", "?", "…", "。", "！", "？"]

private func referenceTrimmed(_ text: String) -> String {
  guard let first = text.firstIndex(where: { !$0.isWhitespace }),
    let last = text.lastIndex(where: { !$0.isWhitespace })
  else { return "" }
  return String(text[first...last])
}

private func referenceWithoutTrailingPeriods(_ text: String) -> String {
  var result = referenceTrimmed(text)
  while result.last == "." { result.removeLast() }
  return referenceTrimmed(result)
}

private func referenceTerminated(_ text: String) -> String {
  let text = referenceWithoutTrailingPeriods(text)
  guard let last = text.last else { return "" }
  return referenceFinalPunctuation.contains(last) ? text : text + "."
}

private func referenceLowercasingLead(_ instruction: String) -> String {
  for past in ["You have arrived", "You have reached"] where instruction.hasPrefix(past) {
    let verb = past.hasSuffix("arrived") ? "you will arrive" : "you will reach"
    return verb + instruction.dropFirst(past.count)
  }
  guard let first = instruction.first, first.isUppercase else { return instruction }
  let firstWord = instruction.prefix { !$0.isWhitespace }
  if firstWord.contains(where: \.isNumber) { return instruction }
  let letters = firstWord.filter(\.isLetter)
  if letters.count >= 2, letters.allSatisfy(\.isUppercase) { return instruction }
  return first.lowercased() + instruction.dropFirst()
}

private func referenceCapitalizingLead(_ instruction: String) -> String {
  guard let first = instruction.first, first.isLowercase else { return instruction }
  return first.uppercased() + instruction.dropFirst()
}

private func referenceIsHangul(_ character: Character) -> Bool {
  guard let scalar = character.unicodeScalars.first else { return false }
  switch scalar.value {
  case 0xAC00...0xD7A3, 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xD7B0...0xD7FF:
    return true
  default:
    return false
  }
}

private func referenceIsKoreanNounPhrase(_ instruction: String) -> Bool {
  let text = referenceTrimmed(instruction)
  guard text.contains(where: referenceIsHangul) else { return false }
  if let last = text.last, "!?！？".contains(last) { return false }
  let bare = referenceWithoutTrailingPeriods(text)
  if bare.hasSuffix("시오") { return false }
  guard let last = bare.last else { return false }
  return !"다요죠".contains(last)
}

private func referenceSpeechDuration(_ language: Language, _ text: String) -> Double {
  var seconds = 0.3
  switch language {
  case .en:
    seconds += Double(text.count) / 15
  case .ko:
    for character in text {
      seconds += referenceIsHangul(character) ? 1 / 6.5 : 1 / 15
    }
  }
  return max(0.5, seconds)
}

private func referencePair(_ instructions: String, _ then: String?) -> (String, String) {
  let first = referenceWithoutTrailingPeriods(instructions)
  let second = referenceWithoutTrailingPeriods(then ?? "")
  return first.isEmpty ? (second, "") : (first, second)
}

/// The text of `message` as the Character-based phrasing made it.
private func reference(_ book: Phrasebook, _ message: AnnouncementMessage) -> String {
  switch book.language {
  case .en: referenceEnglish(book, message)
  case .ko: referenceKorean(book, message)
  }
}

private func referenceEnglish(_ book: Phrasebook, _ message: AnnouncementMessage) -> String {
  switch message {
  case .depart(let source, let tolls, let advisories):
    let source = referenceWithoutTrailingPeriods(source)
    var sentences = [source.isEmpty ? "Depart." : referenceTerminated("Depart from \(source)")]
    if tolls { sentences.append("This route has tolls.") }
    sentences += advisories.map(referenceTerminated).filter { !$0.isEmpty }
    return sentences.joined(separator: " ")
  case .maneuver(let instructions, let distance, let then, nil):
    let (first, second) = referencePair(instructions, then)
    guard !first.isEmpty else { return "" }
    var sentence =
      distance.map { "In \(book.spokenDistance($0)), \(referenceLowercasingLead(first))" }
      ?? referenceCapitalizingLead(first)
    if !second.isEmpty { sentence += ", then \(referenceLowercasingLead(second))" }
    return referenceTerminated(sentence)
  case .arrive(let destination):
    let destination = referenceWithoutTrailingPeriods(destination)
    return destination.isEmpty
      ? "You have arrived at your destination."
      : referenceTerminated("You have arrived at \(destination)")
  case .notice(let notice):
    return referenceTerminated(notice)
  case .continueFor(let distance):
    return "Continue for \(book.spokenDistance(distance))."
  default:
    return book.text(for: message)
  }
}

private func referenceKorean(_ book: Phrasebook, _ message: AnnouncementMessage) -> String {
  switch message {
  case .depart(let source, let tolls, let advisories):
    let source = referenceWithoutTrailingPeriods(source)
    var sentences = [source.isEmpty ? "출발합니다." : "\(source)에서 출발합니다."]
    if tolls { sentences.append("이 경로에는 유료 도로가 있습니다.") }
    sentences += advisories.map(referenceTerminated).filter { !$0.isEmpty }
    return sentences.joined(separator: " ")
  case .maneuver(let instructions, let distance, let then, nil):
    let (first, second) = referencePair(instructions, then)
    guard !first.isEmpty else { return "" }
    let firstIsNoun = referenceIsKoreanNounPhrase(first)
    let lead: String
    if let distance {
      lead = "\(book.spokenDistance(distance)) \(firstIsNoun ? "앞," : "앞에서") \(first)"
    } else {
      lead = "잠시 후 \(first)"
    }
    guard !second.isEmpty else {
      return firstIsNoun ? "\(lead)입니다." : referenceTerminated(lead)
    }
    let secondIsNoun = referenceIsKoreanNounPhrase(second)
    if firstIsNoun && secondIsNoun { return "\(lead), 이어서 \(second)입니다." }
    let opening = firstIsNoun ? "\(lead)입니다." : referenceTerminated(lead)
    let closing = secondIsNoun ? "\(second)입니다." : referenceTerminated(second)
    return "\(opening) 이어서 \(closing)"
  case .arrive(let destination):
    let destination = referenceWithoutTrailingPeriods(destination)
    return destination.isEmpty ? "목적지에 도착했습니다." : "목적지인 \(destination)에 도착했습니다."
  case .notice(let notice):
    return referenceTerminated(notice)
  case .continueFor(let distance):
    return "도로를 따라 \(book.spokenDistance(distance)) 계속 가세요."
  default:
    return book.text(for: message)
  }
}
