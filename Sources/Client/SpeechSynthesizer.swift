import Glibc
import POSIX

/// Says announcements through `espeak-ng`, one child process per message, one at a time.
public final class SpeechSynthesizer {
  /// The `espeak-ng` binary.
  public let executable: String
  /// A voice for every announcement (`--voice`); `nil` picks one from the text (``voice(for:)``).
  public let voice: String?
  private var child: pid_t?

  /// Finds the `espeak-ng` to use: `option` (`--espeak PATH`), else `$STEPWISE_ESPEAK`, else
  /// `espeak-ng` on `$PATH`.
  ///
  /// - Throws: ``ClientError`` (status `refused`, 1) saying how to install or name it.
  public static func locate(_ option: String?) throws(ClientError) -> String {
    let named =
      option ?? getenv("STEPWISE_ESPEAK").flatMap { $0.pointee == 0 ? nil : String(cString: $0) }
    if let named {
      guard access(named, X_OK) == 0 else {
        throw ClientError(
          .refused,
          "cannot run \(named): \(SystemError(errno: errno, function: "access", subject: named))")
      }
      return named
    }
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") where !dir.isEmpty {
      let candidate = "\(dir)/espeak-ng"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    throw ClientError(
      .refused,
      "espeak-ng is not installed (apt install espeak-ng), or name it with --espeak PATH or "
        + "STEPWISE_ESPEAK")
  }

  public init(executable: String, voice: String?) {
    self.executable = executable
    self.voice = voice
  }

  /// The voice for `text`: ``voice`` when set, else `ko` for text with Hangul, else `en`.
  ///
  /// The daemon's events do not name their language; the text does (Korean announcements are
  /// written in Hangul, English ones never are).
  public func voice(for text: String) -> String {
    if let voice { return voice }
    let hangul = text.unicodeScalars.contains { u in
      (0xAC00...0xD7A3).contains(u.value) || (0x1100...0x11FF).contains(u.value)
        || (0x3130...0x318F).contains(u.value)
    }
    return hangul ? "ko" : "en"
  }

  /// Whether an message is being said.
  public var isSpeaking: Bool { child != nil }

  /// Starts saying `text`; returns at once.
  ///
  /// The corresponding C function is `posix_spawn`.
  public func say(_ text: String) throws(ClientError) {
    // A leading '-' would be read as an option.
    let words = text.hasPrefix("-") ? " " + text : text
    let arguments = [executable, "-v", voice(for: text), words]
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
    argv.append(nil)
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let r = posix_spawn(&pid, executable, nil, nil, argv, currentEnvironment())
    guard r == 0 else {
      throw ClientError(
        .refused, "cannot run \(executable): \(SystemError(errno: r, function: "posix_spawn"))")
    }
    child = pid
  }

  /// Checks whether the message ended, without waiting (or waiting, with `block`).
  ///
  /// - Returns: the exit status of an message that just ended, else `nil`.
  /// The corresponding C function is `waitpid`.
  public func reap(block: Bool = false) -> Int32? {
    guard let pid = child else { return nil }
    var status: Int32 = 0
    while true {
      let r = waitpid(pid, &status, block ? 0 : WNOHANG)
      if r == 0 { return nil }
      if r < 0 && errno == EINTR { continue }
      child = nil
      if r < 0 { return -1 }
      // WIFEXITED / WEXITSTATUS, which Swift does not import.
      return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
  }
}

/// The process environment, for `posix_spawn`.
private func currentEnvironment() -> UnsafePointer<UnsafeMutablePointer<CChar>?>? {
  UnsafePointer(environ)
}
