/// Byte scans of the reader's hot path, eight bytes at a time.
///
/// A sentence that lies whole in the input is scanned once (``frame(_:from:limit:)``: its
/// line end, and on the way its checksum and printability); a copied one twice
/// (``lineEnd(_:from:limit:)`` while framing, ``body(_:from:to:)`` when decoding). A byte at a
/// time those loops were half of the reader's time (perf, `docs/notebook/profiling.md`). Only a
/// sentence of a type the reader decodes has its fields counted (``commas(_:from:to:)``): about
/// half of a receiver's sentences (GSV, proprietary ones) are checked and skipped.
///
/// The word tests below are exact for every byte: no carry crosses from one byte into the
/// next, so a mark is set for a byte exactly when that byte matches. ``special(_:)`` alone is
/// exact only for the word as a whole: it lets a word of ordinary sentence bytes skip the others.
enum NMEAScan {
  /// Every byte `0x01`: `repeating(b)` is `b` in each byte.
  private static let ones: UInt64 = 0x0101_0101_0101_0101
  /// The low seven bits of each byte.
  private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
  /// The high bit of each byte.
  private static let high: UInt64 = 0x8080_8080_8080_8080

  @inline(__always)
  private static func repeating(_ b: UInt8) -> UInt64 { ones &* UInt64(b) }

  /// The high bit of each byte of `v` that is zero, and nothing else.
  @inline(__always)
  private static func zeroBytes(_ v: UInt64) -> UInt64 {
    ~(((v & low7) &+ low7) | v | low7)
  }

  /// The high bit of each byte of `v` equal to `b`.
  @inline(__always)
  private static func equalBytes(_ v: UInt64, _ b: UInt8) -> UInt64 {
    zeroBytes(v ^ repeating(b))
  }

  /// The high bit of each byte of `v` outside printable ASCII (below `0x20` or above `0x7E`).
  @inline(__always)
  private static func unprintableBytes(_ v: UInt64) -> UInt64 {
    // A byte below 0x80 plus 0x60 reaches 0x80 exactly when it is at least 0x20.
    (v & high) | equalBytes(v, 0x7F) | (~((v & low7) &+ repeating(0x60)) & high)
  }

  /// Nonzero when some byte of `v` may stop a scan or spoil a body.
  ///
  /// Such a byte is below `,` (CR, LF, `$`, `*` and every control byte are) or from `0x7F` up.
  /// The result is zero exactly when there is none, so a word of digits, letters, commas and
  /// points passes with about eight operations instead of the exact tests' forty.
  ///
  /// The subtraction's borrow can mark a byte above a marked one, so the result is only
  /// compared with zero: the lowest byte below `,` is always marked, and without one nothing
  /// borrows.
  @inline(__always)
  private static func special(_ v: UInt64) -> UInt64 {
    (((v &- repeating(44)) & ~v) | v | ((v & low7) &+ ones)) & high
  }

  /// How many bytes of a mask from the tests above are marked.
  ///
  /// A multiply adds the bytes' 0 or 1 into the top byte: `nonzeroBitCount` has no instruction
  /// on baseline x86-64.
  @inline(__always)
  private static func marks(_ mask: UInt64) -> Int {
    Int(((mask >> 7) &* ones) >> 56)
  }

  @inline(__always)
  private static func word(_ base: UnsafePointer<UInt8>, _ i: Int) -> UInt64 {
    UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
  }

  /// The index of the first CR, LF or `$` in `bytes[start..<limit]`, or `limit`.
  @inline(__always)
  static func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Int {
    guard let base = bytes.baseAddress else { return limit }
    var i = start
    while i + 8 <= limit {
      let w = word(base, i)
      let m = equalBytes(w, 10) | equalBytes(w, 13) | equalBytes(w, 36)
      if m != 0 { return i + m.trailingZeroBitCount / 8 }
      i += 8
    }
    while i < limit {
      let c = base[i]
      if c == 10 || c == 13 || c == 36 { return i }
      i += 1
    }
    return limit
  }

