import Geodesy
import Rerouting
public import Router
public import Routes
public import Simulation

/// Finds the real roads of a driver's mistakes: asks the router for a way that leaves the
/// route at the maneuver the driver gets wrong.
public enum WrongWays {
  /// Metres before the maneuver the router is asked from, heading along the route: the way
  /// starts on the road into the maneuver.
  static let approach = 20.0
  /// Metres from the maneuver to the point the wrong way heads for.
  static let reach = 700.0
  /// A wrong way must go at least this far once off the route, metres.
  static let minimumLength = 300.0
  /// A wrong way must be this far from the route at ``checkAfter`` metres past the point it
  /// leaves it.
  static let minimumOffset = 25.0
  static let checkAfter = 150.0
  /// Metres of a missed turn's way, from where it leaves the route, whose heading is checked.
  static let headingCheck = 30.0
  /// How far a missed turn's way may turn from the road into the maneuver, degrees.
  ///
  /// A missed turn goes on ahead or turns elsewhere, never back. Without this a router's way onto
  /// the other carriageway of a divided road (a U-turn just past the turn) passed for one.
  static let missedTurnDeflection = 120.0
  /// Metres from a roundabout's entry to its exit where the route does not say (a route
  /// published over the socket carries no maneuvers): about half way round a town roundabout.
  static let unknownExitDistance = 40.0

  /// The detour of `mistake` (a missed turn or a wrong roundabout exit) on `route`.
  ///
  /// - Throws: ``WrongWayError`` when the router finds no way that leaves the route there.
  public static func detour(
    _ mistake: DrivingMistake, route: Route, router: RouterClient
  ) throws(WrongWayError) -> Detour {
    try detour(
      mistake, steps: route.steps.map { Array($0.polyline) }, transportType: route.transportType,
      router: router, exitDistances: route.steps.map { $0.maneuver?.exitDistance })
  }

  /// The detour of `mistake` on the route of these `steps` (each step's polyline, maneuver k at
  /// the end of step k), as the daemon publishes a new route.
  ///
  /// `exitDistances` are the steps' metres from a roundabout's entry to the exit it names,
  /// where known.
  ///
  /// - Throws: ``WrongWayError`` when the router finds no way that leaves the route there.
  public static func detour(
    _ mistake: DrivingMistake, steps: [[Coordinate]], transportType: TransportType,
    router: RouterClient, exitDistances: [Double?] = []
  ) throws(WrongWayError) -> Detour {
    let points = steps.flatMap { $0 }
    let line = Polyline(points)
    // Maneuver k is at the end of step k's polyline (the step leads up to it).
    var ends: [Double] = []
    var d = 0.0
    for s in steps {
      d += Polyline(Array(s)).length
      ends.append(d)
    }
    let step: Int
    let roundabout: Bool
    switch mistake.base {
    case .missTurn(let s):
      step = s
      roundabout = false
    case .wrongExit(let s):
      step = s
      roundabout = true
    default:
      throw WrongWayError(description: "\(mistake) needs no router")
    }
    guard step >= 1, step + 1 < ends.count else {
      throw WrongWayError(description: "\(mistake): the route has maneuvers 1…\(ends.count - 2)")
    }
    let at = ends[step]
    // A roundabout's step ends at its entry; the next one goes round to the exit and on to
    // the next maneuver.
    let exitDistance =
      (exitDistances.indices.contains(step) ? exitDistances[step] : nil) ?? unknownExitDistance
    let exit = roundabout ? min(ends[step + 1], at + exitDistance) : at
    let window = roundabout ? (at - 10)...(exit + 8) : (at - 30)...(at + 30)
    let toward = line.point(at: exit)
    let incoming = line.bearing(at: max(0, at - 5))
    let outgoing = line.bearing(at: exit + 5)
    let turns: [Double] = roundabout ? [90, -90, 135, -135, 45, -45, 180] : [0, -45, 45, -90, 90]
    let base = roundabout ? outgoing : incoming
    let from = max(0, at - approach)
    let origin = RouteRequest.Origin(
      coordinate: line.point(at: from), course: line.bearing(at: from), speed: 10, accuracy: 5)
    var tried: [String] = []
    for (k, turn) in turns.enumerated() {
      let heading = normalizedBearing(base + turn)
      if !roundabout && bearingDifference(heading, outgoing) < 40 { continue }
      let goal = toward.destination(distance: reach, bearing: heading)
      let request = RouteRequest(
        origin: origin, waypoints: [.init(coordinate: goal)], transportType: transportType,
        language: "en-US", imperial: false, id: "wrong-way-\(k)")
      let answer = router.fetch(request)
      guard case .success(let document) = answer.result, let way = try? document.route(at: 0)
      else {
        tried.append("\(Int(heading))°: no route")
        continue
      }
      let road = way.steps.flatMap(\.polyline)
      guard
        let detour = Detour.leaving(
          points, road: road, near: at, window: window, mistake: mistake)
      else {
        tried.append("\(Int(heading))°: does not leave the route there")
        continue
      }
      let off = Polyline(detour.path)
      let leaving = off.point(at: 0).bearing(to: off.point(at: min(headingCheck, off.length)))
      if !roundabout && bearingDifference(leaving, incoming) > missedTurnDeflection {
        tried.append("\(Int(heading))°: turns round")
        continue
      }
      guard off.length >= minimumLength,
        line.locate(off.point(at: checkAfter), near: at, within: 2000).offset >= minimumOffset
      else {
        tried.append("\(Int(heading))°: comes back to the route")
        continue
      }
      return detour
    }
    throw WrongWayError(
      description: "\(mistake): no wrong way found (\(tried.joined(separator: "; ")))")
  }
}

/// No road for a scripted mistake.
public struct WrongWayError: Error, Sendable, CustomStringConvertible {
  public var description: String
}
