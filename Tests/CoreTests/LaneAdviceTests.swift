import Guidance
import Phrasebook
import Routes
import Testing

/// The lanes and the sign of a maneuver, said (issue 34 item 3).
@Suite struct LaneAdviceTests {
  typealias F = ImportFixtures

  static func lane(_ preferred: Bool, _ indications: [RouteLane.Indication] = [.straight])
    -> RouteLane
  {
    RouteLane(indications: indications, valid: preferred)
  }

  /// Lanes from a picture: "x" a lane to use, "." one not to.
  static func lanes(_ picture: String) -> [RouteLane] { picture.map { lane($0 == "x") } }

  static let en = Phrasebook(language: .en)
  static let ko = Phrasebook(language: .ko)

  @Test(arguments: [
    ("..xx", "the right two lanes", "오른쪽 2개 차로"),
    ("x..", "the left lane", "왼쪽 차로"),
    ("xxx.", "the left three lanes", "왼쪽 3개 차로"),
    (".x.", "the middle lane", "가운데 차로"),
    (".xx.", "the middle two lanes", "가운데 2개 차로"),
    (".x..", "lane 2 from the left", "2차로"),
    ("x.x", "lanes 1 and 3 from the left", "1, 3차로"),
    ("x.x.x", "lanes 1, 3 and 5 from the left", "1, 3, 5차로"),
  ])
  func theLanesToUseAreNamed(_ picture: String, _ english: String, _ korean: String) {
    #expect(Self.en.laneDescription(Self.lanes(picture)) == english)
    #expect(Self.ko.laneDescription(Self.lanes(picture)) == korean)
  }

  @Test(arguments: ["xx", "..", "x", ".", "", "xxxx"])
  func noLaneIsNamedWhenEveryLaneOrNoneIsFine(_ picture: String) {
    #expect(Self.en.laneDescription(Self.lanes(picture)) == nil)
    #expect(Self.ko.laneDescription(Self.lanes(picture)) == nil)
  }

  @Test func theRouterSActiveLanesAreTheOnesToUse() {
    let lanes = [
      RouteLane(indications: [.straight], valid: true, active: false),
      RouteLane(indications: [.right], valid: true, active: true),
    ]
    #expect(Self.en.laneDescription(lanes) == "the right lane")
  }

  @Test func theLaneClauseLeadsTheManeuver() {
    let road = ManeuverRoad(lanes: Self.lanes("..xx"))
    #expect(
      Self.en.text(
        for: .maneuver(
          instructions: "Turn right onto Rue de Bretagne.", distance: 300, then: nil, road: road))
        == "In 300 meters, use the right two lanes to turn right onto Rue de Bretagne.")
    #expect(
      Self.en.text(
        for: .maneuver(instructions: "Turn right.", distance: nil, then: nil, road: road))
        == "Use the right two lanes to turn right.")
    #expect(
      Self.en.text(for: .maneuver(instructions: "A8 ahead.", distance: nil, then: nil, road: road))
        == "A8 ahead. Use the right two lanes.")
    #expect(
      Self.ko.text(
        for: .maneuver(
          instructions: "Rue de Bretagne에서 우회전", distance: 300, then: nil, road: road))
        == "300미터 앞, 오른쪽 2개 차로를 이용하여 Rue de Bretagne에서 우회전입니다.")
    #expect(
      Self.ko.text(for: .maneuver(instructions: "우회전하세요.", distance: nil, then: nil, road: road))
        == "잠시 후 오른쪽 2개 차로를 이용하여 우회전하세요.")
  }

  @Test func theNextManeuverSLanesGoWithTheThenClause() {
    let road = ManeuverRoad(lanes: Self.lanes("x..."), lanesForThen: true)
    #expect(
      Self.en.text(
        for: .maneuver(instructions: "Turn right.", distance: nil, then: "Turn left.", road: road))
        == "Turn right, then use the left lane to turn left.")
    #expect(
      Self.ko.text(for: .maneuver(instructions: "우회전", distance: nil, then: "좌회전", road: road))
        == "잠시 후 우회전, 이어서 왼쪽 차로를 이용하여 좌회전입니다.")
  }

  static let sign = RouteSign([
    .init(.exitNumber, "52"), .init(.branch, "A8"), .init(.toward, "Nice"),
  ])

  @Test func theSignIsSaidWhenTheInstructionsDoNotSayIt() {
    let road = ManeuverRoad(lanes: [], sign: Self.sign)
    #expect(
      Self.en.text(
        for: .maneuver(
          instructions: "Take the ramp on the right.", distance: 500, then: nil, road: road))
        == "In 500 meters, take the ramp on the right. Take exit 52 toward Nice.")
    #expect(
      Self.ko.text(for: .maneuver(instructions: "오른쪽 램프", distance: 500, then: nil, road: road))
        == "500미터 앞, 오른쪽 램프입니다. 52번 출구로 나가 Nice 방향으로 가세요.")
    let noExit = ManeuverRoad(
      lanes: [], sign: RouteSign([.init(.branch, "A8"), .init(.toward, "Italy")]))
    #expect(
      Self.en.signSentence(noExit.sign, instructions: "Keep left") == "Take the A8 toward Italy.")
    #expect(
      Self.ko.signSentence(noExit.sign, instructions: "왼쪽 유지") == "A8 도로를 타고 Italy 방향으로 가세요.")
    // Said already: nothing more.
    #expect(
      Self.en.signSentence(
        RouteSign([.init(.exitNumber, "52"), .init(.toward, "Nice")]),
        instructions: "Take exit 52 toward Nice") == nil)
  }

  /// Every maneuver of the OSRM fixtures that carries lanes, said on its approach prompt with
  /// its own lanes: the clause is said for ≥ 95 % of those whose preferred lanes are a strict
  /// subset of two or more, and never for the others (the fixtures have few such steps: each
  /// step is said again with every lane fine and with none marked).
  @Test(arguments: [Language.en, .ko])
  func aLaneClauseIsSaidWhereItHelpsAndNeverWhereEveryLaneIsFine(_ language: Language) throws {
    let book = Phrasebook(language: language)
    var advising = 0
    var said = 0
    var fine = 0
    for file in F.files("osrm") + F.scenarioOSRMFiles {
      for route in try F.document(file, language: language).routes {
        for step in route.steps where !step.lanes.isEmpty && !step.instructions.isEmpty {
          func text(_ lanes: [RouteLane]) -> String {
            book.text(
              for: .maneuver(
                instructions: step.instructions, distance: 300, then: nil,
                road: ManeuverRoad(lanes: lanes, sign: step.sign)))
          }
          let clause = text(step.lanes) != text([])
          let preferred = step.lanes.count { $0.isPreferred }
          if step.lanes.count >= 2 && preferred > 0 && preferred < step.lanes.count {
            advising += 1
            if clause { said += 1 }
          } else {
            fine += 1
            #expect(!clause, "\(file): \(step.instructions)")
          }
          // The same maneuver with every lane fine, and with none marked: no clause.
          var all = step.lanes
          for i in all.indices {
            all[i].valid = true
            all[i].active = nil
          }
          #expect(text(all) == text([]), "\(file): \(step.instructions)")
          var none = step.lanes
          for i in none.indices {
            none[i].valid = false
            none[i].active = nil
          }
          #expect(text(none) == text([]), "\(file): \(step.instructions)")
        }
      }
    }
    #expect(advising > 0, "\(fine) steps with every lane fine")
    #expect(Double(said) >= 0.95 * Double(advising), "\(said) of \(advising)")
  }
}
