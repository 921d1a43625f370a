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
# certificates).
PACKAGES="${STEPWISE_APT_PACKAGES:-libgps-dev pkg-config gpsd gpsd-clients gpsd-tools python3-gps strace shellcheck systemd debhelper dpkg-dev fakeroot lintian man-db libmosquitto-dev mosquitto mosquitto-clients openssl}"
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
