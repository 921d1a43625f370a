import Dispatch
import Guidance
public import Phrasebook
public import Rerouting
public import Router
public import Routes

/// The router on the engine's side: the client that carries out the core's
/// ``GuidanceEffect/requestRoute(_:)`` effects, and how.
///
/// Live and in paced replays the answer comes back as an engine input (``EngineInput/routed(_:)``)
/// and guidance goes on along the old route meanwhile. In a `--fast` replay (`waits`) the
/// engine takes no other input until the answer came (at most the client's timeout), awaiting
/// it without holding a thread, so the same track and router give the same events.
public struct Rerouter: Sendable {
  public let client: RouterClient
  public let waits: Bool
  /// What the pure core needs of the router.
  public let core: GuidanceCore.Router

  public init(client: RouterClient, waits: Bool, language: Language, units: UnitSystem) {
    self.client = client
    self.waits = waits
    core = GuidanceCore.Router(
      language: language == .ko ? "ko-KR" : "en-US", imperial: units == .imperial,
      timeout: client.timeout)
  }

  /// The answer to `request`, awaited without blocking a thread of the cooperative pool (the
  /// wait is a Dispatch worker's; a closed client answers at once with a failure).
  func answer(_ request: RouteRequest) async -> RouterAnswer {
    let client = self.client
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: client.fetch(request)) }
    }
  }
}
