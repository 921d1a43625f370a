import Foundation
import Geodesy
import JSON
import Matching
import Phrasebook
import RouteFiles
import TestSupport
import Testing

@testable import Guidance
@testable import RouteShape
@testable import Routes

/// Every route file the repository carries: the scenarios' and the importers' fixtures.
private func fixtureDocuments() throws -> [(name: String, document: RouteDocument)] {
  var names = try FileManager.default.contentsOfDirectory(atPath: repositoryFile("Simulations"))
    .filter { $0.hasPrefix("0") }.sorted().map { "Simulations/\($0)/route.json" }
  for folder in ["osrm", "graphhopper", "gpx", "geojson"] {
    let dir = "Tests/Fixtures/routes/\(folder)"
    names += try FileManager.default.contentsOfDirectory(atPath: repositoryFile(dir)).sorted()
      .map { "\(dir)/\($0)" }
  }
  // Some fixtures are not routes (a bare GraphHopper instruction list): left out.
  let documents = names.compactMap { name in
    (try? RouteFiles.load(repositoryFile(name))).map { (name, $0) }
  }
  #expect(documents.count >= 50)
  return documents
}

/// A route's steps as ranges of one array of points: the same points, the geometry reading
/// them from that array, and the native document written straight from them.
@Suite struct RouteSharedPointsTests {
  @Test func sharedStepsKeepTheirPointsAndTheRouteIsHeldOnce() {
    let doc = makeRoute(
      legs: [(0, 300, "Turn right"), (90, 260, "Turn left"), (0, 120, "Arrive")],
      notices: [2: "Railroad crossing"])
    let route = doc.routes[0]
    let shared = route.sharingOnePointArray()
    #expect(shared.route == route)
    for (a, b) in zip(shared.route.steps, route.steps) {
      #expect(a.polyline.coordinates == b.polyline.coordinates)
      #expect(a.polyline.hashValue == b.polyline.hashValue)
      #expect(a.polyline.storage.count == shared.points.storage.count)
    }
    let total = route.steps.reduce(0) { $0 + $1.polyline.count }
    #expect(shared.points.count == total)
    #expect(shared.points.coordinates == route.steps.flatMap(\.polyline.coordinates))
    // Already shared: returned as it is, the same array.
    let again = shared.route.sharingOnePointArray()
    let base = { (p: RoutePolyline) in p.storage.withUnsafeBufferPointer { $0.baseAddress } }
    #expect(base(again.points) == base(shared.points))
    #expect(base(again.route.steps[2].polyline) == base(shared.points))
  }

  @Test func changingASharedStepLeavesTheOthersAlone() {
    let doc = makeRoute(legs: [(0, 100, "Turn right"), (90, 100, "Arrive")])
    var route = doc.routes[0].sharingOnePointArray().route
    let before = route.steps[2].polyline
    let extra = Coordinate(latitude: 47.2, longitude: 9.6)
    route.steps[1].polyline.append(extra)
    #expect(route.steps[1].polyline.count == doc.routes[0].steps[1].polyline.count + 1)
    #expect(route.steps[1].polyline[route.steps[1].polyline.count - 1] == extra)
    #expect(route.steps[2].polyline == before)
    route.steps[2].polyline.removeLast()
    #expect(route.steps[2].polyline.coordinates == Array(before.coordinates.dropLast()))
    route.steps[2].polyline.append(before[before.count - 1])
    #expect(route.steps[2].polyline == before)
    #expect(RoutePolyline(route.steps[2].polyline[1...]).coordinates == Array(before[1...]))
  }

  /// `Coordinate.distance(to:)` as it was written before the cosines were shared.
  private func haversine(_ p: Coordinate, _ q: Coordinate) -> Double {
    let lat1 = p.latitude * .pi / 180
    let lat2 = q.latitude * .pi / 180
    let dLat = lat2 - lat1
    let dLon = wrappedLongitudeDelta(q.longitude - p.longitude) * .pi / 180
    let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
    return 2 * earthRadius * atan2(sqrt(a), sqrt(max(0, 1 - a)))
  }

