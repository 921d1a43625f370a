import Geodesy
import Guidance
import Matching
import Phrasebook
import RouteShape
import Routes
import Simulation
import TestSupport
import Testing

/// Driving back along the route is off route (reason `wrongWay`), and nothing else is: hairpins,
/// switchbacks, roundabouts, out-and-back routes, walking pace, standing and dead reckoning.
@Suite struct WrongWayTests {
  static let start = 1_714_550_400.0

  /// A drive along `geometry` one fix a second: `from` to `to` metres (backwards when `to` is
  /// smaller), at `speeds` metres per second in turn (the last one kept), with a correlated
  /// position error of about `noise` metres and a course error of `courseNoise` degrees.
  struct Drive {
    let geometry: RouteGeometry
    var rng: RandomSource
    var noise: Double
    var time = 0.0
    var offset = (east: 0.0, north: 0.0)
    var fixes: [Fix] = []

    init(_ document: RouteDocument, noise: Double, seed: UInt64) {
      geometry = RouteGeometry(route: document.routes[0])
      rng = RandomSource(seed: seed)
      self.noise = noise
    }

    mutating func go(
      from: Double, to: Double, speeds: [Double], courseNoise: Double = 3,
      quality: FixQuality = .gps
    ) {
      let sign = to >= from ? 1.0 : -1.0
      var s = from
      var k = 0
      while sign * (to - s) > 0 {
        let v = speeds[min(k, speeds.count - 1)]
        k += 1
        s = sign > 0 ? min(to, s + v) : max(to, s - v)
        add(at: s, speed: v, backwards: sign < 0, courseNoise: courseNoise, quality: quality)
      }
    }

    mutating func stand(at s: Double, seconds: Int) {
      for _ in 0..<seconds {
        add(at: s, speed: 0.2, backwards: false, courseNoise: 180, quality: .gps)
      }
    }

    private mutating func add(
      at s: Double, speed: Double, backwards: Bool, courseNoise: Double, quality: FixQuality
    ) {
      // A first-order random walk: the receiver's error drifts, it does not jump.
      offset.east = 0.9 * offset.east + 0.44 * noise * rng.gaussian()
      offset.north = 0.9 * offset.north + 0.44 * noise * rng.gaussian()
      let on = geometry.coordinate(at: s)
      let p = on.destination(distance: offset.east, bearing: 90)
        .destination(distance: offset.north, bearing: 0)
      let bearing = Double(geometry.bearings[geometry.segment(containing: s, from: 0)])
      let course = normalizedBearing(
        bearing + (backwards ? 180 : 0) + courseNoise * rng.gaussian())
      time += 1
      fixes.append(
        Fix(
          time: WrongWayTests.start + time, coordinate: p, speed: speed, course: course,
          horizontalAccuracy: max(2, noise), quality: quality))
    }
  }

  /// The off-route events of a drive, with their fix times (seconds after the start).
  static func offRoutes(_ document: RouteDocument, _ fixes: [Fix]) throws -> [(
    time: Double, reason: OffRouteReason
  )] {
    var s = try NavigationSession(document: document, phrasing: Phrasebook(language: .en))
    var out: [(Double, OffRouteReason)] = []
    for f in fixes {
      for e in s.ingest(f) {
        if case .offRoute(_, let reason) = e.kind { out.append((e.time - start, reason)) }
      }
    }
    return out
  }

  /// A staircase through a town: 50 m east, 50 m north, twenty times (a corner every 50 m,
  /// where a vehicle driving back matches the segment across its course), then 300 m east.
  static let town = makeRoute(
    legs: (0..<20).map { k in (k % 2 == 0 ? 90 : 0, 50, "Turn") } + [(90, 300, "Arrive")],
    spacing: 10)

