public import Routes

/// Writes turn instructions from maneuvers, in English or Korean, the way osrm-text-instructions
/// v0.15.0 does.
///
/// The phrase tables are the library's `en` and `ko` tables (BSD-2-Clause, see
/// `docs/instructions.md`), and ``instruction(for:options:)`` follows its `compile`: the
/// instruction object by mode, type and modifier; the variant by destinations, exits, junction
/// name, way name and waypoint name, in that order; the way name from `name` and `ref`; token
/// replacement; double spaces collapsed; the first letter capitalised in English.
///
/// Two styles:
/// - ``Style/reference`` reproduces the library byte for byte, including its Korean quirks
///   ("첫번쩨", a leading space, "Way Name 를"). The fixture tests and `stepwise instruction` use it.
/// - ``Style/natural`` (the default, used for imported routes) is the same in English; in Korean
///   it picks each particle after a name by the name's final sound (`attach`), spells ordinals
///   "첫 번째", and removes stray spaces and doubled full stops.
public struct InstructionWriter: Sendable {
  /// How closely to follow osrm-text-instructions.
  public enum Style: Sendable, Hashable {
    /// Exactly the library's output.
    case reference
    /// The library's output, with Korean particles and spacing made natural.
    case natural
  }

  /// The language written.
  public var language: Language
  /// The style written.
  public var style: Style

  /// Creates a writer.
  ///
  /// - Parameters:
  ///   - language: English or Korean.
  ///   - style: ``Style/natural`` unless the library's exact output is wanted.
  public init(language: Language, style: Style = .natural) {
    self.language = language
    self.style = style
  }

  /// The instruction for one maneuver.
  ///
  /// - Parameters:
  ///   - step: the maneuver, in OSRM's vocabulary.
  ///   - options: leg index and count (for "your 1st destination"), waypoint name, road classes.
  /// - Returns: the text, e.g. "Turn left onto Way Name" or "좌회전 하시고 Way Name로 가세요."
  /// - Throws: `RouteDocumentError` (`missingField`) when a maneuver other than depart or arrive
  ///   has no modifier, as the library does.
  public func instruction(for step: InstructionStep, options: InstructionOptions = .init())
    throws(RouteDocumentError) -> String
  {
    var type = step.type
    let modifier = step.modifier
    if modifier == nil && type != "depart" && type != "arrive" {
      throw RouteDocumentError(
        .missingField, path: "maneuver.modifier",
        "a '\(type)' maneuver needs a modifier (left, right, straight, …)")
    }
    if !Self.knownTypes.contains(type) { type = "turn" }

    // The instruction object: a path prefix into the table.
    var object: String
    if let mode = step.mode, phrase("modes/\(mode)/default") != nil {
      object = "modes/\(mode)"
    } else {
      let omitSide =
        type == "off ramp" && step.drivingSide.map { modifier?.contains($0) ?? false } ?? false
      if let modifier, !omitSide, hasObject("\(type)/\(modifier)") {
        object = "\(type)/\(modifier)"
      } else {
        object = "\(type)/default"
      }
    }
    var laneInstruction: String?
    switch type {
    case "use lane":
      laneInstruction = phrase("constants/lanes/\(Self.laneConfiguration(step.laneValidity ?? []))")
      if laneInstruction == nil { object = "use lane/no_lanes" }
    case "rotary", "roundabout":
      let named = !(step.rotaryName ?? "").isEmpty
      let hasExit = (step.exit ?? 0) != 0
      if named && hasExit && hasObject("\(object)/name_exit") {
        object += "/name_exit"
      } else if named && hasObject("\(object)/name") {
        object += "/name"
      } else if hasExit && hasObject("\(object)/exit") {
        object += "/exit"
      } else {
        object += "/default"
      }
    default:
      break
    }

    let wayName = self.wayName(step, classes: options.classes)
    let hasDestinations = !(step.destinations ?? "").isEmpty
    let hasExits = !(step.exits ?? "").isEmpty
    let variant: String
    if hasDestinations && hasExits && phrase("\(object)/exit_destination") != nil {
      variant = "exit_destination"
    } else if hasDestinations && phrase("\(object)/destination") != nil {
      variant = "destination"
    } else if hasExits && phrase("\(object)/exit") != nil {
      variant = "exit"
    } else if !(step.junctionName ?? "").isEmpty && phrase("\(object)/junction_name") != nil {
      variant = "junction_name"
    } else if !wayName.isEmpty && phrase("\(object)/name") != nil {
      variant = "name"
    } else if !(options.waypointName ?? "").isEmpty && phrase("\(object)/named") != nil {
      variant = "named"
    } else {
      variant = "default"
    }
    let template = phrase("\(object)/\(variant)") ?? ""

    var tokens: [String: String] = [
      "way_name": wayName,
      "destination": Self.firstDestination(step.destinations),
      "exit": Self.firstPart(step.exits ?? "", separator: ";"),
      "exit_number": ordinal(step.exit ?? 1),
      "direction": direction(step.bearingAfter),
      "junction_name": Self.firstPart(step.junctionName ?? "", separator: ";"),
    ]
    if let r = step.rotaryName { tokens["rotary_name"] = r }
    if let l = laneInstruction { tokens["lane_instruction"] = l }
    if let m = modifier, let text = phrase("constants/modifier/\(m)") { tokens["modifier"] = text }
    if let w = options.waypointName { tokens["waypoint_name"] = w }
    if let legIndex = options.legIndex, legIndex >= 0, legIndex != (options.legCount ?? 0) - 1 {
      tokens["nth"] = ordinal(legIndex + 1)
    } else {
      tokens["nth"] = ""
    }
    return tokenize(template, tokens)
  }

