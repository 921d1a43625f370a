public import Geodesy
public import Router
public import Wire

/// One input of the engine, in the order the sources produced it.
public enum EngineInput: Sendable {
  /// A receiver epoch, with or without a position.
  case fix(Fix)
  /// Receiver epochs in order, as one input: what a replay read at once (`--fast`), so the
  /// engine is woken once per read instead of once per epoch. Handled exactly as that many
  /// ``fix(_:)`` inputs would be, except that the observer is told once, after the last.
  case fixes([Fix])
  /// Nothing arrived up to this fix time (seconds since 1970): replays say so from the capture.
  case silence(at: Double)
  /// A live tick: the engine turns it into silence on the fix clock (the last fix time plus the
  /// monotonic time elapsed since it), so GPS loss is reported while nothing arrives.
  case tick
  /// The live source connected or lost its connection.
  case source(SourceEvent.Status, reason: String?)
  /// Change guidance (from a socket client, or a reload); `reply` is called once it took effect.
  case command(GuidanceCommand, reply: @Sendable (Result<Void, any Error>) -> Void)
  /// The router answered a reroute request (live and paced: the answer arrives while
  /// guidance goes on).
  case routed(RouterAnswer)
  /// The watchdog's probe: handling it proves the engine is not stuck.
  case probe
}