  @Test(arguments: 1...4 as ClosedRange<UInt64>)
  func aUTurnBackAlongTheRouteIsTheWrongWayWithinItsDistance(seed: UInt64) throws {
    var d = Drive(Self.town, noise: 5, seed: seed)
    d.go(from: 0, to: 620, speeds: [12])
    d.stand(at: 620, seconds: 3)
    let turned = d.time
    // Turned round from standing, back round the corners: 1.5 m/s more each second up to 12.
    d.go(from: 620, to: 100, speeds: Array(stride(from: 2.0, through: 12, by: 1.5)))
    let off = try Self.offRoutes(Self.town, d.fixes)
    let first = try #require(off.first, "never off route")
    #expect(first.reason == .wrongWay)
    #expect(first.time > turned)
    // The matcher puts most of these fixes on the segment across the course, so two opposite
    // ones and 40 m take 9 or 10 s from standing (about 70 m back); without the rule the
    // vehicle is never off route here, since it stays on the route's road.
    #expect(first.time - turned <= 11, "off route \(first.time - turned) s after turning round")
  }

  @Test(arguments: 1...4 as ClosedRange<UInt64>)
  func anOutAndBackRouteOnTheSameRoadIsFollowed(seed: UInt64) throws {
    let route = makeRoute(legs: [(90, 600, "Make a U-turn"), (270, 600, "Arrive")])
    var d = Drive(route, noise: 5, seed: seed)
    d.go(from: 0, to: 560, speeds: [12])
    d.go(from: 560, to: 640, speeds: [3])
    d.go(from: 640, to: 1200, speeds: [12])
    #expect(try Self.offRoutes(route, d.fixes).isEmpty)
  }

  @Test(arguments: 1...4 as ClosedRange<UInt64>)
  func switchbacksHairpinsAndARoundaboutAreFollowed(seed: UInt64) throws {
    // Four switchbacks whose legs diverge by 10 degrees (35 m apart at their far end), then a
    // roundabout driven all the way round (24 legs of 4 m: 15 m across), then away.
    var legs: [(bearing: Double, length: Double, instructions: String)] = []
    for k in 0..<4 { legs.append((k % 2 == 0 ? 0 : 170, 200, "Turn sharp right")) }
    for k in 0..<24 { legs.append((Double(k) * 15, 4, k == 23 ? "Take the exit" : "Go on")) }
    legs.append((0, 300, "Arrive"))
    let route = makeRoute(legs: legs, spacing: 4)
    var d = Drive(route, noise: 5, seed: seed)
    let g = RouteGeometry(route: route.routes[0])
    var s = 0.0
    for _ in 0..<4 {
      // Slow through each hairpin.
      d.go(from: s, to: s + 180, speeds: [10])
      d.go(from: s + 180, to: s + 220, speeds: [4])
      s += 200
    }
    d.go(from: s + 20, to: s + 96, speeds: [6])
    d.go(from: s + 96, to: g.length, speeds: [12])
    #expect(try Self.offRoutes(route, d.fixes).isEmpty)
  }

  @Test(arguments: 1...4 as ClosedRange<UInt64>)
  func walkingBackStandingAndDeadReckoningAreNotTheWrongWay(seed: UInt64) throws {
    let route = makeRoute(legs: [(90, 800, "Arrive")])
    // A walker turning round (1.4 m/s, a rough course), then standing with a random course.
    var walk = Drive(route, noise: 5, seed: seed)
    walk.go(from: 0, to: 150, speeds: [1.4], courseNoise: 30)
    walk.go(from: 150, to: 60, speeds: [1.4], courseNoise: 30)
    walk.stand(at: 60, seconds: 30)
    #expect(try !Self.offRoutes(route, walk.fixes).contains { $0.reason == .wrongWay })
    // A car whose receiver dead-reckons a course against the route.
    var car = Drive(route, noise: 3, seed: seed)
    car.go(from: 0, to: 400, speeds: [12])
    car.go(from: 400, to: 300, speeds: [10], quality: .deadReckoning)
    #expect(try !Self.offRoutes(route, car.fixes).contains { $0.reason == .wrongWay })
  }
}
