import Foundation
import FoundationXML
import Geodesy
import Routes
import Simulation
import TestSupport
import Testing

@testable import Lab

/// Collects elements of an SVG document as parsed by Foundation's XMLParser.
final class SVGCollector: NSObject, XMLParserDelegate {
  struct Element {
    var name: String
    var attributes: [String: String]
    /// `id`s of the enclosing groups, innermost last.
    var groups: [String]
  }
  var elements: [Element] = []
  private var stack: [String] = []

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
    qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    elements.append(
      Element(name: name, attributes: attributes, groups: stack.filter { !$0.isEmpty }))
    stack.append(name == "g" ? attributes["id"] ?? "" : "")
  }

  func parser(
    _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
  ) {
    stack.removeLast()
  }

  /// Parses `svg`; records an issue when it is not well-formed XML.
  static func parse(_ svg: String, sourceLocation: SourceLocation = #_sourceLocation)
    -> SVGCollector
  {
    let c = SVGCollector()
    let p = XMLParser(data: Data(svg.utf8))
    p.delegate = c
    let ok = p.parse()
    #expect(
      ok, "not well-formed: \(p.parserError.map(String.init(describing:)) ?? "?")",
      sourceLocation: sourceLocation)
    return c
  }

  func inGroup(_ id: String, _ name: String? = nil) -> [Element] {
    elements.filter { $0.groups.contains(id) && (name == nil || $0.name == name) }
  }
}

@Suite struct RenderTests {
  private func picture(_ name: String) throws -> (RunPicture, Scenario) {
    let s = try Scenario(directory: repositoryFile("Simulations/" + name))
    let route = try s.document.route(at: s.routeIndex)
    return (
      RunPicture(
        title: name, route: route, events: try s.events(), fixes: try s.trackFixes(),
        truth: try s.simulatedDrive()), s
    )
  }

  @Test func aDeviationPictureHoldsEveryLayer() throws {
    let (pic, scenario) = try picture("003-missed-turn-and-return")
    let svg = SVGCollector.parse(pic.svg())
    let steps = pic.route.steps.count - 1
    #expect(svg.elements.first?.name == "svg")
    let ids = Set(svg.elements.compactMap { $0.name == "g" ? $0.attributes["id"] : nil })
    for id in [
      "map", "route", "dropouts", "truth", "fixes", "matched", "offroute", "maneuvers",
      "announcements",
      "legend", "scalebar", "timeline", "distance",
    ] {
      #expect(ids.contains(id), "no <g id=\"\(id)\">")
    }
    #expect(svg.inGroup("route", "polyline").count == steps)
    let colours = Set(svg.inGroup("route", "polyline").compactMap { $0.attributes["stroke"] })
    #expect(colours.count == min(2, steps))
    #expect(svg.inGroup("maneuvers", "circle").count == steps)
    #expect(svg.inGroup("maneuvers", "text").count == steps)
    let announcements = try scenario.events().filter { $0.announcement != nil }.count
    #expect(svg.inGroup("announcements", "path").count == announcements)
    #expect(svg.inGroup("timeline", "circle").count == announcements)
    #expect(!svg.inGroup("offroute", "polyline").isEmpty)
    #expect(svg.inGroup("timeline", "rect").contains { $0.attributes["class"] == "offroute" })
    #expect(
      svg.inGroup("fixes", "circle").count
        == (try scenario.trackFixes()).filter { $0.coordinate != nil }.count)
  }

  @Test func theRoadIsMarkedWhereTheRouteCarriesIt() throws {
    let (pic, _) = try picture("070-highway-exit-tunnel-overspeed")
    let svg = SVGCollector.parse(pic.svg())
    // Toll road and tunnel as stretches, toll booth and level crossing as points.
    #expect(svg.inGroup("road", "polyline").count == 2)
    #expect(svg.inGroup("road", "rect").count == 2)
    // The three limits, each where its span starts.
    #expect(svg.inGroup("road", "circle").count == 3)
    // A route without road data draws none (and its legend has no road lines).
    let (plain, _) = try picture("003-missed-turn-and-return")
    let none = SVGCollector.parse(plain.svg())
    #expect(none.inGroup("road").isEmpty)
  }

  @Test func aTunnelPictureShowsTheDropout() throws {
    let (pic, _) = try picture("004-tunnel-dropout")
    let svg = SVGCollector.parse(pic.svg())
    #expect(!svg.inGroup("dropouts", "polyline").isEmpty)
    #expect(svg.inGroup("timeline", "rect").contains { $0.attributes["class"] == "nofix" })
  }

  @Test func titlesWithMarkupAreEscaped() throws {
    var (pic, _) = try picture("001-marais-drive")
    pic.title = "A & B <C> \"D\""
    let svg = SVGCollector.parse(pic.svg())
    #expect(svg.elements.contains { $0.name == "text" && $0.attributes["id"] == "title" })
  }

  /// East and north metres come out at the same scale at any latitude.
  @Test(arguments: [0.0, 47.1, 69.6, -54.8])
  func projectionKeepsShapesAtAnyLatitude(latitude: Double) {
    let c = Coordinate(latitude: latitude, longitude: 10)
    let east = c.destination(distance: 1000, bearing: 90)
    let north = c.destination(distance: 1000, bearing: 0)
    let p = LocalProjection(points: [c, east, north], width: 1000, height: 700)
    let o = p.point(c)
    let e = p.point(east)
    let n = p.point(north)
    let de = ((e.x - o.x) * (e.x - o.x) + (e.y - o.y) * (e.y - o.y)).squareRoot()
    let dn = ((n.x - o.x) * (n.x - o.x) + (n.y - o.y) * (n.y - o.y)).squareRoot()
    #expect(abs(de / dn - 1) < 0.01, "east \(de) px, north \(dn) px")
    #expect(abs(de - 1000 * p.scale) < 0.02 * de, "scale bar would be off")
    #expect(n.y < o.y, "north is up")
  }

  @Test func renderCommandWritesAnSVGFile() throws {
    let out = NSTemporaryDirectory() + "render-\(getpid()).svg"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let r = try runTool("stepwise", ["render", "Simulations/009-loop", "--output", out])
    #expect(r.status == 0, "\(r.stderr)")
    let text = String(decoding: readBytes(out), as: UTF8.self)
    _ = SVGCollector.parse(text)
    #expect(text.contains("<g id=\"timeline\">"))
  }
}

