import Foundation
import Geodesy
import JSON
import Lab
import Phrasebook
import Routes
import Simulation
import TestSupport
import Testing

/// Every open-loop scenario inside a map the real Valhalla has here, replayed with `--router`:
/// a drive that follows its route (noise, multipath, canyons, glitches, tunnels, loops, stops,
/// car-park starts) never reroutes, and prints exactly its golden; a drive that leaves its route
/// on purpose is rerouted, and no announcement id repeats across its routes.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct ScenariosWithARouterTests {
  /// The extracts of Tests/Valhalla and the box each one covers (south, west, north, east).
  static let maps: [(extract: String, box: (Double, Double, Double, Double))] = [
    ("paris_bss", (48.80, 2.25, 48.92, 2.45)),
    ("monaco", (43.70, 7.38, 43.77, 7.46)),
    ("liechtenstein", (47.00, 9.45, 47.30, 9.65)),
    ("baltimore", (39.10, -76.80, 39.45, -76.40)),
    ("stepwise_lanes", (44.975, 9.995, 45.005, 10.100)),
  ]

  /// Whether the scenario's track leaves the route on purpose (its recipe has a deviation).
  static func leavesTheRoute(_ s: Scenario) -> Bool { s.recipe?.deviation != nil }

  @Test func followingDrivesNeverRerouteAndLeavingDrivesDo() throws {
    let directories = try FileManager.default.contentsOfDirectory(
      atPath: repositoryFile("Simulations")
    ).filter { $0.first?.isNumber == true }.sorted()
    var scenarios: [(Scenario, map: Int)] = []
    for name in directories {
      let s = try Scenario(directory: repositoryFile("Simulations/\(name)"))
      let c = s.document.source.coordinate
      if let m = Self.maps.firstIndex(where: { m in
        let (south, west, north, east) = m.box
        return (south...north).contains(c.latitude) && (west...east).contains(c.longitude)
      }) {
        scenarios.append((s, m))
      }
    }
    // Under a sanitizer the replays are slow and test guidance, not memory or threads: a few.
    let sanitized = sanitizerUnderTest != nil
    if sanitized {
      let few = ["001-", "013-", "022-", "040-"]
      scenarios = scenarios.filter { s in few.contains { s.0.directory.contains("/" + $0) } }
    }
    #expect(sanitized ? scenarios.count == 4 : scenarios.count >= 39)
    var routers: [Int: ValhallaService] = [:]
    defer { for r in routers.values { r.stop() } }
    var rerouted: [String] = []
    for (s, map) in scenarios {
      if routers[map] == nil { routers[map] = try ValhallaService(extract: Self.maps[map].extract) }
      let router = try #require(routers[map])
      var arguments = ["--route", s.routePath, "--fast", "--json", "--router", router.baseURL]
      arguments += ["--route-index", "\(s.routeIndex)", "--locale", s.language.rawValue]
      arguments += ["--units", s.units.rawValue, s.trackPath]
      let r = try runTool("stepwised", arguments)
      #expect(r.status == 0, "\(s.directory): \(r.stderr)")
      let lines = r.stdout.split(separator: "\n").filter { !$0.contains(#""class":"PROGRESS""#) }
      let reroutes = lines.filter { $0.contains(#""reason":"reroute""#) }.count
      if Self.leavesTheRoute(s) {
        #expect(reroutes >= 1, "\(s.directory) left its route and was not rerouted")
        let ids = try lines.compactMap { try JSONParser.parse(String($0))["id"]?.stringValue }
        #expect(Set(ids).count == ids.count, "\(s.directory): an announcement id repeats")
        rerouted.append(s.directory)
      } else {
        let golden = try #require(s.expected(), "\(s.directory) has no golden")
        #expect(
          reroutes == 0, "\(s.directory) follows its route but was rerouted \(reroutes) times")
        #expect(lines.map(String.init) == golden, "\(s.directory): output differs from its golden")
      }
    }
    #expect(!rerouted.isEmpty)
  }
}
