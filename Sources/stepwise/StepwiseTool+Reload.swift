import CommandLineSupport
import Glibc
import POSIX

extension StepwiseTool {
  /// `stepwise reload [--pid PID]`: asks stepwised to re-read its route file (SIGHUP), as
  /// `ExecReload=` does.
  ///
  /// The process is `$MAINPID` (set by systemd for `ExecReload=`) unless
  /// `--pid` names it. Exit status 1 when it cannot be signalled.
  static func reload(_ args: inout Arguments, _ out: OutputSink) throws -> Int32 {
    let pidText = try args.option("--pid") ?? getenv("MAINPID").map { String(cString: $0) }
    _ = try args.positionals()
    guard let pidText, let pid = Int32(pidText), pid > 1 else {
      throw UsageError("reload needs --pid PID (or $MAINPID, as systemd sets it for ExecReload=)")
    }
    guard kill(pid, SIGHUP) == 0 else {
      logLine(3, "stepwise: cannot signal process \(pid): \(String(cString: strerror(errno)))")
      return 1
    }
    return 0
  }
}
