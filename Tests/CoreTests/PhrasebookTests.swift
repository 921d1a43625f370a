import Guidance
import Instructions
import Phrasebook
import Routes
import TestSupport
import Testing

private let en = Phrasebook(language: .en, units: .metric)
private let enImperial = Phrasebook(language: .en, units: .imperial)
private let ko = Phrasebook(language: .ko, units: .metric)
private let koImperial = Phrasebook(language: .ko, units: .imperial)
private let allPhrasebooks = [en, enImperial, ko, koImperial]

@Suite struct PhrasebookTests {
  // MARK: Spoken distances

  @Test(arguments: [
    (0.0, "10 meters"), (4, "10 meters"), (9.9, "10 meters"), (-5, "10 meters"),
    (.nan, "10 meters"), (14, "10 meters"), (16, "20 meters"), (94, "90 meters"),
    (96, "100 meters"), (124, "100 meters"), (130, "150 meters"), (310, "300 meters"),
    (974, "950 meters"), (976, "1 kilometer"), (999.9, "1 kilometer"), (1240, "1 kilometer"),
    (1250, "1.5 kilometers"), (1700, "1.5 kilometers"), (1760, "2 kilometers"),
    (2740, "2.5 kilometers"), (2800, "3 kilometers"), (3499, "3 kilometers"),
    (3500, "4 kilometers"), (23_400, "23 kilometers"),
  ])
  func metricSpokenDistancesRoundToNaturalSteps(metres: Double, expected: String) {
    #expect(en.spokenDistance(metres) == expected)
  }

  @Test(arguments: [
    (0.0, "50 feet"), (10, "50 feet"), (100, "350 feet"), (152.4, "500 feet"),
    (160, "500 feet"), (161, "0.1 miles"), (321.9, "0.2 miles"), (1609.344, "1 mile"),
    (2414, "1.5 miles"), (4700, "2.9 miles"), (4800, "3 miles"), (5633, "4 miles"),
    (16_093.44, "10 miles"),
  ])
  func imperialSpokenDistancesUseFeetThenTenthsThenWholeMiles(metres: Double, expected: String) {
    #expect(enImperial.spokenDistance(metres) == expected)
  }

  @Test(arguments: [
    (4.0, "10미터"), (310, "300미터"), (976, "1킬로미터"), (1250, "1.5킬로미터"),
    (2000, "2킬로미터"), (23_400, "23킬로미터"),
  ])
  func koreanMetricSpokenDistancesHaveNoSpaceBeforeTheUnit(metres: Double, expected: String) {
    #expect(ko.spokenDistance(metres) == expected)
  }

  @Test(arguments: [
    (152.4, "500피트"), (10, "50피트"), (321.9, "0.2마일"), (1609.344, "1마일"), (2414, "1.5마일"),
    (16_093.44, "10마일"),
  ])
  func koreanImperialSpokenDistancesUseFeetAndMiles(metres: Double, expected: String) {
    #expect(koImperial.spokenDistance(metres) == expected)
  }

  @Test func spokenDistancesSurviveInfinityAndHugeValues() {
    for phrasebook in allPhrasebooks {
      #expect(!phrasebook.spokenDistance(.infinity).isEmpty)
      #expect(!phrasebook.spokenDistance(1e300).isEmpty)
      #expect(!phrasebook.displayDistance(.infinity).isEmpty)
      #expect(!phrasebook.displayDuration(.infinity).isEmpty)
    }
  }

  // MARK: Display distances and durations

  @Test(arguments: [
    (0.0, "0 m"), (4, "0 m"), (346, "350 m"), (994, "990 m"), (996, "1.0 km"), (1234, "1.2 km"),
    (9940, "9.9 km"), (9960, "10 km"), (23_400, "23 km"), (-1, "0 m"),
  ])
  func metricDisplayDistancesUseMetresThenOneDecimalThenWholeKilometres(
    metres: Double, expected: String
  ) {
    #expect(en.displayDistance(metres) == expected)
    #expect(ko.displayDistance(metres) == expected)
  }

  @Test(arguments: [
    (0.0, "0 ft"), (152.4, "500 ft"), (160, "520 ft"), (321.9, "0.2 mi"), (1609.344, "1.0 mi"),
    (16_000, "9.9 mi"), (16_093.44, "10 mi"), (40_000, "25 mi"),
  ])
  func imperialDisplayDistancesUseFeetThenOneDecimalThenWholeMiles(
    metres: Double, expected: String
  ) {
    #expect(enImperial.displayDistance(metres) == expected)
    #expect(koImperial.displayDistance(metres) == expected)
  }

