/// Counts of what an ``NMEAReader`` has read so far.
///
/// Every framed sentence and every run of stray bytes lands in exactly one of `sentences`,
/// `skipped` or the rejection counters (`badChecksum`, `malformed`, `overlong`, `truncated`,
/// `garbage`, `outOfOrder`); comment lines go to `comments`, and blank lines and `$$` prefixes
/// are not counted. `missingChecksum` overlaps the others: it counts sentences that carried no
/// checksum, whatever happened to them next.
public struct NMEAStatistics: Sendable, Equatable {
  /// Sentences decoded and merged into an epoch (RMC, GGA, GNS, GLL, VTG, GSA, GST, ZDA).
  public var sentences = 0
  /// Sentences dropped because their checksum did not match or could not be read.
  public var badChecksum = 0
  /// Sentences without a `*HH` checksum.
  ///
  /// They are accepted (see ``NMEAReader``) and counted here as well as in `sentences`, `skipped`
  /// or `malformed`.
  public var missingChecksum = 0
  /// Well-formed sentences of types the reader does not use: proprietary (`$P…`), GSV, TXT,
  /// route sentences and any other type.
  public var skipped = 0
  /// Sentences with a bad address, too few fields or a field that does not parse.
  public var malformed = 0
  /// Sentences longer than ``NMEAReader/maximumSentenceLength`` bytes.
  public var overlong = 0
  /// Sentences cut off by the `$` of the next sentence on the same line.
  public var truncated = 0
  /// Runs of bytes outside any sentence: binary frames, terminal output, sentence tails.
  public var garbage = 0
  /// Sentences dropped because their time is older than an epoch already emitted, plus the
  /// untimed sentences (GSA, VTG) that followed them.
  public var outOfOrder = 0
  /// Comment lines starting with `#`, such as gpsd log headers.
  public var comments = 0
  /// Epochs emitted, with or without a fix.
  public var epochs = 0
  /// Epochs emitted as ``Geodesy/Fix/noFix(time:)``.
  public var noFixEpochs = 0

  /// Creates zeroed statistics.
  public init() {}

  /// All rejected lines: bad checksum, malformed, overlong, truncated, garbage and out of order.
  public var rejected: Int {
    badChecksum + malformed + overlong + truncated + garbage + outOfOrder
  }
}
