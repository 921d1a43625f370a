import CommandLineSupport
import Lab
import POSIX

extension StepwiseTool {
  /// `stepwise scenario score DIR… [--markdown] [--check]`: the quality table.
  ///
  /// With `--check`, exits 1 when a scenario misses the quality bar.
  static func scoreCommand(_ args: inout Arguments, _ out: OutputSink) throws -> Int32 {
    let markdown = args.flag("--markdown")
    let check = args.flag("--check")
    let notes = args.flag("--notes")
    let dirs = try args.positionals()
    guard !dirs.isEmpty else { throw UsageError("scenario score needs at least one folder") }
    var scores: [QualityScore] = []
    for dir in dirs {
      var d = dir
      while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
      if d.hasSuffix(".md") || d.hasSuffix("/README") { continue }
      scores.append(try Scenario(directory: d).score())
    }
    let lines =
      markdown
      ? QualityTable.markdown(
        scores, command: "stepwise scenario score --markdown Simulations/0* > docs/quality.md")
      : QualityTable.text(scores)
    for l in lines { out.line(l) }
    if notes {
      for s in scores where !s.notes.isEmpty {
        out.line("\(s.name):")
        for n in s.notes { out.line("  \(n)") }
      }
    }
    if check && scores.contains(where: { !$0.violations().isEmpty }) { return 1 }
    return 0
  }
}
