#!/bin/sh
# Fuzzes Stepwise's input parsers with libFuzzer and AddressSanitizer.
#
#   Scripts/fuzz.sh [SECONDS] [TARGET...]   run each target for SECONDS (default 10)
#   Scripts/fuzz.sh --runs N [TARGET...]    run each target for N executions (make fuzz: 10 million)
#   Scripts/fuzz.sh --record FILE ...       also add a row per target to FILE's table between
#                                           `<!-- fuzz:begin -->` and `<!-- fuzz:end -->`
#
# Targets: NMEAFuzz (NMEAReader), JSONFuzz (JSONParser/JSONWriter round trip), RouteFuzz (every
# route importer through RouteFiles.decode), GPSDFuzz (gpsd JSON capture reader), CommandFuzz
# (socket line framer + command parser). Each starts from a seed corpus copied from the repository's
# fixtures into $FUZZ_WORK/corpus/TARGET (default /tmp/stepwise-fuzz, never committed); what
# libFuzzer learns is kept there between runs. A crash stops the script with status 1 and leaves
# crash-*/oom-*/timeout-* in $FUZZ_WORK/artifacts/TARGET/; commit the input as a regression test
# under Tests/StepwiseTests/Fixtures/fuzz-regressions/.
#
# The smoke run CI calls: `sh Scripts/fuzz.sh 10` (five targets, about a minute with the build
# cached). A summary line per target goes to standard output: "fuzz: TARGET runs=N seconds=S".
set -eu
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && PATH="/opt/swift/usr/bin:$PATH"

SCRATCH=${FUZZ_SCRATCH:-/tmp/build-fuzz}
WORK=${FUZZ_WORK:-/tmp/stepwise-fuzz}
SECONDS_PER_TARGET=10
RUNS=""
RECORD=""
if [ "${1:-}" = "--record" ]; then
  RECORD=$2
  shift 2
fi
if [ "${1:-}" = "--runs" ]; then
  RUNS=$2
  shift 2
elif [ -n "${1:-}" ] && [ "${1#[0-9]}" != "$1" ]; then
  SECONDS_PER_TARGET=$1
  shift
fi
TARGETS=${*:-NMEAFuzz JSONFuzz RouteFuzz GPSDFuzz CommandFuzz}
FIX=Tests/StepwiseTests/Fixtures

# maxlen TARGET: the largest input libFuzzer makes for TARGET. Small inputs keep it fast (an NMEA
# line is at most 120 bytes, a command line a few hundred); route documents need room.
maxlen() {
  case $1 in
    RouteFuzz) echo 32768 ;;
    JSONFuzz) echo 8192 ;;
    GPSDFuzz) echo 2048 ;;
    *) echo 1024 ;;
  esac
}

# seed TARGET: copies the fixtures that fit TARGET into its corpus: whole files when they fit
# in maxlen, else their first four maxlen-sized pieces (libFuzzer ignores longer seeds' tails).
seed() {
  t=$1
  dir=$WORK/corpus/$t
  mkdir -p "$dir"
  len=$(maxlen "$t")
  case $t in
    NMEAFuzz) set -- "$FIX/nmea" Simulations ;;
    JSONFuzz) set -- "$FIX/routes" "$FIX/valhalla" "$FIX/gpsd" Simulations ;;
    RouteFuzz) set -- "$FIX/routes" "$FIX/valhalla" Simulations ;;
    GPSDFuzz) set -- "$FIX/gpsd" ;;
    CommandFuzz) set -- "$FIX/commands" ;;
  esac
  for root in "$@"; do
    [ -d "$root" ] || continue
    find "$root" -type f | while IFS= read -r f; do
      case $t:$f in
        NMEAFuzz:*.nmea | NMEAFuzz:*.log) ;;
        JSONFuzz:*.json | JSONFuzz:*.geojson | JSONFuzz:*.jsonl) ;;
        RouteFuzz:*.json | RouteFuzz:*.gpx | RouteFuzz:*.geojson) ;;
        GPSDFuzz:*.json | GPSDFuzz:*.jsonl) ;;
        CommandFuzz:*) ;;
        *) continue ;;
      esac
      name=seed-$(printf '%s' "$f" | cksum | cut -d' ' -f1)
      ls "$dir/$name"* > /dev/null 2>&1 && continue
      head -c $((len * 4)) "$f" | split -b "$len" - "$dir/$name-"
    done
  done
  # A few hand-written seeds so every target starts with something of its own.
  case $t in
    CommandFuzz)
      printf '{"cmd":"watch","enable":true,"classes":["ANNOUNCE","STEP"],"id":1}\n{"cmd":"status"}\n' > "$dir/hand-watch"
      printf '{"cmd":"routes","steps":true,"id":"a"}\r\n{"cmd":"select","routeIndex":1}\n{"cmd":"cancel"}\n' > "$dir/hand-routes"
      printf '{"cmd":"load","routeIndex":0,"document":{"source":{},"routes":[]}}\n' > "$dir/hand-load"
      ;;
    GPSDFuzz)
      printf '{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}\n{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2026-11-18T11:06:40.000Z","lat":48.1,"lon":11.5,"speed":3.2,"track":45.0,"eph":4.1}\n{"class":"SKY","hdop":0.9,"uSat":9}\n' > "$dir/hand-tpv"
      ;;
    JSONFuzz)
      printf '{"a":[1,-2.5e-7,true,false,null,"\\u00e9\\ud83d\\ude00\\n"],"b":{}}' > "$dir/hand-all"
      ;;
  esac
}

