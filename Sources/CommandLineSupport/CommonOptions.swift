public import Phrasebook
public import Routes

/// Options shared by `stepwised` and the `stepwise` commands that take a route.
public struct CommonOptions {
  public var routePath: String?
  public var routeIndex = 0
  public var routeFormat: RouteFileFormat?
  public var language = Language.en
  public var units = UnitSystem.metric

  public static func parse(_ args: inout Arguments) throws(UsageError) -> CommonOptions {
    var o = CommonOptions()
    o.routePath = try args.option("--route")
    o.routeIndex = try args.integer("--route-index") ?? 0
    o.routeFormat = try args.option("--route-format", as: RouteFileFormat.self)
    o.language = try args.option("--locale", as: Language.self) ?? .en
    o.units = try args.option("--units", as: UnitSystem.self) ?? .metric
    return o
  }
}
