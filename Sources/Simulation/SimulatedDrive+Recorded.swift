public import Geodesy

extension TruthSample {
  /// A truth sample of a recorded drive whose route is the path driven: the fix at `position`,
  /// counted on the route at `distanceAlong`.
  public init(
    recorded position: Coordinate, time: Double, distanceAlong: Double, speed: Double,
    course: Double
  ) {
    self.init(
      time: time, position: position, distanceAlong: distanceAlong, offset: 0, speed: speed,
      course: course, hasFix: true)
  }
}

extension SimulatedDrive {
  /// A drive the simulator did not make: a recorded track with the truth derived from it, so
  /// the lab's measures can score it.
  public init(recordedTruth truth: [TruthSample], fixes: [Fix]) {
    self.init(truth: truth, fixes: fixes, reportedSigma: 0, sigmas: [], dropouts: [])
  }
}