  // MARK: - Pieces of compile

  static let knownTypes: Set<String> = [
    "arrive", "continue", "depart", "end of road", "fork", "merge", "new name", "notification",
    "off ramp", "on ramp", "rotary", "roundabout", "roundabout turn", "exit roundabout",
    "exit rotary", "turn", "use lane",
  ]

  /// The phrase at `key`, with the natural-style overrides applied.
  func phrase(_ key: String) -> String? {
    switch language {
    case .en: return InstructionPhrases.english[key]
    case .ko:
      if style == .natural, let o = InstructionPhrases.koreanNatural[key] { return o }
      return InstructionPhrases.korean[key]
    }
  }

  /// Whether the table has an object (any phrase) under `prefix`.
  func hasObject(_ prefix: String) -> Bool {
    switch language {
    case .en: InstructionPhrases.englishObjects.contains(prefix)
    case .ko: InstructionPhrases.koreanObjects.contains(prefix)
    }
  }

  func ordinal(_ n: Int) -> String { phrase("constants/ordinalize/\(n)") ?? "" }

  /// The compass word for a bearing in degrees, as the library buckets it.
  func direction(_ degrees: Double?) -> String {
    guard let d = degrees else { return "" }
    let key: String
    switch d {
    case 0...20: key = "north"
    case 20..<70: key = "northeast"
    case 70...110: key = "east"
    case 110..<160: key = "southeast"
    case 160...200: key = "south"
    case 200..<250: key = "southwest"
    case 250...290: key = "west"
    case 290..<340: key = "northwest"
    case 340...360: key = "north"
    default: return ""
    }
    return phrase("constants/direction/\(key)") ?? ""
  }

  /// The way name: `name` without a Mapbox-style " (ref)", joined with the first ref unless the
  /// road is a motorway with a numbered ref (then the ref alone).
  func wayName(_ step: InstructionStep, classes: [String]) -> String {
    var name = step.name
    let fullRef = step.ref
    let ref = Self.firstPart(fullRef ?? "", separator: ";")
    if let fullRef {
      if name == fullRef { name = "" }
      name = name.replacing(" (\(fullRef))", with: "", maxReplacements: 1)
    }
    let motorway = classes.contains("motorway")
    if !name.isEmpty && !ref.isEmpty && name != ref && !motorway {
      let template = phrase("phrase/name and ref") ?? "{name} ({ref})"
      return tokenize(template, ["name": name, "ref": ref], finish: false)
    }
    if !name.isEmpty && !ref.isEmpty && motorway && ref.contains(where: \.isNumber) {
      return ref
    }
    if name.isEmpty && !ref.isEmpty { return ref }
    return name
  }

