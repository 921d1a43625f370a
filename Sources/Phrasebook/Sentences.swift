// Small text helpers shared by the English and Korean phrasing.

/// Punctuation that already ends a sentence, so no "." is added after it.
private let finalPunctuation: Set<Character> = [".", "!", "?", "…", "。", "！", "？"]

/// `text` without surrounding white space.
func trimmed(_ text: String) -> String {
  withSimpleText(text) { $0.string($0.trimmed(0..<$0.count), whole: text) }
    ?? trimmedByCharacter(text)
}

/// ``trimmed(_:)`` for any text, `Character` by `Character`.
private func trimmedByCharacter(_ text: String) -> String {
  guard let first = text.firstIndex(where: { !$0.isWhitespace }),
    let last = text.lastIndex(where: { !$0.isWhitespace })
  else { return "" }
  return String(text[first...last])
}

/// `text` trimmed and without its trailing periods, ready to be embedded in a longer sentence
/// or terminated again (so that "Turn left." never yields "Turn left..").
func withoutTrailingPeriods(_ text: String) -> String {
  withSimpleText(text) { $0.string($0.withoutTrailingPeriods(0..<$0.count), whole: text) }
    ?? withoutTrailingPeriodsByCharacter(text)
}

/// ``withoutTrailingPeriods(_:)`` for any text, `Character` by `Character`.
private func withoutTrailingPeriodsByCharacter(_ text: String) -> String {
  var result = trimmed(text)
  while result.last == "." { result.removeLast() }
  return trimmed(result)
}

/// `text` as one sentence: trailing periods are collapsed to one, and "." is appended unless
/// the text already ends in another sentence mark ("!", "?", "…").
///
/// Empty text stays empty.
func terminated(_ text: String) -> String {
  let simple = withSimpleText(text) { simple -> String in
    let kept = simple.withoutTrailingPeriods(0..<simple.count)
    guard !kept.isEmpty else { return "" }
    let sentence = simple.string(kept, whole: text)
    return isFinalPunctuation(simple.scalar(before: kept.upperBound).value)
      ? sentence : sentence + "."
  }
  return simple ?? terminatedByCharacter(text)
}

/// ``terminated(_:)`` for any text, `Character` by `Character`.
private func terminatedByCharacter(_ text: String) -> String {
  let text = withoutTrailingPeriods(text)
  guard let last = text.last else { return "" }
  return finalPunctuation.contains(last) ? text : text + "."
}

/// An English instruction as the continuation of a sentence ("In 300 meters, turn left").
///
/// The first letter is lower-cased unless the first word is an acronym (two or more letters,
/// all capitals: "US", "BMW") or contains a digit ("I-95", "A1"), which are names.
func lowercasingLead(_ instruction: String) -> String {
  rewrittenLead(instruction) { $0.appendLowercasingLead($1) }
    ?? lowercasingLeadByCharacter(instruction)
}

/// ``lowercasingLead(_:)`` for any text, `Character` by `Character`.
private func lowercasingLeadByCharacter(_ instruction: String) -> String {
  // Routers word the arrival in the past tense ("You have arrived at your destination"); said
  // ahead of time it must be the future.
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

/// An English instruction as the start of a sentence: the first letter upper-cased.
func capitalizingLead(_ instruction: String) -> String {
  rewrittenLead(instruction) { $0.appendCapitalizingLead($1) }
    ?? capitalizingLeadByCharacter(instruction)
}

/// ``capitalizingLead(_:)`` for any text, `Character` by `Character`.
private func capitalizingLeadByCharacter(_ instruction: String) -> String {
  guard let first = instruction.first, first.isLowercase else { return instruction }
  return first.uppercased() + instruction.dropFirst()
}

/// Whether `character` is Hangul: a syllable, or a conjoining or compatibility jamo.
func isHangul(_ character: Character) -> Bool {
  guard let scalar = character.unicodeScalars.first else { return false }
  switch scalar.value {
  case 0xAC00...0xD7A3, 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xD7B0...0xD7FF:
    return true
  default:
    return false
  }
}

/// Whether a Korean-mode instruction is a noun phrase that still needs a copula ("…좌회전",
/// "…방향", "…도착") rather than a finished sentence.
///
/// A finished sentence ends in a sentence-final ending (…다, …요, …죠, …시오), in "!" or "?",
/// or has no Hangul at all (an English instruction from a route without Korean). Everything
/// else that contains Hangul is a noun phrase, even if it ends in a Latin name or a number
/// ("…방면 I-95"): 입니다 follows consonants and vowels alike.
func isKoreanNounPhrase(_ instruction: String) -> Bool {
  withSimpleText(instruction) { $0.isKoreanNounPhrase }
    ?? isKoreanNounPhraseByCharacter(instruction)
}

/// ``isKoreanNounPhrase(_:)`` for any text, `Character` by `Character`.
private func isKoreanNounPhraseByCharacter(_ instruction: String) -> Bool {
  let text = trimmed(instruction)
  guard text.contains(where: isHangul) else { return false }
  if let last = text.last, "!?！？".contains(last) { return false }
  let bare = withoutTrailingPeriods(text)
  if bare.hasSuffix("시오") { return false }
  guard let last = bare.last else { return false }
  return !"다요죠".contains(last)
}

/// `instruction` with its lead rewritten by `rewrite` in a ``AnnouncementBuffer``, or `nil` when it
/// is not simple text or the rewrite leaves simple text.
private func rewrittenLead(
  _ instruction: String, _ rewrite: (inout AnnouncementBuffer, SimpleText) -> Void
) -> String? {
  withSimpleText(instruction) { simple -> String? in
    var complete = false
    let text = String(unsafeUninitializedCapacity: simple.count + 16) { storage in
      guard var buffer = AnnouncementBuffer(storage) else { return 0 }
      rewrite(&buffer, simple)
      complete = buffer.isComplete
      return complete ? buffer.count : 0
    }
    return complete ? text : nil
  } ?? nil
}
