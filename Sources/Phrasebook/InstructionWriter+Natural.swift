public import Routes

extension InstructionWriter {
  /// The instruction writer for a daemon language: natural style, with the phrasebook's
  /// Korean particle choice (which also reads Latin names, digits and units).
  public static func natural(_ language: Language) -> InstructionWriter {
    InstructionWriter(
      language: language.instructionLanguage, style: .natural,
      attach: { word, particle in
        switch particle {
        case .euroRo: attachParticle(word, .euroRo)
        case .eulReul: attachParticle(word, .eulReul)
        }
      })
  }
}

extension Language {
  /// The phrasebook language of an instruction language (the two name the same languages).
  public init(instructionLanguage: InstructionLanguage) {
    switch instructionLanguage {
    case .en: self = .en
    case .ko: self = .ko
    }
  }

  /// The instruction writer's name for this language.
  public var instructionLanguage: InstructionLanguage {
    switch self {
    case .en: .en
    case .ko: .ko
    }
  }
}
