import Geodesy
import JSON
import RouteFiles
import Routes
import TestSupport
import Testing

@Suite struct RouteDocumentTests {
  static let examplePath = repositoryFile("Tests/Fixtures/routes/example.json")

  static func example() throws -> JSONValue {
    try JSONParser.parse(readBytes(examplePath))
  }

  /// Applies `edit` to the example document and returns the loader's error.
  static func error(_ edit: (inout JSONObject) -> Void) throws -> RouteDocumentError? {
    guard case .object(var o) = try example() else { return nil }
    edit(&o)
    do {
      _ = try NativeRouteFormat.decode(.object(o))
      return nil
    } catch {
      return error
    }
  }

  /// A mutable path into the document: routes[r].steps[s].
  static func editStep(
    _ o: inout JSONObject, route r: Int = 0, step s: Int, _ f: (inout JSONObject) -> Void
  ) {
    guard case .array(var routes) = o["routes"], case .object(var route) = routes[r],
      case .array(var steps) = route["steps"], case .object(var step) = steps[s]
    else { return }
    f(&step)
    steps[s] = .object(step)
    route["steps"] = .array(steps)
    routes[r] = .object(route)
    o["routes"] = .array(routes)
  }

  @Test func theDocumentedExampleLoads() throws {
    let doc = try NativeRouteFormat.decode(readBytes(Self.examplePath))
    #expect(doc.routes.count == 2)
    #expect(doc.source.name == "Fleet Street")
    #expect(doc.routes[0].steps[0].isDeparture)
    #expect(doc.routes[0].steps[2].notice == "Railroad crossing: look out for trains.")
    #expect(doc.routes[1].hasTolls && doc.routes[1].advisoryNotices == ["Toll road ahead."])
    // Steps without a transport type take the route's.
    #expect(doc.routes[1].steps[1].transportType == .automobile)
  }

  @Test func encodingAndDecodingRoundTrips() throws {
    let doc = try NativeRouteFormat.decode(readBytes(Self.examplePath))
    let again = try NativeRouteFormat.decode(
      Array(JSONWriter.prettyString(NativeRouteFormat.encode(doc)).utf8))
    #expect(again == doc)
  }

  @Test func missingFieldsAreNamedWithTheirPath() throws {
    let e = try Self.error { o in Self.editStep(&o, step: 2) { $0["distance"] = nil } }
    #expect(e?.code == .missingField)
    #expect(e?.description == "routes[0].steps[2].distance: missing required field 'distance'")
    let s = try Self.error { $0["source"] = nil }
    #expect(s?.description == "source: missing required field 'source'")
  }

  @Test func wrongTypesAreNamed() throws {
    let e = try Self.error { o in
      guard case .array(var r) = o["routes"], case .object(var r0) = r[0] else { return }
      r0["hasTolls"] = "yes"
      r[0] = .object(r0)
      o["routes"] = .array(r)
    }
    #expect(e?.description == "routes[0].hasTolls: expected true or false, found string")
  }

  @Test(arguments: [91.0, -90.5])
  func outOfRangeLatitudesAreRefused(latitude: Double) throws {
    let e = try Self.error { o in
      Self.editStep(&o, step: 1) { step in
        guard case .array(var p) = step["polyline"], case .object(var pt) = p[1] else { return }
        pt["latitude"] = .number(latitude)
        p[1] = .object(pt)
        step["polyline"] = .array(p)
      }
    }
    #expect(e?.code == .invalidCoordinate)
    #expect(e?.path == "routes[0].steps[1].polyline[1].latitude")
  }

  @Test func negativeDistancesAreRefused() throws {
    let e = try Self.error { o in Self.editStep(&o, step: 1) { $0["distance"] = -12 } }
    #expect(e?.code == .negativeDistance)
    #expect(e?.path == "routes[0].steps[1].distance")
  }

  @Test func aPolylineThatDoesNotContinueThePreviousStepIsRefused() throws {
    let e = try Self.error { o in
      Self.editStep(&o, step: 2) { step in
        guard case .array(var p) = step["polyline"] else { return }
        p[0] = .object(JSONObject([("latitude", 39.285), ("longitude", -76.5986)]))
        step["polyline"] = .array(p)
      }
    }
    #expect(e?.code == .discontinuousPolyline)
    #expect(e?.path == "routes[0].steps[2].polyline[0]")
    #expect(e?.message.hasPrefix("does not start where step 1 ended") == true)
  }

  @Test func theDepartureStepMustBeEmpty() throws {
    let e = try Self.error { o in Self.editStep(&o, step: 0) { $0["instructions"] = "Go" } }
    #expect(e?.code == .badDeparture)
  }

  @Test func anEmptyRouteListIsRefused() throws {
    let e = try Self.error { $0["routes"] = .array([]) }
    #expect(e?.code == .emptyRoutes)
    #expect(e?.path == "routes")
  }

  @Test func aRouteIndexOutOfRangeIsRefused() throws {
    let doc = try NativeRouteFormat.decode(readBytes(Self.examplePath))
    #expect(throws: RouteDocumentError.self) { try doc.route(at: 2) }
    do {
      _ = try doc.route(at: 2)
    } catch {
      #expect(error.code == .routeIndexOutOfRange)
      #expect(error.message.contains("2 routes"))
    }
  }

  @Test func truncatedJSONIsASyntaxErrorWithAPosition() throws {
    let bytes = readBytes(Self.examplePath)
    let e = #expect(throws: RouteFileError.self) {
      try RouteFiles.decode(Array(bytes.prefix(bytes.count / 2)), name: "half.json")
    }
    #expect(e?.underlying?.code == .syntax)
    #expect(e?.description.hasPrefix("half.json: not valid JSON: unexpected end of input") == true)
  }

  @Test func nonFiniteNumbersCannotSneakIn() throws {
    // JSON has no NaN; a huge exponent overflows to infinity and must be refused.
    let e = try Self.error { o in Self.editStep(&o, step: 1) { $0["distance"] = .number(.infinity) }
    }
    #expect(e?.code == .invalidValue)
  }
}
