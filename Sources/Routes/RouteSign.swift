/// The sign of a maneuver: the exit number, the refs and names of the road or branch it leads
/// onto, where it leads ("toward"), the exit's and the junction's names.
///
/// Kept as the router's elements in its order (Valhalla's `sign.*_elements`, OSRM's `exits`
/// and `destinations`), one array for the whole sign, so a step without a sign costs nothing
/// more than an empty optional.
public struct RouteSign: Sendable, Hashable {
  /// What an element of a sign says.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// An exit number ("52"): Valhalla's `exit_number_elements`, OSRM's `exits`,
    /// OpenStreetMap's `junction:ref`.
    case exitNumber
    /// A ref or name of the road the exit leads onto ("D 6007"): Valhalla's
    /// `exit_branch_elements`, the part of OSRM's `destinations` before the colon
    /// (`destination:ref`).
    case branch
    /// A place the road leads toward ("Nice"): Valhalla's `exit_toward_elements`, the part of
    /// OSRM's `destinations` after the colon (`destination`).
    case toward
    /// The name of the exit ("Nice-Est"): Valhalla's `exit_name_elements`.
    case exitName
    /// A branch on a guide sign away from an exit: Valhalla's `guide_branch_elements`.
    case guideBranch
    /// A toward on a guide sign: Valhalla's `guide_toward_elements`.
    case guideToward
    /// The name of the junction: Valhalla's `junction_name_elements`.
    case junctionName
    /// A road ref of the road the maneuver turns onto ("A 99"): OSRM's step `ref`.
    case ref
    /// The name of the roundabout or rotary entered: OSRM's `rotary_name`.
    case roundaboutName
  }

  /// One text of the sign.
  public struct Element: Sendable, Hashable {
    public var kind: Kind
    public var text: String
    /// Whether the text is a route number (Valhalla's `is_route_number`), drawn as a shield;
    /// `false` when the router does not say.
    public var isRouteNumber: Bool

    public init(_ kind: Kind, _ text: String, isRouteNumber: Bool = false) {
      self.kind = kind
      self.text = text
      self.isRouteNumber = isRouteNumber
    }
  }

  /// Every element, in the router's order within each kind.
  public var elements: [Element]

  public init(_ elements: [Element]) { self.elements = elements }

  /// The texts of one kind, in order.
  public func texts(_ kind: Kind) -> [String] {
    elements.compactMap { $0.kind == kind ? $0.text : nil }
  }

  public var exitNumbers: [String] { texts(.exitNumber) }
  public var branches: [String] { texts(.branch) }
  public var toward: [String] { texts(.toward) }
  public var exitNames: [String] { texts(.exitName) }
  public var refs: [String] { texts(.ref) }
}

extension RouteSign {
  /// The elements of `a` then those of `b` that `a` lacks: the sign of a roundabout whose exit
  /// maneuver an importer folds into it (the exit's sign says where the exit leads).
  package static func joined(_ a: RouteSign?, _ b: RouteSign?) -> RouteSign? {
    guard let b else { return a }
    guard let a else { return b }
    return RouteSign(a.elements + b.elements.filter { !a.elements.contains($0) })
  }
}
