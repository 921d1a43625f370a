import Instructions
public import Routes

extension RouteDocumentError.Code {
  /// The router answered with an error instead of a route (Valhalla `error_code`/`error`).
  public static let routerError = Self(rawValue: "routerError")
  /// An encoded polyline is malformed, or its precision does not fit the route's locations.
  public static let invalidPolyline = Self(rawValue: "invalidPolyline")
}
