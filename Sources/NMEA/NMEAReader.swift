public import Geodesy

/// Reads an NMEA 0183 byte stream and assembles receiver epochs into ``Geodesy/Fix`` values.
///
/// Feed it bytes in chunks of any size; it returns each epoch once the next one starts, and the
/// last one from ``finish()``. It does no I/O and reads no clock.
///
/// **Sentences.** RMC, GGA, GNS, GLL, VTG, GSA, GST and ZDA are decoded from any talker (any two
/// uppercase letters: `GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `GQ`, `QZ`, `GI`, …). Proprietary
/// sentences (`$P…`), GSV and every other type are counted as skipped.
///
/// **Checksums.** A sentence whose `*HH` does not match (hex in either case) or cannot be read is
/// dropped and counted in ``NMEAStatistics/badChecksum``. A sentence *without* a checksum is
/// accepted, as gpsd 3.22 and many receivers do (the HP 58534A sends none at all), and counted
/// in ``NMEAStatistics/missingChecksum``. Such a sentence must still have the full field count
/// of its type, which catches most lines cut short.
///
/// **Framing.** Lines may end in CR LF, LF, CR or CR CR LF. A `$` inside a line starts a new
/// sentence; what came before it is rejected as truncated, except a lone `$` (the `$$` prefix
/// of ST Teseo receivers). Bytes outside sentences are counted as garbage, lines starting with
/// `#` as comments. Sentences longer than ``maximumSentenceLength`` bytes are rejected as
/// overlong; the reader keeps at most that many bytes of any line, so binary input can neither
/// grow memory nor stall it.
///
/// **Epochs.** Sentences are grouped by their UTC time of day (within 10 ms). An epoch is closed
/// when a timed sentence with another time arrives, or by ``finish()``; untimed GSA and VTG
/// join the open epoch. Only epochs with an RMC, GGA, GNS or GLL are emitted: an epoch of ZDA or
/// GST alone carries no word on the fix and is dropped silently. A timed sentence older than an
/// epoch already emitted (or than the open one) is dropped and counted in
/// ``NMEAStatistics/outOfOrder``, together with the untimed sentences that follow it.
///
/// **Validity.** An epoch is a fix only when a sentence says so (RMC status `A`, GGA quality
/// above 0, GSA mode 2 or 3, a GNS mode other than all `N`, GLL status `A`) and none says
/// otherwise (RMC or GLL status `V`, FAA mode `N`, GGA quality 0, GSA mode 1, GNS mode all `N`).
/// Otherwise it is emitted as ``Geodesy/Fix/noFix(time:)``. The NMEA 4.1 navigational status
/// of RMC and GNS is ignored.
///
/// **Dates.** The date comes from ZDA (four-digit year, preferred) or RMC (`yy` 80–99 is 19yy,
/// 00–79 is 20yy). Sentences without a date take the day that puts them within 12 hours of the
/// latest time seen, so the date rolls over at midnight even before the next RMC or ZDA. Until
/// any date is known the day is 1970-01-01; such fixes are not marked. Dates are taken as sent:
/// no GPS week rollover correction is applied. An RMC or ZDA that moves the date back by more
/// than 12 hours restarts the out-of-order check instead of silencing the rest of the stream.
public struct NMEAReader: Sendable {
  /// The longest sentence accepted, in bytes from `$` to the line end.
  ///
  /// NMEA allows 82 with CR LF; high-precision u-blox sentences reach 87 and Android `$PGLOR` 118.
  public static let maximumSentenceLength = 120

  /// What has been read so far.
  public private(set) var statistics = NMEAStatistics()

  /// Called for every rejected line when set, such as for `--verbose`.
  ///
  /// Rejections are only rendered when this is set, so leaving it `nil` costs nothing.
  public var onReject: (@Sendable (NMEARejection) -> Void)?

  private enum Mode: Sendable {
    /// At the start of a line, nothing kept.
    case lineStart
    /// Inside a `#` comment line.
    case comment
    /// Inside bytes that belong to no sentence.
    case garbage
    /// Inside a sentence; `pending` starts with `$`.
    case sentence
  }

