import Geodesy
import Rerouting
import Routes
import TestSupport
import Testing

/// A router that refuses connections is asked again at a short, steady spacing (nothing reached
/// it), so a restarted router is used within about a second; failures that reached a router
/// (timeouts, 503) are spaced further and further apart.
@Suite(.blocking) struct RerouteRefusedSpacingTests {
  /// The times of the requests made at fixes every 0.5 s for 40 s, each answered by `failure`.
  static func requestTimes(failing failure: RouterFailure) -> [Double] {
    var c = RerouteController(idPrefix: "r")
    var times: [Double] = []
    for k in 0..<80 {
      let t = Double(k) * 0.5
      let o = RerouteObservation(
        time: t, coordinate: RerouteControllerTests.off, course: 180, speed: 10, accuracy: 5,
        evidence: .confirmed, distanceToDestination: 900)
      for case .ask(let id, _) in c.observe(o) {
        times.append(t)
        _ = c.received(id: id, result: .failure(failure), remainingManeuvers: [])
      }
    }
    return times
  }

  @Test func refusedConnectionsAreRetriedEverySecond() {
    let times = Self.requestTimes(failing: .refused)
    let spacing = RerouteConfiguration().refusedSpacing
    #expect(times.count == 40)
    for (a, b) in zip(times, times.dropFirst()) { #expect(b - a == spacing) }
  }

  @Test func timeoutsAreRetriedLessAndLessOften() {
    let times = Self.requestTimes(failing: .timeout)
    let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
    #expect(gaps.count >= 3)
    #expect(gaps == gaps.sorted())
    #expect((gaps.last ?? 0) > (gaps.first ?? 0))
  }
}
