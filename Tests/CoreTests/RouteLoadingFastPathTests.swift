import Geodesy
import JSON
import Simulation
import Testing

@testable import Guidance
@testable import RouteImporters
@testable import RouteShape
@testable import Routes

// The loading fast paths hold to the code they stand in for: points read by the pull decoder's
// fixed-point reader are the tree's, a polyline6 decoded straight into fixed point is the
// `Coordinate` decoder's, and one-pass thinning keeps exactly the points that measuring every
// dropped point with `project(_:ontoSegmentFrom:to:)` keeps.

extension RandomSource {
  fileprivate mutating func uniform(_ range: ClosedRange<Double>) -> Double {
    Double.random(in: range, using: &self)
  }

  fileprivate mutating func pick<T>(_ items: [T]) -> T {
    items[Int.random(in: 0..<items.count, using: &self)]
  }
}

/// Thinning as `RouteGeometry` did it before the one-pass version: the definition.
private func referenceThinning(_ route: Route) -> (points: [Coordinate], ends: [Int]) {
  var pts: [Coordinate] = []
  var ends: [Int] = []
  var dropped: [Coordinate] = []
  var lastIsEnd = false
  func append(_ p: Coordinate) {
    if pts.count >= 2, !lastIsEnd, dropped.count < 64 {
      let a = pts[pts.count - 2]
      let b = pts[pts.count - 1]
      func distance(_ q: Coordinate) -> Double { project(q, ontoSegmentFrom: a, to: p).distance }
      if distance(b) < 0.05 && dropped.allSatisfy({ distance($0) < 0.05 }) {
        dropped.append(b)
        pts.removeLast()
      } else {
        dropped.removeAll()
      }
    } else {
      dropped.removeAll()
    }
    pts.append(p)
    lastIsEnd = false
  }
  for (i, step) in route.steps.enumerated() {
    if i == 0 {
      append(step.polyline[step.polyline.count - 1])
    } else {
      for (k, p) in step.polyline.enumerated() where k > 0 || pts.isEmpty { append(p) }
    }
    ends.append(pts.count - 1)
    lastIsEnd = true
  }
  return (pts, ends)
}

/// A route of nearly straight stretches with noise of the order of the tolerance, so that runs
/// of dropped points end on all sorts of points; sometimes across the antimeridian.
private func noisyRoute(_ rng: inout RandomSource) -> Route {
  var here = Coordinate(
    latitude: rng.uniform(-70...70), longitude: rng.pick([179.9995, rng.uniform(-180...180)]))
  let spacing = rng.pick([0.02, 0.1, 0.3, 1.0, 5.0])
  let noise = rng.pick([0.0, 0.005, 0.02, 0.04, 0.06])
  var heading = rng.uniform(0...360)
  var points: [Coordinate] = [here]
  for _ in 0..<Int.random(in: 50...600, using: &rng) {
    if Double.random(in: 0...1, using: &rng) < 0.02 { heading += rng.uniform(-90...90) }
    here = here.destination(distance: spacing, bearing: heading)
    let side = here.destination(distance: rng.uniform(-noise...noise), bearing: heading + 90)
    var longitude = side.longitude
    if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
    points.append(Coordinate(latitude: side.latitude, longitude: longitude))
  }
  var steps = [
    RouteStep(instructions: "", distance: 0, transportType: .automobile, polyline: [points[0]])
  ]
  var i = 0
  while i < points.count - 1 {
    let end = min(points.count - 1, i + Int.random(in: 2...200, using: &rng))
    steps.append(
      RouteStep(
        instructions: "Turn", distance: 0, transportType: .automobile,
        polyline: Array(points[i...end])))
    i = end
  }
  return Route(
    name: "Noisy", distance: 0, expectedTravelTime: 0, transportType: .automobile,
    steps: steps)
}

@Suite struct RouteLoadingFastPathTests {
  @Test func onePassThinningKeepsThePointsTheDefinitionKeeps() {
    var rng = RandomSource(seed: 18_001)
    var droppedSome = 0
    for _ in 0..<200 {
      let route = noisyRoute(&rng)
      // Through fixed point first, as a loaded route is.
      let expected = referenceThinning(route)
      let thinned = ThinnedRoute(route)
      #expect(thinned.points.coordinates == expected.points)
      #expect(thinned.stepEnds == expected.ends)
      let total = route.steps.reduce(0) { $0 + $1.polyline.count }
      if expected.points.count < total - route.steps.count { droppedSome += 1 }
    }
    // Most routes drop points: the comparison is not only of untouched polylines.
    #expect(droppedSome > 100)
  }

