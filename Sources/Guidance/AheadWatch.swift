import Geodesy
import GuidanceSettings
import Matching
import Routes

/// What lies ahead on the route (issue 34): the road objects announced as the vehicle nears
/// them (`ahead` announcements), and the ordered list of the next few that `PROGRESS` publishes.
///
/// Both walk indices forward as the position moves, so a fix costs the same on any length of
/// route; a route without objects costs one emptiness check per fix.
struct AheadWatch: Sendable {
  /// The route's objects in order of start, with stretches of one kind that touch or overlap
  /// (a router splits a tunnel at every intersection in it) merged into one.
  let objects: [RoadObject]
  /// Per object: said, or given up (passed, too close to be said in time, turned off).
  private(set) var settled: [Bool]
  /// Every object before it is settled.
  private var next = 0
  /// The objects in the published list (their indices), and the index after the last one
  /// looked at for it.
  private var listed: [Int] = []
  private var scanned = 0
  /// Whether the list changed since it was last published (it is published once at the start).
  private var listChanged = true

  init(road: RouteRoad, configuration c: GuidanceConfiguration) {
    objects = Self.merged(road.objects, gap: c.aheadMergeGap)
    settled = objects.map { !Self.announces($0, c) }
    listed.reserveCapacity(c.aheadListLength)
  }

  /// Whether `object` is of a kind announced at all (a tunnel only from its minimum length).
  static func announces(_ object: RoadObject, _ c: GuidanceConfiguration) -> Bool {
    guard c.aheadKinds.contains(object.kind) else { return false }
    return object.kind != .tunnel || object.length >= c.aheadTunnelMinimumLength
  }

  /// `objects` (in order of start) with every stretch that begins within `gap` metres of the
  /// end of the last one of its kind folded into it, and points of a kind within `gap` of the
  /// last one dropped; a name is kept from the first that has one.
  static func merged(_ objects: [RoadObject], gap: Double) -> [RoadObject] {
    var out: [RoadObject] = []
    var last: [RoadObject.Kind: Int] = [:]
    for o in objects {
      if let i = last[o.kind], out[i].isPoint == o.isPoint, o.start <= out[i].end + gap {
        out[i].end = max(out[i].end, o.end)
        if out[i].name == nil { out[i].name = o.name }
        continue
      }
      last[o.kind] = out.count
      out.append(o)
    }
    return out
  }

  /// The next object to announce with the vehicle at `along` metres, and its index; objects
  /// reached or passed on the way are given up (never announced once behind).
  mutating func candidate(at along: Double) -> (index: Int, object: RoadObject)? {
    while next < objects.count && (settled[next] || objects[next].start <= along) {
      settled[next] = true
      next += 1
    }
    return next < objects.count ? (next, objects[next]) : nil
  }

  /// The object at `index` is said, or given up.
  mutating func settle(_ index: Int) { settled[index] = true }

  /// The list to publish with the vehicle at `along`: the next `length` objects whose end is
  /// not behind it, in order of start, when it changed since last published; else `nil`.
  mutating func list(at along: Double, length: Int) -> [RoadObject]? {
    guard !objects.isEmpty else { return nil }
    if listed.contains(where: { objects[$0].end < along }) {
      listed.removeAll { objects[$0].end < along }
      listChanged = true
    }
    while listed.count < length && scanned < objects.count {
      if objects[scanned].end >= along {
        listed.append(scanned)
        listChanged = true
      }
      scanned += 1
    }
    guard listChanged else { return nil }
    listChanged = false
    return listed.map { objects[$0] }
  }

  /// After a restart at `along` metres: the objects behind, and those within `lead` metres
  /// ahead (the longest approach lead: they may have been said before the restart), are
  /// settled, so none is said twice; a restart may leave one unsaid instead.
  mutating func resume(at along: Double, lead: Double) {
    for i in objects.indices where objects[i].start <= along + lead { settled[i] = true }
  }

  /// Settles every object that is the same as one settled on `old`: the same kind, starting
  /// within `distance` metres of it (a reroute to the same tunnel does not say it again).
  mutating func carryOver(
    from old: AheadWatch, oldGeometry: RouteGeometry, geometry: RouteGeometry,
    within distance: Double
  ) {
    let said = old.objects.indices.filter { old.settled[$0] }.map {
      (kind: old.objects[$0].kind, at: oldGeometry.coordinate(at: old.objects[$0].start))
    }
    guard !said.isEmpty else { return }
    for i in objects.indices where !settled[i] {
      let at = geometry.coordinate(at: objects[i].start)
      if said.contains(where: { $0.kind == objects[i].kind && $0.at.distance(to: at) <= distance })
      {
        settled[i] = true
      }
    }
  }
}
