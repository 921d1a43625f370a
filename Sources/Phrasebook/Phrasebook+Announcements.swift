internal import Guidance
import Routes

// The byte-level twin of `english(_:)` and `korean(_:)` for the messages that embed router
// text (maneuvers, departure, arrival, notices). It writes the same bytes into one buffer,
// without intermediate strings, as long as the embedded text is simple (see ``SimpleText``);
// otherwise it declines and the `Character`-based phrasing runs instead. Each step below
// mirrors a line of Phrasebook.swift, whose comments explain the wording.

extension Phrasebook {
  /// The text for `message` built from bytes, or `nil` when the message has no byte-level
  /// phrasing or embeds text that is not simple.
  func announcementText(for message: AnnouncementMessage) -> String? {
    guard let capacity = announcementCapacity(for: message) else { return nil }
    var complete = false
    let text = String(unsafeUninitializedCapacity: capacity) { storage in
      guard var buffer = AnnouncementBuffer(storage), write(message, into: &buffer),
        buffer.isComplete
      else { return 0 }
      complete = true
      return buffer.count
    }
    return complete ? text : nil
  }

  /// ``speechDuration(of:)`` of the text for `message`, measured on bytes without making a
  /// string, or `nil` when ``announcementText(for:)`` would be `nil`.
  func announcementSpeechDuration(for message: AnnouncementMessage) -> Double? {
    guard let capacity = announcementCapacity(for: message) else { return nil }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { storage in
      guard var buffer = AnnouncementBuffer(storage), write(message, into: &buffer),
        buffer.isComplete
      else { return nil }
      return buffer.text().speechDuration(language)
    }
  }

  /// An upper bound of the UTF-8 length of the text for `message`, in bytes, or `nil` when
  /// it has no byte-level phrasing.
  ///
  /// The embedded text plus room for the longest glue: a 24-byte distance, "잠시 후 ",
  /// ", 이어서 ", two "입니다." and the like come to under 100 bytes; a case mapping adds at
  /// most 11. A buffer that still overflows makes the caller fall back, never trap.
  private func announcementCapacity(for message: AnnouncementMessage) -> Int? {
    let glue = 160
    switch message {
    case .maneuver(let instructions, _, let then, let road):
      // The lanes and the sign are said by the `Character` path only.
      guard road?.isEmpty ?? true else { return nil }
      return instructions.utf8.count + (then?.utf8.count ?? 0) + glue
    case .depart(let source, _, let advisories):
      return advisories.reduce(source.utf8.count + glue) { $0 + $1.utf8.count + 2 }
    case .arrive(let destination):
      return destination.utf8.count + glue
    case .notice(let notice):
      return notice.utf8.count + glue
    default:
      return nil
    }
  }

  /// Writes the text for `message`; `false` when some embedded text is not simple.
  private func write(_ message: AnnouncementMessage, into buffer: inout AnnouncementBuffer) -> Bool
  {
    switch message {
    case .maneuver(let instructions, let distance, let then, _):
      return withSimpleText(instructions) { instructions in
        guard let then else {
          writeManeuver(instructions, then: nil, distance: distance, into: &buffer)
          return true
        }
        return withSimpleText(then) { then in
          writeManeuver(instructions, then: then, distance: distance, into: &buffer)
          return true
        } ?? false
      } ?? false
    case .depart(let source, let tolls, let advisories):
      let wrote =
        withSimpleText(source) { source in
          writeDeparture(from: source.withoutTrailingPeriods, tolls: tolls, into: &buffer)
          return true
        } ?? false
      guard wrote else { return false }
      for advisory in advisories {
        let ok =
          withSimpleText(advisory) { advisory in
            // `sentences += advisories.map(terminated).filter { !$0.isEmpty }`, joined by " ".
            let separator = buffer.count
            buffer.append(ascii: UInt8(ascii: " "))
            let start = buffer.count
            buffer.append(advisory)
            buffer.terminate(from: start)
            if buffer.count == start { buffer.truncate(to: separator) }
            return true
          } ?? false
        guard ok else { return false }
      }
      return true
    case .arrive(let destination):
      return withSimpleText(destination) { destination in
        writeArrival(at: destination.withoutTrailingPeriods, into: &buffer)
        return true
      } ?? false
    case .notice(let notice):
      return withSimpleText(notice) { notice in
        buffer.append(notice)
        buffer.terminate(from: 0)
        return true
      } ?? false
    default:
      return false
    }
  }

