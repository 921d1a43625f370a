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
      name: "Simulation", dependencies: ["Routes", "Geodesy", "NMEA"],
      swiftSettings: swiftSettings),

    // gpsd: libgps (system library), a C shim that hides struct gps_data_t and every libgps API
    // difference, and the Swift client (pure report decoding plus the queue-confined connection).
    .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
    .target(name: "GPSShim", dependencies: ["CGPS"]),
    .target(
      name: "GPSD", dependencies: ["GPSShim", "Geodesy", "JSON"], swiftSettings: swiftSettings),

    // Edge: files, clocks, processes, gpsd, signals
    .target(
      name: "StepwiseIO",
      dependencies: [
        "Geodesy", "JSON", "Routes", "NMEA", "Guidance", "Phrasebook", "Wire", "Simulation", "GPSD",
      ],
      swiftSettings: swiftSettings),

    // Fleet uplink (docs/fleet.md): libmosquitto (system library), the MQTT client on
    // libmosquitto's own thread, the store-and-forward journal, the daemon's sink and the
    // dispatcher's commands (`stepwise fleet`, `stepwise send`).
    .systemLibrary(
      name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
    .target(
      name: "Uplink",
      dependencies: ["CMosquitto", "Geodesy", "Guidance", "JSON", "Routes", "StepwiseIO", "Wire"],
      swiftSettings: swiftSettings),

    // Executables
    .executableTarget(
      name: "stepwised", dependencies: ["StepwiseIO", "Uplink"], swiftSettings: swiftSettings),
    .executableTarget(
      name: "stepwise",
      dependencies: [
        "StepwiseIO", "Routes", "Phrasebook", "Simulation", "Wire", "Guidance", "Uplink",
      ],
      swiftSettings: swiftSettings),

    // Tests
    .testTarget(
      name: "StepwiseTests",
      dependencies: [
        "Geodesy", "JSON", "Routes", "NMEA", "Guidance", "Phrasebook", "Wire", "Simulation",
        "GPSD", "StepwiseIO", "Uplink",
      ],
      exclude: ["Fixtures"],
      swiftSettings: swiftSettings),

    // Fuzzing and benchmarks (Scripts/fuzz.sh, Scripts/bench.sh). StepwiseFuzz is the
    // libFuzzer entry point of all five fuzz targets, chosen by STEPWISE_FUZZ_TARGET, so one
    // instrumented build serves them all: `swift build -c release --sanitize=fuzzer
    // -Xswiftc -sanitize=fuzzer,address --product StepwiseFuzz` (why those flags: fuzz.sh);
    // a plain build links it as a no-op.
    .executableTarget(
      name: "StepwiseFuzz",
      dependencies: ["GPSD", "Geodesy", "JSON", "NMEA", "Routes", "StepwiseIO", "Wire"],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "StepwiseBench",
      dependencies: ["Geodesy", "Guidance", "NMEA", "Phrasebook", "Routes", "StepwiseIO"],
      swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
