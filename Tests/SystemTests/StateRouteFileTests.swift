import Daemon
import Foundation
import Guidance
import JSON
import RouteFiles
import Routes
import TestSupport
import Testing

/// The route file of the state directory, written straight from the route's points: the same
/// bytes as the JSON tree it used to be written from, and read back by the loader.
@Suite(.blocking) struct StateRouteFileTests {
  /// What `saveRoute` wrote when it built the whole file as one JSON tree.
  static func treeBytes(
    _ document: RouteDocument, routeIndex: Int, routeFile: String?, revision: Int
  ) -> [UInt8] {
    var o = JSONObject()
    o.append("format", .string(StateStore.format))
    o.append("version", .number(StateStore.version))
    if let routeFile { o.append("routeFile", .string(routeFile)) }
    o.append("routeIndex", .number(Double(routeIndex)))
    if revision > 0 { o.append("revision", .number(Double(revision))) }
    o.append("document", NativeRouteFormat.encode(document))
    return Array(JSONWriter.string(.object(o)).utf8)
  }

  @Test(
    arguments: [
      ("Simulations/001-marais-drive/route.json", 0, nil, 0),
      ("Simulations/010-multileg-waypoints/route.json", 0, "/etc/stepwise/route.json", 3),
      ("Simulations/021-multileg-korean/route.json", 0, "route \"ko\".json", 0),
      ("Tests/Fixtures/routes/osrm/maplibre-android_directions_two_leg_route.json", 0, nil, 1),
    ] as [(String, Int, String?, Int)])
  func theSavedRouteIsTheTreesBytesAndLoadsBack(
    path: String, routeIndex: Int, routeFile: String?, revision: Int
  ) throws {
    let dir = try StateStoreTests.tempDir()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let document = try RouteFiles.load(repositoryFile(path))
    let store = StateStore(directory: dir)
    try store.saveRoute(
      document, routeIndex: routeIndex, routeFile: routeFile, revision: revision)
    let bytes = readBytes(store.routePath)
    let expected = Self.treeBytes(
      document, routeIndex: routeIndex, routeFile: routeFile, revision: revision)
    #expect(bytes.count > 1000)
    #expect(bytes == expected)
    let (result, problem) = store.load()
    #expect(problem == nil)
    let saved = try result.get()
    // What the loader makes of the tree's own text.
    let reference = try NativeRouteFormat.decode(
      Array(JSONWriter.string(NativeRouteFormat.encode(document)).utf8))
    #expect(saved.document == reference)
    #expect(saved.routeIndex == routeIndex)
    #expect(saved.routeFile == routeFile)
    #expect(saved.revision == revision)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["route.json"])
  }
}
