import Routes

/// A Korean particle whose form depends on how the word before it ends.
///
/// Each particle has one form for words that end in a final consonant (받침) and one for words
/// that end in a vowel. (으)로 is the exception: a final ㄹ takes 로, like a vowel ("서울로").
/// ``attachParticle(_:_:)`` picks the form; see it for how non-Hangul words are read.
public enum KoreanParticle: Sendable, Hashable, CaseIterable {
  /// Direction or means: 으로 after a consonant other than ㄹ, 로 after a vowel or ㄹ.
  case euroRo
  /// Object: 을 after a consonant, 를 after a vowel.
  case eulReul
  /// Topic: 은 after a consonant, 는 after a vowel.
  case eunNeun
  /// Subject: 이 after a consonant, 가 after a vowel.
  case iGa
  /// "And" or "with": 과 after a consonant, 와 after a vowel.
  case gwaWa

  /// The form of this particle after a word that ends in `ending`.
  func form(after ending: KoreanFinalSound) -> String {
    switch (self, ending) {
    case (.euroRo, .consonant): "으로"
    case (.euroRo, .vowel), (.euroRo, .rieul): "로"
    case (.eulReul, .vowel): "를"
    case (.eulReul, _): "을"
    case (.eunNeun, .vowel): "는"
    case (.eunNeun, _): "은"
    case (.iGa, .vowel): "가"
    case (.iGa, _): "이"
    case (.gwaWa, .vowel): "와"
    case (.gwaWa, _): "과"
    }
  }
}

/// Appends the right form of a Korean particle to a word, with no space between them.
///
/// The form follows how the word is *pronounced* at its end. Trailing punctuation, brackets and
/// spaces are skipped, so "강남역(2호선)" is judged by "선". The word is returned unchanged with
/// the particle appended, e.g. "서울역" + `.euroRo` → "서울역으로", "도보" → "도보로",
/// "서울" → "서울로".
///
/// - Hangul syllables: by their final consonant (받침); ㄹ is told apart for (으)로.
///   A lone compatibility jamo ("ㄱ", "ㅏ") counts as that consonant or vowel.
/// - Digits, read in Sino-Korean: 1 일, 7 칠, 8 팔 end in ㄹ; 0 영, 3 삼, 6 육 in another
///   consonant; 2 이, 4 사, 5 오, 9 구 in a vowel. A number ending in zeros is read by its
///   place word: 십, 백, 천, 만, 억 all end in a consonant, 조 (10¹²) in a vowel. Commas
///   between digit groups are ignored ("10,000" is 만).
/// - A distance unit right after a digit is read as its Korean word: "m", "cm", "mm", "km"
///   (미터), "ft" (피트) and "s" (초) end in a vowel, "mi" (마일) in ㄹ, "min" (분), "h" (시간)
///   and "kg" (킬로그램) in a consonant.
/// - A single Latin letter, or a run of two or more capitals (an acronym such as "IC", "KTX"),
///   is read by its English letter names: L (엘) and R (알) end in ㄹ, M (엠) and N (엔) in
///   another consonant, every other letter in a vowel.
/// - Other Latin words follow Korean loanword pronunciation (외래어 표기법), judged on the last
///   letters with common accents folded ("é" as "e"):
///   - "l" → ㄹ ("Hill" 힐, "Montréal" 몬트리올);
///   - "m", "n", "ng" → consonant ("Station" 스테이션, "Hong Kong" 홍콩, "Köln" 쾰른);
///   - "k", "t", "p", "c" (and "ck") after one short vowel → consonant ("Market" 마켓,
///     "Rock" 록, "Music" 뮤직); after a long vowel or a consonant they take 으 → vowel
///     ("Street" 스트리트, "Park" 파크, "Court" 코트);
///   - a silent final "e" in words of three or more letters: "ne", "me" → consonant
///     ("Lane" 레인, "Home" 홈), "le" → ㄹ ("Castle" 캐슬), anything else → vowel
///     ("Place" 플레이스, "Gate" 게이트);
///   - everything else → vowel: vowels, "r" (silent: "Tower" 타워, "Centre" 센터), and
///     "b d g f v s z x h j q w y", which take 으 or 이 ("Road" 로드, "Paris" 파리).
/// - Anything else (Han, kana, symbols only, an empty string) is judged a vowel, so the
///   particle's vowel form (로, 를, 는, 가, 와) is used.
public func attachParticle(_ word: String, _ particle: KoreanParticle) -> String {
  word + particle.form(after: koreanFinalSound(of: word) ?? .vowel)
}

/// How a word ends, as far as Korean particle choice is concerned.
enum KoreanFinalSound: Equatable {
  /// No final consonant.
  case vowel
  /// Final ㄹ, which behaves like a vowel before (으)로 only.
  case rieul
  /// Any other final consonant.
  case consonant
}

/// The final sound of `word`, or `nil` when its last meaningful character is in no script
/// this module can read.
func koreanFinalSound(of word: String) -> KoreanFinalSound? {
  let characters = Array(word)
  guard let lastIndex = characters.lastIndex(where: { $0.isLetter || $0.isNumber }) else {
    return nil
  }
  let last = characters[lastIndex]
  if let sound = hangulFinalSound(last) { return sound }
  if let digit = asciiDigit(last) {
    return numberFinalSound(characters[...lastIndex], lastDigit: digit)
  }
  guard isLatinLetter(last) else { return nil }
  var start = lastIndex
  while start > 0, isLatinLetter(characters[start - 1]) { start -= 1 }
  let run = characters[start...lastIndex]
  if start > 0, asciiDigit(characters[start - 1]) != nil,
    let sound = unitFinalSound[String(run).lowercased()]
  {
    return sound
  }
  if run.count == 1 || run.allSatisfy(\.isUppercase) {
    return letterNameFinalSound(run.last ?? last)
  }
  return latinWordFinalSound(run.map(foldedLatinLetter))
}

