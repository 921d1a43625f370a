import Dispatch
public import Events
import Glibc
import Guidance
import Matching
import POSIX
import Phrasebook
import Routes
import Wire

/// What the daemon does around guidance for systemd and for restarts: saves the state
/// (route when it changes; progress when the step changes and every few seconds) on its own
/// queue, and keeps systemd's `STATUS=` line current.
///
/// All methods are called by the engine and return at once; file writes (with their fsync) run
/// on a private serial queue, so a slow or full disk never holds up guidance. A failed write is
/// logged once, then again only after a success.
///
/// With keepers of events (``keepFirst(_:)``: standard output, the fleet uplink's journal), a
/// write waits until they kept every event published before it: progress saved after an
/// announcement never gets ahead of the line that says it or of the journal that must send it,
/// so a restart after `kill -9` says again what they had not kept instead of losing it.
public final class DaemonServices: EngineObserver, @unchecked Sendable {
  // Invariant: `mutable` is only touched inside `lock`; `queue` serialises all file writes;
  // `waiting` counts the writes still waiting for the keepers (not yet on `queue`).
  public let notifier: SystemdNotifier
  public let store: StateStore?
  public let routeFile: String?
  private let queue = DispatchQueue(label: "stepwised.state")
  private let lock = Locked(Mutable())
  private let waiting = DispatchGroup()
  private let phrasebook: Phrasebook
  /// Seconds between two progress saves while the step stays the same.
  public var saveInterval = 3.0

  private struct Mutable {
    var savedStep: Int?
    var savedAnnouncements = -1
    var lastSave = 0.0
    var lastStatus = 0.0
    var statusText = ""
    var saveFailing = false
    var waitingForGPSD = false
    /// The fingerprint of the route being saved, computed once per route.
    var fingerprint: (index: Int, value: String)?
    var keepers: [any EventKeeper] = []
  }

  public init(
    notifier: SystemdNotifier, store: StateStore?, routeFile: String?, phrasebook: Phrasebook
  ) {
    self.notifier = notifier
    self.store = store
    self.routeFile = routeFile
    self.phrasebook = phrasebook
  }

  private func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  // MARK: EngineObserver

  public func handled(_ session: NavigationSession) {
    let t = now()
    let (save, status): (Bool, String?) = lock.withLock { m in
      let stepChanged = m.savedStep != session.currentStep
      // Saved after every announcement too, so a restart never says anything again.
      let said = m.savedAnnouncements != session.announcementCount
      let due = stepChanged || said || t - m.lastSave >= saveInterval || session.arrived
      if due {
        m.savedStep = session.currentStep
        m.savedAnnouncements = session.announcementCount
        m.lastSave = t
      }
      var text: String?
      if t - m.lastStatus >= 1 || stepChanged {
        m.lastStatus = t
        let line = statusLine(session, waiting: m.waitingForGPSD)
        if line != m.statusText {
          m.statusText = line
          text = line
        }
      }
      return (due, text)
    }
    if let status { notifier.status(status) }
    if save, let snapshot = session.snapshot {
      let fingerprint = lock.withLock { m in
        if let f = m.fingerprint, f.index == snapshot.routeIndex { return f.value }
        let value = StateStore.fingerprint(session.document, snapshot.routeIndex)
        m.fingerprint = (snapshot.routeIndex, value)
        return value
      }
      saveProgress(snapshot, fingerprint: fingerprint)
    }
  }

  public func sessionChanged(_ session: NavigationSession?) {
    lock.withLock {
      $0.savedStep = nil
      $0.savedAnnouncements = -1
      $0.fingerprint = nil
    }
    guard let session else {
      notifier.status("guidance cancelled")
      return
    }
    saveRoute(session.document, session.routeIndex, revision: session.routeRevision)
  }

  public func sourceChanged(_ status: SourceEvent.Status) {
    let waiting = status != .connected
    lock.withLock { $0.waitingForGPSD = waiting }
    notifier.status(waiting ? "waiting for gpsd" : "gpsd connected, waiting for a fix")
  }

