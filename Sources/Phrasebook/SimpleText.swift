import Routes

// Byte-level text helpers for the announcement fast path.
//
// `Character` work (grapheme breaking, Unicode property lookups, canonical equivalence) made
// announcement phrasing the most expensive part of `NavigationSession.ingest`. Almost all
// announcement text is made of *simple* scalars: scalars that form a grapheme cluster on their own
// whatever is next to them. In such text every `Character` is one scalar (the one exception is CR
// LF, which is whitespace either way), so the helpers here work on UTF-8 bytes and scalars and
// give exactly what the `Character`-based helpers in Sentences.swift give. Text with any other
// scalar (a combining mark, a conjoining jamo, an emoji) takes the `Character` path instead.

/// Whether `value` is a simple scalar: one that never joins the scalar before or after it into
/// a grapheme cluster, and is canonically equivalent to no other scalar this module compares
/// with.
///
/// The set: ASCII, Latin-1 and Latin Extended-A/B, IPA and spacing modifiers (below U+0300,
/// where the combining marks start); Greek and Cyrillic letters (without their combining marks
/// and the singletons U+0374, U+037E and U+0387); general punctuation and the Unicode spaces
/// (without ZWNJ, ZWJ and the invisible operators); CJK symbols (without the tone marks), kana,
/// Hangul compatibility jamo, CJK unified ideographs and Hangul syllables; fullwidth ASCII.
/// Among these the grapheme cluster break property is only Other, Control, CR, LF, LV and LVT,
/// which join only as CR LF. `SimpleTextTests` checks every scalar of the set.
@inline(__always)
func isSimpleScalar(_ value: UInt32) -> Bool {
  switch value {
  case 0...0x2FF, 0x370...0x373, 0x375...0x37D, 0x37F...0x386, 0x388...0x482, 0x48A...0x52F,
    0x2000...0x200B, 0x200E...0x205F, 0x3000...0x3029, 0x3041...0x3096, 0x30A1...0x30FA,
    0x3131...0x318E, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF01...0xFF5E:
    return true
  default:
    return false
  }
}

/// Whether a simple scalar is white space (the Unicode `White_Space` property).
///
/// Only meaningful for scalars that pass ``isSimpleScalar(_:)``: U+1680, the one other
/// white-space scalar, is not simple.
@inline(__always)
func isSimpleWhitespace(_ value: UInt32) -> Bool {
  switch value {
  case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
    return true
  default:
    return false
  }
}

/// Whether a simple scalar is Hangul, as ``isHangul(_:)`` judges a `Character`: a syllable or
/// a compatibility jamo (conjoining jamo are not simple).
@inline(__always)
func isSimpleHangul(_ value: UInt32) -> Bool {
  switch value {
  case 0xAC00...0xD7A3, 0x3131...0x318E: true
  default: false
  }
}

/// Whether a simple scalar is a mark that already ends a sentence: . ! ? … 。 ！ ？
@inline(__always)
func isFinalPunctuation(_ value: UInt32) -> Bool {
  switch value {
  case 0x2E, 0x21, 0x3F, 0x2026, 0x3002, 0xFF01, 0xFF1F: true
  default: false
  }
}

/// UTF-8 text known to consist of simple scalars only, as a view of someone else's bytes.
///
/// The bytes must stay valid while the value is used (it lives inside a
/// `withContiguousStorageIfAvailable` or a buffer closure). All offsets are byte offsets and
/// always fall on scalar boundaries.
struct SimpleText {
  /// The bytes, which are valid UTF-8 made of simple scalars.
  let bytes: UnsafeBufferPointer<UInt8>

  /// `bytes` as simple text, or `nil` when it holds a scalar that is not simple.
  ///
  /// The bytes must be valid UTF-8, as the contents of every `String` are.
  init?(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard SimpleText.isSimple(bytes) else { return nil }
    self.bytes = bytes
  }