  @Test(arguments: [
    (0.0, "0 s"), (-3, "0 s"), (45, "45 s"), (59.4, "59 s"), (59.6, "1 min"), (1380, "23 min"),
    (3569, "59 min"), (3590, "1 h 00 min"), (3900, "1 h 05 min"), (7200, "2 h 00 min"),
    (45_000, "12 h 30 min"),
  ])
  func englishDisplayDurationsPadMinutesAfterHours(seconds: Double, expected: String) {
    #expect(en.displayDuration(seconds) == expected)
    #expect(enImperial.displayDuration(seconds) == expected)
  }

  @Test(arguments: [
    (0.0, "0초"), (45, "45초"), (59.6, "1분"), (1380, "23분"), (3900, "1시간 5분"),
    (4500, "1시간 15분"), (7200, "2시간"),
  ])
  func koreanDisplayDurationsDropZeroMinutes(seconds: Double, expected: String) {
    #expect(ko.displayDuration(seconds) == expected)
  }

  @Test func departLabelFollowsTheLanguage() {
    #expect(en.departLabel == "Depart")
    #expect(koImperial.departLabel == "출발")
  }

  // MARK: Korean particles

  @Test(arguments: [
    // Hangul without a final consonant.
    ParticleCase("도보", .euroRo, "도보로"), ParticleCase("자전거", .eulReul, "자전거를"),
    ParticleCase("버스", .eunNeun, "버스는"), ParticleCase("학교", .iGa, "학교가"),
    ParticleCase("우유", .gwaWa, "우유와"),
    // Hangul with a final consonant other than ㄹ.
    ParticleCase("서울역", .euroRo, "서울역으로"), ParticleCase("대중교통", .euroRo, "대중교통으로"),
    ParticleCase("서울역", .eulReul, "서울역을"), ParticleCase("강남역", .eunNeun, "강남역은"),
    ParticleCase("공항", .iGa, "공항이"), ParticleCase("책", .gwaWa, "책과"),
    // Final ㄹ: 로 for (으)로, consonant forms for the rest.
    ParticleCase("서울", .euroRo, "서울로"), ParticleCase("지하철", .euroRo, "지하철로"),
    ParticleCase("서울", .eulReul, "서울을"), ParticleCase("길", .eunNeun, "길은"),
    ParticleCase("서울", .iGa, "서울이"), ParticleCase("연필", .gwaWa, "연필과"),
    // Trailing brackets and punctuation are skipped; lone jamo count.
    ParticleCase("강남역(2호선)", .euroRo, "강남역(2호선)으로"), ParticleCase("ㄱ", .iGa, "ㄱ이"),
    ParticleCase("ㄹ", .euroRo, "ㄹ로"),
  ])
  func hangulWordsTakeParticlesByTheirFinalConsonant(_ example: ParticleCase) {
    #expect(attachParticle(example.word, example.particle) == example.expected)
  }

  @Test(arguments: [
    ParticleCase("1", .euroRo, "1로"), ParticleCase("7", .eulReul, "7을"),
    ParticleCase("8", .eunNeun, "8은"), ParticleCase("3", .euroRo, "3으로"),
    ParticleCase("6", .iGa, "6이"), ParticleCase("0", .iGa, "0이"),
    ParticleCase("2", .euroRo, "2로"), ParticleCase("4", .eulReul, "4를"),
    ParticleCase("5", .gwaWa, "5와"), ParticleCase("9", .iGa, "9가"),
    ParticleCase("10", .euroRo, "10으로"), ParticleCase("100", .iGa, "100이"),
    ParticleCase("10,000", .euroRo, "10,000으로"),
    ParticleCase("1000000000000", .iGa, "1000000000000가"),
    ParticleCase("1.5", .eulReul, "1.5를"), ParticleCase("I-95", .euroRo, "I-95로"),
    ParticleCase("A1", .euroRo, "A1로"), ParticleCase("국도 3", .euroRo, "국도 3으로"),
    ParticleCase("300m", .euroRo, "300m로"), ParticleCase("2km", .eulReul, "2km를"),
    ParticleCase("5mi", .euroRo, "5mi로"), ParticleCase("5mi", .eulReul, "5mi을"),
  ])
  func digitEndingWordsAreReadInSinoKorean(_ example: ParticleCase) {
    #expect(attachParticle(example.word, example.particle) == example.expected)
  }

