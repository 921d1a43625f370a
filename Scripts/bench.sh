#!/bin/sh
# make bench: Stepwise measured side by side with its peers in one run, on this machine, written
# to docs/benchmarks.md (generated: do not edit that file by hand).
#
#   1. NMEA throughput: stepwised --fast --json on the 1,000,000-sentence file of
#      Benchmarks/gen_nmea.py against a route that follows it, against gpsdecode and pynmea2.
#   2. Guidance cost per fix against route length (100 ... 1,000,000 points, same geometry).
#   3. Route loading: a 1,000,000-point document read, parsed, validated and indexed.
#   4. Daemon footprint with a 100,000-point route, and CPU while idle on a silent gpsd.
#   5. Fan-out to 500 subscribers on the live gpsd path (Benchmarks/fanout.py live, its readers
#      Benchmarks/fanout_reader.c built with clang; its Python readers as a cross-check).
#   6. Fleet uplink over MQTT.
#   7. A day of 10 Hz fixes through the live gpsd path, subscribers coming and going: RSS
#      (Benchmarks/longrun.py run).
#   8. Reroute request latency against the repository's Valhalla on loopback.
#
# Inputs are generated into $BENCH_DATA (default bench-data/, gitignored), never committed.
# Environment: BENCH_RUNS (3), BENCH_SENTENCES (1000000), BENCH_DATA, BENCH_SCRATCH
# (/tmp/build-bench), BENCH_OUT (docs/benchmarks.md), BENCH_GPSD_PORT (29471), BENCH_IDLE (10 s),
# BENCH_BASELINE: a directory with the stepwised and StepwiseBench of the commit to compare with
# (for example a release build of main with --static-swift-stdlib, as this script builds, its
# commit in a file REVISION there); its end to end, reader, cost per fix, route loading,
# memory and footprint figures are then measured in the same run, row beside row.
# BENCH_PAIRS (5): interleaved stepwised/gpsdecode pairs of section 1. BENCH_PERFIX_PASSES (15):
# passes of section 2, whose median is taken; BENCH_PERFIX_SWEEPS (3): its sweeps.
# BENCH_LONGRUN (864000): epochs of section 7. BENCH_VALHALLA_PORT (29472). BENCH_ONLY="5 7": run those sections only
# and print their text instead of writing $BENCH_OUT (a partial run never replaces it).
set -eu
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && PATH="/opt/swift/usr/bin:$PATH"

RUNS=${BENCH_RUNS:-3}
SENTENCES=${BENCH_SENTENCES:-1000000}
DATA=${BENCH_DATA:-bench-data}
# $DATA as an absolute path, for the socket that the daemon and its clients are given.
case $DATA in /*) DATA_ABS=$DATA ;; *) DATA_ABS=$PWD/$DATA ;; esac
SCRATCH=${BENCH_SCRATCH:-/tmp/build-bench}
OUT=${BENCH_OUT:-docs/benchmarks.md}
GPSD_PORT=${BENCH_GPSD_PORT:-29471}
IDLE=${BENCH_IDLE:-10}
TIME=/usr/bin/time
PAIRS=${BENCH_PAIRS:-5}
# Passes of section 2 per route (each about 4 ms: 5 were not enough to outlast a burst of
# another engineer's load, which once doubled one row).
PERFIX_PASSES=${BENCH_PERFIX_PASSES:-15}
# Sweeps of section 2 over all the route lengths, one after another; each length keeps its
# fastest, so a burst of load falls on one sweep of a length instead of deciding its row.
PERFIX_SWEEPS=${BENCH_PERFIX_SWEEPS:-3}
LONGRUN=${BENCH_LONGRUN:-864000}
VALHALLA_PORT=${BENCH_VALHALLA_PORT:-29472}
ONLY=${BENCH_ONLY:-}
# want N: section N runs (every section without BENCH_ONLY).
want() {
  [ -z "$ONLY" ] && return 0
  case " $ONLY " in *" $1 "*) return 0 ;; esac
  return 1
}

say() { printf 'bench: %s\n' "$*" >&2; }
# stale FILE SOURCE...: FILE is missing, empty or older than one of SOURCE.
stale() {
  f=$1
  shift
  [ -s "$f" ] || return 0
  for src in "$@"; do
    [ -z "$(find "$src" -prune -newer "$f")" ] || return 0
  done
  return 1
}
die() { say "$*"; exit 1; }
[ -x "$TIME" ] || die "$TIME is missing (apt-get install time)"
command -v python3 > /dev/null || die "python3 is missing"

# ---------------------------------------------------------------------------------------------
# The binaries as the Debian package builds them (debian/rules): the Swift runtime linked
# statically, which is what runs on a box (about 2 ms less start-up and 2 MiB less RSS than
# linking the toolchain's shared libraries). A BENCH_BASELINE should be built the same way.
BUILD="swift build -c release --static-swift-stdlib --scratch-path $SCRATCH"
say "release build ($SCRATCH, --static-swift-stdlib)"
for product in stepwised StepwiseBench; do
  $BUILD --product "$product" >&2
done
BIN=$($BUILD --show-bin-path)
STEPWISED=$BIN/stepwised
SWBENCH=$BIN/StepwiseBench
BASELINE=${BENCH_BASELINE:-}
BASE_REV=""
if [ -n "$BASELINE" ]; then
  if [ ! -x "$BASELINE/stepwised" ] || [ ! -x "$BASELINE/StepwiseBench" ]; then
    die "BENCH_BASELINE=$BASELINE lacks stepwised or StepwiseBench"
  fi
  BASE_REV=$(cat "$BASELINE/REVISION" 2> /dev/null || echo "$BASELINE")
fi

# ---------------------------------------------------------------------------------------------
mkdir -p "$DATA"
NMEA=$DATA/bench_$SENTENCES.nmea
ROUTE=$DATA/follow_$SENTENCES.json
if want 1 || want 3; then
  if stale "$NMEA" Benchmarks/gen_nmea.py; then
    say "generating $NMEA"
    python3 Benchmarks/gen_nmea.py "$SENTENCES" > "$NMEA.tmp"
    mv "$NMEA.tmp" "$NMEA"
  fi
  if stale "$ROUTE" "$NMEA" Benchmarks/make_routes.py; then
    say "making the route that follows the track"
    python3 Benchmarks/make_routes.py follow "$NMEA" "$ROUTE"
  fi
  head -n 3 "$NMEA" > "$DATA/one-epoch.nmea"
fi
ZTRACK=$DATA/zigzag.nmea
CTRACK=$DATA/curve.nmea
LENGTHS="100 1000 10000 100000 1000000"
if want 2; then
  if stale "$ZTRACK" Benchmarks/make_routes.py; then
    python3 Benchmarks/make_routes.py zigzag-track "$ZTRACK"
  fi
  if stale "$CTRACK" Benchmarks/make_routes.py; then
    python3 Benchmarks/make_routes.py curve-track "$CTRACK"
  fi
fi
for p in $LENGTHS; do
  for shape in zigzag curve; do
    z=$DATA/${shape}_$p.json
    # Sections 3, 4 and 5 use zigzag_100000 and zigzag_1000000; section 2 every one.
    if want 2 || { [ "$shape" = zigzag ] && [ "$p" -ge 100000 ] && { want 3 || want 4 || want 5; }; }; then
      if stale "$z" Benchmarks/make_routes.py; then
        python3 Benchmarks/make_routes.py "$shape" "$p" "$z"
      fi
    fi
  done
done
NOISY=$DATA/curvenoise_1000000.json
VALHALLA=$DATA/valhalla_1000000.json
if want 3; then
  if stale "$NOISY" Benchmarks/make_routes.py; then
    python3 Benchmarks/make_routes.py curve 1000000 "$NOISY" 0.08
  fi
  if stale "$VALHALLA" "$DATA/zigzag_1000000.json" Benchmarks/make_routes.py; then
    python3 Benchmarks/make_routes.py valhalla "$DATA/zigzag_1000000.json" "$VALHALLA"
  fi
fi

VENV=$DATA/venv
PYNMEA=""
if want 1; then
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import pynmea2' 2> /dev/null; then
    say "installing pynmea2 into $VENV"
    if ! { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet 'pynmea2==1.19.0' >&2; }; then
      say "pynmea2 could not be installed: its row is left out"
    fi
  fi
  if "$VENV/bin/python" -c 'import pynmea2' 2> /dev/null; then
    PYNMEA=$("$VENV/bin/python" -c 'import pynmea2; print(pynmea2.version)')
  fi
fi

# ---------------------------------------------------------------------------------------------
# measure NAME INPUT CMD...: runs CMD $RUNS times with stdin from INPUT (stdout discarded) and
# keeps the median elapsed seconds, every run and the largest peak RSS: `m NAME s|all|kb`.
measure() {
  name=$1
  : > "$DATA/times_$name"
  i=0
  while [ "$i" -lt "$RUNS" ]; do
    run_once "$@"
    i=$((i + 1))
  done
  summarize "$name"
}
# run_once NAME INPUT CMD...: one run, its elapsed seconds and peak RSS appended to times_NAME.
# The elapsed time is read from the clock around the run, to the millisecond: /usr/bin/time's %e
# has whole hundredths, 5 % of a 0.19 s run. It includes starting /usr/bin/time (about a
# millisecond, the same for every program).
run_once() {
  name=$1 input=$2
  shift 2
  t0=$(date +%s%N)
  "$TIME" -f '%e %M %U %S' -o "$DATA/time.1" "$@" < "$input" > /dev/null 2> "$DATA/stderr.1" ||
    { cat "$DATA/stderr.1" >&2; die "failed: $*"; }
  t1=$(date +%s%N)
  tail -n 1 "$DATA/time.1" |
    awk -v a="$t0" -v b="$t1" '{ $1 = sprintf("%.3f", (b - a) / 1e9); print }' >> "$DATA/times_$name"
}
# summarize NAME: median, every run, spread (max / min) and peak RSS of times_NAME.
summarize() {
  name=$1
  sort -n "$DATA/times_$name" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}' > "$DATA/m_$name.s"
  awk '{printf "%s%s", (NR>1?", ":""), $1}' "$DATA/times_$name" > "$DATA/m_$name.all"
  awk 'BEGIN{m=0} {if ($2>m) m=$2} END {print m}' "$DATA/times_$name" > "$DATA/m_$name.kb"
  awk 'NR==1{lo=$1;hi=$1} {if($1<lo)lo=$1; if($1>hi)hi=$1} END {printf "%.2f", (lo>0?hi/lo:0)}' \
    "$DATA/times_$name" > "$DATA/m_$name.spread"
  say "$name: $(m "$name" s) s ($(m "$name" all))"
}
m() { cat "$DATA/m_$1.$2"; }
# div A B [FORMAT]: A / B with awk.
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.1f}" 'BEGIN { if (b == 0) print "n/a"; else printf f, a / b }'; }
# kv FILE KEY: the value of KEY=... in FILE.
kv() { sed -n "s/^$2=//p" "$1"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
gpsdv_short=$(gpsdecode -V 2>&1 | sed -n 's/.*revision \([^ )]*\).*/\1/p' | head -n 1)
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')

