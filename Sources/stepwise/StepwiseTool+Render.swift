import CommandLineSupport
import Geodesy
import Guidance
import Lab
import NMEA
import POSIX
import Phrasebook
import RouteFiles
import Routes
import Simulation

extension StepwiseTool {
  /// `stepwise render SCENARIO_DIR --output FILE.svg`, or
  /// `stepwise render TRACK.nmea --route ROUTE [--locale L --units U] --output FILE.svg`.
  ///
  /// A scenario is replayed from its committed track, with the simulator's truth when it has a
  /// recipe; a bare track is replayed against the route given.
  static func renderCommand(_ args: inout Arguments, _ out: OutputSink) throws {
    guard let output = try args.option("--output", "-o") else {
      throw UsageError("render needs --output FILE.svg")
    }
    let common = try CommonOptions.parse(&args)
    let rest = try args.positionals()
    guard rest.count == 1, var input = rest.first else {
      throw UsageError("render needs one scenario folder or track")
    }
    while input.count > 1 && input.hasSuffix("/") { input.removeLast() }
    let picture: RunPicture
    if let scenario = try? Scenario(directory: input) {
      let route = try scenario.document.route(at: scenario.routeIndex)
      picture = RunPicture(
        title: "\(input.split(separator: "/").last.map(String.init) ?? input): \(route.name)",
        route: route, events: try scenario.events(), fixes: try scenario.trackFixes(),
        truth: try scenario.simulatedDrive())
    } else {
      guard let routePath = common.routePath else {
        throw UsageError("render: \(input) is not a scenario folder; give the route with --route")
      }
      let doc = try RouteFiles.load(routePath, format: common.routeFormat, language: common.locale)
      let route = try doc.route(at: common.routeIndex)
      var reader = NMEAReader()
      let fixes = reader.feed(try readWholeFile(input)) + reader.finish()
      let language = common.locale ?? RouteFiles.language(of: doc) ?? .en
      var session = try NavigationSession(
        document: doc, routeIndex: common.routeIndex,
        phrasing: Phrasebook(language: language, units: common.units))
      let events = session.replay(fixes)
      picture = RunPicture(
        title: "\(input): \(route.name)", route: route, events: events, fixes: fixes, truth: nil)
    }
    try writeFileAtomically(output, Array(picture.svg().utf8))
  }
}