/// The legend has a column of its own: no fix or maneuver of any scenario is under its box.
@Suite struct RenderLegendTests {
  @Test func nothingOnTheMapIsUnderTheLegend() throws {
    let folders = try FileManager.default.contentsOfDirectory(atPath: repositoryFile("Simulations"))
      .filter { $0.first?.isNumber == true }.sorted()
    #expect(!folders.isEmpty)
    for name in folders {
      let s = try Scenario(directory: repositoryFile("Simulations/" + name))
      let picture = RunPicture(
        title: name, route: try s.document.route(at: s.routeIndex), events: try s.events(),
        fixes: try s.trackFixes(), truth: nil)
      let svg = SVGCollector.parse(picture.svg())
      // The legend's box: its group's translation plus its background rectangle.
      let group = try #require(svg.elements.first { $0.attributes["id"] == "legend" })
      let offsets = (group.attributes["transform"] ?? "").split(whereSeparator: {
        !"0123456789.-".contains($0)
      })
      .compactMap { Double($0) }
      let box = try #require(svg.inGroup("legend", "rect").first?.attributes)
      let left = offsets[0] + (Double(box["x"] ?? "") ?? 0)
      let top = offsets[1] + (Double(box["y"] ?? "") ?? 0)
      let bottom = top + (Double(box["height"] ?? "") ?? 0)
      let points = (svg.inGroup("fixes", "circle") + svg.inGroup("maneuvers", "circle")).compactMap
      {
        e -> (Double, Double)? in
        guard let x = e.attributes["cx"].flatMap(Double.init),
          let y = e.attributes["cy"].flatMap(Double.init)
        else { return nil }
        return (x, y)
      }
      #expect(!points.isEmpty)
      let hidden = points.filter { $0.0 >= left && $0.1 >= top && $0.1 <= bottom }
      #expect(
        hidden.isEmpty,
        "\(name): \(hidden.count) points under the legend, first \(hidden.first.map { "\($0)" } ?? "")"
      )
    }
  }
}
