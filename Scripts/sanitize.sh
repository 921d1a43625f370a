#!/bin/sh
# make sanitize: the whole test suite under ThreadSanitizer, then under AddressSanitizer.
#
#   Scripts/sanitize.sh [thread|address]...   (default: both, thread first)
#
# Each sanitizer builds into its own scratch path (/tmp/build-tsan, /tmp/build-asan; override
# with SANITIZE_SCRATCH_PREFIX) so it never fights the normal .build. Swift Testing only
# (--disable-xctest): libXCTest's own allocations trip LeakSanitizer (docs/hardening.md).
# SANITIZE_FILTER, when set, is passed to `swift test --filter` (a regular expression over
# suite and test names), and SANITIZE_SKIP to `swift test --skip`; unset, every test runs.
#
# The tests run with STEPWISE_SANITIZER=thread or address in their environment: the three socket
# tests whose load is a figure of speed rather than of correctness (200 clients, twice; a 1000x
# replay) scale down under it (docs/hardening.md). ThreadSanitizer reads its suppressions from Scripts/tsan.supp;
# every entry there says why the report it hides is false.
#
# Reports from every sanitized process, the daemons the end-to-end tests start included, are
# written to $scratch/reports/ (log_path): any file there fails the run, even when the test
# that started the process did not look at its exit status or standard error. (A process
# started with a cleared environment reports to its standard error instead.)
# The elapsed time of each build and test run is printed as "sanitize: NAME build=S test=S result".
set -eu
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && PATH="/opt/swift/usr/bin:$PATH"

PREFIX=${SANITIZE_SCRATCH_PREFIX:-/tmp/build-}
[ "$#" -gt 0 ] || set -- thread address
status=0
for sanitizer in "$@"; do
  case $sanitizer in
    thread) scratch=${PREFIX}tsan ;;
    address) scratch=${PREFIX}asan ;;
    *) echo "sanitize: unknown sanitizer '$sanitizer' (thread or address)" >&2; exit 2 ;;
  esac
  t0=$(date +%s)
  swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" >&2
  t1=$(date +%s)
  reports=$scratch/reports
  rm -rf "$reports"
  mkdir -p "$reports"
  # Writable by everyone (sticky, like /tmp): some tests run the tools as another user
  # (nobody), and a sanitizer that cannot write its log there dies ("Can't create directory")
  # even for a warning, failing the test for nothing and hiding the report.
  chmod 1777 "$reports"
  set --
  [ -z "${SANITIZE_FILTER:-}" ] || set -- --filter "$SANITIZE_FILTER"
  [ -z "${SANITIZE_SKIP:-}" ] || set -- "$@" --skip "$SANITIZE_SKIP"
  # halt_on_error makes the first report fail the process instead of scrolling past.
  if STEPWISE_SANITIZER=$sanitizer \
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:suppressions=$PWD/Scripts/tsan.supp:log_path=$reports/tsan} \
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1:log_path=$reports/asan} \
    swift test --skip-build --disable-xctest --sanitize="$sanitizer" --scratch-path "$scratch" \
    "$@" > "$scratch/sanitize-test.log" 2>&1; then
    result=passed
  else
    result=FAILED
    status=1
    grep -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|SUMMARY|✘|failed' \
      "$scratch/sanitize-test.log" | head -n 40 >&2 || true
    # Each recorded issue with its message (the lines after it, up to the next test event):
    # the message says what the test saw (a daemon's standard error, the times it waited for).
    awk '/✘ .* recorded an issue/ { n = 40; print; next }
      n > 0 && /^(✔|✘|◇)/ { n = 0 }
      n > 0 { n--; print }' "$scratch/sanitize-test.log" | head -n 160 >&2 || true
  fi
  t2=$(date +%s)
  found=$(find "$reports" -type f | wc -l)
  if [ "$found" -gt 0 ]; then
    result="FAILED: $found sanitizer report(s) in $reports"
    status=1
    find "$reports" -type f | head -n 5 | while IFS= read -r r; do
      grep -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|SUMMARY' "$r" | head -n 3 >&2
    done
  fi
  tests=$(grep -Eo 'Test run with [0-9]+ tests? in [0-9]+ suites? (passed|failed)[^.]*' \
    "$scratch/sanitize-test.log" | tail -n 1)
  printf 'sanitize: %s build=%ss test=%ss %s (%s; log %s)\n' "$sanitizer" "$((t1 - t0))" \
    "$((t2 - t1))" "$result" "${tests:-no summary}" "$scratch/sanitize-test.log"
done
exit "$status"
