#!/bin/sh
# Checks the systemd units offline: `systemd-analyze verify` on both (any output on stderr
# fails, because verify only warns about unknown keys and bad values and still exits 0), and
# `systemd-analyze security --offline` on the service against a threshold (0–100 scale: 15
# means an exposure of at most 1.5).
# usage: Scripts/check-units.sh [UNITDIR] [BINDIR] [THRESHOLD]
set -eu
units="${1:-systemd}"
bindir="${2:-.build/debug}"
threshold="${3:-15}"
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "check-units: systemd-analyze not found; skipped" >&2
  exit 0
fi
bindir="$(cd "$bindir" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for u in stepwised.service stepwised.socket; do
  sed -e "s#/usr/bin/stepwised#$bindir/stepwised#g" -e "s#/usr/bin/stepwise #$bindir/stepwise #g" \
    "$units/$u" > "$tmp/$u"
done
if ! systemd-analyze verify --man=no "$tmp/stepwised.socket" "$tmp/stepwised.service" \
  2> "$tmp/verify.err"; then
  cat "$tmp/verify.err" >&2
  echo "check-units: systemd-analyze verify failed" >&2
  exit 1
fi
# Missing gpsd units on a machine without gpsd are not ours to fix.
grep -v -e "gpsd.socket" -e "gpsd.service" "$tmp/verify.err" > "$tmp/verify.ours" || true
if [ -s "$tmp/verify.ours" ]; then
  cat "$tmp/verify.ours" >&2
  echo "check-units: systemd-analyze verify printed warnings" >&2
  exit 1
fi
systemd-analyze security --offline=true --threshold="$threshold" "$tmp/stepwised.service" \
  > "$tmp/security.out" 2>&1 || {
  cat "$tmp/security.out" >&2
  echo "check-units: exposure above $threshold/100" >&2
  exit 1
}
tail -n 1 "$tmp/security.out"
