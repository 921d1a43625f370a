import Daemon
import Events
import Geodesy
import Guidance
import GuidanceSettings
import Phrasebook
import TestSupport
import Testing
import Wire

/// The live engine's timer is armed only when a silence check can change something: never
/// before the first fix, once for GPS loss after a fix, once for each heads-up of a slow
/// vehicle, periodically only while dead reckoning carries a moving vehicle.
///
/// So an idle daemon has nothing to wake up for.
@Suite(.blocking) struct EngineTickTests {
  typealias Recorder = GPSDEngineLoopTests.Recorder
  typealias FakeClock = GPSDEngineLoopTests.FakeClock

  static let start = Coordinate(latitude: 47.14, longitude: 9.52)

  static func gpsEvents(_ sink: Recorder) -> [NavigationEvent] {
    sink.received.compactMap { p in
      if case .navigation(let e) = p.event, case .gps = e.kind { return e }
      return nil
    }
  }

  @Test func noTickIsWantedBeforeTheFirstFixOrWithoutASession() throws {
    let clock = FakeClock()
    var engine = Engine(
      session: try GPSDEngineLoopTests.session(), publisher: EventPublisher(), clock: clock)
    #expect(engine.nextTick(interval: 0.25) == nil)
    engine.handle(.source(.connected, reason: nil))
    engine.handle(.probe)
    #expect(engine.nextTick(interval: 0.25) == nil)
    let idle = Engine(session: nil, publisher: EventPublisher(), clock: clock)
    #expect(idle.nextTick(interval: 0.25) == nil)
  }

  @Test func aStandingVehicleWantsOneTickForGPSLossOneForItsHeadsUpAndNoneAfter() throws {
    let publisher = EventPublisher()
    let sink = Recorder()
    publisher.add(sink)
    let clock = FakeClock()
    var engine = Engine(
      session: try GPSDEngineLoopTests.session(), publisher: publisher, clock: clock)
    engine.handle(.fix(Fix(time: 100, coordinate: Self.start, speed: 0)))
    let lostAfter = try GPSDEngineLoopTests.session().configuration.gpsLostAfter
    // One deadline, on the monotonic clock: the fix arrived at 1000.
    #expect(engine.nextTick(interval: 0.25) == 1000 + lostAfter)
    clock.time += 2
    #expect(
      engine.nextTick(interval: 0.25) == 1000 + lostAfter,
      "the deadline does not move while waiting")
    clock.time = 1000 + lostAfter
    engine.handle(.tick)
    #expect(Self.gpsEvents(sink).map(\.time) == [100 + lostAfter])
    // Then one deadline, not ticks: the heads-up for the turn 600 m ahead (README,
    // "Heads-ups"), due once the vehicle could be near it had it driven off.
    let headsUp = try #require(engine.nextTick(interval: 0.25))
    #expect(headsUp > clock.time + 30 && engine.nextTick(interval: 5) == headsUp)
    clock.time = headsUp
    engine.handle(.tick)
    let said = sink.received.compactMap { p -> NavigationEvent? in
      if case .navigation(let e) = p.event, e.announcement?.kind == .approach { return e }
      return nil
    }
    #expect(said.map(\.estimated) == [true], "\(said)")
    #expect(said.first?.announcement?.distance.map { abs($0 - 600) < 5 } == true)
    #expect(engine.nextTick(interval: 0.25) == nil, "disarmed once nothing more is due")
    // The next fix arms it again, from its own arrival.
    clock.time += 30
    engine.handle(.fix(Fix(time: 135, coordinate: Self.start, speed: 0)))
    #expect(engine.nextTick(interval: 0.25) == clock.time + lostAfter)
  }

  @Test func aMovingVehicleIsTickedForDeadReckoningUntilItsLimit() throws {
    let clock = FakeClock()
    var engine = Engine(
      session: try GPSDEngineLoopTests.session(), publisher: EventPublisher(), clock: clock)
    engine.handle(.fix(Fix(time: 100, coordinate: Self.start, speed: 0)))
    engine.handle(
      .fix(
        Fix(
          time: 101, coordinate: Coordinate(latitude: 47.14, longitude: 9.52012), speed: 10,
          course: 90)))
    #expect(engine.nextTick(interval: 0.25) == clock.time + 0.25)
    clock.time += 400
    engine.handle(.tick)
    #expect(engine.nextTick(interval: 0.25) == nil, "no periodic ticks after 300 s of silence")
  }

  @Test func aBatchOfFixesPublishesWhatSingleFixesWould() throws {
    var fixes: [Fix] = []
    for i in 0..<40 {
      let lon = 9.52 + Double(i) * 0.0001
      fixes.append(
        Fix(
          time: 100 + Double(i), coordinate: Coordinate(latitude: 47.14, longitude: lon),
          speed: 7.5, course: 90))
    }
    fixes.insert(Fix.noFix(time: 120.5), at: 21)
    func run(_ inputs: [EngineInput]) throws -> ([Publication], Int) {
      let publisher = EventPublisher()
      let sink = Recorder()
      publisher.add(sink)
      var engine = Engine(
        session: try GPSDEngineLoopTests.session(), publisher: publisher, clock: FakeClock())
      for input in inputs { engine.handle(input) }
      return (sink.received, engine.events)
    }
    let single = try run(fixes.map { .fix($0) })
    let batched = try run([.fixes(Array(fixes[0..<10])), .fixes(Array(fixes[10...])), .fixes([])])
    #expect(single.0 == batched.0)
    #expect(single.1 == batched.1 && single.1 > fixes.count)
  }
}