  /// "ref: destination" from OSRM's `destinations` ("A 1, A 2: Hamburg, Berlin" → "A 1: Hamburg").
  static func firstDestination(_ destinations: String?) -> String {
    guard let destinations, !destinations.isEmpty else { return "" }
    // JavaScript's `split(": ")`: the part before the first ": ", and the part after it up
    // to the next one.
    var head = Substring(destinations)
    var second = Substring("")
    if let r = destinations.firstRange(of: ": ") {
      head = destinations[..<r.lowerBound]
      second = destinations[r.upperBound...]
      if let r2 = second.firstRange(of: ": ") { second = second[..<r2.lowerBound] }
    }
    let ref = firstPart(String(head), separator: ",")
    let destination = firstPart(String(second), separator: ",")
    if !ref.isEmpty && !destination.isEmpty { return "\(ref): \(destination)" }
    return ref.isEmpty ? destination : ref
  }

  static func firstPart(_ s: String, separator: Character) -> String {
    String(
      s.split(separator: separator, maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
  }

  /// Runs of valid (`o`) and invalid (`x`) lanes: `[true, true, false]` → "ox".
  static func laneConfiguration(_ valid: [Bool]) -> String {
    var out = ""
    var current: Bool?
    for v in valid where v != current {
      out += v ? "o" : "x"
      current = v
    }
    return out
  }

  /// Replaces `{token}`s (unknown ones are left as they are), then collapses double spaces and
  /// capitalises as the language wants; in natural Korean also attaches particles after tokens.
  func tokenize(_ template: String, _ tokens: [String: String], finish: Bool = true) -> String {
    let natural = style == .natural && language == .ko
    let chars = Array(template)
    var out = ""
    var startedWithToken = false
    var i = 0
    while i < chars.count {
      guard chars[i] == "{", let close = chars[(i + 1)...].firstIndex(of: "}") else {
        out.append(chars[i])
        i += 1
        continue
      }
      let inner = String(chars[(i + 1)..<close])
      let tag = inner.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
      let isWord =
        !tag.isEmpty && inner.allSatisfy { $0 == ":" || $0 == "_" || $0.isLetter || $0.isNumber }
      guard isWord, var value = tokens[tag] else {
        out.append(chars[i])
        i += 1
        continue
      }
      if i == 0 && language == .en && finish {
        startedWithToken = true
        value = Self.capitalized(value)
      }
      i = close + 1
      if natural && !value.isEmpty {
        var j = i
        if j < chars.count && chars[j] == " " { j += 1 }
        let rest = chars[j...]
        func particleEnds(_ k: Int) -> Bool {
          k >= chars.count || chars[k] == " " || chars[k] == "." || chars[k] == ","
        }
        if rest.starts(with: ["으", "로"]) && particleEnds(j + 2) {
          value = attachParticle(value, .euroRo)
          i = j + 2
        } else if rest.starts(with: ["로"]) && particleEnds(j + 1) {
          value = attachParticle(value, .euroRo)
          i = j + 1
        } else if (rest.starts(with: ["를"]) || rest.starts(with: ["을"])) && particleEnds(j + 1) {
          value = attachParticle(value, .eulReul)
          i = j + 1
        }
      }
      out += value
    }
    out = Self.collapsingDoubleSpaces(out)
    guard finish else { return out }
    if natural {
      out = out.trimmingSpaces()
      while out.contains("..") { out = out.replacing("..", with: ".") }
      // "{modifier} 회전" with a modifier that already is a turn ("좌회전 회전하고").
      out = out.replacing("회전 회전", with: "회전").replacing("회전회전", with: "회전")
      out = Self.collapsingDoubleSpaces(out)
    }
    if language == .en && !startedWithToken { out = Self.capitalized(out) }
    return out
  }

  /// The library's `/ {2}/g` replacement: each pair of spaces, left to right, becomes one.
  static func collapsingDoubleSpaces(_ s: String) -> String {
    guard s.contains("  ") else { return s }
    var out = ""
    var pendingSpace = false
    for c in s {
      if c == " " {
        if pendingSpace {
          out.append(" ")
          pendingSpace = false
        } else {
          pendingSpace = true
        }
        continue
      }
      if pendingSpace {
        out.append(" ")
        pendingSpace = false
      }
      out.append(c)
    }
    if pendingSpace { out.append(" ") }
    return out
  }

  package static func capitalized(_ s: String) -> String {
    guard let first = s.first else { return s }
    return first.uppercased() + s.dropFirst()
  }
}

extension String {
  /// Without leading and trailing spaces.
  package func trimmingSpaces() -> String {
    var s = Substring(self)
    while s.first?.isWhitespace == true { s = s.dropFirst() }
    while s.last?.isWhitespace == true { s = s.dropLast() }
    return String(s)
  }
}
