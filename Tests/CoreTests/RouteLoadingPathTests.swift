import Foundation
import JSON
import RouteFiles
import Routes
import TestSupport
import Testing

// A native document is read by the pull decoder straight into fixed point, an importer's
// document is rounded and checked without a JSON tree; both must give exactly what the tree
// path gives, and leave every error to it.
@Suite struct RouteLoadingPathTests {
  /// Every scenario route and the native example.
  static var nativeFiles: [String] {
    let simulations = repositoryFile("Simulations")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: simulations)) ?? []).sorted()
    return names.map { "\(simulations)/\($0)/route.json" }
      .filter { FileManager.default.fileExists(atPath: $0) }
      + [repositoryFile("Tests/Fixtures/routes/example.json")]
  }

  /// The tree path: parse, then validate the tree.
  static func tree(_ bytes: [UInt8]) throws -> RouteDocument {
    try NativeRouteFormat.decode(JSONParser.parse(bytes))
  }

  @Test func thePullDecoderReadsEveryNativeFileAsTheTreeDoes() throws {
    let files = Self.nativeFiles
    #expect(files.count >= 45)
    for file in files {
      let bytes = readBytes(file)
      let pulled = try RouteFiles.decode(bytes, name: file)
      #expect(pulled == (try Self.tree(bytes)), "\(file)")
    }
  }

  @Test func documentsLaidOutOtherwiseTakeTheTreeAndLoadTheSame() throws {
    let bytes = readBytes(repositoryFile("Tests/Fixtures/routes/example.json"))
    let value = try JSONParser.parse(bytes)
    let root = try #require(value.objectValue)
    // `routes` before `source`, and a point with a member the pull decoder does not read.
    let reordered = JSONObject(root.members.sorted { $0.key == "routes" && $1.key != "routes" })
    let text = JSONWriter.prettyString(.object(reordered))
    #expect(try RouteFiles.decode(Array(text.utf8), name: "r") == (try Self.tree(bytes)))
    let extra = text.replacingOccurrences(of: #""latitude""#, with: #""altitude":1,"latitude""#)
    #expect(extra != text)
    #expect(try RouteFiles.decode(Array(extra.utf8), name: "e") == (try Self.tree(bytes)))
  }

  @Test func errorsAreTheTreesErrors() throws {
    let text = String(
      decoding: readBytes(repositoryFile("Tests/Fixtures/routes/example.json")), as: UTF8.self)
    let broken = [
      text.replacingOccurrences(of: #""latitude""#, with: #""lat""#),
      text.replacingOccurrences(of: #""polyline""#, with: #""line""#),
      String(text.dropLast(40)),
      text.replacingOccurrences(of: "\"distance\": 0", with: "\"distance\": -1"),
      text + "x",
    ]
    for (i, b) in broken.enumerated() {
      #expect(b != text, "case \(i)")
      let bytes = Array(b.utf8)
      var viaFiles: RouteDocumentError?
      do { _ = try RouteFiles.decode(bytes, name: "b") } catch { viaFiles = error.underlying }
      var viaTree: RouteDocumentError?
      do { _ = try NativeRouteFormat.decode(bytes) } catch { viaTree = error }
      #expect(viaFiles != nil && viaFiles == viaTree, "case \(i): \(String(describing: viaFiles))")
    }
  }

  @Test func importedDocumentsAreWhatTheWriterAndTheTreeWouldMakeOfThem() throws {
    let folders = ["valhalla", "osrm", "graphhopper", "gpx", "geojson"]
    var count = 0
    for file in folders.flatMap(ImportFixtures.files) {
      guard let doc = try? ImportFixtures.document(file) else { continue }
      #expect(doc == (try NativeRouteFormat.decode(NativeRouteFormat.encode(doc))), "\(file)")
      count += 1
    }
    #expect(count >= 10)
  }
}
