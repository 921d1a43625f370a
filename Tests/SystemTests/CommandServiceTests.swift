import Commands
import Dispatch
import Events
import JSON
import POSIX
import Subscribers
import TestSupport
import Testing
import Wire

/// The command service that the subscriber socket and the fleet uplink share, driven through a
/// ``CommandChannel`` of the test's own, as the uplink drives it.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct CommandServiceTests {
  /// Answers of a channel, collected on its queue, and taken by the test in order.
  final class Answers: Sendable {
    /// Every answer so far, and how many of them the test has taken.
    private let state = Locked<(list: [JSONObject], taken: Int)>(([], 0))
    private let arrived = DispatchSemaphore(value: 0)

    func add(_ o: JSONObject) {
      state.withLock { $0.list.append(o) }
      arrived.signal()
    }

    /// The next `count` answers not taken yet, waiting for those still to come.
    ///
    /// The wait is a bound against a hang, not a timing check. Answers that arrived before the
    /// call are the first ones returned: counting from the call lost them when the channel was
    /// quicker than the test.
    func next(_ count: Int) -> [JSONObject] {
      for _ in 0..<count where arrived.wait(timeout: .now() + 10) == .timedOut { break }
      return state.withLock { s in
        let end = min(s.list.count, s.taken + count)
        defer { s.taken = end }
        return Array(s.list[s.taken..<end])
      }
    }

    var all: [JSONObject] { state.withLock { $0.list } }
  }

  static func channel(_ service: CommandService, _ queue: DispatchQueue, _ answers: Answers)
    -> CommandChannel
  {
    queue.sync {
      CommandChannel(
        service: service, caller: .init("the test", mayChangeGuidance: true), queue: queue,
        isOpen: { true }, answer: { answers.add($0) }, watch: { _ in 0 })
    }
  }

  static func send(_ channel: CommandChannel, _ queue: DispatchQueue, _ lines: String) {
    queue.async {
      channel.feed(Array(lines.utf8))
      channel.run()
    }
  }

  @Test func aChannelRunsItsLinesInOrderOneGuidanceCommandAtATime() throws {
    let replies = Locked<[@Sendable (Result<Void, any Error>) -> Void]>([])
    let called = DispatchSemaphore(value: 0)
    let service = CommandService(
      handler: { _, reply in
        replies.withLock { $0.append(reply) }
        called.signal()
      }, publisher: EventPublisher())
    let queue = DispatchQueue(label: "test.channel")
    let answers = Answers()
    let channel = Self.channel(service, queue, answers)
    Self.send(
      channel, queue, "{\"cmd\":\"cancel\",\"id\":1}\n{\"cmd\":\"status\",\"id\":2}\nnot json\n")
    try #require(called.wait(timeout: .now() + 10) == .success)
    // The engine has the cancel and has not answered: the status and the bad line wait.
    #expect(queue.sync { channel.isBusy })
    #expect(answers.all.isEmpty)
    let reply = try #require(replies.withLock { $0.first })
    reply(.success(()))
    let three = answers.next(3)
    try #require(three.count == 3, "answers: \(three)")
    #expect(three.map(\.className) == ["REPLY", "REPLY", "ERROR"])
    #expect(three.prefix(2).map { $0["id"]?.doubleValue } == [1, 2])
    #expect(three[1]["state"]?["guiding"]?.boolValue == false)
    #expect(queue.sync { !channel.isBusy })
    #expect(replies.withLock { $0.count } == 1)
  }

  @Test func aLoadOverAChannelIsWhatTheSocketsClientsSeeAndAsk() throws {
    let dir = try SocketTestDirectory("service")
    defer { dir.remove() }
    let engine = try FakeEngine(scenario: SocketServerTests.scenario)
    var limits = CommandService.Configuration()
    limits.log = { _, _ in }
    let service = CommandService(
      configuration: limits, handler: engine.handler, publisher: EventPublisher())
    service.setRouteDocument(engine.document, selected: 0)
    var config = SubscriberServer.Configuration()
    config.log = { _, _ in }
    let server = SubscriberServer(
      listener: try ListeningSocket.bind(path: dir.socketPath), configuration: config,
      service: service)
    defer { server.shutdown() }
    let client = try SocketTestClient(path: dir.socketPath)
    _ = client.until("STATE")

    let queue = DispatchQueue(label: "test.channel")
    let answers = Answers()
    let channel = Self.channel(service, queue, answers)
    let example = readBytes(repositoryFile("Tests/Fixtures/routes/example.json"))
    let load = CommandRequest(
      .load(document: try JSONParser.parse(example), routeIndex: 1), id: "L")
    Self.send(channel, queue, load.line + "\n")
    let loaded = try #require(answers.next(1).first)
    #expect(loaded.className == "REPLY" && loaded["routeIndex"]?.doubleValue == 1)

    client.send(#"{"cmd":"routes"}"#)
    let routes = try #require(client.answer())
    #expect(routes["selected"]?.doubleValue == 1 && routes["routes"]?.arrayValue?.count == 2)

    Self.send(channel, queue, "{\"cmd\":\"cancel\",\"id\":\"c\"}\n")
    #expect(answers.next(1).first?.className == "REPLY")
    #expect(client.until("CANCELLED").last?.className == "CANCELLED")
    client.send(#"{"cmd":"routes"}"#)
    let afterCancel = try #require(client.answer())
    #expect(afterCancel.className == "REPLY" && afterCancel["selected"] == nil)
    #expect(engine.commands.count == 2)
  }
}
