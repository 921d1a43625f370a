import Foundation
import Geodesy
import JSON
import NMEA
import Routes
import Simulation
import TestSupport
import Testing

/// The drive simulator: kinematics, receiver model, sentence mix and the gpsd capture.
@Suite struct SimulatorTests {
  static let town = makeRoute(legs: [
    (90, 600, "Turn left onto A Street"),
    (0, 300, "Turn right onto B Street"),
    (90, 1500, "Make a U-turn"),
    (270, 400, "Your destination is on the right"),
  ])

  private func options(_ change: (inout DriveOptions) -> Void) -> DriveOptions {
    var o = DriveOptions()
    change(&o)
    return o
  }

  /// The slowest true speed within 10 m of `s` metres along the route.
  private func speed(at s: Double, _ d: SimulatedDrive) -> Double {
    d.truth.filter { abs($0.distanceAlong - s) < 10 }.map(\.speed).min() ?? -1
  }

  @Test func townProfileSlowsByTheAngleOfEachTurn() {
    let d = DriveSimulator.drive(
      Self.town.routes[0],
      options: options {
        $0.profile = .town
        $0.hz = 10
      })
    #expect(abs(speed(at: 300, d) - 50 / 3.6) < 0.3, "cruise")
    // Within one step of the braking curve of the target speed (5.5 and 2.2 m/s).
    #expect(speed(at: 600, d) <= 6.2, "right angle: about 20 km/h")
    #expect(speed(at: 2400, d) <= 3.2, "U-turn: about 8 km/h")
    #expect(speed(at: 2400, d) < speed(at: 600, d))
  }

  @Test func highwayProfileCruisesFasterAndTurnSpeedFollowsTheAngle() {
    let d = DriveSimulator.drive(Self.town.routes[0], options: options { $0.profile = .highway })
    #expect(d.truth.map(\.speed).max() ?? 0 > 29)
    #expect(SpeedProfile.highway.turnSpeed(angle: 30) > SpeedProfile.highway.turnSpeed(angle: 45))
    #expect(SpeedProfile.highway.turnSpeed(angle: 45) > SpeedProfile.highway.turnSpeed(angle: 90))
    #expect(SpeedProfile.town.turnSpeed(angle: 10) == SpeedProfile.town.cruise)
  }

