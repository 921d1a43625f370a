import Foundation
import Geodesy
import TestSupport
import Testing

@testable import NMEA

/// The reader's fast paths against what they replace: the word-at-a-time scans against the
/// byte loops, and a sentence decoded where it lies in the input against the same sentence
/// copied first (fed a byte at a time, every sentence takes the copying path).
@Suite struct NMEAFastPathTests {
  typealias Random = Xorshift

  /// The body scan as a byte loop: `*`, XOR and printability.
  static func referenceBody(_ b: [UInt8], from start: Int, to end: Int) -> NMEAScan.Body {
    var r = NMEAScan.Body()
    var i = start
    while i < end {
      let c = b[i]
      if c == 42 {
        r.star = i
        break
      }
      r.sum ^= c
      r.unprintable = r.unprintable || c < 0x20 || c > 0x7E
      i += 1
    }
    return r
  }

  static func referenceLineEnd(_ b: [UInt8], from start: Int, limit: Int) -> Int {
    var i = start
    while i < limit, b[i] != 10, b[i] != 13, b[i] != 36 { i += 1 }
    return i
  }

  /// Bytes drawn mostly from what sentences hold, with the delimiters and some of everything.
  static func bytes(_ rng: inout Random, count: Int) -> [UInt8] {
    let common = Array("GPRMC,0123456789.NSEW,*$\r\n".utf8)
    return (0..<count).map { _ in
      rng.below(4) == 0 ? UInt8(truncatingIfNeeded: rng.next()) : common[rng.below(common.count)]
    }
  }

  /// Sentence bytes, and now and then one that the word scans must tell apart.
  ///
  /// That is a control byte, CR, LF, `$`, `*`, a blank or other punctuation below `,`, `0x7F`
  /// or a byte from `0x80` up. Most words are then of the fast kind, and the rest differ from
  /// it by one byte.
  static func sentenceBytes(_ rng: inout Random, count: Int) -> [UInt8] {
    let common = Array("GPRMC,0123456789.NSEW-".utf8)
    let rare: [UInt8] = [0, 9, 10, 13, 0x20, 0x21, 0x24, 0x2A, 0x2B, 0x7E, 0x7F, 0x80, 0xAC, 0xFF]
    return (0..<count).map { _ in
      rng.below(24) == 0 ? rare[rng.below(rare.count)] : common[rng.below(common.count)]
    }
  }

  @Test(arguments: [false, true])
  func wordScansFindWhatTheByteLoopsFind(mostlySentenceBytes: Bool) {
    var rng = Random(x: mostlySentenceBytes ? 0x9E37_79B9_7F4A_7C15 : 0x2545_F491_4F6C_DD1D)
    for _ in 0..<5000 {
      let count = rng.below(140)
      let b =
        mostlySentenceBytes
        ? Self.sentenceBytes(&rng, count: count) : Self.bytes(&rng, count: count)
      let start = b.isEmpty ? 0 : rng.below(b.count)
      let end = start + rng.below(b.count - start + 1)
      let scan = b.withUnsafeBufferPointer { NMEAScan.body($0, from: start, to: end) }
      let reference = Self.referenceBody(b, from: start, to: end)
      #expect(scan.star == reference.star, "\(b)")
      #expect(scan.sum == reference.sum, "\(b)")
      #expect(scan.unprintable == reference.unprintable, "\(b)")
      let commas = b.withUnsafeBufferPointer { NMEAScan.commas($0, from: start, to: end) }
      #expect(commas == b[start..<end].count { $0 == 44 }, "\(b)")
      let found = b.withUnsafeBufferPointer { NMEAScan.lineEnd($0, from: start, limit: end) }
      let lineEnd = Self.referenceLineEnd(b, from: start, limit: end)
      #expect(found == lineEnd, "\(b)")
      // Framing: the same line end, and the body when a `*` comes before it.
      let framed = b.withUnsafeBufferPointer { NMEAScan.frame($0, from: start, limit: end) }
      #expect(framed.end == lineEnd, "\(b)")
      let before = Self.referenceBody(b, from: start, to: lineEnd)
      #expect((framed.body != nil) == (before.star >= 0), "\(b)")
      if let body = framed.body {
        #expect(body.star == before.star, "\(b)")
        #expect(body.sum == before.sum, "\(b)")
        #expect(body.unprintable == before.unprintable, "\(b)")
      }
    }
  }

  /// Sentences of the benchmark's kinds, some damaged: a byte changed, a byte dropped, cut
  /// short, a `$` inside, grown past the length limit, no checksum, binary.
  static func stream(_ rng: inout Random, sentences: Int) -> [UInt8] {
    let bodies = [
      "GPRMC,110640.00,A,4808.2342,N,01134.5751,E,25.62,45.7,181126,3.3,E,A",
      "GPGGA,110640.00,4808.2342,N,01134.5751,E,1,08,0.7,520.0,M,47.9,M,,",
      "GPGSA,A,3,06,07,10,21,24,25,26,27,,,,,1.1,0.7,1.1",
      "GPGSV,2,1,08,06,57,318,34,07,09,071,34,10,35,050,20,21,17,213,43",
      "GNRMC,110641.00,V,,,,,,,181126,,,N",
      "GPVTG,45.7,T,,M,25.62,N,47.45,K,A",
      "PGRME,15.0,M,45.0,M,25.0,M",
    ]
    let ends = ["\r\n", "\n", "\r", "\r\r\n"]
    var out: [UInt8] = []
    var second = 0
    for _ in 0..<sentences {
      var body = bodies[rng.below(bodies.count)]
      if body.contains("110640.00") {
        if rng.below(3) == 0 { second += 1 }
        let hh = 11 + second / 3600
        let mm = second / 60 % 60
        let ss = second % 60
        let time = [hh, mm, ss].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined()
        body = body.replacingOccurrences(of: "110640", with: time)
      }
      var line = Array(NMEASentence.frame(body).utf8.dropLast(2))
      switch rng.below(12) {
      case 0: line[1 + rng.below(line.count - 1)] = UInt8(truncatingIfNeeded: rng.next())
      case 1: line.remove(at: 1 + rng.below(line.count - 1))
      case 2: line = Array(line.prefix(1 + rng.below(line.count)))
      case 3: line.insert(36, at: 1 + rng.below(line.count - 1))
      case 4: line += Array(repeating: 65, count: 40 + rng.below(40))
      case 5: line = Array(line.prefix(while: { $0 != 42 }))
      case 6: out += Self.bytes(&rng, count: rng.below(30))
      default: break
      }
      out += line
      out += Array(ends[rng.below(ends.count)].utf8)
    }
    return out
  }

  @Test func sentencesDecodedInPlaceMatchCopiedSentences() {
    var rng = Random(x: 0x9E37_79B9_7F4A_7C15)
    for round in 0..<60 {
      let input = Self.stream(&rng, sentences: 200)
      let whole = NMEATestInput.read(input)
      #expect(whole.statistics.epochs > 0, "round \(round)")
      for chunk in [1, 7, 100 + rng.below(200)] {
        let split = NMEATestInput.read(input, chunk: chunk)
        #expect(split.fixes == whole.fixes, "round \(round), chunk \(chunk)")
        #expect(split.statistics == whole.statistics, "round \(round), chunk \(chunk)")
        #expect(split.rejections == whole.rejections, "round \(round), chunk \(chunk)")
      }
    }
  }
}
