// swift-tools-version:6.2
//
// Stepwise: a turn-by-turn navigation daemon for Linux vehicle boxes.
//
// Dependencies point one way: the pure core does no I/O and reads no clock; the system targets
// are the edge, each with one job; the executables own their command lines. The README's target
// graph is checked against this file, and the edges and what the executables link are checked
// too (Scripts/check-graph.py).

import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

// A build without libgps-dev fails (GPSShim.c names the package) unless the builder asks for
// a daemon that can only replay tracks: STEPWISE_REPLAY_ONLY=1 swift build.
let replayOnlySettings: [CSetting] =
  Context.environment["STEPWISE_REPLAY_ONLY"].map { $0 == "1" } == true
  ? [.define("GPSSHIM_REPLAY_ONLY")] : []

let package = Package(
  name: "Stepwise",
  products: [
    .executable(name: "stepwised", targets: ["stepwised"]),
    .executable(name: "stepwise", targets: ["stepwise"]),
  ],
  targets: [
    // Core (pure: no I/O, no clock, deterministic)
    .target(name: "Geodesy", swiftSettings: swiftSettings),
    .target(name: "JSON", swiftSettings: swiftSettings),
    .target(name: "Routes", dependencies: ["Geodesy", "JSON"], swiftSettings: swiftSettings),
    // Text from maneuvers, in English and Korean, for routes whose router gave none usable.
    .target(name: "Instructions", dependencies: ["Routes"], swiftSettings: swiftSettings),
    // Every router's format read into the route model, and format detection.
    .target(
      name: "RouteImporters", dependencies: ["Geodesy", "Instructions", "JSON", "Routes"],
      swiftSettings: swiftSettings),
    .target(name: "NMEA", dependencies: ["Geodesy"], swiftSettings: swiftSettings),
    .target(name: "GPSDProtocol", dependencies: ["Geodesy", "JSON"], swiftSettings: swiftSettings),
    // One route flattened into the points the matcher walks: thinning, shared point storage.
    .target(name: "RouteShape", dependencies: ["Routes", "Geodesy"], swiftSettings: swiftSettings),
    .target(name: "GuidanceSettings", dependencies: ["Routes"], swiftSettings: swiftSettings),
    // A fix placed on the route: the matcher and the route's geometry (lengths, steps, segments).
    .target(
      name: "Matching", dependencies: ["Geodesy", "RouteShape", "Routes"],
      swiftSettings: swiftSettings),
    // The way back to a route from off it: where it lies, whether the vehicle moves away.
    .target(
      name: "Returning", dependencies: ["Geodesy", "GuidanceSettings"],
      swiftSettings: swiftSettings),
    .target(
      name: "Guidance",
      dependencies: [
        "Routes", "RouteShape", "Geodesy", "GuidanceSettings", "Matching", "Returning",
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "Phrasebook", dependencies: ["Guidance", "Instructions", "Returning", "Routes"],
      swiftSettings: swiftSettings),
    .target(
      name: "Wire", dependencies: ["Guidance", "Routes", "Geodesy", "JSON"],
      swiftSettings: swiftSettings),
    .target(
      name: "Simulation", dependencies: ["Routes", "Geodesy", "NMEA"],
      swiftSettings: swiftSettings),
    .target(
      name: "Lab",
      dependencies: [
        "Geodesy", "Guidance", "GuidanceSettings", "Instructions", "JSON", "Matching", "NMEA",
        "Phrasebook", "Rerouting", "RouteImporters", "RouteShape", "Routes", "Simulation", "Wire",
      ],
      swiftSettings: swiftSettings),

    // System: the only targets that touch Glibc, libgps, Dispatch, sockets, signals or systemd.
    // CGPS is libgps (system library); GPSShim, a C shim that hides struct gps_data_t and every
    // libgps API difference; GPSD, the queue-confined libgps connection.
    .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
    .target(name: "GPSShim", dependencies: ["CGPS"], cSettings: replayOnlySettings),
    .target(
      name: "GPSD", dependencies: ["GPSShim", "GPSDProtocol"], swiftSettings: swiftSettings),
    .target(name: "POSIX", swiftSettings: swiftSettings),
    .target(
      name: "CommandLineSupport", dependencies: ["Phrasebook", "RouteImporters", "Routes"],
      swiftSettings: swiftSettings),
    .target(
      name: "RouteFiles", dependencies: ["Instructions", "POSIX", "RouteImporters", "Routes"],
      swiftSettings: swiftSettings),
    // The daemon's event path: the publisher (seq, the late-joiner state, one encoding per
    // event) and standard output; the commands, which the socket and the fleet uplink share;
    // the subscriber socket; then the daemon (engine, fix sources, state store, systemd).
    .target(
      name: "Events", dependencies: ["Guidance", "POSIX", "Wire"],
      swiftSettings: swiftSettings),
    .target(
      name: "Commands",
      dependencies: ["Events", "JSON", "POSIX", "RouteFiles", "Routes", "Wire"],
      swiftSettings: swiftSettings),
    .target(
      name: "Subscribers",
      dependencies: [
        "Commands", "Events", "JSON", "POSIX", "Routes", "Wire",
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "Daemon",
      dependencies: [
        "Commands", "Events", "Geodesy", "GPSD", "GPSDProtocol", "Guidance", "JSON", "Matching",
        "NMEA", "Phrasebook", "POSIX", "Rerouting", "Returning", "Router", "Routes", "Wire",
      ],
      swiftSettings: swiftSettings),
    .target(
      name: "Client",
      dependencies: ["Geodesy", "Guidance", "JSON", "Phrasebook", "POSIX", "Routes", "Wire"],
      swiftSettings: swiftSettings),

    // Fleet uplink (docs/fleet.md): libmosquitto (system library), the MQTT client on
    // libmosquitto's own thread and what the dispatcher's commands (`stepwise fleet`, `stepwise
    // send`) need in FleetClient; the store-and-forward journal and the daemon's sink in Uplink.
    // libmosquitto's declarations only, from the default include path: MosquittoShim defines
    // the functions the uplink calls and opens the library on first use, so a daemon without
    // --mqtt never loads it (nor OpenSSL).
    .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
    .target(name: "MosquittoShim", dependencies: ["CMosquitto"]),
    // The MQTT client, the broker addresses and credentials both sides share, and the
    // dispatcher's fleet table: neither the daemon nor libgps, so the user's tool links neither.
    .target(
      name: "FleetClient",
      dependencies: [
        "CMosquitto", "Geodesy", "Guidance", "JSON", "MosquittoShim", "POSIX", "Wire",
      ],
      swiftSettings: swiftSettings),
    // The daemon's side: the sink attached to stepwised and its journal.
    .target(
      name: "Uplink",
      dependencies: [
        "Commands", "Daemon", "Events", "FleetClient", "Geodesy", "Guidance", "JSON", "POSIX",
        "Wire",
      ],
      swiftSettings: swiftSettings),

    // Rerouting: the pure half (router requests and replies, when to reroute) and the router
    // client: libcurl (system library), a C shim over its variadic calls, and the client thread.
    .target(
      name: "Rerouting",
      dependencies: [
        "Geodesy", "Guidance", "GuidanceSettings", "Instructions", "JSON", "RouteImporters",
        "Routes",
      ],
      swiftSettings: swiftSettings),
    // Declarations only, from the default include path: libcurl is opened when a router is
    // first used, not linked (Sources/CurlShim).
    .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .target(name: "CurlShim", dependencies: ["CCurl"]),
    .target(
      name: "Router", dependencies: ["CurlShim", "Instructions", "POSIX", "Rerouting", "Routes"],
      swiftSettings: swiftSettings),

    // The closed-loop drive's I/O: stepwised as a child fed through a pipe, its socket, and
    // the router for the roads of the driver's mistakes (docs/closed-loop.md).
    .target(
      name: "Driver",
      dependencies: [
        "Client", "Geodesy", "Instructions", "JSON", "Lab", "Phrasebook", "POSIX", "Rerouting",
        "Router", "Routes", "Simulation", "Wire",
      ],
      swiftSettings: swiftSettings),

    // Executables: each owns its command line
    .executableTarget(
      name: "stepwised",
      dependencies: [
        "CommandLineSupport", "Commands", "Daemon", "Events", "FleetClient", "Guidance",
        "GuidanceSettings",
        "Instructions", "Phrasebook", "POSIX", "Rerouting", "RouteFiles", "Router", "Routes",
        "Subscribers", "Uplink",
      ],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "stepwise",
      dependencies: [
        "Client", "CommandLineSupport", "Driver", "FleetClient", "Geodesy", "GPSDProtocol",
        "Guidance", "Instructions", "JSON", "Lab", "NMEA", "Phrasebook", "POSIX", "RouteFiles",
        "RouteImporters", "Routes", "Simulation", "Wire",
      ],
      swiftSettings: swiftSettings),

    // Tests mirror the layers. TestSupport holds the shared helpers (repository paths, the
    // route DSL, fixture readers, running a built product) and is pure but for Foundation, so
    // CoreTests and LabTests build without libgps. SystemTests holds the daemon, client and
    // end-to-end suites, which share the socket and process harness.
    .target(
      name: "TestSupport",
      dependencies: [
        "Geodesy", "Guidance", "GuidanceSettings", "JSON", "Lab", "Matching", "NMEA", "Phrasebook",
        "Routes", "Simulation", "Wire",
      ],
      path: "Tests/TestSupport", swiftSettings: swiftSettings),
    .testTarget(
      name: "CoreTests",
      dependencies: [
        "Geodesy", "GPSDProtocol", "Guidance", "GuidanceSettings", "Instructions", "JSON",
        "Matching", "NMEA", "Phrasebook", "Rerouting", "Returning", "RouteFiles", "RouteImporters",
        "Routes", "RouteShape", "Simulation",
        "TestSupport", "Wire",
      ],
      swiftSettings: swiftSettings),
    .testTarget(
      name: "LabTests",
      dependencies: [
        "Geodesy", "Guidance", "GuidanceSettings", "JSON", "Lab", "Matching", "Phrasebook",
        "Routes", "Simulation", "TestSupport",
      ],
      swiftSettings: swiftSettings),
    .testTarget(
      name: "SystemTests",
      dependencies: [
        "Client", "CommandLineSupport", "Commands", "Daemon", "Events", "FleetClient", "Geodesy",
        "GPSD", "GPSDProtocol", "Guidance", "GuidanceSettings", "Instructions", "JSON", "Lab",
        "NMEA", "Phrasebook",
        "POSIX", "Rerouting", "RouteFiles", "RouteImporters", "Router", "Routes", "Simulation",
        "stepwise", "stepwised", "Subscribers", "TestSupport", "Uplink", "Wire",
      ],
      swiftSettings: swiftSettings),

    // Fuzzing and benchmarks (Scripts/fuzz.sh, Scripts/bench.py). StepwiseFuzz is the
    // libFuzzer entry point of all five fuzz targets, chosen by STEPWISE_FUZZ_TARGET, so one
    // instrumented build serves them all: `swift build -c release --sanitize=fuzzer
    // -Xswiftc -sanitize=fuzzer,address --product StepwiseFuzz` (why those flags: fuzz.sh);
    // a plain build links it as a no-op.
    .executableTarget(
      name: "StepwiseFuzz",
      dependencies: [
        "Geodesy", "GPSDProtocol", "Instructions", "JSON", "NMEA", "Phrasebook", "RouteImporters",
        "Routes", "Wire",
      ],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "StepwiseBench",
      dependencies: [
        "Daemon", "Events", "Geodesy", "Guidance", "Instructions", "Matching", "NMEA", "Phrasebook",
        "POSIX", "Rerouting", "RouteFiles", "Router", "Routes",
      ],
      swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
