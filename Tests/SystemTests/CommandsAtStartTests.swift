import Commands
import Daemon
import Dispatch
import Events
import Glibc
import Guidance
import GuidanceSettings
import JSON
import POSIX
import Phrasebook
import RouteFiles
import TestSupport
import Testing

/// A command that reaches the daemon while it starts waits for guidance and is answered by it,
/// never refused as "not running yet".
///
/// The fleet uplink meets this on every restart: as soon as it connects, the broker delivers
/// the commands it queued for the vehicle while it was away
/// (`FleetUplinkTests.aCommandSentWhileTheVehicleWasOfflineIsAnsweredOnceOnReconnect`, which
/// under ThreadSanitizer once got `ERROR`: the engine's inputs were handed to the commands only
/// after the attachments had started).
@Suite struct CommandsAtStartTests {
  /// An attachment that sends a guidance command as it starts, then takes a while to finish
  /// starting (a broker connection on a loaded machine).
  final class EarlyCommander: DaemonAttachment, @unchecked Sendable {
    struct NoCommands: Error {}
    final class Discard: EventSink {
      func receive(_ publication: Publication) {}
      func finish() {}
    }
    let queue = DispatchQueue(label: "test.early-commander")
    let answers = CommandServiceTests.Answers()
    private let channel = Locked<CommandChannel?>(nil)
    var takesCommands: Bool { true }

    func start(_ context: DaemonAttachmentContext) throws -> any EventSink {
      guard let service = context.commands else { throw NoCommands() }
      let channel = CommandServiceTests.channel(service, queue, answers)
      self.channel.withLock { $0 = channel }
      CommandServiceTests.send(channel, queue, "{\"cmd\":\"cancel\",\"id\":\"early\"}\n")
      usleep(300_000)
      return Discard()
    }

    func stop() async {}
  }

  @Test func aGuidanceCommandSentWhileTheDaemonStartsIsCarriedOut() async throws {
    let folder = repositoryFile("Simulations/001-marais-drive")
    let document = try RouteFiles.load(folder + "/route.json")
    let session = try NavigationSession(document: document, routeIndex: 0, phrasing: Phrasebook())
    let source = TrackReplaySource(
      input: try TrackInput(path: folder + "/drive.nmea"), speed: nil,
      lostAfter: session.configuration.gpsLostAfter)
    let devNull = open("/dev/null", O_WRONLY)
    defer { close(devNull) }
    var extras = DaemonExtras()
    extras.commandLimits = CommandService.Configuration()
    let commander = EarlyCommander()
    extras.attachments = [commander]
    let report = await Daemon.run(
      session: session, source: source, output: StreamSink(fd: devNull, format: .json),
      extras: extras)
    #expect(report.startFailure == nil)
    let answer = try #require(commander.answers.next(1).first, "no answer")
    #expect(answer.className == "REPLY", "\(answer)")
    #expect(answer["id"]?.stringValue == "early")
  }
}