status=0
for target in $TARGETS; do
  printf 'fuzz: building %s\n' "$target" >&2
  # One scratch path per target: incremental builds of several fuzz products in one scratch
  # path have been seen to lose the coverage instrumentation (libFuzzer then finds nothing).
  scratch=$SCRATCH/$target
  # SwiftPM passes each --sanitize as its own -sanitize= flag, in an order that changes from run
  # to run, and swiftc keeps only one of them: one combined flag, last, gets both every time.
  nice -n 10 swift build -c release --sanitize=fuzzer --sanitize=address \
    -Xswiftc -sanitize=fuzzer,address --scratch-path "$scratch" --product "$target" >&2
  bin=$(swift build -c release --sanitize=fuzzer --sanitize=address \
    -Xswiftc -sanitize=fuzzer,address --scratch-path "$scratch" --show-bin-path)/$target
  seed "$target"
  artifacts=$WORK/artifacts/$target
  mkdir -p "$artifacts"
  log=$WORK/$target.log
  if [ -n "$RUNS" ]; then
    limit="-runs=$RUNS"
  else
    limit="-max_total_time=$SECONDS_PER_TARGET"
  fi
  # A binary without coverage counters fuzzes blind; refuse it rather than report a clean run.
  if ! ASAN_OPTIONS=detect_leaks=0 "$bin" -runs=0 "$WORK/corpus/$target" 2>&1 | grep -q 'INITED cov:'; then
    printf 'fuzz: %s is not instrumented for coverage; remove %s and run again\n' "$target" \
      "$scratch" >&2
    status=1
    continue
  fi
  start=$(date +%s)
  # SWIFT_BACKTRACE: the Swift runtime's crash handler would catch a trap first and exit
  # before libFuzzer saves the input.
  if SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} \
    nice -n 10 "$bin" "$limit" -max_len="$(maxlen "$target")" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$WORK/corpus/$target" > "$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  end=$(date +%s)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  corpus=$(find "$WORK/corpus/$target" -type f | wc -l)
  printf 'fuzz: %s %s runs=%s seconds=%s corpus=%s date=%s\n' "$target" "$result" "${runs:-?}" \
    "$((end - start))" "$corpus" "$(date -u +%Y-%m-%d)"
  if [ -n "$RECORD" ]; then
    rate=$(awk -v r="${runs:-0}" -v s="$((end - start))" 'BEGIN { printf "%d", (s > 0 ? r / s : 0) }')
    row="| $(date -u '+%Y-%m-%d %H:%M') | $target | ${runs:-?} | $((end - start)) s | $rate | $corpus | $result |"
    sed "/<!-- fuzz:end -->/i\\
$row" "$RECORD" > "$RECORD.tmp" && mv "$RECORD.tmp" "$RECORD"
  fi
  if [ "$result" = FAILED ]; then
    grep -E 'ERROR|Fatal error|SUMMARY|Test unit written|crashed|^ *[0-9]+ .* at /' "$log" |
      head -n 20 >&2 || true
  fi
done
exit "$status"