  /// The line end of a sentence, as ``lineEnd(_:from:limit:)`` finds it, with
  /// ``body(_:from:to:)`` of `bytes[start...]` worked out in the same pass when a `*` comes
  /// before the line end (`nil` otherwise: without a checksum the decoder trims trailing blanks
  /// first, so it scans the body itself).
  @inline(__always)
  static func frame(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int
  ) -> (end: Int, body: Body?) {
    guard let base = bytes.baseAddress else { return (limit, nil) }
    var i = start
    var tally = Tally()
    while i + 8 <= limit {
      let w = word(base, i)
      if special(w) == 0 {
        tally.add(plainWord: w)
      } else {
        let stop = equalBytes(w, 10) | equalBytes(w, 13) | equalBytes(w, 36) | equalBytes(w, 42)
        if stop != 0 { break }  // a line end or a `*`: the bytes one by one from here
        tally.add(word: w)
      }
      i += 8
    }
    tally.endWords()
    while i < limit {
      let b = base[i]
      if b == 10 || b == 13 || b == 36 { return (i, nil) }
      if b == 42 { return (lineEnd(bytes, from: i + 1, limit: limit), tally.body(star: i)) }
      tally.add(byte: b)
      i += 1
    }
    return (limit, nil)
  }

  /// What one pass over a sentence body tells: where its `*` is, the XOR of the bytes before
  /// it, and whether any of them is not printable ASCII.
  struct Body {
    /// The index of the first `*`, or -1.
    var star = -1
    var sum: UInt8 = 0
    var unprintable = false
  }

  /// A ``Body`` in the making: words first, then bytes.
  private struct Tally {
    var words: UInt64 = 0
    var bad: UInt64 = 0
    var sum: UInt8 = 0
    var unprintable = false

    /// A word ``special(_:)`` passed: printable, so only its XOR counts.
    @inline(__always)
    mutating func add(plainWord w: UInt64) {
      words ^= w
    }

    @inline(__always)
    mutating func add(word w: UInt64) {
      words ^= w
      bad |= unprintableBytes(w)
    }

    /// Folds the words' XOR into one byte; bytes come next.
    @inline(__always)
    mutating func endWords() {
      var v = words
      v ^= v >> 32
      v ^= v >> 16
      v ^= v >> 8
      sum = UInt8(truncatingIfNeeded: v)
      unprintable = bad != 0
    }

    @inline(__always)
    mutating func add(byte b: UInt8) {
      sum ^= b
      unprintable = unprintable || b < 0x20 || b > 0x7E
    }

    @inline(__always)
    func body(star: Int) -> Body {
      Body(star: star, sum: sum, unprintable: unprintable)
    }
  }

  /// Scans `sentence[start..<end]` up to its first `*`.
  @inline(__always)
  static func body(_ sentence: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Body {
    guard let base = sentence.baseAddress else { return Body() }
    var i = start
    var tally = Tally()
    while i + 8 <= end {
      let w = word(base, i)
      if special(w) == 0 {
        tally.add(plainWord: w)
      } else {
        if equalBytes(w, 42) != 0 { break }  // a `*`: the bytes one by one from here
        tally.add(word: w)
      }
      i += 8
    }
    tally.endWords()
    while i < end {
      let b = base[i]
      if b == 42 { return tally.body(star: i) }
      tally.add(byte: b)
      i += 1
    }
    return tally.body(star: -1)
  }

  /// How many commas `sentence[start..<end]` holds.
  @inline(__always)
  static func commas(_ sentence: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
    guard let base = sentence.baseAddress else { return 0 }
    var i = start
    var n = 0
    while i + 8 <= end {
      n += marks(equalBytes(word(base, i), 44))
      i += 8
    }
    while i < end {
      if base[i] == 44 { n += 1 }
      i += 1
    }
    return n
  }
}
