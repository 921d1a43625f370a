#!/bin/sh
# The whole test suite, as CI runs it: the target graph check, a warnings-as-errors build with
# the target-import check, swift format's strict lint, shellcheck over the scripts (py_compile
# over Scripts/bench.py), every test (unit, property, scenario and end-to-end against the built
# binaries), the whole suite again under ThreadSanitizer and under AddressSanitizer
# (Scripts/sanitize.sh), and a one-minute fuzz smoke run of all five fuzz targets
# (Scripts/fuzz.sh). Each phase prints "ci: PHASE seconds=N" (docs/hardening.md has the figures
# and why each phase is there).
#
# Scratch paths: the normal build in $CI_SCRATCH (default .build), the sanitizers in
# ${SANITIZE_SCRATCH_PREFIX}tsan and ...asan (default /tmp/build-), the fuzz build in
# $FUZZ_SCRATCH (default /tmp/build-fuzz) and its corpus in $FUZZ_WORK (default
# /tmp/stepwise-fuzz).
set -eu
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${CI_SCRATCH:-.build}
# Tests that need a tool (gpsfake, systemd-socket-activate, strace) fail when it is missing
# instead of being skipped: install-deps.sh has installed them, or CI would hide the tests.
export CI="${CI:-1}"

# phase NAME COMMAND...: runs COMMAND and prints how long it took. A failed phase fails CI, but
# the later phases still run (each builds what it needs), so one run reports every phase.
failed=""
phase() {
  name=$1
  shift
  start=$(date +%s)
  if "$@"; then
    printf 'ci: %s seconds=%s\n' "$name" "$(($(date +%s) - start))"
  else
    printf 'ci: %s FAILED after %s s\n' "$name" "$(($(date +%s) - start))" >&2
    failed="$failed $name"
  fi
}

# The target graph: every target imports exactly what it declares, the README's graph is
# Package.swift's, the pure core imports only the pure core (and a few libm functions), edge
# targets point only where check-graph.py's list allows, no target is over 4,500 lines.
python3 Scripts/check-graph.py || exit 1

ci_start=$(date +%s)
phase build swift build --build-tests -Xswiftc -warnings-as-errors \
  --explicit-target-dependency-import-check error --scratch-path "$SCRATCH"
[ -z "$failed" ] || exit 1
# What the built executables link (ldd, a second): stepwise and the fuzzers no libgps,
# stepwised libgps, none libmosquitto or libcurl (opened at run time).
phase links python3 Scripts/check-graph.py --binaries "$SCRATCH/debug"
# The code's shape: swift format's strict lint (make lint), a few seconds.
phase lint swift format lint --strict --recursive Sources Tests
phase shellcheck shellcheck Scripts/*.sh .ci/run
# make bench's driver is not run in CI (it takes about half an hour): at least it must compile.
phase pycompile python3 -m py_compile Scripts/bench.py
# The systemd units: verify without warnings, exposure at most 1.5.
phase units sh Scripts/check-units.sh systemd "$SCRATCH/debug" 15
phase test swift test --skip-build --disable-xctest --scratch-path "$SCRATCH"
# The Debian package: built, lintian-clean, installed, run from /usr/bin, removed and purged.
phase deb sh Scripts/deb-test.sh
# The suite under each sanitizer: its own build (about 4 minutes) and run (5-7).
# ThreadSanitizer skips the 100 MB route documents: that test is about the limits and peaks of
# reading a route at start-up, not about threads, it took 90 s under TSan in the run's longest
# serialized suite (FaultInjectionTests), and the plain run keeps it.
# The closed-loop drive runs here too: under ThreadSanitizer stepwised and its router client
# answer 10-40 epochs late at 40x, so ClosedLoopDriveTests checks from each drive's recording
# that the loop kept up and drives again slower when it did not.
phase tsan env SANITIZE_SKIP='aHundredMegabyteRouteIsRefusedByTheLimitAndMalformedOnesSayWhere' \
  sh Scripts/sanitize.sh thread
# AddressSanitizer skips five suites that are mostly waiting on other processes (a real Valhalla
# started twice, keepalive timeouts, a closed-loop drive, restarts after every fix, a RabbitMQ
# cluster started and a node killed): the plain and ThreadSanitizer runs keep them, and the
# whole suite fits CI's half hour.
phase asan env \
  SANITIZE_SKIP='ClosedLoopDriveTests|RouterKilledTests|GPSDKeepaliveTests|FaultInjectionTests|FleetClusterTests' \
  sh Scripts/sanitize.sh address
# About a minute of fuzzing: 12 s for each of the five targets, one instrumented build for all.
phase fuzz-smoke sh Scripts/fuzz.sh 12
printf 'ci: total seconds=%s\n' "$(($(date +%s) - ci_start))"
if [ -n "$failed" ]; then
  echo "ci: FAILED:$failed" >&2
  exit 1
fi
