import CommandLineSupport
public import Instructions
import JSON
import POSIX
import Phrasebook
import Routes

extension StepwiseTool {
  /// `stepwise instruction --locale LANG FILE…`: one instruction per osrm-text-instructions
  /// fixture (`{"step": {…}, "options": {…}}`), written exactly as the library would
  /// (reference style), one line per file.
  ///
  /// A file without a `step` (the library's template-only fixtures) prints an empty line, so
  /// lines and files stay paired; a file that cannot be read or has no valid step fails the
  /// command with status 2 after the other files are printed.
  static func instruction(_ args: inout Arguments, _ out: OutputSink) throws -> Int32 {
    let locale = try args.option("--locale") ?? "en"
    guard let language = Language(locale: locale) else {
      throw UsageError("unsupported --locale '\(locale)' (en or ko)")
    }
    let natural = args.flag("--natural")
    let files = try args.positionals()
    guard !files.isEmpty else { throw UsageError("instruction needs at least one fixture file") }
    let writer =
      natural
      ? InstructionWriter(language: language)
      : InstructionWriter(language: language, style: .reference)
    var failures = 0
    for file in files {
      do {
        out.line(try instructionText(file, writer))
      } catch {
        logLine(3, "stepwise: \(file): \(error)")
        out.line("")
        failures += 1
      }
    }
    return failures == 0 ? 0 : 2
  }

  /// The instruction for one osrm-text-instructions fixture file, or "" when it has no step.
  ///
  /// - Throws: a read, JSON or `RouteDocumentError` naming the bad member.
  public static func instructionText(_ file: String, _ writer: InstructionWriter) throws -> String {
    let value = try JSONParser.parse(readWholeFile(file))
    guard case .object(let o) = value else {
      throw RouteDocumentError(.wrongType, path: "", "expected a JSON object")
    }
    guard let step = o["step"] else { return "" }
    let options =
      try o["options"].map { v throws(RouteDocumentError) in
        try InstructionOptions(fixtureOptions: v, path: "options")
      } ?? InstructionOptions()
    let parsed = try InstructionStep(osrmStep: step, path: "step")
    do {
      return try writer.instruction(for: parsed, options: options)
    } catch {
      throw RouteDocumentError(error.code, path: "step.\(error.path)", error.message)
    }
  }
}