  @Test(arguments: [
    ParticleCase("Main Street", .euroRo, "Main Street로"), ParticleCase("Park", .iGa, "Park가"),
    ParticleCase("Rue Oberkampf", .euroRo, "Rue Oberkampf로"),
    ParticleCase("Champs-Élysées", .eulReul, "Champs-Élysées를"),
    ParticleCase("Station", .euroRo, "Station으로"), ParticleCase("Köln", .euroRo, "Köln으로"),
    ParticleCase("Hong Kong", .eunNeun, "Hong Kong은"),
    ParticleCase("Hamburg", .eunNeun, "Hamburg는"),
    ParticleCase("Hill", .euroRo, "Hill로"), ParticleCase("Hill", .eulReul, "Hill을"),
    ParticleCase("Montréal", .euroRo, "Montréal로"), ParticleCase("Market", .iGa, "Market이"),
    ParticleCase("Rock", .gwaWa, "Rock과"), ParticleCase("Street", .iGa, "Street가"),
    ParticleCase("Lane", .euroRo, "Lane으로"), ParticleCase("Home", .eulReul, "Home을"),
    ParticleCase("Castle", .euroRo, "Castle로"), ParticleCase("Castle", .eulReul, "Castle을"),
    ParticleCase("Place", .euroRo, "Place로"), ParticleCase("Tower", .eunNeun, "Tower는"),
    ParticleCase("Paris", .euroRo, "Paris로"), ParticleCase("Rue de Rivoli", .iGa, "Rue de Rivoli가"),
    // Acronyms and single letters are read by letter names: L 엘, R 알, M 엠, N 엔.
    ParticleCase("IC", .euroRo, "IC로"), ParticleCase("KTX", .eulReul, "KTX를"),
    ParticleCase("URL", .euroRo, "URL로"), ParticleCase("URL", .eulReul, "URL을"),
    ParticleCase("SM", .eunNeun, "SM은"), ParticleCase("BMW", .iGa, "BMW가"),
    ParticleCase("Exit A", .euroRo, "Exit A로"), ParticleCase("Exit N", .euroRo, "Exit N으로"),
  ])
  func latinWordsFollowLoanwordPronunciation(_ example: ParticleCase) {
    #expect(attachParticle(example.word, example.particle) == example.expected)
  }

  @Test func unreadableWordsTakeTheVowelForm() {
    #expect(attachParticle("東京", .euroRo) == "東京로")
    #expect(attachParticle("", .iGa) == "가")
    #expect(attachParticle("—", .eulReul) == "—를")
  }

  // MARK: Every message, both languages

  @Test(arguments: [
    PhraseCase(
      .depart(source: "Gare de l'Est", tolls: false, advisories: []), .en,
      "Depart from Gare de l'Est."),
    PhraseCase(.depart(source: "", tolls: false, advisories: []), .en, "Depart."),
    PhraseCase(
      .depart(source: "Home", tolls: true, advisories: ["Road closed on Sundays", "Ferry ahead."]),
      .en, "Depart from Home. This route has tolls. Road closed on Sundays. Ferry ahead."),
    PhraseCase(
      .maneuver(instructions: "Turn left onto Rue des Guillemites.", distance: 310, then: nil),
      .en, "In 300 meters, turn left onto Rue des Guillemites."),
    PhraseCase(
      .maneuver(instructions: "Turn left onto A.", distance: 300, then: "Turn right onto B."),
      .en, "In 300 meters, turn left onto A, then turn right onto B."),
    PhraseCase(
      .maneuver(instructions: "Turn left onto A.", distance: 300, then: nil), .en,
      "In 0.2 miles, turn left onto A.", units: .imperial),
    PhraseCase(
      .maneuver(instructions: "Turn right onto Rue de Bretagne.", distance: nil, then: nil),
      .en, "Turn right onto Rue de Bretagne."),
    PhraseCase(
      .maneuver(instructions: "Turn right.", distance: nil, then: "Turn left."), .en,
      "Turn right, then turn left."),
    PhraseCase(
      .arrive(destination: "Place de la République"), .en,
      "You have arrived at Place de la République."),
    PhraseCase(.arrive(destination: ""), .en, "You have arrived at your destination."),
    PhraseCase(.waypoint(number: 1), .en, "You have reached your 1st waypoint."),
    PhraseCase(.notice("Railroad crossing"), .en, "Railroad crossing."),
    PhraseCase(.notice("Watch out!"), .en, "Watch out!"),
    PhraseCase(.modeChange(.walking), .en, "Continue on foot."),
    PhraseCase(.modeChange(.cycling), .en, "Continue by bicycle."),
    PhraseCase(.modeChange(.automobile), .en, "Continue by car."),
    PhraseCase(.modeChange(.transit), .en, "Continue by public transport."),
    PhraseCase(.continueFor(distance: 2000), .en, "Continue for 2 kilometers."),
    PhraseCase(.continueFor(distance: 1609.344), .en, "Continue for 1 mile.", units: .imperial),
    PhraseCase(.offRoute(distance: 80), .en, "You are off the route."),
    PhraseCase(.backOnRoute, .en, "You are back on the route."),
    PhraseCase(.gpsLost, .en, "GPS signal lost."),
    PhraseCase(.gpsAcquired, .en, "GPS signal restored."),
    PhraseCase(
      .overspeed(limit: 50, unit: .kilometresPerHour), .en,
      "You are over the speed limit of 50 kilometers per hour."),
    PhraseCase(
      .overspeed(limit: 12.5, unit: .milesPerHour), .en,
      "You are over the speed limit of 12.5 miles per hour."),
  ])
  func everyMessageHasAnEnglishText(_ example: PhraseCase) {
    let phrasebook = Phrasebook(language: example.language, units: example.units)
    #expect(phrasebook.text(for: example.message) == example.expected)
  }

