/// A fixed-size UTF-8 buffer that announcement text is written into, with the sentence helpers of
/// Sentences.swift as in-place operations.
///
/// Everything written must be simple text (see ``SimpleText``), so that the helpers can work
/// on bytes and scalars. Writes that do not fit set ``overflowed`` instead of writing; a caller
/// that sees it set must discard the text. Writes whose result would not be simple text (a case
/// mapping that yields a combining mark) set ``unsupported``, and the caller must use the
/// `Character` path instead.
struct AnnouncementBuffer {
  /// The first byte of the storage.
  private let base: UnsafeMutablePointer<UInt8>
  /// The size of the storage, in bytes.
  let capacity: Int
  /// The number of bytes written.
  private(set) var count = 0
  /// Whether a write did not fit.
  private(set) var overflowed = false
  /// Whether a write would have made text that is not simple.
  private(set) var unsupported = false

  /// A buffer over `storage`, which must stay valid as long as the buffer is used; `nil` when
  /// `storage` has no memory at all.
  init?(_ storage: UnsafeMutableBufferPointer<UInt8>) {
    guard let base = storage.baseAddress else { return nil }
    self.base = base
    capacity = storage.count
  }

  /// Whether the text in the buffer can be used.
  var isComplete: Bool { !overflowed && !unsupported }

  /// The bytes written from `start` on, as simple text.
  func text(from start: Int = 0) -> SimpleText {
    SimpleText(unchecked: UnsafeBufferPointer(start: base + start, count: count - start))
  }

  /// Makes room for `length` more bytes; `false` (and ``overflowed`` set) when they do not fit.
  @inline(__always)
  private mutating func reserve(_ length: Int) -> Bool {
    guard count + length <= capacity else {
      overflowed = true
      return false
    }
    return true
  }

  /// Appends one ASCII byte.
  mutating func append(ascii byte: UInt8) {
    guard reserve(1) else { return }
    base[count] = byte
    count += 1
  }

  /// Appends bytes that are simple text.
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard !bytes.isEmpty, let source = bytes.baseAddress, reserve(bytes.count) else { return }
    (base + count).update(from: source, count: bytes.count)
    count += bytes.count
  }

  /// Appends simple text.
  mutating func append(_ text: SimpleText) { append(text.bytes) }

  /// Appends a literal, which must be simple text (the glue of every announcement is).
  mutating func append(_ literal: StaticString) {
    literal.withUTF8Buffer { append($0) }
  }

  /// Appends a string this module made (a number, an ordinal), which must be simple text.
  mutating func append(contentsOf string: String) {
    var string = string
    string.withUTF8 { append($0) }
  }

  /// Appends a string made by a case mapping, which may fall outside simple text.
  private mutating func appendMapped(_ string: String) {
    var string = string
    string.withUTF8 { bytes in
      guard SimpleText.isSimple(bytes) else {
        unsupported = true
        return
      }
      append(bytes)
    }
  }

  /// Appends `value` in decimal, as `"\(value)"` writes it.
  mutating func append(decimal value: Int) {
    if value < 0 { append(ascii: UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var length = 1
    var rest = magnitude / 10
    while rest != 0 {
      length += 1
      rest /= 10
    }
    guard reserve(length) else { return }
    var i = count + length
    repeat {
      i -= 1
      base[i] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
      magnitude /= 10
    } while magnitude != 0
    count += length
  }

  /// Drops the bytes from `length` on.
  mutating func truncate(to length: Int) {
    count = min(count, length)
  }

  /// Makes the bytes from `start` on one sentence, like ``terminated(_:)`` does to a string:
  /// trimmed, trailing periods collapsed to one, "." appended unless another sentence mark
  /// already ends it.
  ///
  /// Empty text stays empty.
  mutating func terminate(from start: Int) {
    let region = text(from: start)
    let kept = region.withoutTrailingPeriods(0..<region.count)
    if kept.lowerBound > 0 {
      (base + start).update(from: base + start + kept.lowerBound, count: kept.count)
    }
    count = start + kept.count
    guard !kept.isEmpty else { return }
    if !isFinalPunctuation(text(from: start).scalar(before: count - start).value) {
      append(ascii: UInt8(ascii: "."))
    }
  }

  /// Appends an English instruction as the continuation of a sentence, like
  /// ``lowercasingLead(_:)``.
  mutating func appendLowercasingLead(_ instruction: SimpleText) {
    guard instruction.count > 0 else { return }
    // Past-tense arrivals ("You have arrived at …") are said in the future.
    if instruction.bytes[0] == UInt8(ascii: "Y") {
      if instruction.hasASCIIPrefix("You have arrived") {
        append("you will arrive")
        append(instruction.slice(16..<instruction.count))
        return
      }
      if instruction.hasASCIIPrefix("You have reached") {
        append("you will reach")
        append(instruction.slice(16..<instruction.count))
        return
      }
    }
    let (first, firstLength) = instruction.scalar(at: 0)
    guard first < 0x80 ? (0x41...0x5A).contains(first) : character(first).isUppercase else {
      append(instruction)
      return
    }
    // The first word decides: a digit or an acronym keeps the capital.
    var letters = 0
    var allUppercase = true
    var i = 0
    while i < instruction.count {
      let (value, length) = instruction.scalar(at: i)
      if isSimpleWhitespace(value) { break }
      if value < 0x80 {
        switch value {
        case 0x30...0x39:
          append(instruction)
          return
        case 0x41...0x5A:
          letters += 1
        case 0x61...0x7A:
          letters += 1
          allUppercase = false
        default:
          break
        }
      } else {
        let c = character(value)
        if c.isNumber {
          append(instruction)
          return
        }
        if c.isLetter {
          letters += 1
          if !c.isUppercase { allUppercase = false }
        }
      }
      i += length
    }
    if letters >= 2 && allUppercase {
      append(instruction)
      return
    }
    if first < 0x80 {
      append(ascii: UInt8(truncatingIfNeeded: first) | 0x20)
    } else {
      appendMapped(character(first).lowercased())
    }
    append(instruction.slice(firstLength..<instruction.count))
  }

  /// Appends an English instruction as the start of a sentence, like ``capitalizingLead(_:)``.
  mutating func appendCapitalizingLead(_ instruction: SimpleText) {
    guard instruction.count > 0 else { return }
    let (first, firstLength) = instruction.scalar(at: 0)
    if first < 0x80 {
      guard (0x61...0x7A).contains(first) else {
        append(instruction)
        return
      }
      append(ascii: UInt8(truncatingIfNeeded: first) - 0x20)
    } else {
      let firstCharacter = character(first)
      guard firstCharacter.isLowercase else {
        append(instruction)
        return
      }
      appendMapped(firstCharacter.uppercased())
    }
    append(instruction.slice(firstLength..<instruction.count))
  }
}

/// The `Character` made of the single scalar `value` (a scalar decoded from valid UTF-8).
private func character(_ value: UInt32) -> Character {
  Character(Unicode.Scalar(value) ?? "\u{FFFD}")
}