  /// Wraps bytes already known to be simple text.
  init(unchecked bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// Whether every scalar of the UTF-8 text `bytes` is simple.
  static func isSimple(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = bytes.count
    guard let base = bytes.baseAddress else { return true }
    var i = 0
    // ASCII eight bytes at a time.
    while i + 8 <= count {
      let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
      if word & 0x8080_8080_8080_8080 != 0 { break }
      i += 8
    }
    while i < count {
      let byte = base[i]
      if byte < 0x80 {
        i += 1
        continue
      }
      let (value, length) = decodeScalar(base, at: i)
      guard isSimpleScalar(value) else { return false }
      i += length
    }
    return true
  }

  /// The number of bytes.
  var count: Int { bytes.count }

  /// The scalar that starts at byte `offset`, and its length in bytes.
  @inline(__always)
  func scalar(at offset: Int) -> (value: UInt32, length: Int) {
    let lead = bytes[offset]
    if lead < 0x80 { return (UInt32(lead), 1) }
    // `bytes[offset]` was in bounds, so the buffer is not empty and has a base address.
    return decodeScalar(bytes.baseAddress.unsafelyUnwrapped, at: offset)
  }

  /// The scalar that ends at byte `end` (exclusive), and its length in bytes.
  @inline(__always)
  func scalar(before end: Int) -> (value: UInt32, length: Int) {
    let last = bytes[end - 1]
    if last < 0x80 { return (UInt32(last), 1) }
    var start = end - 1
    while bytes[start] & 0xC0 == 0x80 { start -= 1 }
    return (scalar(at: start).value, end - start)
  }

  /// The range left after removing white space from both ends of `range`, like ``trimmed(_:)``.
  func trimmed(_ range: Range<Int>) -> Range<Int> {
    var lower = range.lowerBound
    var upper = range.upperBound
    while lower < upper {
      let (value, length) = scalar(at: lower)
      guard isSimpleWhitespace(value) else { break }
      lower += length
    }
    while upper > lower {
      let (value, length) = scalar(before: upper)
      guard isSimpleWhitespace(value) else { break }
      upper -= length
    }
    return lower..<upper
  }

  /// `range` trimmed and without trailing periods, like ``withoutTrailingPeriods(_:)``.
  func withoutTrailingPeriods(_ range: Range<Int>) -> Range<Int> {
    let trimmedRange = trimmed(range)
    var upper = trimmedRange.upperBound
    while upper > trimmedRange.lowerBound, bytes[upper - 1] == UInt8(ascii: ".") { upper -= 1 }
    return trimmed(trimmedRange.lowerBound..<upper)
  }

  /// The whole text trimmed and without trailing periods.
  var withoutTrailingPeriods: SimpleText {
    slice(withoutTrailingPeriods(0..<count))
  }

  /// The bytes of `range` as simple text of their own.
  func slice(_ range: Range<Int>) -> SimpleText {
    SimpleText(unchecked: UnsafeBufferPointer(rebasing: bytes[range]))
  }

  /// Whether the text starts with the ASCII bytes of `prefix` as a whole `Character` sequence.
  ///
  /// In simple text the bytes after an ASCII prefix start a new `Character`, so comparing
  /// bytes is comparing characters.
  func hasASCIIPrefix(_ prefix: StaticString) -> Bool {
    prefix.withUTF8Buffer { prefix in
      guard prefix.count <= count else { return false }
      for i in 0..<prefix.count where bytes[i] != prefix[i] { return false }
      return true
    }
  }

  /// The text of `range` as a `String`; `whole` (this text as a `String`) when `range` covers
  /// all of it, so that nothing is copied.
  func string(_ range: Range<Int>, whole: String) -> String {
    range == 0..<count ? whole : String(decoding: bytes[range], as: UTF8.self)
  }

  /// Whether a Korean-mode instruction is a noun phrase that still needs a copula, like
  /// ``isKoreanNounPhrase(_:)``.
  var isKoreanNounPhrase: Bool {
    let text = trimmed(0..<count)
    var hasHangul = false
    var i = text.lowerBound
    while i < text.upperBound {
      let (value, length) = scalar(at: i)
      if isSimpleHangul(value) {
        hasHangul = true
        break
      }
      i += length
    }
    guard hasHangul else { return false }
    // Not empty: it holds a Hangul scalar.
    switch scalar(before: text.upperBound).value {
    case 0x21, 0x3F, 0xFF01, 0xFF1F: return false  // ! ? ！ ？
    default: break
    }
    let bare = withoutTrailingPeriods(text)
    guard !bare.isEmpty else { return false }
    let last = scalar(before: bare.upperBound)
    switch last.value {
    case 0xB2E4, 0xC694, 0xC8E0: return false  // 다 요 죠
    case 0xC624:  // 오, ending 시오?
      let end = bare.upperBound - last.length
      if end > bare.lowerBound, scalar(before: end).value == 0xC2DC { return false }  // 시
      return true
    default: return true
    }
  }

  /// How long a voice takes to say this text, exactly as ``Phrasebook/speechDuration(of:)``
  /// computes it for the same text as a `String` (the same additions in the same order).
  func speechDuration(_ language: Language) -> Double {
    var seconds = 0.3
    switch language {
    case .en:
      seconds += Double(characterCount) / 15
    case .ko:
      // One addition per `Character`, in order, judged by the lead byte: in simple text a
      // three-byte scalar led by 0xEA…0xED is a syllable (U+AC00…U+D7A3), and one led by 0xE3
      // is a compatibility jamo when it lies in U+3131…U+318E.
      guard let base = bytes.baseAddress else { break }
      let count = bytes.count
      var i = 0
      var afterCR = false
      while i < count {
        let lead = base[i]
        let hangul: Bool
        if lead < 0x80 {
          i += 1
          // CR LF is one `Character`, counted once as the CR.
          if lead == 0x0A && afterCR {
            afterCR = false
            continue
          }
          afterCR = lead == 0x0D
          hangul = false
        } else if lead < 0xE0 {
          i += 2
          afterCR = false
          hangul = false
        } else if lead < 0xF0 {
          hangul =
            lead >= 0xEA && lead <= 0xED
            || lead == 0xE3 && isSimpleHangul(decodeScalar(base, at: i).value)
          i += 3
          afterCR = false
        } else {
          i += 4
          afterCR = false
          hangul = false
        }
        seconds += hangul ? 1 / 6.5 : 1 / 15
      }
    }
    return max(0.5, seconds)
  }

  /// The number of `Character`s: scalars (bytes that are not UTF-8 continuation bytes), with
  /// each CR LF counted once.
  var characterCount: Int {
    guard let base = bytes.baseAddress else { return 0 }
    let count = bytes.count
    var characters = count
    var mayHaveCR = false
    var i = 0
    // Eight bytes at a time: continuation bytes are 0b10xxxxxx; a CR only flags a slow count.
    while i + 8 <= count {
      let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
      characters -= (word & ~(word << 1) & 0x8080_8080_8080_8080).nonzeroBitCount
      let carriageReturns = word ^ 0x0D0D_0D0D_0D0D_0D0D
      if (carriageReturns &- 0x0101_0101_0101_0101) & ~carriageReturns & 0x8080_8080_8080_8080
        != 0
      {
        mayHaveCR = true
      }
      i += 8
    }
    while i < count {
      let byte = base[i]
      if byte & 0xC0 == 0x80 { characters -= 1 }
      if byte == 0x0D { mayHaveCR = true }
      i += 1
    }
    if mayHaveCR {
      for j in 1..<max(1, count) where base[j] == 0x0A && base[j - 1] == 0x0D { characters -= 1 }
    }
    return characters
  }
}

/// Decodes the multi-byte UTF-8 scalar whose lead byte is at `base[offset]`.
///
/// The bytes must be valid UTF-8 (a `String`'s contents always are).
@inline(__always)
func decodeScalar(_ base: UnsafePointer<UInt8>, at offset: Int) -> (value: UInt32, length: Int) {
  let lead = UInt32(base[offset])
  if lead < 0x80 { return (lead, 1) }
  if lead < 0xE0 {
    return ((lead & 0x1F) << 6 | UInt32(base[offset + 1]) & 0x3F, 2)
  }
  if lead < 0xF0 {
    return (
      (lead & 0x0F) << 12 | (UInt32(base[offset + 1]) & 0x3F) << 6 | UInt32(base[offset + 2])
        & 0x3F, 3
    )
  }
  return (
    (lead & 0x07) << 18 | (UInt32(base[offset + 1]) & 0x3F) << 12
      | (UInt32(base[offset + 2]) & 0x3F) << 6 | UInt32(base[offset + 3]) & 0x3F, 4
  )
}

/// `body` applied to the UTF-8 of `text` when it is simple text, `nil` when it is not.
@inline(__always)
func withSimpleText<Result>(_ text: String, _ body: (SimpleText) -> Result) -> Result? {
  text.utf8.withContiguousStorageIfAvailable { bytes in SimpleText(bytes).map(body) } ?? nil
}
