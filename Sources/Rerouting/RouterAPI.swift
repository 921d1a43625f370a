/// The HTTP interface of a router: which request it takes and which reply format it sends.
public enum RouterAPI: String, Sendable, Hashable, CaseIterable {
  /// Valhalla's `/route` (POST JSON, native reply).
  case valhalla
  /// OSRM's `/route/v1/{profile}/{coordinates}` (GET, OSRM v5 reply).
  case osrm
  /// GraphHopper's `/route` (POST JSON).
  case graphhopper
}
