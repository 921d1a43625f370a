#!/bin/sh
# Installs what Stepwise's build and tests need on Debian or Ubuntu, when it is missing.
# The Swift toolchain itself is expected on PATH (or at /opt/swift/usr/bin).
set -eu

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "install-deps: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "install-deps: the Swift toolchain is missing (https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi

# Debian packages the build or the tests use; each is installed only when missing.
# libgps-dev and pkg-config build the CGPS/GPSShim targets; gpsd, gpsd-clients (gpsfake, gpspipe),
# gpsd-tools and python3-gps (gpsfake's Python module) run the end-to-end tests against a real gpsd;
# strace lets DescriptorTests check that descriptors are closed once; shellcheck checks Scripts/;
# systemd provides systemd-socket-activate for SocketActivationTests; debhelper, dpkg-dev,
# fakeroot, lintian and man-db build and check the Debian package (Scripts/deb.sh, deb-test.sh);
# libmosquitto-dev builds the CMosquitto/Uplink targets, and mosquitto with mosquitto-clients
# runs the fleet-uplink tests against a real broker on loopback (openssl makes their TLS
# certificates and the test certificate of the router's https test); libcurl4-openssl-dev
# builds the CCurl/CurlShim targets (the router client); python3-pip, unzip, curl and bc fetch
# and run the real Valhalla of the router tests (Tests/Valhalla/serve.sh); gdb lets a test that
# kills a child which did not finish in time print the child's stacks first; osmium-tool
# turns the hand-written test map Tests/Valhalla/extracts/stepwise_lanes.osm into its .osm.pbf;
# rabbitmq-server runs the three-node cluster of the fleet's cluster tests
# (Scripts/rabbitmq-cluster.sh; its own service is not used) and python3-pika the back-office
# consumer example (docs/fleet/).
PACKAGES="${STEPWISE_APT_PACKAGES:-libgps-dev pkg-config gpsd gpsd-clients gpsd-tools python3-gps strace shellcheck systemd debhelper dpkg-dev fakeroot lintian man-db libmosquitto-dev mosquitto mosquitto-clients openssl libcurl4-openssl-dev python3-pip unzip curl bc gdb osmium-tool rabbitmq-server python3-pika}"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "install-deps: installing$missing" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # $missing is a list of package names: split on purpose.
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# Valhalla's executables for the router tests, from the pyvalhalla wheel (pip, ~37 MB, once).
VALHALLA_HOME="${VALHALLA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise-valhalla/vx}"
if [ ! -x "$VALHALLA_HOME/valhalla/bin/valhalla_service" ]; then
  echo "install-deps: fetching Valhalla (pyvalhalla wheel)" >&2
  bash "$(dirname "$0")/../Tests/Valhalla/serve.sh" --fetch-wheel "$(dirname "$VALHALLA_HOME")" >&2
fi
