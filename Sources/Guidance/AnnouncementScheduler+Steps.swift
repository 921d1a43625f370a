import GuidanceSettings

/// What the session asks and tells the scheduler about steps (it never touches ``said``).
extension AnnouncementScheduler {
  /// Marks `steps` as behind the vehicle: nothing more is said for them.
  mutating func markPassed(_ steps: Range<Int>) {
    for k in steps { said[k] = .passed }
  }

  /// Marks the start of step `k` as handled; returns whether it was not yet (its mode change,
  /// notice and "continue for …" are due).
  mutating func beginStep(_ k: Int) -> Bool {
    said[k].insert(.stepStarted).inserted
  }

  /// Whether the final announcement of maneuver `m` was made (its own `now`).
  func saidNow(_ m: Int) -> Bool { said[m].contains(.now) }

  /// Whether maneuver `m`'s final prompt was said, its own or as the "then" of the one before
  /// (an approach for the last one, the destination).
  func saidFinal(_ m: Int) -> Bool {
    said[m].contains(m == said.count - 1 ? .approach : .now) || said[m].contains(.mergedFinal)
  }

  /// Whether a maneuver announcement was made less than `seconds` before `time`.
  func spoke(within seconds: Double, of time: Double) -> Bool {
    lastAnnouncement.map { time - $0.time < seconds } ?? false
  }

  /// Maneuver `k` is the same as maneuver `j` of the route `old` guided before: what of its
  /// prompts was said there is said here.
  mutating func carryOver(_ k: Int, from old: AnnouncementScheduler, step j: Int) {
    said[k].formUnion(old.said[j].intersection([.prepare, .approach, .now]))
  }

  /// The "new route" announcement was made at `time` for maneuver `m`: it stands for the early
  /// announcement; the closer ones follow as usual.
  mutating func saidNewRoute(_ m: Int, time: Double) {
    said[m].insert(.prepare)
    lastAnnouncement = (time, m)
  }

  /// The vehicle is `distance` metres before maneuver `m`, behind an estimate that made its
  /// prompts: those due closer than that at `speed` (closer than `distance` over `factor` and
  /// `margin` metres short of it) are said again when due (``reopened``).
  ///
  /// So are those said that far out by the vehicle's lead then: `saidAgo` seconds ago (`nil`:
  /// fixes said them) and the time to the maneuver, at `speed` (one that crept in the dark and
  /// caught up is near the maneuver, yet heard it long before); unless the repeat would echo
  /// it (`earlyAfterAnnouncementGaps` × `minimumGapSeconds`) or leave under `finalLeadSeconds`.
  mutating func reopen(
    _ m: Int, distance: Double, speed: Double, factor: Double = 1, margin: Double = 0,
    saidAgo: Double? = nil
  ) {
    guard m >= 1, m < said.count, said[m] != .passed else { return }
    let (limits, v) = timing(step: m, speed: speed)
    let c = configuration
    let saidFrom = saidAgo.flatMap {
      $0 >= c.earlyAfterAnnouncementGaps * c.minimumGapSeconds
        && distance >= speed * c.finalLeadSeconds ? distance + speed * $0 : nil
    }
    for kind in [AnnouncementKind.prepare, .approach, .now] where said[m].contains(kind.flag) {
      let d = lead(kind, speed: v, limits: limits)
      guard max(distance, saidFrom ?? 0) > max(factor * d, d + margin) else { continue }
      said[m].remove(kind.flag)
      said[m].insert(.reopened)
      forgetHeadsUps(from: m)
    }
  }

  /// Maneuver `m`, passed on an estimate, is ahead of the vehicle after all: what was said of it
  /// stands, and ``reopen(_:distance:speed:factor:margin:)`` takes back what is due again.
  mutating func unpass(_ m: Int) {
    guard m >= 1, m < said.count, said[m] == .passed else { return }
    said[m] = [.prepare, .approach, .now, .stepStarted, .spoken]
  }

  /// Whether maneuver `m`, one not passed (a prompt for it is due), had its prompts taken back
  /// to be said again.
  ///
  /// Not compared with ``AnnouncementFlags/passed``: a maneuver said again as the "then" of the
  /// one before and then on its own holds every flag, which is `passed`'s value too.
  func reopened(_ m: Int) -> Bool { said[m].contains(.reopened) }

  /// Takes back what a saved session had said.
  mutating func resume(
    said: [AnnouncementFlags], last: (time: Double, step: Int)?, headsUpThrough: Int
  ) {
    self.said = said
    if let last { lastAnnouncement = last }
    resumeHeadsUps(through: headsUpThrough)
  }
}
