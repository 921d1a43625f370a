import Foundation
import Geodesy
import Guidance
import GuidanceSettings
import Lab
import Phrasebook
import Routes
import Simulation
import Testing

/// The repository root, found from this file's path (tests never reach outside the repository).
public let repositoryRoot: String = {
  var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
  parts.removeLast(3)  // Tests/TestSupport/TestSupport.swift
  return parts.joined(separator: "/")
}()

public func repositoryFile(_ relative: String) -> String { repositoryRoot + "/" + relative }

public func readBytes(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]
{
  guard let data = FileManager.default.contents(atPath: path) else {
    Issue.record("cannot read \(path)", sourceLocation: sourceLocation)
    return []
  }
  return [UInt8](data)
}

/// A small route DSL: legs given as (bearing in degrees, length in metres, instructions at the
/// end of the leg).
///
/// Each leg becomes one step; points every `spacing` metres.
public func makeRoute(
  start: Coordinate = Coordinate(latitude: 47.14, longitude: 9.52),
  legs: [(bearing: Double, length: Double, instructions: String)],
  mode: TransportType = .automobile, spacing: Double = 25, name: String = "Test route",
  notices: [Int: String] = [:], modes: [Int: TransportType] = [:], tolls: Bool = false,
  advisories: [String] = []
) -> RouteDocument {
  var steps = [
    RouteStep(instructions: "", distance: 0, transportType: mode, polyline: [start])
  ]
  var here = start
  var total = 0.0
  for (i, leg) in legs.enumerated() {
    var poly = [here]
    var done = 0.0
    while done < leg.length {
      let d = min(spacing, leg.length - done)
      done += d
      poly.append(here.destination(distance: done, bearing: leg.bearing))
    }
    here = poly[poly.count - 1]
    total += leg.length
    steps.append(
      RouteStep(
        instructions: leg.instructions, notice: notices[i + 1], distance: leg.length,
        transportType: modes[i + 1] ?? mode, polyline: poly))
  }
  let route = Route(
    name: name, distance: total, expectedTravelTime: total / 12, transportType: mode,
    hasTolls: tolls, advisoryNotices: advisories, steps: steps)
  return RouteDocument(
    source: Place(name: "Start", coordinate: start),
    destination: Place(name: "Goal", coordinate: here), routes: [route])
}

/// Runs a whole drive through a session and returns every event.
public func runSession(
  _ document: RouteDocument, fixes: [Fix], language: Language = .en,
  configuration: GuidanceConfiguration = GuidanceConfiguration()
) throws -> [NavigationEvent] {
  var session = try NavigationSession(
    document: document, phrasing: Phrasebook(language: language), configuration: configuration)
  var events: [NavigationEvent] = []
  for f in fixes { events += session.ingest(f) }
  return events
}

extension NavigationEvent {
  public var announcement: Announcement? {
    if case .announce(let a) = kind { return a }
    return nil
  }
  public var progressValue: Guidance.Progress? {
    if case .progress(let p, _) = kind { return p }
    return nil
  }
  /// What lies ahead, where a `PROGRESS` carries it.
  public var aheadList: [RoadObject]? {
    if case .progress(_, let ahead) = kind { return ahead }
    return nil
  }
  public var isOffRoute: Bool {
    if case .offRoute = kind { return true }
    return false
  }
  public var isArrived: Bool {
    if case .arrived = kind { return true }
    return false
  }
  public var stepIndex: Int? {
    if case .step(let s) = kind { return s }
    return nil
  }
}

/// `base` plus the sanitizers' settings of this test run (Scripts/sanitize.sh), for a child that
/// is started with a clean environment: a sanitizer report in the child then lands in the run's
/// reports folder instead of a stderr file the test deletes.
public func sanitizerEnvironment(_ base: [String: String]) -> [String: String] {
  let passed = ProcessInfo.processInfo.environment.filter {
    ["TSAN_OPTIONS", "ASAN_OPTIONS"].contains($0.key)
  }
  return base.merging(passed) { $1 }
}

extension Scenario {
  /// Loads the scenario folder at `directory` from the file system.
  public init(directory: String) throws {
    try self.init(
      directory: directory,
      read: { path in
        guard let data = FileManager.default.contents(atPath: path) else {
          throw ScenarioError("cannot read \(path)")
        }
        return [UInt8](data)
      })
  }
}

/// A deterministic xorshift generator, so that a failure drawn from it can be run again.
public struct Xorshift: RandomNumberGenerator {
  public var x: UInt64

  /// Starts at `x`, which must not be 0.
  public init(x: UInt64) { self.x = x }

  public mutating func next() -> UInt64 {
    x ^= x << 13
    x ^= x >> 7
    x ^= x << 17
    return x
  }

  /// A number in 0 ..< `n`.
  public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
