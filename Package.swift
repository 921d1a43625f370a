// swift-tools-version:6.2
//
// Stepwise: a turn-by-turn navigation daemon for Linux vehicle boxes.
//
// Dependencies point one way. The pure core (Geodesy, JSON, Routes, NMEA, Guidance, Phrasebook,
// Wire, Simulation) does no I/O and reads no clock; StepwiseIO is the edge; the executables are thin.

import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "Stepwise",
  products: [
    .executable(name: "stepwised", targets: ["stepwised"]),
    .executable(name: "stepwise", targets: ["stepwise"]),
  ],
  targets: [
    // Core library (pure: no I/O, no clock)
    .target(name: "Geodesy", swiftSettings: swiftSettings),
    .target(name: "JSON", swiftSettings: swiftSettings),
    .target(name: "Routes", dependencies: ["Geodesy", "JSON"], swiftSettings: swiftSettings),
    .target(name: "NMEA", dependencies: ["Geodesy"], swiftSettings: swiftSettings),
    .target(name: "Guidance", dependencies: ["Routes", "Geodesy"], swiftSettings: swiftSettings),
    .target(
      name: "Phrasebook", dependencies: ["Guidance", "Routes"], swiftSettings: swiftSettings),
    .target(
      name: "Wire", dependencies: ["Guidance", "Routes", "Geodesy", "JSON"],
      swiftSettings: swiftSettings),
    .target(
      name: "Simulation", dependencies: ["Routes", "Geodesy"],
      swiftSettings: swiftSettings),

    // Edge: files, clocks, processes
    .target(
      name: "StepwiseIO",
      dependencies: [
        "Geodesy", "JSON", "Routes", "NMEA", "Guidance", "Phrasebook", "Wire", "Simulation",
      ],
      swiftSettings: swiftSettings),

    // Executables
    .executableTarget(
      name: "stepwised", dependencies: ["StepwiseIO"], swiftSettings: swiftSettings),
    .executableTarget(
      name: "stepwise",
      dependencies: ["StepwiseIO", "Routes", "Phrasebook", "Simulation", "Wire", "Guidance"],
      swiftSettings: swiftSettings),

    // Tests
    .testTarget(
      name: "StepwiseTests",
      dependencies: [
        "Geodesy", "JSON", "Routes", "NMEA", "Guidance", "Phrasebook", "Wire", "Simulation",
        "StepwiseIO",
      ],
      exclude: ["Fixtures"],
      swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
