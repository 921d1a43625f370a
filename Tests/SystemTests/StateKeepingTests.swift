import Daemon
import Events
import Foundation
import POSIX
import Phrasebook
import RouteFiles
import Routes
import TestSupport
import Testing

/// The daemon's saves wait for the attachments that keep events (the fleet uplink's journal,
/// ``DaemonAttachment/afterKept(_:)``): progress never gets ahead of what they kept, so a
/// restart after `kill -9` cannot resume past an event the fleet would then never get.
///
/// The end to end case, with a real broker and a killed daemon, is
/// `FleetUplinkTests.nothingIsLostOrReorderedAcrossAFrozenAndRestartedBrokerAndAKilledDaemon`;
/// its kill lands at a random point of the race, so the order is pinned down here.
@Suite struct StateKeepingTests {
  /// An attachment that keeps the events only when told to (a journal on a slow disk).
  final class SlowKeeper: DaemonAttachment, @unchecked Sendable {
    struct NotStarted: Error {}
    let held = Locked<[@Sendable () -> Void]>([])
    var takesCommands: Bool { false }
    func start(_ context: DaemonAttachmentContext) throws -> any EventSink { throw NotStarted() }
    func stop() async {}
    func afterKept(_ then: @escaping @Sendable () -> Void) { held.withLock { $0.append(then) } }
    /// Keeps everything so far: the held calls back, in order.
    func keep() {
      let calls = held.withLock { list in
        defer { list.removeAll() }
        return list
      }
      for call in calls { call() }
    }
  }

  /// An attachment that keeps nothing (the default: at once).
  final class Bystander: DaemonAttachment, @unchecked Sendable {
    var takesCommands: Bool { false }
    func start(_ context: DaemonAttachmentContext) throws -> any EventSink {
      throw SlowKeeper.NotStarted()
    }
    func stop() async {}
  }

  /// Services saving into a fresh state directory (removed by the caller), and a route.
  static func services() throws -> (DaemonServices, StateStore, RouteDocument) {
    let store = StateStore(directory: try StateStoreTests.tempDir())
    let services = DaemonServices(
      notifier: SystemdNotifier(environment: [:]), store: store, routeFile: nil,
      phrasebook: Phrasebook())
    let document = try RouteFiles.load(repositoryFile("Simulations/001-marais-drive/route.json"))
    return (services, store, document)
  }

  @Test func aSaveWaitsForEveryKeeperAndSavesLandInTheOrderMade() throws {
    let (services, store, document) = try Self.services()
    defer { try? FileManager.default.removeItem(atPath: store.directory) }
    let keeper = SlowKeeper()
    services.keepFirst([Bystander(), keeper])
    services.saveRoute(document, 0, revision: 1)
    services.saveRoute(document, 0, revision: 2)
    // Nothing is written while the keeper has not kept what came before.
    usleep(300_000)
    #expect(!FileManager.default.fileExists(atPath: store.routePath))
    #expect(keeper.held.withLock { $0.count } == 2)
    keeper.keep()
    services.flush()
    let saved = try store.load().result.get()
    #expect(saved.revision == 2)
  }

  @Test func withoutKeepersASaveIsQueuedAtOnce() throws {
    let (services, store, document) = try Self.services()
    defer { try? FileManager.default.removeItem(atPath: store.directory) }
    services.keepFirst([Bystander()])
    services.saveRoute(document, 0, revision: 3)
    services.flush()
    #expect(try store.load().result.get().revision == 3)
  }
}
