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
  /// prompts: those due closer than that at `speed` are said again when due (``reopened``).
  mutating func reopen(_ m: Int, distance: Double, speed: Double) {
    guard m >= 1, m < said.count, said[m] != .passed else { return }
    let (limits, v) = timing(step: m, speed: speed)
    for kind in [AnnouncementKind.prepare, .approach, .now]
    where said[m].contains(kind.flag) && lead(kind, speed: v, limits: limits) < distance {
      said[m].remove(kind.flag)
      said[m].insert(.reopened)
      forgetHeadsUps(from: m)
    }
  }

  /// Whether maneuver `m`'s prompts were taken back to be said again.
  func reopened(_ m: Int) -> Bool { said[m] != .passed && said[m].contains(.reopened) }

  /// Takes back what a saved session had said.
  mutating func resume(
    said: [AnnouncementFlags], last: (time: Double, step: Int)?, headsUpThrough: Int
  ) {
    self.said = said
    if let last { lastAnnouncement = last }
    resumeHeadsUps(through: headsUpThrough)
  }
}
