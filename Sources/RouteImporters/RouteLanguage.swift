import Instructions
public import JSON
public import Routes

/// The language a route was written in by its router, so a route asked for in Korean stays in
/// Korean unless the user asks for another language.
public enum RouteLanguage {
  /// The language of a router response's own texts, or `nil` when it has none or they are in a
  /// language Stepwise does not write.
  ///
  /// Valhalla states it (`trip.language`); an OSRM response may (`voiceLocale`, which Valhalla
  /// and Mapbox write), otherwise its instructions are judged by their script and first words,
  /// as are GraphHopper's and a native document's.
  public static func of(_ value: JSONValue) -> Language? {
    guard case .object(let root) = value else { return nil }
    if case .object(let trip)? = root["trip"] {
      if case .string(let locale)? = trip["language"] { return Language(locale: locale) }
      return nil
    }
    if case .array(let routes)? = root["routes"], case .object(let route)? = routes.first {
      if case .string(let locale)? = route["voiceLocale"] {
        return Language(locale: locale)
      }
      // A native document's steps, or an OSRM route's legs of steps.
      var texts = strings(route["steps"], "instructions")
      for leg in elements(route["legs"]) {
        texts += elements(leg["steps"]).compactMap { $0["maneuver"]?["instruction"]?.stringValue }
      }
      return RouteImportSupport.detectLanguage(texts)
    }
    if case .array(let paths)? = root["paths"], case .object(let path)? = paths.first {
      return RouteImportSupport.detectLanguage(strings(path["instructions"], "text"))
    }
    return nil
  }

  /// The language of a document's instructions (Hangul is Korean), or `nil` when it has none.
  public static func of(_ document: RouteDocument) -> Language? {
    RouteImportSupport.detectLanguage(document.routes.first?.steps.map(\.instructions) ?? [])
  }

  private static func elements(_ value: JSONValue?) -> [JSONValue] {
    if case .array(let items)? = value { return items }
    return []
  }

  private static func strings(_ value: JSONValue?, _ key: String) -> [String] {
    elements(value).compactMap { $0[key]?.stringValue }
  }
}
