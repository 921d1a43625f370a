#!/bin/sh
# The whole test suite, as CI runs it: a warnings-as-errors build with the target-import
# check, then every test (unit, property, scenario and end-to-end against the built binaries).
set -eu
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && PATH="/opt/swift/usr/bin:$PATH"

# The pure core must not import Foundation, Dispatch or the whole of Glibc.
if grep -rnE '^(public )?import (Foundation|Glibc|Dispatch)$' \
  Sources/Geodesy Sources/JSON Sources/Routes Sources/NMEA Sources/Guidance \
  Sources/Phrasebook Sources/Wire Sources/Simulation; then
  echo "ci: a pure core target imports Foundation, Dispatch or Glibc" >&2
  exit 1
fi

swift build --build-tests -Xswiftc -warnings-as-errors \
  --explicit-target-dependency-import-check error
# The systemd units: verify without warnings, exposure at most 1.5.
sh Scripts/check-units.sh systemd .build/debug 15
swift test --skip-build --disable-xctest
