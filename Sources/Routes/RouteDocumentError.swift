/// Why a route document was refused, with the JSON path of the first problem.
public struct RouteDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A stable identifier of the kind of problem.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public var description: String { rawValue }
    package init(rawValue: String) { self.rawValue = rawValue }

    public static let syntax = Code(rawValue: "syntax")
    public static let missingField = Code(rawValue: "missingField")
    public static let wrongType = Code(rawValue: "wrongType")
    public static let invalidCoordinate = Code(rawValue: "invalidCoordinate")
    public static let invalidValue = Code(rawValue: "invalidValue")
    public static let negativeDistance = Code(rawValue: "negativeDistance")
    public static let discontinuousPolyline = Code(rawValue: "discontinuousPolyline")
    public static let emptyRoutes = Code(rawValue: "emptyRoutes")
    public static let badDeparture = Code(rawValue: "badDeparture")
    public static let routeIndexOutOfRange = Code(rawValue: "routeIndexOutOfRange")
    public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
  }

  public var code: Code
  /// The JSON path of the offending value, such as `routes[0].steps[3].polyline[0].latitude`;
  /// empty for the document itself.
  public var path: String
  public var message: String

  public init(_ code: Code, path: String, _ message: String) {
    self.code = code
    self.path = path
    self.message = message
  }

  public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
