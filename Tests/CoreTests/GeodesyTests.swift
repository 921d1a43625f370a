import Geodesy
import TestSupport
import Testing

@Suite struct GeodesyTests {
  @Test func distanceOfOneDegreeOfLatitudeIsAbout111Kilometres() {
    let d = Coordinate(latitude: 0, longitude: 0).distance(
      to: Coordinate(latitude: 1, longitude: 0))
    #expect(abs(d - 111_195) < 5)
  }

  @Test(arguments: [
    (179.9995, -179.9995), (-179.9995, 179.9995), (180.0, -179.999), (-180.0, 179.999),
  ])
  func distancesAcrossTheAntimeridianAreShort(a: Double, b: Double) {
    let d = Coordinate(latitude: 10, longitude: a).distance(
      to: Coordinate(latitude: 10, longitude: b))
    #expect(d < 200, "\(a) → \(b): \(d) m")
  }

  @Test func projectionAcrossTheAntimeridianFindsTheSegment() {
    let a = Coordinate(latitude: -16.8, longitude: 179.999)
    let b = Coordinate(latitude: -16.8, longitude: -179.999)
    let p = Coordinate(latitude: -16.8001, longitude: 180.0)
    let pr = project(p, ontoSegmentFrom: a, to: b)
    #expect(abs(pr.fraction - 0.5) < 0.01)
    #expect(abs(pr.distance - 11.1) < 0.5)
    // South of an eastward segment is to the right of the direction of travel.
    #expect(pr.crossTrack > 0)
  }

  @Test func zeroLengthSegmentsProjectOntoTheirPoint() {
    let a = Coordinate(latitude: 47, longitude: 9)
    let p = Coordinate(latitude: 47.001, longitude: 9)
    let pr = project(p, ontoSegmentFrom: a, to: a)
    #expect(pr.fraction == 0)
    #expect(abs(pr.distance - 111.2) < 0.5)
    #expect(pr.closest == a)
  }

  @Test(arguments: [(0.0, 0.0), (359.0, 1.0), (10.0, 350.0), (90.0, 270.0), (-90.0, 90.0)])
  func bearingDifferencesAreTheShortWayRound(a: Double, b: Double) {
    let d = bearingDifference(a, b)
    #expect(d >= 0 && d <= 180)
    #expect(d == bearingDifference(b, a))
  }

  @Test func bearingAndDestinationAreInverse() {
    let a = Coordinate(latitude: 47.14, longitude: 9.52)
    for brg in stride(from: 0.0, to: 360, by: 30) {
      let b = a.destination(distance: 1000, bearing: brg)
      #expect(abs(a.distance(to: b) - 1000) < 0.01)
      #expect(bearingDifference(a.bearing(to: b), brg) < 0.01)
    }
  }

  @Test func polesAreHandled() {
    let pole = Coordinate(latitude: 90, longitude: 0)
    let near = Coordinate(latitude: 89.999, longitude: 123)
    #expect(abs(pole.distance(to: near) - 111.2) < 0.5)
    #expect(pole.isValid && !Coordinate(latitude: 90.1, longitude: 0).isValid)
    #expect(!Coordinate(latitude: .nan, longitude: 0).isValid)
  }

  @Test(arguments: [
    (0.0, "1970-01-01T00:00:00.000Z"), (1_714_550_400.5, "2024-05-01T08:00:00.500Z"),
    (951_782_400, "2000-02-29T00:00:00.000Z"), (4_102_444_799.999, "2099-12-31T23:59:59.999Z"),
  ])
  func utcTimesFormatAndParseBack(seconds: Double, text: String) {
    #expect(UTCTime.iso8601(seconds) == text)
    #expect(UTCTime.parseISO8601(text).map { abs($0 - seconds) < 0.0005 } == true)
  }

  @Test func badTimesAreRejected() {
    for bad in ["", "2024-13-01T00:00:00Z", "2024-05-01 08:00:00Z", "2024-05-01T08:00:00", "x"] {
      #expect(UTCTime.parseISO8601(bad) == nil, "\(bad)")
    }
  }
}