  @Test(arguments: [SpeedProfile.town, .highway, .cycling, .walking])
  func accelerationAndBrakingStayWithinTheirLimits(profile: SpeedProfile) {
    let o = options {
      $0.profile = profile
      $0.hz = 5
      $0.acceleration = profile == .walking ? nil : 1.0
    }
    let mode: TransportType =
      profile == .cycling ? .cycling : profile == .walking ? .walking : .automobile
    let route = makeRoute(
      legs: [(90, 600, "Turn left"), (0, 300, "Turn right"), (90, 500, "Arrive")], mode: mode)
    let d = DriveSimulator.drive(route.routes[0], options: o)
    let accel = o.acceleration ?? profile.acceleration
    for (a, b) in zip(d.truth, d.truth.dropFirst()) where a.offset == 0 && b.offset == 0 {
      let dv = (b.speed - a.speed) / (b.time - a.time)
      #expect(dv <= accel + 1e-6, "\(profile): +\(dv) m/s²")
      // Braking is smooth except for the instant stop the kinematic model allows at 0.5 m/s.
      if b.speed > 0.6 { #expect(-dv <= profile.braking + 1e-6, "\(profile): \(dv) m/s²") }
    }
  }

  /// A driver's cruising speed wanders as real drives' does (about 3 % median change over
  /// 20 s), the same way for the same seed, and not at all by default.
  @Test func theCruisingSpeedWandersWhenAsked() {
    let route = makeRoute(legs: [(90, 8000, "Your destination is on the right")]).routes[0]
    func changes(_ d: SimulatedDrive) -> [Double] {
      // 20 s apart, at cruise: away from the start and the end.
      let cruise = d.truth.filter { (1000...7000).contains($0.distanceAlong) }
      return zip(cruise, cruise.dropFirst(20)).map { abs($1.speed - $0.speed) / $0.speed }
    }
    let held = DriveSimulator.drive(route, options: options { $0.profile = .highway })
    #expect(changes(held).allSatisfy { $0 == 0 })
    let wandering = options {
      $0.profile = .highway
      $0.speedWander = 0.035
      $0.seed = 3
    }
    let a = DriveSimulator.drive(route, options: wandering)
    #expect(a.truth == DriveSimulator.drive(route, options: wandering).truth)
    let c = changes(a).sorted()
    #expect(c.count >= 10)
    let median = c[c.count / 2]
    #expect(median > 0.01 && median < 0.08, "median change \(median)")
    #expect(a.truth.allSatisfy { $0.speed <= 110 / 3.6 * (1 + 3 * 0.035) + 1e-9 })
  }

  @Test func fixRateFollowsHz() {
    let d = DriveSimulator.drive(Self.town.routes[0], options: options { $0.hz = 10 })
    #expect(abs(d.fixes[1].time - d.fixes[0].time - 0.1) < 1e-6)
  }

  @Test func stopsStandStillWithReceiverJitter() {
    let o = options {
      $0.profile = .town
      $0.noise = 5
      $0.stops = [Stop(at: 300, duration: 30), Stop(at: 1200, duration: 10)]
    }
    let d = DriveSimulator.drive(Self.town.routes[0], options: o)
    let standing = d.truth.indices.filter {
      d.truth[$0].speed == 0 && abs(d.truth[$0].distanceAlong - 300) < 2
    }
    #expect(standing.count >= 30)
    let reported = standing.map { d.fixes[$0] }
    #expect(reported.allSatisfy { ($0.speed ?? 9) < 0.8 }, "standing speed must stay below 0.8 m/s")
    #expect(reported.contains { ($0.speed ?? 0) > 0 }, "speed creeps")
    let courses = reported.compactMap(\.course)
    #expect((courses.max() ?? 0) - (courses.min() ?? 0) > 180, "course spins while standing")
  }

  @Test func courseNoiseShrinksWithSpeed() {
    let o = options {
      $0.profile = .town
      $0.noise = 5
    }
    let d = DriveSimulator.drive(Self.town.routes[0], options: o)
    var fast: [Double] = []
    for (t, f) in zip(d.truth, d.fixes) where t.speed > 12 {
      fast.append(bearingDifference(t.course, f.course ?? 0))
    }
    let rms = (fast.map { $0 * $0 }.reduce(0, +) / Double(fast.count)).squareRoot()
    #expect(rms < 8, "course error at speed \(rms)°")
  }

  @Test func gstReportsTheErrorTheNoiseReallyHas() {
    let route = makeRoute(legs: [(90, 20_000, "Arrive")])
    let o = options {
      $0.noise = 10
      $0.seed = 9
      $0.speed = 30
    }
    let d = DriveSimulator.drive(route.routes[0], options: o)
    var sum = 0.0
    for (t, f) in zip(d.truth, d.fixes) {
      let e = t.position.distance(to: f.coordinate ?? t.position)
      sum += e * e
    }
    let rms = (sum / Double(d.fixes.count)).squareRoot()
    #expect(abs(rms - 10) < 3, "radial RMS \(rms) m for --noise 10")
    // GST: per-axis sigma; the reader turns it back into the radial figure.
    let nmea = d.nmea(talker: "GP", sentences: [.rmc, .gga, .gst], header: [])
    var reader = NMEAReader()
    let fixes = reader.feed(Array(nmea.utf8)) + reader.finish()
    let accuracy = fixes[10].horizontalAccuracy ?? 0
    #expect(abs(accuracy - 10) < 0.2, "GST says \(accuracy) m")
  }

  @Test func multipathJumpsComeAndGoAndRaiseTheReportedError() {
    let route = makeRoute(legs: [(90, 8000, "Arrive")])
    let plain = DriveSimulator.drive(route.routes[0], options: options { $0.noise = 3 })
    let jumpy = DriveSimulator.drive(
      route.routes[0],
      options: options {
        $0.noise = 3
        $0.multipath = 40
      })
    var jumped = 0
    for (a, b) in zip(plain.fixes, jumpy.fixes) {
      guard let p = a.coordinate, let q = b.coordinate else { continue }
      let d = p.distance(to: q)
      if d > 1e-6 {
        jumped += 1
        #expect(d >= 19.9 && d <= 40.1)
      }
    }
    #expect(jumped > 5 && jumped < plain.fixes.count / 3, "\(jumped) fixes moved")
    #expect(jumpy.sigmas.contains { $0 > plain.sigmas[0] + 1 })
  }

  @Test func stepsMarkedAsTunnelsLoseTheFix() {
    let route = makeRoute(
      legs: [(90, 500, "Turn left"), (0, 800, "Turn right"), (90, 400, "Arrive")],
      notices: [2: "Tunnel"])
    let d = DriveSimulator.drive(route.routes[0])
    let dark = d.truth.filter { !$0.hasFix }
    #expect(!dark.isEmpty)
    #expect(dark.allSatisfy { $0.distanceAlong >= 499 && $0.distanceAlong <= 1301 })
    #expect(d.dropouts.count == 1)
    #expect(DriveSimulator.mentionsTunnel("터널 구간입니다"))
    let lit = DriveSimulator.drive(route.routes[0], options: options { $0.tunnels = false })
    #expect(lit.truth.allSatisfy { $0.hasFix })
  }

  @Test func aTunnelObjectLosesTheFixOverItsOwnSpanNotTheWholeStep() {
    var route = makeRoute(
      legs: [(90, 500, "Turn left"), (0, 800, "Turn right"), (90, 400, "Arrive")],
      notices: [2: "Tunnel"])
    route.routes[0].road = RouteRoad(objects: [
      RoadObject(.tollBooth, start: 300), RoadObject(.tunnel, start: 800, end: 1100),
    ])
    let d = DriveSimulator.drive(route.routes[0])
    let dark = d.truth.filter { !$0.hasFix }
    #expect(!dark.isEmpty)
    #expect(dark.allSatisfy { $0.distanceAlong >= 799 && $0.distanceAlong <= 1101 })
    #expect(d.truth.contains { $0.hasFix && $0.distanceAlong > 600 && $0.distanceAlong < 780 })
    #expect(d.dropouts.count == 1)
  }

  /// The town drive without sky from 700 to 1100 m along, plainly and with the receiver's
  /// `flaw`; the indices of the epochs without sky.
  private func darkDrives(_ flaw: (inout DriveOptions) -> Void)
    -> (plain: SimulatedDrive, flawed: SimulatedDrive, blind: [Int])
  {
    let dark = 700.0...1100.0
    let plain = DriveSimulator.drive(
      Self.town.routes[0], options: options { $0.dropouts = [dark] })
    let flawed = DriveSimulator.drive(
      Self.town.routes[0],
      options: options {
        $0.dropouts = [dark]
        flaw(&$0)
      })
    let blind = plain.fixes.indices.filter { plain.fixes[$0].coordinate == nil }
    return (plain, flawed, blind)
  }

  @Test func aCoastingReceiverCarriesItsLastFixOnAndMarksItWhenAsked() {
    let (plain, coasting, blind) = darkDrives { $0.coast = 8 }
    // The same drive: only the epochs without sky differ, the first 8 s of them.
    #expect(plain.truth == coasting.truth)
    let coasted = blind.filter { coasting.fixes[$0].coordinate != nil }
    #expect(coasted.count == 8 && coasted == Array(blind.prefix(8)))
    let last = coasting.fixes[blind[0] - 1]
    for i in coasted {
      let f = coasting.fixes[i]
      #expect(f.speed == last.speed && f.course == last.course && f.quality == .gps)
      let carried = last.coordinate!.destination(
        distance: last.speed! * (f.time - last.time), bearing: last.course!)
      #expect(f.coordinate!.distance(to: carried) < 0.01)
    }
    // Marked, they are the receiver's estimates: GGA quality 6, RMC mode E, gpsd status 5.
    let flagged = darkDrives {
      $0.coast = 8
      $0.coastFlagged = true
    }.flawed
    #expect(coasted.allSatisfy { flagged.fixes[$0].quality == .deadReckoning })
    let nmea = flagged.nmea(talker: "GP", sentences: [.rmc, .vtg, .gga], header: [])
    #expect(nmea.contains(",E*") && nmea.contains("GPGGA,") && nmea.contains(",6,09,"))
    var reader = NMEAReader()
    let read = reader.feed(Array(nmea.utf8)) + reader.finish()
    #expect(read.map(\.quality) == flagged.fixes.map(\.quality))
    #expect(flagged.gpsdJSON(sky: false).contains("\"mode\":3,\"status\":5,"))
  }

  @Test func theFirstFixesAfterAStretchWithoutSkyAreOffAndConverge() {
    let (plain, poor, blind) = darkDrives { $0.reacquire = 40 }
    // The same drive; only the fixes after the stretch without sky moved.
    #expect(plain.truth == poor.truth)
    let back = blind.last! + 1
    for i in plain.fixes.indices where i < back {
      #expect(plain.fixes[i] == poor.fixes[i])
    }
    // 40 m off at the first fix back, halving every 2 s, in one direction; the receiver says
    // about half of it.
    let off = (back..<(back + 8)).map {
      plain.fixes[$0].coordinate!.distance(to: poor.fixes[$0].coordinate!)
    }
    for (k, d) in off.enumerated() {
      #expect(abs(d - 40 * pow(0.5, Double(k) / 2)) < 0.01, "\(k) s after: \(d) m off")
    }
    #expect(poor.fixes[back].horizontalAccuracy! > 10)
    #expect(poor.fixes[back + 20] == plain.fixes[back + 20])
  }

  @Test func everySentenceTypeIsWellFormedAndReadsBackToTheSameFixes() {
    let d = DriveSimulator.drive(
      Self.town.routes[0],
      options: options {
        $0.noise = 5
        $0.dropouts = [700...900]
      })
    let all = d.nmea(talker: "GN", sentences: NMEAWriter.Sentence.all, header: [])
    let classic = d.nmea()
    var r1 = NMEAReader()
    var r2 = NMEAReader()
    let f1 = r1.feed(Array(all.utf8)) + r1.finish()
    let f2 = r2.feed(Array(classic.utf8)) + r2.finish()
    #expect(r1.statistics.badChecksum == 0 && r1.statistics.malformed == 0)
    #expect(f1.count == d.fixes.count)
    #expect(f1.map(\.coordinate) == f2.map(\.coordinate))
    for type in ["RMC", "VTG", "GGA", "GSA", "GSV", "GST"] {
      #expect(all.contains("$GN\(type),"), "no \(type)")
    }
    #expect(all.contains("$GNGSV,1,1,00*"), "an empty sky in the dropout")
    for line in all.split(separator: "\r\n") { #expect(line.utf8.count <= 82) }
    #expect(NMEAWriter.Sentence.list("gga,RMC") == [.rmc, .gga])
    #expect(NMEAWriter.Sentence.list("RMC,XYZ") == nil)
  }

  @Test func gpsdCaptureLooksLikeGpspipe() throws {
    let d = DriveSimulator.drive(
      Self.town.routes[0],
      options: options {
        $0.noise = 5
        $0.dropouts = [700...900]
      })
    let lines = d.gpsdJSON().split(separator: "\n").map(String.init)
    var classes: [String] = []
    var tpvs: [JSONObject] = []
    for l in lines {
      let o = try #require(try JSONParser.parse(l).objectValue)
      let c = try #require(o["class"]?.stringValue)
      classes.append(c)
      if c == "TPV" { tpvs.append(o) }
    }
    #expect(Array(classes.prefix(4)) == ["VERSION", "DEVICES", "WATCH", "DEVICE"])
    #expect(tpvs.count == d.fixes.count)
    #expect(classes.filter { $0 == "SKY" }.count == d.fixes.count)
    let first = try #require(tpvs.first)
    #expect(first["mode"]?.doubleValue == 3)
    let eph = try #require(first["eph"]?.doubleValue)
    #expect(abs(eph - 2 * 2.0.squareRoot() * d.sigmas[0]) < 0.01, "eph is a 95 % figure")
    let dark = try #require(tpvs.first { $0["mode"]?.doubleValue == 1 })
    #expect(dark["time"] == nil && dark["lat"] == nil)
  }

  @Test func simulateCommandWritesTheChosenFormat() throws {
    let route = "Simulations/003-missed-turn-and-return/route.json"
    let nmea = try runTool(
      "stepwise",
      [
        "simulate", route, "--profile", "town", "--sentences", "RMC,GSV", "--talker", "GN",
        "--stop-at", "200:10", "--multipath", "20", "--noise", "5",
      ])
    #expect(nmea.status == 0, "\(nmea.stderr)")
    #expect(nmea.stdout.contains("$GNGSV,3,1,12,") && !nmea.stdout.contains("GGA"))
    let json = try runTool("stepwise", ["simulate", route, "--format", "gpsd-json"])
    #expect(json.status == 0)
    #expect(json.stdout.hasPrefix("{\"class\":\"VERSION\",\"release\":\"3.22\""))
    let bad = try runTool("stepwise", ["simulate", route, "--sentences", "RMC,FOO"])
    #expect(bad.status == 2)
  }
}
