import Geodesy
import JSON
import Rerouting
import Routes
import TestSupport
import Testing

/// The requests each router gets, built without a network.
@Suite(.blocking) struct RouterRequestBuilderTests {
  static let here = Coordinate(latitude: 48.858512345, longitude: 2.356098765)
  static let stop = Coordinate(latitude: 48.8631, longitude: 2.3621)
  static let pass = Coordinate(latitude: 48.8655, longitude: 2.3702)
  static let goal = Coordinate(latitude: 48.869, longitude: 2.378)

  static func request(
    speed: Double = 12, course: Double? = 92.4, accuracy: Double? = 6,
    waypoints: [RouteRequest.Waypoint] = [.init(coordinate: goal)],
    mode: TransportType = .automobile, language: String = "en-US", imperial: Bool = false
  ) -> RouteRequest {
    RouteRequest(
      origin: .init(coordinate: here, course: course, speed: speed, accuracy: accuracy),
      waypoints: waypoints, transportType: mode, language: language, imperial: imperial,
      id: "stepwise-3-7")
  }

  static func body(_ r: RouterHTTPRequest) throws -> JSONValue {
    try JSONParser.parse(try #require(r.body))
  }

  @Test func valhallaGetsTheOriginHeadingToleranceRadiusAndTheRemainingWaypoints() throws {
    let r = RouterRequestBuilder.request(
      Self.request(
        waypoints: [
          .init(coordinate: Self.stop, kind: .stop), .init(coordinate: Self.pass, kind: .through),
          .init(coordinate: Self.goal, kind: .through),
        ]), api: .valhalla)
    #expect(r.path == "/route")
    #expect(r.contentType == "application/json")
    let body = try Self.body(r)
    let locations = try #require(body["locations"]?.arrayValue)
    #expect(locations.count == 4)
    #expect(locations[0]["lat"]?.doubleValue == 48.858512)
    #expect(locations[0]["lon"]?.doubleValue == 2.356099)
    #expect(locations[0]["heading"]?.doubleValue == 92)
    #expect(locations[0]["radius"]?.doubleValue == 12)
    #expect(locations[0]["type"] == nil)
    // The last location is always a stop, whatever it was given as.
    #expect(locations[1...].map { $0["type"]?.stringValue } == ["break", "through", "break"])
    #expect(body["costing"]?.stringValue == "auto")
    #expect(body["units"]?.stringValue == "kilometers")
    #expect(body["language"]?.stringValue == "en-US")
    #expect(body["id"]?.stringValue == "stepwise-3-7")
    // The road data the first route had: lanes and signs come only in format=osrm, the limits
    // with the filter, and the voice instructions make the text's language stated.
    #expect(body["format"]?.stringValue == "osrm")
    #expect(body["voice_instructions"]?.boolValue == true)
    #expect(
      body["filters"]?["attributes"]?.arrayValue?.map(\.stringValue)
        == ["shape_attributes.speed_limit"])
    #expect(body["filters"]?["action"]?.stringValue == "include")
  }

  @Test func theHeadingToleranceNarrowsWithSpeed() throws {
    func tolerance(_ speed: Double) throws -> Double? {
      let body = try Self.body(
        RouterRequestBuilder.request(Self.request(speed: speed), api: .valhalla))
      return body["locations"]?.arrayValue?.first?["heading_tolerance"]?.doubleValue
    }
    #expect(try tolerance(2) == RouteRequest.headingToleranceSlow)
    #expect(try tolerance(30) == RouteRequest.headingToleranceFast)
    let mid = try #require(try tolerance(8.5))
    #expect(mid < RouteRequest.headingToleranceSlow && mid > RouteRequest.headingToleranceFast)
    #expect(try #require(try tolerance(12)) < mid)
  }

  @Test func aSlowVehicleOrAnUnknownCourseSendsNoHeading() throws {
    for r in [Self.request(speed: 1), Self.request(course: nil)] {
      let body = try Self.body(RouterRequestBuilder.request(r, api: .valhalla))
      let origin = try #require(body["locations"]?.arrayValue?.first)
      #expect(origin["heading"] == nil)
      #expect(origin["heading_tolerance"] == nil)
    }
  }

  @Test func theRadiusFollowsTheAccuracyUpToItsCap() throws {
    func radius(_ a: Double?) throws -> Double? {
      let body = try Self.body(
        RouterRequestBuilder.request(Self.request(accuracy: a), api: .valhalla))
      return body["locations"]?.arrayValue?.first?["radius"]?.doubleValue
    }
    #expect(try radius(nil) == nil)
    #expect(try radius(3.2) == 7)
    #expect(try radius(500) == RouteRequest.maximumRadius)
  }

  @Test func costingLanguageAndUnitsFollowTheRoute() throws {
    let cases: [(TransportType, String)] = [
      (.automobile, "auto"), (.cycling, "bicycle"), (.walking, "pedestrian"),
    ]
    for (mode, costing) in cases {
      let body = try Self.body(
        RouterRequestBuilder.request(
          Self.request(mode: mode, language: "ko-KR", imperial: true), api: .valhalla))
      #expect(body["costing"]?.stringValue == costing)
      #expect(body["language"]?.stringValue == "ko-KR")
      #expect(body["units"]?.stringValue == "miles")
    }
  }

  @Test func osrmGetsBearingsAndRadiusesForTheOriginOnlyAndNamesTheStops() {
    let r = RouterRequestBuilder.request(
      Self.request(
        waypoints: [.init(coordinate: Self.pass, kind: .through), .init(coordinate: Self.goal)],
        mode: .cycling), api: .osrm)
    #expect(r.body == nil)
    #expect(
      r.path
        == "/route/v1/cycling/2.356099,48.858512;2.3702,48.8655;2.378,48.869"
        + "?steps=true&overview=false&geometries=polyline6&annotations=maxspeed"
        + "&bearings=92,\(tolerance(12));;"
        + "&radiuses=12;unlimited;unlimited&waypoints=0;2")
  }

  private func tolerance(_ speed: Double) -> Int {
    Int(Self.request(speed: speed).headingTolerance)
  }

  @Test func osrmWithoutThroughPointsSendsNoWaypointsList() {
    let r = RouterRequestBuilder.request(Self.request(course: nil, accuracy: nil), api: .osrm)
    #expect(
      r.path
        == "/route/v1/driving/2.356099,48.858512;2.378,48.869?steps=true&overview=false"
        + "&geometries=polyline6&annotations=maxspeed")
  }

  @Test func graphHopperGetsPointsProfileLocaleAndTheStartHeading() throws {
    let r = RouterRequestBuilder.request(
      Self.request(
        waypoints: [.init(coordinate: Self.pass, kind: .through), .init(coordinate: Self.goal)],
        mode: .walking, language: "ko-KR"), api: .graphhopper)
    #expect(r.path == "/route")
    let body = try Self.body(r)
    let points = try #require(body["points"]?.arrayValue)
    #expect(points.count == 3)
    #expect(points[0].arrayValue?.map(\.doubleValue) == [2.356099, 48.858512])
    #expect(body["profile"]?.stringValue == "foot")
    #expect(body["locale"]?.stringValue == "ko-KR")
    #expect(body["headings"]?.arrayValue?.map(\.doubleValue) == [92])
    #expect(body["ch.disable"]?.boolValue == true)
    #expect(body["pass_through"]?.boolValue == true)
    #expect(body["instructions"]?.boolValue == true)
    // The details the importer reads: notices, and the road's limits and objects.
    #expect(
      body["details"]?.arrayValue?.map(\.stringValue)
        == ["road_class", "toll", "road_environment", "max_speed"])
  }
}
