#!/bin/sh
# Fuzzes Stepwise's input parsers with libFuzzer and AddressSanitizer.
#
#   Scripts/fuzz.sh [SECONDS] [TARGET...]   run each target for SECONDS (default 10)
#   Scripts/fuzz.sh --runs N [--max-time S] [TARGET...]
#                                           run each target for N executions (make fuzz: 10
#                                           million), or for S seconds if that comes first
#   Scripts/fuzz.sh --record FILE ...       also add a row per target to FILE's table between
#                                           `<!-- fuzz:begin -->` and `<!-- fuzz:end -->`
#
# Targets: NMEAFuzz (NMEAReader), JSONFuzz (JSONParser/JSONWriter round trip), RouteFuzz (every
# route importer through RouteFiles.decode), GPSDFuzz (gpsd JSON capture reader), CommandFuzz
# (socket line framer + command parser). All five live in one executable, StepwiseFuzz
# (STEPWISE_FUZZ_TARGET picks the target), built once into $FUZZ_SCRATCH (default
# /tmp/build-fuzz). Each target starts from a seed corpus copied from the repository's fixtures
# into $FUZZ_WORK/corpus/TARGET (default /tmp/stepwise-fuzz, never committed); what libFuzzer
# learns is kept there between runs. A crash stops the script with status 1 and leaves
# crash-*/oom-*/timeout-* in $FUZZ_WORK/artifacts/TARGET/; commit the input as a regression test
# under Tests/Fixtures/fuzz-regressions/.
#
# The smoke run CI calls: `sh Scripts/fuzz.sh 12` (five targets, a minute plus one build). A
# summary line per target goes to standard output: "fuzz: TARGET RESULT runs=N seconds=S ...".
set -eu
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && PATH="/opt/swift/usr/bin:$PATH"

SCRATCH=${FUZZ_SCRATCH:-/tmp/build-fuzz}
WORK=${FUZZ_WORK:-/tmp/stepwise-fuzz}
SECONDS_PER_TARGET=10
RUNS=""
MAX_TIME=""
RECORD=""
if [ "${1:-}" = "--record" ]; then
  RECORD=$2
  shift 2
fi
if [ "${1:-}" = "--runs" ]; then
  RUNS=$2
  shift 2
  if [ "${1:-}" = "--max-time" ]; then
    MAX_TIME=$2
    shift 2
  fi
elif [ -n "${1:-}" ] && [ "${1#[0-9]}" != "$1" ]; then
  SECONDS_PER_TARGET=$1
  shift
fi
TARGETS=${*:-NMEAFuzz JSONFuzz RouteFuzz GPSDFuzz CommandFuzz}
FIX=Tests/Fixtures

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

# One build for all five targets. Flags: SwiftPM turns each --sanitize into its own -sanitize=
# flag, in an order that changes from one `swift build` to the next (so every call rebuilt
# everything), and swiftc keeps only the last one (so each module got coverage or ASan at
# random). One --sanitize (fuzzer: libFuzzer's main, -parse-as-library) plus one combined
# -Xswiftc flag, which comes last and also reaches the link, gives every module both, every time.
FLAGS="-c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address --scratch-path $SCRATCH"
printf 'fuzz: building StepwiseFuzz into %s\n' "$SCRATCH" >&2
build_start=$(date +%s)
# shellcheck disable=SC2086
nice -n 10 swift build $FLAGS --product StepwiseFuzz >&2
# shellcheck disable=SC2086
bin=$(swift build $FLAGS --show-bin-path)/StepwiseFuzz
printf 'fuzz: build seconds=%s\n' "$(($(date +%s) - build_start))"

status=0
for target in $TARGETS; do
  case $target in
    NMEAFuzz | JSONFuzz | RouteFuzz | GPSDFuzz | CommandFuzz) ;;
    *)
      printf 'fuzz: unknown target %s (NMEAFuzz JSONFuzz RouteFuzz GPSDFuzz CommandFuzz)\n' \
        "$target" >&2
      exit 2
      ;;
  esac
  seed "$target"
  artifacts=$WORK/artifacts/$target
  mkdir -p "$artifacts"
  log=$WORK/$target.log
  if [ -n "$RUNS" ]; then
    limit="-runs=$RUNS"
    [ -z "$MAX_TIME" ] || limit="$limit -max_total_time=$MAX_TIME"
  else
    limit="-max_total_time=$SECONDS_PER_TARGET"
  fi
  # A binary without coverage counters fuzzes blind; refuse it rather than report a clean run.
  if ! STEPWISE_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0 "$bin" -runs=0 \
    "$WORK/corpus/$target" 2>&1 | grep -q 'INITED cov:'; then
    printf 'fuzz: %s is not instrumented for coverage; remove %s and run again\n' "$bin" \
      "$SCRATCH" >&2
    status=1
    continue
  fi
  start=$(date +%s)
  # SWIFT_BACKTRACE: the Swift runtime's crash handler would catch a trap first and exit
  # before libFuzzer saves the input. malloc_context_size=0: AddressSanitizer records no stack
  # for each allocation and free. The fuzzed parsers allocate for nearly every byte, and
  # recording those stacks took half the time; only a use-after-free or double-free report
  # would show them (rerun the saved input with ASAN_OPTIONS=detect_leaks=0 to get them).
  # $limit is deliberately split into its words.
  # shellcheck disable=SC2086
  if STEPWISE_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no \
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:malloc_context_size=0} \
    nice -n 10 "$bin" $limit -max_len="$(maxlen "$target")" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$WORK/corpus/$target" > "$log" 2>&1; then
    result=ok
  else
    code=$?
    result=FAILED
    # 72 is libFuzzer's exit status when interrupted (SIGINT): stopped by hand, not a finding.
    [ "$code" -ne 72 ] || result=interrupted
    status=1
  fi
  end=$(date +%s)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  # A run that ended on --max-time (or by hand) before its --runs says how far it got.
  if [ "$result" = interrupted ]; then
    result="no finding; interrupted by hand at ${runs:-?} of ${RUNS:-?} executions"
  elif [ "$result" = ok ] && [ -n "$RUNS" ] && [ "${runs:-0}" -lt "$RUNS" ]; then
    result="no finding; stopped by --max-time $MAX_TIME s at ${runs:-?} of $RUNS executions"
  fi
  corpus=$(find "$WORK/corpus/$target" -type f | wc -l)
  printf 'fuzz: %s %s runs=%s seconds=%s exec/s=%s corpus=%s date=%s\n' "$target" "$result" \
    "${runs:-?}" "$((end - start))" "${rate:-?}" "$corpus" "$(date -u +%Y-%m-%d)"
  if [ -n "$RECORD" ]; then
    row="| $(date -u '+%Y-%m-%d %H:%M') | $target | ${runs:-?} | $((end - start)) s | ${rate:-?} | $corpus | $result |"
    # Several long runs may finish near each other: each writes through its own temporary file.
    sed "/<!-- fuzz:end -->/i\\
$row" "$RECORD" > "$RECORD.tmp.$$" && mv "$RECORD.tmp.$$" "$RECORD"
  fi
  if [ "$result" = FAILED ]; then
    printf 'fuzz: %s log %s\n' "$target" "$log" >&2
    grep -E 'ERROR|Fatal error|SUMMARY|Test unit written|crashed|^ *[0-9]+ .* at /' "$log" |
      head -n 20 >&2 || true
  fi
done
exit "$status"