# 1. Throughput ------------------------------------------------------------------------------
rate() { awk -v n="$SENTENCES" -v s="$1" 'BEGIN { if (s <= 0) print "n/a"; else printf "%d k", n / s / 1000 }'; }
# measured_row LABEL COMMAND NAME: a row of section 1's table for the runs of NAME.
measured_row() {
  printf '| %s | %s | %s | %s s | %s× | %s | %s× | %s MiB |' "$1" "$2" "$(m "$3" all)" "$(m "$3" s)" \
    "$(m "$3" spread)" "$(rate "$(m "$3" s)")" "$(div "$(m gpsdecode s)" "$(m "$3" s)" %.2f)" \
    "$(mib "$(m "$3" kb)")"
}
# reader_row LABEL SECONDS: a row of section 1's table for a StepwiseBench nmea run.
reader_row() {
  printf "| %s | \`StepwiseBench nmea FILE\` | | %.3f s | | %s | %s× | |" "$1" "$2" "$(rate "$2")" \
    "$(div "$(m gpsdecode s)" "$2" %.1f)"
}
throughput=""
if want 1; then
  # stepwised and gpsdecode alternate run by run (each pair in the other order than the last),
  # so a change in the machine's load falls on both; the ratio is the median of the pairs'.
  say "1. NMEA throughput ($SENTENCES sentences: $PAIRS interleaved stepwised/gpsdecode pairs, $RUNS runs of the rest)"
  : > "$DATA/times_sw_json"
  : > "$DATA/times_gpsdecode"
  : > "$DATA/times_base_sw_json"
  : > "$DATA/pairs.txt"
  i=0
  while [ "$i" -lt "$PAIRS" ]; do
    if [ $((i % 2)) -eq 0 ]; then
      run_once sw_json /dev/null "$STEPWISED" --route "$ROUTE" --fast --json "$NMEA"
      run_once gpsdecode "$NMEA" gpsdecode
    else
      run_once gpsdecode "$NMEA" gpsdecode
      run_once sw_json /dev/null "$STEPWISED" --route "$ROUTE" --fast --json "$NMEA"
    fi
    # A baseline's end to end runs third in every pair, under the same load.
    [ -z "$BASELINE" ] ||
      run_once base_sw_json /dev/null "$BASELINE/stepwised" --route "$ROUTE" --fast --json "$NMEA"
    pair_g=$(tail -n 1 "$DATA/times_gpsdecode" | cut -d' ' -f1)
    pair_s=$(tail -n 1 "$DATA/times_sw_json" | cut -d' ' -f1)
    cpu_g=$(tail -n 1 "$DATA/times_gpsdecode" | awk '{print $3 + $4}')
    cpu_s=$(tail -n 1 "$DATA/times_sw_json" | awk '{print $3 + $4}')
    echo "$(div "$pair_g" "$pair_s" %.2f) $(cut -d' ' -f1 /proc/loadavg) $(div "$cpu_g" "$cpu_s" %.2f)" >> "$DATA/pairs.txt"
    say "  pair $((i + 1)): gpsdecode $pair_g s ($cpu_g s CPU), stepwised $pair_s s ($cpu_s s CPU)"
    i=$((i + 1))
  done
  summarize sw_json
  summarize gpsdecode
  ratio=$(sort -n "$DATA/pairs.txt" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  ratio_all=$(awk '{printf "%s%s", (NR>1?", ":""), $1}' "$DATA/pairs.txt")
  ratio_lo=$(sort -n "$DATA/pairs.txt" | head -n 1 | cut -d' ' -f1)
  ratio_hi=$(sort -n "$DATA/pairs.txt" | tail -n 1 | cut -d' ' -f1)
  pair_load=$(sort -n -k2 "$DATA/pairs.txt" | awk 'NR==1{lo=$2} {hi=$2} END {print lo " to " hi}')
  # CPU time (user + system) moves less with the load than elapsed time: a second figure.
  cpu_ratio=$(sort -n -k3 "$DATA/pairs.txt" | awk '{a[NR]=$3} END {print a[int((NR+1)/2)]}')
  cpu_ratio_all=$(awk '{printf "%s%s", (NR>1?", ":""), $3}' "$DATA/pairs.txt")
  measure sw_text /dev/null "$STEPWISED" --route "$ROUTE" --fast "$NMEA"
  measure sw_load /dev/null "$STEPWISED" --route "$ROUTE" --fast --json "$DATA/one-epoch.nmea"
  if [ -n "$PYNMEA" ]; then
    measure pynmea2 /dev/null "$VENV/bin/python" Benchmarks/pynmea2_parse.py "$NMEA"
  fi
  "$SWBENCH" nmea "$NMEA" > "$DATA/reader.txt"
  reader_s=$(kv "$DATA/reader.txt" seconds)
  baserows=""
  if [ -n "$BASELINE" ]; then
    summarize base_sw_json
    "$BASELINE/StepwiseBench" nmea "$NMEA" > "$DATA/base-reader.txt"
    base_reader_s=$(kv "$DATA/base-reader.txt" seconds)
    baserows="$(measured_row "baseline $BASE_REV, end to end (third in every pair)" \
      "\`stepwised --route R --fast --json FILE > /dev/null\`" base_sw_json)
$(reader_row "baseline $BASE_REV, NMEAReader alone, in memory (best of 3)" "$base_reader_s")"
  fi
  "$SWBENCH" load "$ROUTE" > "$DATA/follow-load.txt"
  route_points=$(kv "$DATA/follow-load.txt" points)
  sw_guided_s=$(awk -v a="$(m sw_json s)" -v b="$(m sw_load s)" 'BEGIN { printf "%.3f", a - b }')
  "$STEPWISED" --route "$ROUTE" --fast --json "$NMEA" | awk -F'"' '{print $4}' | sort | uniq -c |
    awk '{printf "%s%s %s", (NR>1?", ":""), $1, $2}' > "$DATA/classes.txt"
  gpsdv1=$(gpsdecode -V 2>&1 | sed -n 's/.*revision \([^)]*\).*/\1/p' | head -n 1)
  pyrow=""
  if [ -n "$PYNMEA" ]; then
    pyrow=$(measured_row "pynmea2 $PYNMEA" \
      "\`python Benchmarks/pynmea2_parse.py FILE\` (\`parse()\` per line)" pynmea2)
  fi
  throughput="Input: \`Benchmarks/gen_nmea.py $SENTENCES\` ($(awk -v b="$(wc -c < "$NMEA")" 'BEGIN { printf "%.1f", b / 1e6 }') MB, RMC/GGA/GSA/GSV at 1 Hz, about 1 % no-fix
epochs), the generator of \`../shared/reference/gpsd-and-nmea.md\` §7. Stepwise guides it along
a route of $route_points points that follows the track (\`Benchmarks/make_routes.py follow\`).
Events out: $(cat "$DATA/classes.txt").

stepwised end to end and gpsdecode run in $PAIRS interleaved pairs (stepwised first in odd pairs,
gpsdecode first in even ones), so a change of the machine's load falls on both programs of a pair;
the ratio is the median of the pairs' ratios (1-minute load average $pair_load during them).
The other rows are the median of $RUNS runs each. Spread: slowest run / fastest run.

| reader | command | runs (s) | median | spread | sentences/s | vs gpsdecode | peak RSS |
|---|---|---|---|---|---|---|---|
| Stepwise, end to end | \`stepwised --route R --fast --json FILE > /dev/null\` | $(m sw_json all) | $(m sw_json s) s | $(m sw_json spread)× | $(rate "$(m sw_json s)") | **$ratio×** (pairs: $ratio_all) | $(mib "$(m sw_json kb)") MiB |
$(measured_row "Stepwise, readable output (no PROGRESS lines)" "\`stepwised --route R --fast FILE > /dev/null\`" sw_text)
| Stepwise, end to end less start-up and route load | the first row less \`stepwised … one-epoch.nmea\` ($(m sw_load s) s) | | $sw_guided_s s | | $(rate "$sw_guided_s") | $(div "$(m gpsdecode s)" "$sw_guided_s" %.2f)× | |
$(reader_row "Stepwise NMEAReader alone, in memory (best of 3)" "$reader_s")
| gpsd $gpsdv1 | \`gpsdecode < FILE > /dev/null\` | $(m gpsdecode all) | $(m gpsdecode s) s | $(m gpsdecode spread)× | $(rate "$(m gpsdecode s)") | 1× | $(mib "$(m gpsdecode kb)") MiB |
$pyrow
$baserows

Goal: stepwised end to end at least 20× gpsdecode: **$(awk -v r="$ratio" 'BEGIN { print (r >= 20 ? "met" : "not met") }')**
(median of the pairs $ratio×, from $ratio_lo× to $ratio_hi×). In CPU time (user + system, all of
stepwised's threads against gpsdecode's one), which a busy machine moves less: $cpu_ratio× (pairs:
$cpu_ratio_all).
gpsdecode decodes and prints every report (TPV and SKY); stepwised decodes RMC/GGA/GSA, skips
GSV, guides every epoch and prints one JSON event per fix or more."
fi

# 2. Cost per fix against route length -------------------------------------------------------
if want 2; then
say "2. cost per fix against route length"
: > "$DATA/perfix.txt"
# keep_faster BENCH OUT ROUTE TRACK SWEEP: one perfix run of BENCH into OUT, kept if it is the
# first sweep or faster than the one kept.
keep_faster() {
  "$1" perfix "$3" "$4" "$PERFIX_PASSES" > "$2.new"
  if [ "$5" -eq 1 ] || awk -v a="$(kv "$2.new" ns_per_fix)" \
    -v b="$(kv "$2" ns_per_fix)" 'BEGIN { exit !(a < b) }'; then
    mv "$2.new" "$2"
  else
    rm -f "$2.new"
  fi
}
# perfix SHAPE TRACK: one table row per route length; sets perfix_ratio, largest to smallest.
# Each length is measured in every sweep, and its fastest sweep is kept. With a BENCH_BASELINE,
# its StepwiseBench runs right after ours on every length of every sweep, for a column of its own.
perfix() {
  shape=$1 track=$2 first_ns="" last_ns="" sweep=1
  while [ "$sweep" -le "$PERFIX_SWEEPS" ]; do
    for p in $LENGTHS; do
      keep_faster "$SWBENCH" "$DATA/perfix_${shape}_$p.txt" "$DATA/${shape}_$p.json" "$track" "$sweep"
      if [ -n "$BASELINE" ]; then
        keep_faster "$BASELINE/StepwiseBench" "$DATA/base_perfix_${shape}_$p.txt" \
          "$DATA/${shape}_$p.json" "$track" "$sweep"
      fi
    done
    sweep=$((sweep + 1))
  done
  for p in $LENGTHS; do
    out=$DATA/perfix_${shape}_$p.txt
    ns=$(kv "$out" ns_per_fix)
    [ -n "$first_ns" ] || first_ns=$ns
    last_ns=$ns
    base_col=""
    if [ -n "$BASELINE" ]; then
      base_ns=$(kv "$DATA/base_perfix_${shape}_$p.txt" ns_per_fix)
      base_col=" $base_ns | $(div "$ns" "$base_ns" %.2f)× |"
      echo "$ns $base_ns" >> "$DATA/perfix-vs-base.txt"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |%s\n' "$shape" "$p" \
      "$(kv "$out" kept_points)" "$(kv "$out" fixes)" \
      "$(kv "$out" events)" "$(kv "$out" off_route_events)" \
      "$(kv "$out" arrived)" "$(kv "$out" first_fix_us)" "$ns" "$base_col" \
      >> "$DATA/perfix.txt"
    say "  $shape, $p points: $ns ns per fix${BASELINE:+ (baseline $base_ns)}"
  done
  perfix_ratio=$(div "$last_ns" "$first_ns" %.2f)
}
: > "$DATA/perfix-vs-base.txt"
perfix zigzag "$ZTRACK"
ratio_zigzag=$perfix_ratio
perfix curve "$CTRACK"
ratio_curve=$perfix_ratio
perfix_ratio=$(awk -v a="$ratio_zigzag" -v b="$ratio_curve" 'BEGIN { print (a > b ? a : b) }')
perfix_ok=$(awk -v r="$perfix_ratio" 'BEGIN { print (r <= 1.5 ? "yes" : "**no**") }')
perfix_head="| geometry | route points | kept | fixes | events | off-route events | arrived | first fix (µs) | ns per fix |${BASELINE:+ baseline $BASE_REV | this / baseline |}
|---|---|---|---|---|---|---|---|---|${BASELINE:+---|---|}"
perfix_base=""
if [ -n "$BASELINE" ]; then
  # The median over all rows of this build's cost per fix against the baseline's.
  perfix_vs=$(awk '{ print $1 / $2 }' "$DATA/perfix-vs-base.txt" | sort -n |
    awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}')
  perfix_base="
Against the baseline $BASE_REV, run right after this build on every length of every sweep: the
median row costs **${perfix_vs}×** the baseline's time per fix (goal: no slower beyond noise)."
fi
fi

# 3. Route loading ----------------------------------------------------------------------------
BIG=$DATA/zigzag_1000000.json
if want 3; then
say "3. route loading (1,000,000 points)"
big_mb=$(awk -v b="$(wc -c < "$BIG")" 'BEGIN { printf "%.1f", b / 1048576 }')
measure load_swift /dev/null "$SWBENCH" load "$BIG"
"$SWBENCH" load "$BIG" > "$DATA/load.txt"
measure load_daemon /dev/null "$STEPWISED" --route "$BIG" --fast --json "$DATA/one-epoch.nmea"
measure load_python /dev/null python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$BIG"
measure load_valhalla /dev/null "$SWBENCH" load "$VALHALLA"
"$SWBENCH" load "$VALHALLA" > "$DATA/load-valhalla.txt"
if [ -n "$BASELINE" ]; then
  measure base_load_swift /dev/null "$BASELINE/StepwiseBench" load "$BIG"
  measure base_load_valhalla /dev/null "$BASELINE/StepwiseBench" load "$VALHALLA"
fi
# Resident memory per route point: StepwiseBench memory (VmRSS before and after, VmHWM).
: > "$DATA/memory.txt"
for r in "$DATA/zigzag_100000.json" "$BIG" "$NOISY" "$VALHALLA"; do
  "$SWBENCH" memory "$r" > "$DATA/mem.1"
  before=$(kv "$DATA/mem.1" rss_before_kb)
  after=$(kv "$DATA/mem.1" rss_after_kb)
  peak=$(kv "$DATA/mem.1" peak_kb)
  base_peak="not measured"
  if [ -n "$BASELINE" ]; then
    "$TIME" -f '%M' -o "$DATA/time.1" "$BASELINE/StepwiseBench" load "$r" > /dev/null
    base_peak="$(mib "$(tail -n 1 "$DATA/time.1")") MiB"
  fi
  echo "| $(basename "$r") | $(kv "$DATA/mem.1" points) | $(kv "$DATA/mem.1" kept_points) | $(printf '%.2f' "$(kv "$DATA/mem.1" load_seconds)") + $(printf '%.2f' "$(kv "$DATA/mem.1" index_seconds)") s | $(mib "$before") MiB | $(mib "$after") MiB | $(mib "$peak") MiB | $(div "$peak" "$after" %.2f)× | **$(printf '%.1f' "$(kv "$DATA/mem.1" bytes_per_point)")** | $base_peak |" >> "$DATA/memory.txt"
done

baseline_load=""
if [ -n "$BASELINE" ]; then
  baseline_load="| baseline $BASE_REV: the native document | \`StepwiseBench load ROUTE\` | $(m base_load_swift all) | $(m base_load_swift s) s | $(mib "$(m base_load_swift kb)") MiB |
| baseline $BASE_REV: the Valhalla response | \`StepwiseBench load VALHALLA\` | $(m base_load_valhalla all) | $(m base_load_valhalla s) s | $(mib "$(m base_load_valhalla kb)") MiB |"
fi
fi

# 4. Daemon footprint and idle CPU -------------------------------------------------------------
# ticks PID: CPU time used so far by PID, in clock ticks (utime + stime).
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
HZ=$(getconf CLK_TCK)
HAS_SOCKET=no
if "$STEPWISED" --help 2>&1 | grep -q -- '--socket'; then HAS_SOCKET=yes; fi
HOLD=100
footprint=""
sw_rss_kb=""
gpsd_idle=""
if want 4; then
say "4. daemon footprint on a silent gpsd (${IDLE} s idle)"
for daemon in "$STEPWISED" ${BASELINE:+"$BASELINE/stepwised"}; do
who=stepwised
[ "$daemon" = "$STEPWISED" ] || who="stepwised $BASE_REV (baseline)"
if command -v gpsd > /dev/null; then
  rm -f "$DATA/idle.sock"
  gpsd -N -n -S "$GPSD_PORT" -F "$DATA/gpsd.sock" > "$DATA/gpsd.log" 2>&1 &
  gpsd_pid=$!
  sleep 1
  set -- --route "$DATA/zigzag_100000.json" --quiet --state-dir "$DATA/state"
  if [ "$HAS_SOCKET" = yes ]; then set -- "$@" --socket "$DATA_ABS/idle.sock" --max-clients 600; fi
  rm -rf "$DATA/state" && mkdir -p "$DATA/state"
  "$daemon" "$@" "gpsd://127.0.0.1:$GPSD_PORT" < /dev/null > /dev/null 2> "$DATA/daemon.err" &
  sw_pid=$!
  hold_pid=""
  sleep 2
  if [ "$HAS_SOCKET" = yes ]; then
    python3 Benchmarks/fanout.py hold "$DATA_ABS/idle.sock" "$HOLD" "$((IDLE + 4))" \
      > "$DATA/hold.txt" &
    hold_pid=$!
  fi
  sleep 2
  if kill -0 "$sw_pid" 2> /dev/null; then
    t0=$(ticks "$sw_pid")
    sleep "$IDLE"
    t1=$(ticks "$sw_pid")
    rss_kb=$(status_kb "$sw_pid" VmRSS)
    hwm_kb=$(status_kb "$sw_pid" VmHWM)
    threads=$(status_kb "$sw_pid" Threads)
    fds=$(find "/proc/$sw_pid/fd" -mindepth 1 | wc -l)
    idle_ms=$(awk -v t=$((t1 - t0)) -v hz="$HZ" 'BEGIN { printf "%d", t * 1000 / hz }')
    [ -z "$hold_pid" ] || wait "$hold_pid" || true
    held=$(kv "$DATA/hold.txt" got_state 2> /dev/null || true)
    footprint="$footprint| $who, 100,000-point route, gpsd without devices, ${held:-0} idle subscribers | $(mib "$rss_kb") MiB | $(mib "$hwm_kb") MiB | $threads | $fds | $idle_ms ms in ${IDLE} s ($((t1 - t0)) ticks of 1/$HZ s) |
"
    [ "$daemon" != "$STEPWISED" ] || sw_rss_kb=$rss_kb
    kill "$sw_pid" 2> /dev/null || true
    wait "$sw_pid" 2> /dev/null || true
  else
    footprint="$footprint| $who exited early: $(tr '\n' ' ' < "$DATA/daemon.err") | | | | | |
"
  fi
  kill "$gpsd_pid" 2> /dev/null || true
  wait "$gpsd_pid" 2> /dev/null || true
  gpsd_idle="gpsd $gpsdv_short \`gpsd -N -n -S $GPSD_PORT\` with no device"
else
  footprint="| gpsd is not installed: not measured | | | | | |"
  gpsd_idle="gpsd missing"
fi
done
fi

# 5. Fan-out ---------------------------------------------------------------------------------
FANOUT_CLIENTS=${BENCH_FANOUT:-500}
FANOUT_EPOCHS=${BENCH_FANOUT_EPOCHS:-1500}
FANOUT_INTERVAL=0.04
FANOUT_PYTHON_EPOCHS=${BENCH_FANOUT_PYTHON_EPOCHS:-500}
fanout=""
if want 5 && [ "$HAS_SOCKET" = yes ]; then
  say "5. fan-out: $FANOUT_CLIENTS subscribers on the live gpsd path, $FANOUT_EPOCHS epochs"
  python3 Benchmarks/fanout.py live "$STEPWISED" "$DATA/zigzag_100000.json" "$FANOUT_CLIENTS" \
    "$FANOUT_EPOCHS" "$FANOUT_INTERVAL" 4 > "$DATA/fanout.txt"
  # The same with fanout.py's Python readers, as a cross-check of the C ones.
  FANOUT_READER=python python3 Benchmarks/fanout.py live "$STEPWISED" "$DATA/zigzag_100000.json" \
    "$FANOUT_CLIENTS" "$FANOUT_PYTHON_EPOCHS" "$FANOUT_INTERVAL" 4 > "$DATA/fanout-python.txt"
  f() { kv "$DATA/fanout.txt" "$1"; }
  fp() { kv "$DATA/fanout-python.txt" "$1"; }
  fanout_ok=$(awk -v p="$(f latency_p99_ms)" -v n="$(f clients)" \
    'BEGIN { print (n < 500 ? "not measured (fewer subscribers)" : p <= 5 ? "met" : "not met") }')
  fanout="stepwised on the live source (\`gpsd://127.0.0.1:PORT\`, libgps) fed by the gpsd stand-in of
\`Benchmarks/longrun.py\` (gpsd 3.22's TPV and SKY lines, one epoch every $(f interval_ms) ms) along
the 100,000-point zigzag route, $(f clients) subscribers, each its own Unix socket connection,
in $(f readers) reader processes (\`Benchmarks/fanout_reader.c\`, built with clang \`-O2\`; each
waits on its sockets with one epoll set), pinned to CPU $(f reader_cpus), stepwised to CPU
$(f daemon_cpus). The epochs start once every subscriber has its \`STATE\`, and every subscriber
reads every event. A delivery's latency runs from the instant the stand-in wrote the TPV that
completes an epoch (the next epoch's; stamped just before that write) to the instant a
subscriber's \`recv\` returned that epoch's \`PROGRESS\` (stamped right after the \`recv\`, before
its bytes are looked at), both on CLOCK_MONOTONIC: the stand-in's TCP write, libgps, the epoch
merger, guidance, encoding once, the hand-over to the subscriber server, $(f clients) \`send\`s,
the reader's wake-up and its \`recv\`s of the subscribers it served before this one. Percentiles
are over every delivery (subscribers × epochs).

| readers | subscribers | epochs | deliveries | epochs every subscriber got | latency p50 | p99 | max | first subscriber p50 / p99 | first to last p50 / p99 | daemon CPU | daemon RSS (peak) | load before / after |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| C | $(f clients) | $(f epochs) | $(f deliveries) | $(f complete_epochs) | $(f latency_p50_ms) ms | **$(f latency_p99_ms) ms** | $(f latency_max_ms) ms | $(f first_p50_ms) / $(f first_p99_ms) ms | $(f spread_p50_ms) / $(f spread_p99_ms) ms | $(f daemon_cpu_s) s | $(mib "$(f daemon_rss_kb)") MiB ($(mib "$(f daemon_hwm_kb)") MiB) | $(f load_before) / $(f load_after) |
| Python (cross-check) | $(fp clients) | $(fp epochs) | $(fp deliveries) | $(fp complete_epochs) | $(fp latency_p50_ms) ms | $(fp latency_p99_ms) ms | $(fp latency_max_ms) ms | $(fp first_p50_ms) / $(fp first_p99_ms) ms | $(fp spread_p50_ms) / $(fp spread_p99_ms) ms | $(fp daemon_cpu_s) s | $(mib "$(fp daemon_rss_kb)") MiB ($(mib "$(fp daemon_hwm_kb)") MiB) | $(fp load_before) / $(fp load_after) |

*First subscriber* is, per epoch, the earliest delivery: the path up to the fan-out. *First to
last* is, per epoch, the latest delivery minus the earliest: the fan-out itself, one \`send\` per
subscriber on stepwised's side (most of it in the kernel: the socket buffer and waking the
reader) and, on the readers' side, their wake-ups and \`recv\`s on one CPU. The Python row uses
\`fanout.py\`'s own readers (FANOUT_READER=python), a few microseconds of Python per \`recv\`,
with the same stepwised right after: the readers' speed shows in its first-to-last spread,
and the goal is judged on the C row. Both rows move with the machine's load (other processes
on stepwised's or the readers' CPU delay a wake-up by milliseconds).

Goal: p99 at most 5 ms with 500 subscribers: **$fanout_ok**."
elif want 5; then
  fanout="Not measured: this stepwised has no subscriber socket (\`stepwised --help\` lists no \`--socket\`)."
fi

# 6. Fleet uplink -----------------------------------------------------------------------------
FLEET_VEHICLES=${BENCH_FLEET:-100}
fleet=""
if ! want 6; then
  :
elif ! command -v mosquitto > /dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then
  fleet="Not measured: mosquitto is not installed (Scripts/install-deps.sh)."
elif ! "$STEPWISED" --help 2> /dev/null | grep -q -- '--mqtt'; then
  fleet="Not measured: this stepwised has no uplink (\`stepwised --help\` lists no \`--mqtt\`)."
else
  say "6. fleet uplink: $FLEET_VEHICLES vehicles into one mosquitto, restarted once"
  python3 Benchmarks/fleet.py run --vehicles "$FLEET_VEHICLES" --speed 4 \
    --stepwised "$STEPWISED" > "$DATA/fleet.txt" || true
  say "6. fleet uplink: without a restart, and all in step"
  python3 Benchmarks/fleet.py run --vehicles "$FLEET_VEHICLES" --speed 4 --no-restart \
    --stepwised "$STEPWISED" > "$DATA/fleet-steady.txt" || true
  python3 Benchmarks/fleet.py run --vehicles "$FLEET_VEHICLES" --speed 4 --no-restart --spread 0 \
    --stepwised "$STEPWISED" > "$DATA/fleet-step.txt" || true
  python3 Benchmarks/fleet.py cost --speed 10 --stepwised "$STEPWISED" > "$DATA/fleet-cost.txt" \
    || true
  g() { kv "$DATA/fleet.txt" "$1"; }
  n() { kv "$DATA/fleet-steady.txt" "$1"; }
  l() { kv "$DATA/fleet-step.txt" "$1"; }
  u() { kv "$DATA/fleet-cost.txt" "$1"; }
  fleet="$(g vehicles) \`stepwised --mqtt\` replays of the 001 drive at $(g speed)× into one mosquitto on
loopback and a durable QoS 1 dispatcher (\`mosquitto_sub -c\`), \`Benchmarks/fleet.py run\`. The
vehicles are started and connected first ($(g startup_s) s), then fed their tracks one epoch at a
time as a receiver delivers fixes, vehicle i starting i/N s after the first (\`--spread 1\`), so
every maneuver of the fleet falls within one second; \`--spread 0\` puts all of them in the same
instant. Events are compared per vehicle with its stdout after dedupe by (\`boot\`, \`seq\`).
Latency: from the event's line on the daemon's stdout to the dispatcher's receive stamp.

| run | events | missing | out of order | duplicates | latency p50 | p99 | max |
|---|---|---|---|---|---|---|---|
| broker restarted once | $(g events) | $(g missing) | $(g out_of_order) | $(g duplicates) | $(g latency_p50_ms) ms | $(g latency_p99_ms) ms | $(g latency_max_ms) ms |
| no restart | $(n events) | $(n missing) | $(n out_of_order) | $(n duplicates) | $(n latency_p50_ms) ms | $(n latency_p99_ms) ms | $(n latency_max_ms) ms |
| no restart, all in step | $(l events) | $(l missing) | $(l out_of_order) | $(l duplicates) | $(l latency_p50_ms) ms | $(l latency_p99_ms) ms | $(l latency_max_ms) ms |

The restart (SIGTERM, started again $(g outage_s) s later) is left out of the first row's
latency and measured apart: $(g outage_events) events published from 1 s before it until 10 s
after the broker was back (p50 $(g outage_p50_ms) ms, max $(g outage_max_ms) ms); the last one
published before the broker's return reached the dispatcher $(g outage_catchup_s) s after it.

Cost on the vehicle (\`Benchmarks/fleet.py cost\`: one replay at 10×, progress every second):

| stepwised | CPU (user + system) | peak RSS |
|---|---|---|
| without \`--mqtt\` | $(u without_mqtt_cpu_s) s | $(u without_mqtt_peak_rss_mib) MiB |
| with \`--mqtt\` | $(u with_mqtt_cpu_s) s | $(u with_mqtt_peak_rss_mib) MiB |"
fi

# 7. A day of 10 Hz fixes through the live gpsd path ---------------------------------------------
longrun=""
if want 7; then
  LONGRUN_FLAT_KB=256
  say "7. long run: $LONGRUN epochs at 10 Hz through the live gpsd path, subscribers churning"
  python3 Benchmarks/longrun.py run --stepwised "$STEPWISED" --epochs "$LONGRUN" \
    --churn-rounds 100 --churn 20 --stay 5 > "$DATA/longrun.txt" || true
  l7() { kv "$DATA/longrun.txt" "$1"; }
  longrun="\`Benchmarks/longrun.py run --epochs $LONGRUN\`: a gpsd stand-in (\`longrun.py serve\`: gpsd
3.22's VERSION, DEVICES, WATCH, DEVICE, then one TPV and one SKY per epoch with 10 Hz times,
checked against a real gpsd's lines by \`longrun.py check\`) writes $(l7 epochs) epochs along a
$(awk -v e="$(l7 epochs)" 'BEGIN { printf "%d", e * 2.5 / 1000 }') km route as fast as stepwised drains its socket; stepwised reads them through
libgps (\`gpsd://127.0.0.1:PORT\`, \`--json --socket\`). $(l7 stay_clients) subscribers stay connected
throughout and read everything; $(l7 churn_clients) more connect in rounds of 20 spread over the
run, read their \`VERSION\`, \`STATE\` and a few events, and leave. VmRSS and VmHWM come from
\`/proc/PID/status\` at every 1 % of the epochs consumed (a \`PROGRESS\` each on standard output).

| epochs sent / consumed | run | epochs/s | daemon CPU | RSS at 10 % | 25 % | 50 % | 100 % | slope from 10 % on | peak (VmHWM) | glibc arenas besides the main one | subscribers that left / joined | problems |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| $(l7 sent) / $(l7 consumed) | $(l7 seconds) s | $(l7 epochs_per_second) | $(l7 daemon_cpu_s) s | $(mib "$(l7 rss_kb_10)") MiB | $(mib "$(l7 rss_kb_25)") MiB | $(mib "$(l7 rss_kb_50)") MiB | **$(mib "$(l7 rss_kb_100)") MiB** | $(l7 rss_slope_kb_per_100k) kB per 100,000 epochs | $(mib "$(l7 hwm_kb_end)") MiB | $(l7 extra_arenas) | $(l7 churn_completed) / $(l7 churn_clients) | $(l7 failures) |

Goal: memory does not grow with uptime, taken as at most $LONGRUN_FLAT_KB kB more resident at the end
than at 10 % of the run (after start-up and the first subscribers' buffers): **$(awk -v a="$(l7 rss_kb_10)" -v b="$(l7 rss_kb_100)" -v f="$LONGRUN_FLAT_KB" 'BEGIN { d = b - a; printf "%s (%+d kB)", (a > 0 && d <= f) ? "met" : "not met", d }')**.
\`LongRunMemoryTests\` runs the same with 12,000 epochs in CI."
fi

# 8. Reroute request latency ------------------------------------------------------------------
reroute=""
if want 8; then
  say "8. reroute requests against Valhalla on 127.0.0.1:$VALHALLA_PORT"
  VHOME=${VALHALLA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise-valhalla/vx}
  RR_ROUTE=Simulations/001-marais-drive/route.json
  RR_EXTRACT=Tests/Valhalla/extracts/paris_bss.osm.pbf
  if [ ! -x "$VHOME/valhalla/bin/valhalla_service" ]; then
    reroute="Not measured: no Valhalla binaries under $VHOME (\`sh Tests/Valhalla/serve.sh --fetch-wheel\`, or Scripts/install-deps.sh)."
  elif ! vpid=$(bash Tests/Valhalla/serve.sh "$RR_EXTRACT" "$VALHALLA_PORT" 2> "$DATA/valhalla.err"); then
    reroute="Not measured: Tests/Valhalla/serve.sh could not start Valhalla: $(tail -n 3 "$DATA/valhalla.err" | tr '\n' ' ')"
  else
    "$SWBENCH" reroute "http://127.0.0.1:$VALHALLA_PORT" "$RR_ROUTE" 500 > "$DATA/reroute.txt" || true
    kill "$vpid" 2> /dev/null || true
    while kill -0 "$vpid" 2> /dev/null; do sleep 0.2; done
    r8() { kv "$DATA/reroute.txt" "$1"; }
    ms() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else printf "%.1f", v }'; }
    vrev=$(basename "$(find "$(dirname "$VHOME")" -maxdepth 1 -name 'pyvalhalla-*.whl' | head -n 1)" .whl)
    reroute="\`StepwiseBench reroute URL $RR_ROUTE 500\`: $(r8 reroute_requests) Valhalla \`/route\` requests (${vrev:-pyvalhalla}, \`valhalla_service\`
started by \`Tests/Valhalla/serve.sh\` on 127.0.0.1 with the \`paris_bss\` extract, stopped by its pid
afterwards) through \`RouterClient\` (libcurl, one connection reused), one after another, as the
daemon's rerouter sends them: origins spread along the Marais drive, heading along it at 50 km/h,
to its destination.

| requests | failures | connections opened | libcurl total median | p99 | as the caller waits median | p99 |
|---|---|---|---|---|---|---|
| $(r8 reroute_requests) | $(r8 reroute_failures) | $(r8 reroute_connections) | **$(ms "$(r8 reroute_curl_median_ms)") ms** | **$(ms "$(r8 reroute_curl_p99_ms)") ms** | $(ms "$(r8 reroute_waited_median_ms)") ms | $(ms "$(r8 reroute_waited_p99_ms)") ms |"
  fi
fi

# BENCH_ONLY: the sections' own text, and docs/benchmarks.md untouched.
if [ -n "$ONLY" ]; then
  for n in $ONLY; do
    case $n in
      1) printf '## 1. NMEA throughput\n\n%s\n\n' "$throughput" ;;
      5) printf '## 5. Fan-out to 500 subscribers\n\n%s\n\n' "$fanout" ;;
      7) printf '## 7. A day of 10 Hz fixes through the live gpsd path\n\n%s\n\n' "$longrun" ;;
      8) printf '## 8. Reroute request latency on loopback\n\n%s\n\n' "$reroute" ;;
      *) say "section $n has no text of its own outside the whole report" ;;
    esac
  done
  say "BENCH_ONLY=$ONLY: $OUT left as it was (load now $(cut -d' ' -f1-3 /proc/loadavg))"
  exit 0
fi

# Machine ------------------------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cores=$(nproc)
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
kernel=$(uname -sr)
os=$(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release)
swiftv=$(swift --version 2>&1 | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -n 1)
gpsdv=$(gpsdecode -V 2>&1 | sed -n 's/.*revision \([^)]*\).*/\1/p' | head -n 1)
pyv=$(python3 -c 'import platform; print(platform.python_version())')
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# Report -------------------------------------------------------------------------------------
say "writing $OUT"
{
  cat << EOF
# Benchmarks

Generated by \`make bench\` (\`Scripts/bench.sh\`) on $DATE. Do not edit by hand: run it again.
Every figure below comes from one run of the script, peers side by side on the same machine, so
the ratios are what matter: absolute times move with the load of this shared machine.

**Machine:** $cpu, $cores cores visible, $mem RAM; $os, $kernel; Swift $swiftv (release build as
the Debian package's, \`swift build -c release --static-swift-stdlib\`), gpsd $gpsdv, Python $pyv, pynmea2 ${PYNMEA:-not installed}.
Load average before / after the run: $LOAD_BEFORE / $LOAD_AFTER (other engineers share the cores).
Times are the median of $RUNS runs: elapsed time from the clock around each run, to the millisecond;
CPU time and peak RSS from \`/usr/bin/time\`, peak RSS the largest of the runs.

## 1. NMEA throughput

$throughput

## 2. Guidance cost per fix against route length

Two 300 km drives, each along routes of the same geometry with 100 to 1,000,000 points, so the
points get denser, not the route longer: *zigzag* (\`Benchmarks/make_routes.py zigzag-track\`:
ten straight 30 km legs, nine 50° turns) and *curve* (\`make_routes.py curve-track\`: legs made of
arcs, whose points the route geometry cannot drop as it drops points on a straight line). 25 m/s,
one epoch per second, 2 m lateral wobble. Time of \`NavigationSession.ingest\` alone, in process
(\`StepwiseBench perfix ROUTE TRACK $PERFIX_PASSES\`, median of $PERFIX_PASSES passes, each on a fresh
session; the fastest of $PERFIX_SWEEPS such runs, made in sweeps over all the lengths one after
another, so that a burst of other load falls on one sweep, not on one row). "Kept" is the
number of points left once points within 5 cm of a straight line are dropped. The first fix of
a session is matched against the whole route and is timed apart; "ns per fix" is every later
fix.

$perfix_head
$(cat "$DATA/perfix.txt")

Largest / smallest: zigzag **$ratio_zigzag×**, curve **$ratio_curve×** (goal at most 1.5×: $perfix_ok).$perfix_base
\`RouteMatcher\` searches a tree of segment blocks (each with its chord and bounds on distance and
bearing) best first from the predicted position, so the work per fix depends neither on the
route's length nor on its point density.

## 3. Route loading

A native document of 1,000,000 points (\`zigzag_1000000.json\`, $big_mb MiB).

| what | command | runs (s) | median | peak RSS |
|---|---|---|---|---|
| read + parse + validate (\`RouteFiles.load\`) and index (\`NavigationSession.init\`) | \`StepwiseBench load ROUTE\` | $(m load_swift all) | $(m load_swift s) s (a further run: load $(printf '%.2f' "$(kv "$DATA/load.txt" load_seconds)") s, index $(printf '%.3f' "$(kv "$DATA/load.txt" index_seconds)") s) | $(mib "$(m load_swift kb)") MiB |
| whole daemon start-up with that route, one epoch | \`stepwised --route ROUTE --fast --json one-epoch.nmea\` | $(m load_daemon all) | $(m load_daemon s) s | $(mib "$(m load_daemon kb)") MiB |
| peer: CPython \`json.load\` of the same file (parse only) | \`python3 -c 'import json,sys; json.load(open(sys.argv[1]))' ROUTE\` | $(m load_python all) | $(m load_python s) s | $(mib "$(m load_python kb)") MiB |
| the same route as a Valhalla response (polyline6 shape, $(awk -v b="$(wc -c < "$VALHALLA")" 'BEGIN { printf "%.1f", b / 1048576 }') MiB; \`make_routes.py valhalla\`): import, validate, index | \`StepwiseBench load VALHALLA\` | $(m load_valhalla all) | $(m load_valhalla s) s (load $(printf '%.2f' "$(kv "$DATA/load-valhalla.txt" load_seconds)") s, index $(printf '%.3f' "$(kv "$DATA/load-valhalla.txt" index_seconds)") s) | $(mib "$(m load_valhalla kb)") MiB |
$baseline_load

Goal: a 1,000,000-point native document and Valhalla response loaded (parsed, validated,
indexed) in at most 0.5 s: native $(m load_swift s) s, Valhalla $(m load_valhalla s) s, the
whole process under \`/usr/bin/time\`, the runtime's start included
(**$(awk -v a="$(m load_swift s)" -v b="$(m load_valhalla s)" 'BEGIN { print (a <= 0.5 && b <= 0.5 ? "met" : "not met") }')** on this run).

### Resident memory per route point

\`StepwiseBench memory ROUTE\`: VmRSS of the process before anything is read and once the
document is loaded and the session (route geometry and matcher index) built, and the peak
(VmHWM) on the way. Bytes per point = (after − before) / route points: everything the route
costs (the route's own fixed-point polylines, the geometry's points, cumulative distances,
bearings and east scales, the block tree). *curvenoise* is the curve route with 8 cm of
alternating noise (\`make_routes.py curve 1000000 R 0.08\`): thinning keeps every point, the
worst case. Large files are mapped and read by a pull parser that lets go of the pages behind
it, so the text is never resident whole. The baseline's peak is that of \`StepwiseBench load\`.

| route | points | kept | load + index | RSS before | after | peak | peak / after | bytes per point | baseline peak |
|---|---|---|---|---|---|---|---|---|---|
$(cat "$DATA/memory.txt")

Goals: at most 40 bytes a point, peak at most 2× the resident size after the load.

## 4. Daemon footprint and idle CPU

stepwised on the live source ($gpsd_idle): it connects, sends WATCH and then has nothing
to do; $HOLD subscribers connect to its socket and wait (\`Benchmarks/fanout.py hold\`). CPU from
\`/proc/PID/stat\` (utime + stime) over ${IDLE} s once they are connected, memory from
\`/proc/PID/status\` at the end. Goal: no CPU while idle (blocking, not polling).

| daemon | resident (VmRSS) | peak (VmHWM) | threads | descriptors | CPU while idle |
|---|---|---|---|---|---|
$(printf '%s' "$footprint")

Goal: at most 16 MiB resident with the 100,000-point route and 100 idle subscribers:
**$(awk -v k="${sw_rss_kb:-999999}" 'BEGIN { print (k <= 16384 ? "met" : "not met") }')**.

## 5. Fan-out to 500 subscribers

$fanout

## 6. Fleet uplink over MQTT

$fleet

## 7. A day of 10 Hz fixes through the live gpsd path

$longrun

## 8. Reroute request latency on loopback

$reroute

## Commands

    make bench                      # or: sh Scripts/bench.sh
    BENCH_RUNS=5 make bench         # more runs per figure
    python3 Benchmarks/gen_nmea.py $SENTENCES > $NMEA
    python3 Benchmarks/make_routes.py follow $NMEA $ROUTE
    python3 Benchmarks/make_routes.py zigzag-track $ZTRACK
    python3 Benchmarks/make_routes.py zigzag POINTS $DATA/zigzag_POINTS.json
    $STEPWISED --route $ROUTE --fast --json $NMEA > /dev/null
    gpsdecode < $NMEA > /dev/null
    $VENV/bin/python Benchmarks/pynmea2_parse.py $NMEA
    python3 Benchmarks/make_routes.py curve-track $CTRACK
    python3 Benchmarks/make_routes.py curve POINTS $DATA/curve_POINTS.json
    $SWBENCH perfix $DATA/zigzag_POINTS.json $ZTRACK $PERFIX_PASSES
    $SWBENCH perfix $DATA/curve_POINTS.json $CTRACK $PERFIX_PASSES
    $SWBENCH load $BIG
    python3 Benchmarks/make_routes.py curve 1000000 $NOISY 0.08
    python3 Benchmarks/make_routes.py valhalla $BIG $VALHALLA
    $SWBENCH memory ROUTE
    python3 Benchmarks/fleet.py run --vehicles $FLEET_VEHICLES --speed 4 --stepwised $STEPWISED
    python3 Benchmarks/fleet.py run --vehicles $FLEET_VEHICLES --speed 4 --no-restart --stepwised $STEPWISED
    python3 Benchmarks/fleet.py run --vehicles $FLEET_VEHICLES --speed 4 --no-restart --spread 0 --stepwised $STEPWISED
    python3 Benchmarks/fleet.py cost --speed 10 --stepwised $STEPWISED
    python3 Benchmarks/fanout.py live $STEPWISED $DATA/zigzag_100000.json $FANOUT_CLIENTS $FANOUT_EPOCHS $FANOUT_INTERVAL 4
    FANOUT_READER=python python3 Benchmarks/fanout.py live $STEPWISED $DATA/zigzag_100000.json $FANOUT_CLIENTS $FANOUT_PYTHON_EPOCHS $FANOUT_INTERVAL 4
    python3 Benchmarks/longrun.py check Tests/Fixtures/gpsd/gpsd-3.22-sky.json
    python3 Benchmarks/longrun.py run --stepwised $STEPWISED --epochs $LONGRUN --churn-rounds 100 --churn 20 --stay 5
    bash Tests/Valhalla/serve.sh Tests/Valhalla/extracts/paris_bss.osm.pbf $VALHALLA_PORT   # prints the pid
    $SWBENCH reroute http://127.0.0.1:$VALHALLA_PORT Simulations/001-marais-drive/route.json 500
    BENCH_ONLY="5 7" sh Scripts/bench.sh   # some sections only, printed; docs/benchmarks.md untouched
EOF
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
say "done: $OUT"
