public import Phrasebook
public import RouteImporters
public import Routes

/// Options shared by `stepwised` and the `stepwise` commands that take a route.
public struct CommonOptions {
  public var routePath: String?
  public var routeIndex = 0
  public var routeFormat: RouteFileFormat?
  /// The language of announcements and instructions: `--locale`, else the route's own once it is
  /// loaded (`RouteFiles.language(of:)`), else English.
  public var language = Language.en
  /// `--locale`, when given: it overrides the route's own language.
  public var locale: Language?
  public var units = UnitSystem.metric

  public static func parse(_ args: inout Arguments) throws(UsageError) -> CommonOptions {
    var o = CommonOptions()
    o.routePath = try args.option("--route")
    o.routeIndex = try args.integer("--route-index") ?? 0
    o.routeFormat = try args.option("--route-format", as: RouteFileFormat.self)
    o.locale = try args.option("--locale", as: Language.self)
    o.language = o.locale ?? .en
    o.units = try args.option("--units", as: UnitSystem.self) ?? .metric
    return o
  }
}
