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
    var closedLoop: [ClosedLoopScore] = []
    for d in try ScenarioFolders.expand(dirs) {
      if let config = try? readWholeFile(d + "/scenario.json"),
        ClosedLoopScenario.isClosedLoop(config)
      {
        closedLoop.append(
          try ClosedLoopScenario(directory: d, read: { try readWholeFile($0) }).score())
        continue
      }
      scores.append(try Scenario(directory: d).score())
    }
    if !closedLoop.isEmpty {
      let lines =
        markdown ? ClosedLoopTable.markdown(closedLoop) : ClosedLoopTable.text(closedLoop)
      for l in lines { out.line(l) }
      if notes {
        for s in closedLoop where !s.notes.isEmpty {
          out.line("\(s.name):")
          for n in s.notes { out.line("  \(n)") }
        }
      }
      // The delay bar holds for the suite: the median over every drive's reroutes.
      let failed =
        closedLoop.contains { !$0.violations().isEmpty }
        || (ClosedLoopTable.delayMedian(closedLoop) ?? 0) > ClosedLoopScore.delayMedianMaximum
      if scores.isEmpty { return check && failed ? 1 : 0 }
      out.line("")
      if check && failed { return 1 }
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