  @Test(arguments: [
    PhraseCase(.depart(source: "서울역", tolls: false, advisories: []), .ko, "서울역에서 출발합니다."),
    PhraseCase(.depart(source: "", tolls: false, advisories: []), .ko, "출발합니다."),
    PhraseCase(
      .depart(source: "", tolls: true, advisories: ["일요일에는 통행이 제한됩니다", "페리 구간이 있습니다."]),
      .ko, "출발합니다. 이 경로에는 유료 도로가 있습니다. 일요일에는 통행이 제한됩니다. 페리 구간이 있습니다."),
    PhraseCase(
      .maneuver(instructions: "Rue des Guillemites에서 좌회전", distance: 310, then: nil), .ko,
      "300미터 앞, Rue des Guillemites에서 좌회전입니다."),
    PhraseCase(
      .maneuver(
        instructions: "Rue des Guillemites에서 좌회전", distance: 300, then: "왼편 Rue Oberkampf 방향"),
      .ko, "300미터 앞, Rue des Guillemites에서 좌회전, 이어서 왼편 Rue Oberkampf 방향입니다."),
    PhraseCase(
      .maneuver(instructions: "좌회전", distance: 300, then: nil), .ko,
      "0.2마일 앞, 좌회전입니다.", units: .imperial),
    PhraseCase(
      .maneuver(instructions: "오른편 목적지 도착", distance: nil, then: nil), .ko,
      "잠시 후 오른편 목적지 도착입니다."),
    PhraseCase(
      .maneuver(instructions: "우회전", distance: nil, then: "좌회전"), .ko,
      "잠시 후 우회전, 이어서 좌회전입니다."),
    PhraseCase(
      .maneuver(instructions: "우회전하세요.", distance: 120, then: nil), .ko,
      "100미터 앞에서 우회전하세요."),
    PhraseCase(
      .maneuver(instructions: "직진하십시오", distance: nil, then: nil), .ko,
      "잠시 후 직진하십시오."),
    PhraseCase(
      .maneuver(instructions: "Turn left onto Main Street.", distance: 500, then: nil), .ko,
      "500미터 앞에서 Turn left onto Main Street."),
    PhraseCase(
      .maneuver(instructions: "좌회전", distance: 300, then: "우회전하세요"), .ko,
      "300미터 앞, 좌회전입니다. 이어서 우회전하세요."),
    PhraseCase(
      .maneuver(instructions: "좌회전합니다.", distance: 300, then: "목적지 도착"), .ko,
      "300미터 앞에서 좌회전합니다. 이어서 목적지 도착입니다."),
    PhraseCase(
      .maneuver(instructions: "강변북로 방면 I-95", distance: 50, then: nil), .ko,
      "50미터 앞, 강변북로 방면 I-95입니다."),
    PhraseCase(
      .arrive(destination: "Place de la République"), .ko,
      "목적지인 Place de la République에 도착했습니다."),
    PhraseCase(.arrive(destination: ""), .ko, "목적지에 도착했습니다."),
    PhraseCase(.waypoint(number: 1), .ko, "첫 번째 경유지에 도착했습니다."),
    PhraseCase(.notice("철길 건널목이 있습니다"), .ko, "철길 건널목이 있습니다."),
    PhraseCase(.modeChange(.walking), .ko, "이제 도보로 이동하세요."),
    PhraseCase(.modeChange(.cycling), .ko, "이제 자전거로 이동하세요."),
    PhraseCase(.modeChange(.automobile), .ko, "이제 자동차로 이동하세요."),
    PhraseCase(.modeChange(.transit), .ko, "이제 대중교통으로 이동하세요."),
    PhraseCase(.continueFor(distance: 2000), .ko, "도로를 따라 2킬로미터 계속 가세요."),
    PhraseCase(
      .continueFor(distance: 1609.344), .ko, "도로를 따라 1마일 계속 가세요.",
      units: .imperial),
    PhraseCase(.offRoute(distance: 80), .ko, "경로를 벗어났습니다."),
    PhraseCase(.backOnRoute, .ko, "경로로 돌아왔습니다."),
    PhraseCase(.gpsLost, .ko, "GPS 신호가 끊겼습니다."),
    PhraseCase(.gpsAcquired, .ko, "GPS 신호가 다시 잡혔습니다."),
    PhraseCase(.overspeed(limit: 50, unit: .kilometresPerHour), .ko, "제한 속도 시속 50킬로미터를 초과했습니다."),
    PhraseCase(.overspeed(limit: 30, unit: .milesPerHour), .ko, "제한 속도 시속 30마일을 초과했습니다."),
  ])
  func everyMessageHasAKoreanText(_ example: PhraseCase) {
    let phrasebook = Phrasebook(language: example.language, units: example.units)
    #expect(phrasebook.text(for: example.message) == example.expected)
  }

