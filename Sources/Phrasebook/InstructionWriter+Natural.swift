public import Routes

extension InstructionWriter {
  /// The instruction writer for a daemon language: natural style, with the phrasebook's
  /// Korean particle choice (which also reads Latin names, digits and units).
  public static func natural(_ language: Language) -> InstructionWriter {
    InstructionWriter(
      language: language == .ko ? .ko : .en, style: .natural,
      attach: { word, particle in
        switch particle {
        case .euroRo: attachParticle(word, .euroRo)
        case .eulReul: attachParticle(word, .eulReul)
        }
      })
  }
}