  private var mode = Mode.lineStart
  /// The current sentence or garbage run, at most `maximumSentenceLength` bytes.
  private var pending: [UInt8] = []
  /// The full length of the current sentence or garbage run, including bytes not kept.
  private var pendingLength = 0
  /// The line where `pending` started.
  private var pendingLine = 1
  /// The current line, 1-based.
  private var line = 1
  /// A CR was the last byte: the line ends unless an LF (or another CR) follows.
  private var afterCR = false
  private var assembler = NMEAEpochAssembler()
  /// The sentence being decoded, reused for every sentence.
  private var decoded = DecodedSentence(kind: .rmc, combined: false)

  /// Creates a reader.
  public init() {
    pending.reserveCapacity(Self.maximumSentenceLength)
  }

  /// Reads raw bytes, which may split lines anywhere.
  ///
  /// - Parameter bytes: The next bytes of the stream.
  /// - Returns: The epochs completed by these bytes, oldest first.
  public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> [Fix] {
    var fixes: [Fix] = []
    let n = bytes.count
    var i = 0
    while i < n {
      let b = bytes[i]
      if b == 10 || b == 13 {
        endOfLine(&fixes)
        if b == 10 {
          line += 1
          afterCR = false
        } else {
          afterCR = true
        }
        i += 1
        continue
      }
      if afterCR {
        line += 1
        afterCR = false
      }
      switch mode {
      case .lineStart:
        if b == 36 {  // $
          // A whole sentence inside these bytes is decoded where it lies, without copying it.
          let limit = min(n, i + Self.maximumSentenceLength + 1)
          let line = UnsafeBufferPointer(rebasing: bytes[i..<limit])
          let (length, scanned) = NMEAScan.frame(line, from: 1, limit: line.count)
          if length < line.count, line[length] != 36, length > 1 {
            process(UnsafeBufferPointer(rebasing: line[..<length]), scanned: scanned, &fixes)
            i += length
            continue
          }
          startSentence()
        } else if b == 35 {  // #
          mode = .comment
          statistics.comments += 1
        } else if b != 32 && b != 9 {
          mode = .garbage
          pendingLine = line
          pendingLength = 0
          pending.removeAll(keepingCapacity: true)
          keep(b)
        }
        i += 1
      case .comment:
        i += 1
        while i < n, bytes[i] != 10, bytes[i] != 13 { i += 1 }
      case .garbage:
        if b == 36 {
          rejectPending(.garbage)
          startSentence()
        } else {
          keep(b)
        }
        i += 1
      case .sentence:
        if b == 36 {
          if pendingLength > 1 {
            rejectPending(
              pendingLength > Self.maximumSentenceLength
                ? .overlong(length: pendingLength) : .truncated)
          }
          startSentence()
          i += 1
          continue
        }
        // Copy the run up to the next CR, LF or `$` at once.
        var j = i + 1
        while j < n {
          let c = bytes[j]
          if c == 10 || c == 13 || c == 36 { break }
          j += 1
        }
        let room = Self.maximumSentenceLength - pending.count
        if room > 0 {
          pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<min(j, i + room)]))
        }
        pendingLength += j - i
        i = j
      }
    }
    return fixes
  }

  /// Reads raw bytes, which may split lines anywhere.
  ///
  /// - Parameter bytes: The next bytes of the stream.
  /// - Returns: The epochs completed by these bytes, oldest first.
  public mutating func feed(_ bytes: [UInt8]) -> [Fix] {
    bytes.withUnsafeBufferPointer { feed($0) }
  }

  /// Ends the input: reads a last line that has no line end and closes the open epoch.
  ///
  /// The reader can be fed again afterwards; the date and the out-of-order check carry on.
  ///
  /// - Returns: The remaining epochs, oldest first.
  public mutating func finish() -> [Fix] {
    var fixes: [Fix] = []
    endOfLine(&fixes)
    if let fix = assembler.flush() { emit(fix, &fixes) }
    return fixes
  }

  // MARK: - Framing

  @inline(__always)
  private mutating func keep(_ b: UInt8) {
    if pending.count < Self.maximumSentenceLength { pending.append(b) }
    pendingLength += 1
  }

  private mutating func startSentence() {
    mode = .sentence
    pendingLine = line
    pending.removeAll(keepingCapacity: true)
    pending.append(36)
    pendingLength = 1
  }

  private mutating func endOfLine(_ fixes: inout [Fix]) {
    switch mode {
    case .lineStart, .comment:
      break
    case .garbage:
      rejectPending(.garbage)
    case .sentence:
      if pendingLength > Self.maximumSentenceLength {
        rejectPending(.overlong(length: pendingLength))
      } else if pendingLength > 1 {
        process(&fixes)
      }
    }
    mode = .lineStart
  }

  private mutating func rejectPending(_ reason: NMEARejection.Reason) {
    count(reason)
    if let onReject {
      let text = NMEARejection.render(pending, more: pendingLength > pending.count)
      onReject(NMEARejection(line: pendingLine, reason: reason, text: text))
    }
  }

  /// Rejects `sentence`, a whole sentence of the current line that was never copied, or
  /// `pending` when `sentence` is `nil`.
  private mutating func reject(
    _ sentence: UnsafeBufferPointer<UInt8>?, _ reason: NMEARejection.Reason
  ) {
    guard let sentence else { return rejectPending(reason) }
    count(reason)
    if let onReject {
      onReject(NMEARejection(line: line, reason: reason, text: NMEARejection.render(sentence)))
    }
  }

  private mutating func count(_ reason: NMEARejection.Reason) {
    switch reason {
    case .badChecksum: statistics.badChecksum += 1
    case .malformed: statistics.malformed += 1
    case .overlong: statistics.overlong += 1
    case .truncated: statistics.truncated += 1
    case .garbage: statistics.garbage += 1
    case .outOfOrder: statistics.outOfOrder += 1
    }
  }

  // MARK: - Sentences

  private mutating func process(_ fixes: inout [Fix]) {
    var missingChecksum = false
    var sentence = decoded
    let result = pending.withUnsafeBufferPointer {
      NMEADecoder.decode($0, missingChecksum: &missingChecksum, into: &sentence)
    }
    decoded = sentence
    apply(result, missingChecksum: missingChecksum, from: nil, &fixes)
  }

  /// Decodes a whole sentence of the current line in place: the bytes from `$` to the line end,
  /// with its body already scanned when framing found its `*`.
  private mutating func process(
    _ sentence: UnsafeBufferPointer<UInt8>, scanned: NMEAScan.Body?, _ fixes: inout [Fix]
  ) {
    var missingChecksum = false
    let result = NMEADecoder.decode(
      sentence, scanned: scanned, missingChecksum: &missingChecksum, into: &decoded)
    apply(result, missingChecksum: missingChecksum, from: sentence, &fixes)
  }

  /// Counts and merges a decoded sentence; `sentence` is its bytes when they are not `pending`.
  private mutating func apply(
    _ result: NMEADecodeResult, missingChecksum: Bool, from sentence: UnsafeBufferPointer<UInt8>?,
    _ fixes: inout [Fix]
  ) {
    if missingChecksum { statistics.missingChecksum += 1 }
    switch result {
    case .skipped:
      statistics.skipped += 1
    case .badChecksum(let expected, let actual):
      reject(sentence, .badChecksum(expected: expected, actual: actual))
    case .malformed(let field):
      reject(sentence, .malformed(field: field))
    case .decoded:
      let outcome = assembler.ingest(decoded)
      if outcome.accepted {
        statistics.sentences += 1
      } else {
        reject(sentence, .outOfOrder)
      }
      if let fix = outcome.emitted { emit(fix, &fixes) }
    }
  }

  private mutating func emit(_ fix: Fix, _ fixes: inout [Fix]) {
    statistics.epochs += 1
    if fix.coordinate == nil { statistics.noFixEpochs += 1 }
    fixes.append(fix)
  }
}