  @Test(arguments: [
    (1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
    (21, "21st"), (22, "22nd"), (23, "23rd"), (101, "101st"), (111, "111th"), (112, "112th"),
  ])
  func englishWaypointsUseOrdinalSuffixes(number: Int, ordinal: String) {
    #expect(en.text(for: .waypoint(number: number)) == "You have reached your \(ordinal) waypoint.")
  }

  @Test(arguments: [
    (1, "첫 번째"), (2, "두 번째"), (3, "세 번째"), (4, "네 번째"), (5, "5번째"), (12, "12번째"),
  ])
  func koreanWaypointsUseNativeOrdinalsUpToFour(number: Int, ordinal: String) {
    #expect(ko.text(for: .waypoint(number: number)) == "\(ordinal) 경유지에 도착했습니다.")
  }

  @Test func emptyManeuversSayNothing() {
    for phrasebook in allPhrasebooks {
      #expect(phrasebook.text(for: .maneuver(instructions: " . ", distance: 300, then: nil)) == "")
    }
    #expect(
      en.text(for: .maneuver(instructions: "", distance: 300, then: "Turn left."))
        == "In 300 meters, turn left.")
  }

  // MARK: Instruction casing

  @Test(arguments: [
    ("Turn left onto Main Street", "In 300 meters, turn left onto Main Street."),
    ("keep left at the fork", "In 300 meters, keep left at the fork."),
    ("Exit onto A4.", "In 300 meters, exit onto A4."),
    ("I-95 merges from the left.", "In 300 meters, I-95 merges from the left."),
    ("A1 continues straight", "In 300 meters, A1 continues straight."),
    ("BMW Welt is on your right", "In 300 meters, BMW Welt is on your right."),
    ("US 1 turns right", "In 300 meters, US 1 turns right."),
    ("A slight right", "In 300 meters, a slight right."),
    ("Élysée is ahead", "In 300 meters, élysée is ahead."),
  ])
  func instructionsAfterADistanceAreLowerCasedUnlessTheyStartWithAName(
    instruction: String, expected: String
  ) {
    #expect(
      en.text(for: .maneuver(instructions: instruction, distance: 300, then: nil)) == expected)
  }

  @Test func instructionsAfterThenAreLowerCasedUnlessTheyStartWithAName() {
    #expect(
      en.text(for: .maneuver(instructions: "Turn left", distance: nil, then: "I-95 North begins"))
        == "Turn left, then I-95 North begins.")
    #expect(
      en.text(for: .maneuver(instructions: "Turn left", distance: nil, then: "Keep right"))
        == "Turn left, then keep right.")
    #expect(
      en.text(for: .maneuver(instructions: "Turn left", distance: nil, then: "NE Broadway ahead"))
        == "Turn left, then NE Broadway ahead.")
  }

  @Test func finalAnnouncementsStartWithACapital() {
    #expect(
      en.text(for: .maneuver(instructions: "turn left.", distance: nil, then: nil)) == "Turn left.")
  }

  @Test func koreanLeavesEnglishInstructionCasingAlone() {
    #expect(
      ko.text(for: .maneuver(instructions: "Turn left", distance: 300, then: nil))
        == "300미터 앞에서 Turn left.")
  }

  // MARK: Punctuation

  @Test func noTextEverEndsInADoublePeriod() {
    let messages: [AnnouncementMessage] = [
      .depart(
        source: "St. Louis Inc.", tolls: true, advisories: ["Tolls.", "Ferry..", "좁은 길입니다."]),
      .maneuver(
        instructions: "Turn left onto Main St..", distance: 300, then: "Turn right onto Elm St."),
      .maneuver(instructions: "좌회전.", distance: 300, then: "우회전합니다."),
      .maneuver(instructions: "Turn left onto Main St.", distance: nil, then: nil),
      .maneuver(instructions: "좌회전하세요.", distance: nil, then: "목적지 도착."),
      .arrive(destination: "Acme Inc."),
      .notice("Slow down."),
      .notice("천천히 가세요."),
    ]
    for phrasebook in allPhrasebooks {
      for message in messages {
        let text = phrasebook.text(for: message)
        #expect(!text.contains(".."), "\(text)")
        #expect(text.hasSuffix("."), "\(text)")
      }
    }
  }

  @Test func instructionsThatAreStillPhrasesGetTheCopulaEvenWithATrailingPeriod() {
    #expect(
      ko.text(for: .maneuver(instructions: "좌회전.", distance: 300, then: nil))
        == "300미터 앞, 좌회전입니다.")
  }

  // MARK: Speech duration

  @Test func speechDurationFollowsTheDocumentedRates() {
    #expect(en.speechDuration(of: "") == 0.5)
    #expect(abs(en.speechDuration(of: String(repeating: "a", count: 30)) - 2.3) < 1e-9)
    // 9 Hangul syllables, a space and a period.
    let korean = "경로를 벗어났습니다."
    #expect(abs(ko.speechDuration(of: korean) - (9 / 6.5 + 2 / 15 + 0.3)) < 1e-9)
    #expect(ko.speechDuration(of: "GP") == 0.5)
  }

  @Test(arguments: Language.allCases)
  func speechDurationNeverDecreasesAsTextGrows(language: Language) {
    let phrasebook = Phrasebook(language: language)
    let text = phrasebook.text(
      for: .maneuver(instructions: "Rue des Guillemites에서 좌회전", distance: 1250, then: "우회전"))
    var previous = 0.0
    var prefix = ""
    for character in text {
      prefix.append(character)
      let duration = phrasebook.speechDuration(of: prefix)
      #expect(duration >= previous)
      #expect(duration >= 0.5)
      previous = duration
    }
    #expect(previous > 1)
  }

  @Test func koreanSyllablesTakeLongerThanLatinLetters() {
    #expect(ko.speechDuration(of: "가나다라마바사아자차") > ko.speechDuration(of: "abcdefghij"))
  }

  @Test func phrasebookServesAsTheEnginePhrasing() {
    let phrasing: any Phrasing = Phrasebook(language: .ko, units: .imperial)
    #expect(phrasing.text(for: .gpsLost) == "GPS 신호가 끊겼습니다.")
    #expect(Phrasebook().text(for: .gpsLost) == "GPS signal lost.")
  }
}

extension PhrasebookTests {
  /// One expected text: an message said by a phrasebook in one language and unit system.
  struct PhraseCase: Sendable, CustomTestStringConvertible {
    var message: AnnouncementMessage
    var language: Language
    var units: UnitSystem = .metric
    var expected: String

    init(
      _ message: AnnouncementMessage, _ language: Language, _ expected: String,
      units: UnitSystem = .metric
    ) {
      self.message = message
      self.language = language
      self.units = units
      self.expected = expected
    }

    var testDescription: String { "\(language.rawValue)/\(units.rawValue): \(expected)" }
  }

  /// One expected particle attachment.
  struct ParticleCase: Sendable, CustomTestStringConvertible {
    var word: String
    var particle: KoreanParticle
    var expected: String

    init(_ word: String, _ particle: KoreanParticle, _ expected: String) {
      self.word = word
      self.particle = particle
      self.expected = expected
    }

    var testDescription: String { expected }
  }
}