  // MARK: State

  /// Saves the route document (at start, and when the route changes), with the progress
  /// along it when guidance resumes from saved state.
  public func saveRoute(
    _ document: RouteDocument, _ index: Int, progress: NavigationSession.Snapshot? = nil,
    revision: Int = 0
  ) {
    guard let store else { return }
    let file = routeFile
    write {
      self.report {
        try store.saveRoute(
          document, routeIndex: index, routeFile: file, progress: progress, revision: revision)
      }
      // The document's tree and text, freed on this queue's thread.
      HeapRelease.now()
    }
  }

  private func saveProgress(_ snapshot: NavigationSession.Snapshot, fingerprint: String) {
    guard let store else { return }
    write { self.report { try store.saveProgress(snapshot, fingerprint: fingerprint) } }
  }

  /// From now on, every write waits until `keepers` kept the events published before it.
  ///
  /// See ``EventKeeper``. Called once they started, before guidance.
  public func keepFirst(_ keepers: [any EventKeeper]) {
    lock.withLock { $0.keepers = keepers }
  }

  /// Queues `work` once every keeper kept what was published so far.
  ///
  /// Each keeper calls back in the order it was asked, so the writes reach the queue in the
  /// order they were made.
  private func write(_ work: @escaping @Sendable () -> Void) {
    let keepers = lock.withLock { $0.keepers }
    if keepers.isEmpty {
      queue.async(execute: work)
      return
    }
    waiting.enter()
    Self.after(keepers[...]) { [queue, waiting] in
      queue.async {
        work()
        waiting.leave()
      }
    }
  }

  private static func after(
    _ keepers: ArraySlice<any EventKeeper>, _ then: @escaping @Sendable () -> Void
  ) {
    guard let first = keepers.first else { return then() }
    let rest = keepers.dropFirst()
    first.afterKept { after(rest, then) }
  }

  /// Waits until every write asked for is done (at shutdown).
  public func flush() {
    waiting.wait()
    queue.sync {}
  }

  /// Saves the final progress at exit, after every write already asked for, and waits for it:
  /// the queue is the files' only writer, so an older save cannot land after this one.
  public func saveAtExit(_ snapshot: NavigationSession.Snapshot, of document: RouteDocument) {
    guard let store else { return }
    waiting.wait()
    queue.sync {
      do {
        try store.saveProgress(snapshot, of: document)
      } catch {
        logLine(4, "stepwised: cannot save the state at exit: \(error)")
      }
    }
  }

  private func report(_ write: () throws -> Void) {
    do {
      try write()
      lock.withLock { $0.saveFailing = false }
    } catch {
      let first = lock.withLock { m in
        defer { m.saveFailing = true }
        return !m.saveFailing
      }
      if first {
        logLine(4, "stepwised: cannot save the state (\(error)); guidance goes on without it")
      }
    }
  }

  /// The line systemd shows (`systemctl status`): where guidance stands, in a few words.
  private func statusLine(_ s: NavigationSession, waiting: Bool) -> String {
    if s.arrived { return "arrived" }
    if waiting { return "waiting for gpsd" }
    if !s.departed { return "no fix" }
    let steps = "step \(s.currentStep) of \(s.route.steps.count - 1)"
    var line: String
    if s.gpsLost {
      line = "GPS lost, \(steps)"
    } else if s.phase == .joining {
      line = "heading to the route, \(phrasebook.displayDistance(s.distanceFromRoute)) away"
    } else {
      let remaining = max(0, s.geometry.length - s.distanceAlong)
      line = "\(steps), \(phrasebook.displayDistance(remaining)) to go"
      if s.offRoute { line += ", off route" }
    }
    // Glitches are dropped silently on the wire; a receiver that keeps jumping shows here.
    if s.discardedFixes > 0 {
      line += s.discardedFixes == 1 ? ", 1 jump discarded" : ", \(s.discardedFixes) jumps discarded"
    }
    return line
  }
}