  @Test func fixedPointPointsAreTheTreesPoints() throws {
    var rng = RandomSource(seed: 18_002)
    // Written forms of numbers: the reader's own, and those it leaves to the general reader.
    func form(_ value: Double) -> String {
      switch Int.random(in: 0..<9, using: &rng) {
      case 0: return String(format7(value).dropLast(Int.random(in: 0...6, using: &rng)))
      case 1: return format7(value) + "3"  // eight decimals
      case 2: return "\(value)e0"
      case 3: return String(Int(value))
      case 4: return " \t" + format7(value) + "\n"
      case 5: return value < 0 ? format7(value) : "-" + format7(value)
      case 6: return "0" + format7(abs(value))  // a leading zero: not JSON
      case 7: return format7(value) + "."
      default: return format7(value)
      }
    }
    var loaded = 0
    for _ in 0..<300 {
      var points: [String] = []
      var start = Coordinate(latitude: rng.uniform(-89...89), longitude: rng.uniform(-179...179))
      for _ in 0..<4 {
        let lat = start.latitude
        let lon = start.longitude
        points.append(#"{"latitude":\#(form(lat)),"longitude":\#(form(lon))}"#)
        start = start.destination(distance: 0.001, bearing: 90)
      }
      let poles = [#"{"latitude":90.0000001,"longitude":1}"#, #"{"latitude":-90,"longitude":180}"#]
      if Int.random(in: 0..<10, using: &rng) == 0 { points.append(rng.pick(poles)) }
      let line = points.joined(separator: ",")
      let text = """
        {"source":{"name":"A","latitude":1,"longitude":2},"destination":{"name":"B",\
        "latitude":1,"longitude":2},"routes":[{"name":"R","distance":1,"expectedTravelTime":1,\
        "transportType":"automobile","steps":[{"instructions":"","distance":0,\
        "transportType":"automobile","polyline":[\(points[0])]},{"instructions":"Go",\
        "distance":1,"transportType":"automobile","polyline":[\(line)]}]}]}
        """
      let bytes = Array(text.utf8)
      let tree = Result { try NativeRouteFormat.decode(JSONParser.parse(bytes)) }
      let pulled = bytes.withUnsafeBufferPointer { NativeRouteFormat.decodeStreaming($0) }
      switch tree {
      case .success(let document):
        // The pull decoder may leave a document to the tree, never read it otherwise.
        if let pulled {
          #expect(pulled == document, "\(line)")
          loaded += 1
        }
      case .failure:
        #expect(pulled == nil, "\(line)")
      }
    }
    #expect(loaded > 30)
  }

  @Test func polyline6StraightIntoFixedPointIsTheCoordinateDecoders() {
    var rng = RandomSource(seed: 18_003)
    for precision in [5, 6, 7, 9] {
      for _ in 0..<100 {
        var points: [Coordinate] = []
        for _ in 0..<Int.random(in: 1...50, using: &rng) {
          points.append(
            Coordinate(latitude: rng.uniform(-90...90), longitude: rng.uniform(-180...180)))
        }
        var encoded = Polyline.encode(points, precision: precision)
        // Now and then a broken string: the same error both ways.
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: encoded = String(encoded.dropLast())
        case 1: encoded += "!"
        default: break
        }
        let coordinates = Result { try Polyline.decode(encoded, precision: precision) }
        let fixed = Result { try Polyline.decodeFixedPoint(encoded, precision: precision) }
        switch (coordinates, fixed) {
        case (.success(let c), .success(let f)):
          #expect(f == RoutePolyline(c), "precision \(precision): \(encoded)")
        case (.failure(let c), .failure(let f)):
          #expect("\(c)" == "\(f)")
        default:
          Issue.record("one decoder failed, the other did not: \(encoded)")
        }
      }
    }
  }
}

/// Seven decimals, as the native writer writes a coordinate.
private func format7(_ value: Double) -> String {
  let units = Int((value * 10_000_000).rounded())
  let sign = units < 0 ? "-" : ""
  let whole = abs(units) / 10_000_000
  var fraction = String(abs(units) % 10_000_000)
  fraction = String(repeating: "0", count: 7 - fraction.count) + fraction
  return "\(sign)\(whole).\(fraction)"
}