  /// The geometry works each point's latitude cosine out once for its two segments and its
  /// east scale: the figures are bit for bit those of `distance(to:)` and the cosine formula.
  @Test func theGeometrysDistancesAndScalesAreThePerPointFormulas() throws {
    for (name, doc) in try fixtureDocuments() {
      let g = RouteGeometry(route: doc.routes[0])
      var sum = 0.0
      for i in 0..<g.points.count {
        if i > 0 { sum += haversine(g.points[i - 1], g.points[i]) }
        #expect(g.cumulative[i] == sum, "\(name) point \(i)")
        let scale = Float(earthRadius * cos(g.points[i].latitude * .pi / 180) * .pi / 180)
        #expect(g.metresPerDegreeLongitude[i] == Double(scale), "\(name) point \(i)")
      }
    }
  }

  @Test func theGeometryReadsTheRoutesPoints() throws {
    for (name, doc) in try fixtureDocuments() {
      let route = doc.routes[0]
      let g = RouteGeometry(route: route)
      // The points the copy held: the thinned points of the steps joined.
      let reference = ThinnedRoute(route)
      #expect(g.points.coordinates == reference.points.coordinates, "\(name)")
      let total = route.steps.reduce(0) { $0 + $1.polyline.count }
      #expect(g.points.shared == (g.points.count * RoutePoints.sharingRatio >= total), "\(name)")
      #expect(g.points.all.count == (g.points.shared ? total : g.points.count), "\(name)")
      let session = try NavigationSession(
        document: doc, phrasing: Phrasebook(language: .en, units: .metric))
      #expect(session.document == doc, "\(name)")
      let base = { (p: RoutePolyline) in p.storage.withUnsafeBufferPointer { $0.baseAddress } }
      if session.geometry.points.shared {
        #expect(base(session.geometry.points.all) == base(session.route.steps[1].polyline))
      }
      #expect(
        base(session.document.routes[0].steps[1].polyline) == base(doc.routes[0].steps[1].polyline))
    }
  }

  @Test func pointsOfBlocksFarApartAreFound() {
    // Read through the route's array, offsets from a block's first point reach thousands
    // where every 64th point is kept; copied when few are kept in all.
    var all = RoutePolyline()
    for i in 0..<40_000 {
      all.append(Coordinate(latitude: 47 + Double(i) * 1e-6, longitude: 9 + Double(i % 7) * 1e-7))
    }
    for dense in [12_000, 0] {
      let indices = Array(0..<Int32(dense)) + Array(stride(from: Int32(dense), to: 40_000, by: 64))
      let points = RoutePoints(all, indices: indices)
      #expect(points.shared == (dense > 0))
      #expect(points.count == indices.count)
      #expect(points.coordinates == indices.map { all[Int($0)] })
    }
  }

  @Test func theStreamedDocumentIsTheTreesBytes() throws {
    var documents = try fixtureDocuments()
    var odd = makeRoute(
      legs: [(10, 200, "Turn \"right\"\\\n"), (200, 150, "도착")], notices: [1: "Tolls\t€"],
      advisories: ["One", "Two"])
    odd.routes[0].steps[1].waypoint = 1
    odd.routes.append(odd.routes[0])
    odd.routes[1].name = "Second"
    documents.append(("odd strings, two routes", odd))
    for (name, doc) in documents {
      let expected = Array(JSONWriter.string(NativeRouteFormat.encode(doc)).utf8)
      for chunk in [1, 7, 4096, NativeRouteFormat.writeChunk] {
        var written: [UInt8] = []
        var out: [UInt8] = []
        var flushes = 0
        NativeRouteFormat.write(doc, into: &out, flushingAt: chunk) { bytes in
          #expect(bytes.count >= chunk)
          written += bytes
          bytes.removeAll()
          flushes += 1
        }
        written += out
        #expect(written == expected, "\(name), chunks of \(chunk)")
        if chunk == 1 { #expect(flushes > 10) }
      }
    }
  }
}
