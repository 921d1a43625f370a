import Guidance
import Phrasebook
import Returning
import Routes
import Testing

/// The words of the `return` announcements, in English and Korean, metric and imperial.
@Suite struct PhrasebookReturnTests {
  static func text(
    _ d: Double, _ direction: ReturnDirection, turnAround: Bool = false, _ language: Language,
    units: UnitSystem = .metric
  ) -> String {
    Phrasebook(language: language, units: units).text(
      for: .returnToRoute(distance: d, direction: direction, turnAround: turnAround))
  }

  @Test func englishSaysHowFarAndWhichWay() {
    #expect(Self.text(190, .left, .en) == "The route is 200 meters to your left.")
    #expect(Self.text(60, .right, .en) == "The route is 60 meters to your right.")
    #expect(Self.text(300, .ahead, .en) == "The route is 300 meters ahead.")
    #expect(
      Self.text(1500, .compass(.northEast), .en) == "The route is 1.5 kilometers to the northeast.")
    #expect(
      Self.text(300, .behind, turnAround: true, .en)
        == "Turn around when possible. The route is 300 meters behind you.")
    #expect(Self.text(160, .right, .en, units: .imperial) == "The route is 500 feet to your right.")
  }

  @Test func koreanSaysWhereTheRouteIsThenHowFar() {
    #expect(Self.text(200, .left, .ko) == "경로는 왼쪽으로 200미터 떨어져 있습니다.")
    #expect(Self.text(60, .right, .ko) == "경로는 오른쪽으로 60미터 떨어져 있습니다.")
    #expect(Self.text(300, .ahead, .ko) == "경로는 앞쪽으로 300미터 떨어져 있습니다.")
    #expect(Self.text(2000, .compass(.south), .ko) == "경로는 남쪽으로 2킬로미터 떨어져 있습니다.")
    #expect(
      Self.text(300, .behind, turnAround: true, .ko)
        == "가능한 곳에서 방향을 돌리세요. 경로는 뒤쪽으로 300미터 떨어져 있습니다.")
  }

  @Test func theSpeechDurationIsTheTextsOwn() {
    for language in [Language.en, .ko] {
      let p = Phrasebook(language: language)
      let u = AnnouncementMessage.returnToRoute(distance: 250, direction: .behind, turnAround: true)
      #expect(p.speechDuration(for: u) == p.speechDuration(of: p.text(for: u)))
    }
  }
}