/// The final sound of a Hangul syllable or compatibility jamo, or `nil` for anything else.
private func hangulFinalSound(_ character: Character) -> KoreanFinalSound? {
  guard let scalar = character.unicodeScalars.first else { return nil }
  switch scalar.value {
  case 0xAC00...0xD7A3:
    // A precomposed syllable is 0xAC00 + (initial × 21 + medial) × 28 + final; final 0 is none.
    switch (scalar.value - 0xAC00) % 28 {
    case 0: return .vowel
    case 8: return .rieul
    default: return .consonant
    }
  case 0x3139: return .rieul  // ㄹ
  case 0x3131...0x314E: return .consonant  // ㄱ … ㅎ
  case 0x314F...0x3163: return .vowel  // ㅏ … ㅣ
  default: return nil
  }
}

/// The value of an ASCII digit, or `nil`.
private func asciiDigit(_ character: Character) -> Int? {
  guard let ascii = character.asciiValue, (48...57).contains(ascii) else { return nil }
  return Int(ascii - 48)
}

/// The final sound of a number read in Sino-Korean, from the digits that end `text`.
private func numberFinalSound(_ text: ArraySlice<Character>, lastDigit: Int) -> KoreanFinalSound {
  switch lastDigit {
  case 1, 7, 8: return .rieul  // 일, 칠, 팔
  case 3, 6: return .consonant  // 삼, 육
  case 2, 4, 5, 9: return .vowel  // 이, 사, 오, 구
  default: break
  }
  // Ends in 0: the place word of the trailing zeros decides, unless the number is all zeros.
  var zeros = 0
  for character in text.reversed() {
    if character == "," { continue }
    guard let digit = asciiDigit(character) else { break }
    if digit != 0 { return zeros == 12 ? .vowel : .consonant }  // 조 alone ends in a vowel
    zeros += 1
  }
  return .consonant  // 영
}

/// Final sounds of unit abbreviations written straight after a number, read as Korean words.
private let unitFinalSound: [String: KoreanFinalSound] = [
  "m": .vowel, "cm": .vowel, "mm": .vowel, "km": .vowel, "ft": .vowel, "s": .vowel,
  "mi": .rieul, "min": .consonant, "h": .consonant, "kg": .consonant,
]

/// Whether `character` is a Latin letter: ASCII, Latin-1 Supplement or Latin Extended-A/B.
private func isLatinLetter(_ character: Character) -> Bool {
  guard character.isLetter, let scalar = character.unicodeScalars.first else { return false }
  switch scalar.value {
  case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F: return true
  default: return false
  }
}

/// The final sound of an English letter name (엘, 알 → ㄹ; 엠, 엔 → consonant; others vowel).
private func letterNameFinalSound(_ letter: Character) -> KoreanFinalSound {
  switch foldedLatinLetter(letter) {
  case "l", "r": .rieul
  case "m", "n": .consonant
  default: .vowel
  }
}

/// Accented letters folded to the ASCII letter they are pronounced like, lower-cased.
private let latinFolds: [Character: Character] = {
  let groups: [(String, Character)] = [
    ("àáâãäåāăą", "a"), ("çćč", "c"), ("ďđ", "d"), ("èéêëēĕėęě", "e"), ("ìíîïĩīĭį", "i"),
    ("ñńňņ", "n"), ("òóôõöøōŏő", "o"), ("ŕř", "r"), ("śšşß", "s"), ("ťţ", "t"),
    ("ùúûüũūŭůűų", "u"), ("ýÿ", "y"), ("źżž", "z"), ("ł", "l"),
  ]
  var folds: [Character: Character] = [:]
  for (accented, plain) in groups {
    for character in accented { folds[character] = plain }
  }
  return folds
}()

/// `letter` lower-cased, with its accent folded away when it has one.
private func foldedLatinLetter(_ letter: Character) -> Character {
  let lower = Character(letter.lowercased())
  return latinFolds[lower] ?? lower
}

/// Whether a folded Latin letter is a vowel letter (y excluded).
private func isVowelLetter(_ letter: Character) -> Bool { "aeiou".contains(letter) }

/// The final sound of a Latin-script word, by the loanword rules in ``attachParticle(_:_:)``.
private func latinWordFinalSound(_ letters: [Character]) -> KoreanFinalSound {
  let count = letters.count
  guard count > 0 else { return .vowel }
  let last = letters[count - 1]
  let second: Character? = count >= 2 ? letters[count - 2] : nil
  let third: Character? = count >= 3 ? letters[count - 3] : nil
  switch last {
  case "l":
    return .rieul
  case "m", "n":
    return .consonant
  case "g":
    return second == "n" ? .consonant : .vowel
  case "k" where second == "c":
    return .consonant
  case "k", "t", "p", "c":
    guard let second, isVowelLetter(second) else { return .vowel }
    if let third, isVowelLetter(third) { return .vowel }
    return .consonant
  case "e" where count >= 3:
    guard let second, !isVowelLetter(second) else { return .vowel }
    switch second {
    case "n", "m": return .consonant
    case "l": return .rieul
    default: return .vowel
    }
  default:
    return .vowel
  }
}