  /// A maneuver announcement in the phrasebook's language.
  private func writeManeuver(
    _ instructions: SimpleText, then: SimpleText?, distance: Double?,
    into buffer: inout AnnouncementBuffer
  ) {
    // instructionPair: the bare main and follow-up instructions; when the main one is empty,
    // the follow-up takes its place.
    var first = instructions.withoutTrailingPeriods
    var second = then?.withoutTrailingPeriods ?? first.slice(0..<0)
    if first.count == 0 {
      first = second
      second = first.slice(0..<0)
    }
    guard first.count > 0 else { return }
    switch language {
    case .en:
      if let distance {
        buffer.append("In ")
        writeSpokenDistance(distance, into: &buffer)
        buffer.append(", ")
        buffer.appendLowercasingLead(first)
      } else {
        buffer.appendCapitalizingLead(first)
      }
      if second.count > 0 {
        buffer.append(", then ")
        buffer.appendLowercasingLead(second)
      }
      buffer.terminate(from: 0)
    case .ko:
      let firstIsNoun = first.isKoreanNounPhrase
      if let distance {
        writeSpokenDistance(distance, into: &buffer)
        buffer.append(firstIsNoun ? " 앞, " : " 앞에서 ")
      } else {
        buffer.append("잠시 후 ")
      }
      buffer.append(first)
      guard second.count > 0 else {
        if firstIsNoun { buffer.append("입니다.") } else { buffer.terminate(from: 0) }
        return
      }
      let secondIsNoun = second.isKoreanNounPhrase
      if firstIsNoun && secondIsNoun {
        buffer.append(", 이어서 ")
        buffer.append(second)
        buffer.append("입니다.")
        return
      }
      if firstIsNoun { buffer.append("입니다.") } else { buffer.terminate(from: 0) }
      buffer.append(" 이어서 ")
      let closing = buffer.count
      buffer.append(second)
      if secondIsNoun { buffer.append("입니다.") } else { buffer.terminate(from: closing) }
    }
  }

  /// The first sentence of a departure; `source` is already without trailing periods.
  private func writeDeparture(
    from source: SimpleText, tolls: Bool, into buffer: inout AnnouncementBuffer
  ) {
    switch language {
    case .en:
      if source.count == 0 {
        buffer.append("Depart.")
      } else {
        buffer.append("Depart from ")
        buffer.append(source)
        buffer.terminate(from: 0)
      }
      if tolls { buffer.append(" This route has tolls.") }
    case .ko:
      if source.count == 0 {
        buffer.append("출발합니다.")
      } else {
        buffer.append(source)
        buffer.append("에서 출발합니다.")
      }
      if tolls { buffer.append(" 이 경로에는 유료 도로가 있습니다.") }
    }
  }

  /// An arrival; `destination` is already without trailing periods.
  private func writeArrival(at destination: SimpleText, into buffer: inout AnnouncementBuffer) {
    switch language {
    case .en:
      if destination.count == 0 {
        buffer.append("You have arrived at your destination.")
      } else {
        buffer.append("You have arrived at ")
        buffer.append(destination)
        buffer.terminate(from: 0)
      }
    case .ko:
      if destination.count == 0 {
        buffer.append("목적지에 도착했습니다.")
      } else {
        buffer.append("목적지인 ")
        buffer.append(destination)
        buffer.append("에 도착했습니다.")
      }
    }
  }

  /// Writes ``spokenDistance(_:)`` of `metres`.
  private func writeSpokenDistance(_ metres: Double, into buffer: inout AnnouncementBuffer) {
    let rounded = RoundedDistance(spoken: metres, units: units)
    switch (language, rounded) {
    case (.en, .metres(let n)):
      buffer.append(decimal: n)
      buffer.append(" meters")
    case (.en, .kilometres(let t)):
      writeSpokenDecimal(tenths: t, into: &buffer)
      buffer.append(t == 10 ? " kilometer" : " kilometers")
    case (.en, .feet(let n)):
      buffer.append(decimal: n)
      buffer.append(" feet")
    case (.en, .miles(let t)):
      writeSpokenDecimal(tenths: t, into: &buffer)
      buffer.append(t == 10 ? " mile" : " miles")
    case (.ko, .metres(let n)):
      buffer.append(decimal: n)
      buffer.append("미터")
    case (.ko, .kilometres(let t)):
      writeSpokenDecimal(tenths: t, into: &buffer)
      buffer.append("킬로미터")
    case (.ko, .feet(let n)):
      buffer.append(decimal: n)
      buffer.append("피트")
    case (.ko, .miles(let t)):
      writeSpokenDecimal(tenths: t, into: &buffer)
      buffer.append("마일")
    }
  }

  /// Writes ``spokenDecimal(tenths:)``: "1.5" for 15 tenths, "2" for 20.
  private func writeSpokenDecimal(tenths: Int, into buffer: inout AnnouncementBuffer) {
    buffer.append(decimal: tenths / 10)
    if tenths % 10 != 0 {
      buffer.append(ascii: UInt8(ascii: "."))
      buffer.append(decimal: tenths % 10)
    }
  }
}
