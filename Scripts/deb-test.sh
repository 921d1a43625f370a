#!/bin/sh
# deb-test.sh: the Debian package test (CI's "deb" phase, after "test"). Builds the package
# (Scripts/deb.sh), checks it with lintian (no error or warning), installs it on this machine
# with dpkg -i, checks its files, runs /usr/bin/stepwised --help, then removes it (dpkg -r:
# the conffile stays) and purges it (dpkg -P: nothing stays). Needs root, as dpkg does.
set -eu
cd "$(dirname "$0")/.."
fail() {
  echo "deb-test: $*" >&2
  exit 1
}
[ "$(id -u)" -eq 0 ] || fail "dpkg -i needs root"
if dpkg-query -W -f='${Status}' stepwise 2>/dev/null | grep -q "installed"; then
  fail "a stepwise package is already installed here; this test would replace and remove it"
fi
deb=$(sh Scripts/deb.sh)
echo "deb-test: built $deb ($(du -k "$deb" | cut -f1) KiB)"

# lintian: no error and no warning (information tags are allowed; debian/ says why for each).
lintian --fail-on error,warning "$deb" || fail "lintian reports errors or warnings"

# Depends: the libgps soname the binaries were linked against, from shlibdeps.
soname=$(objdump -p .build/debian/stepwise-*/debian/stepwise/usr/bin/stepwised |
  awk '$1 == "NEEDED" && $2 ~ /^libgps\.so\./ { print $2 }')
[ -n "$soname" ] || fail "stepwised does not link libgps"
lib=$(dpkg -S "*/$soname" | head -n 1 | cut -d: -f1)
[ -n "$lib" ] || fail "no installed package holds $soname"
dpkg-deb -f "$deb" Depends | tr ',' '\n' | grep -q "^ *$lib " ||
  fail "Depends does not name $lib ($soname)"
echo "deb-test: Depends: $(dpkg-deb -f "$deb" Depends)"

removed=""
cleanup() { [ -n "$removed" ] || dpkg -P stepwise >/dev/null 2>&1 || true; }
trap cleanup EXIT
dpkg -i "$deb"
for f in /usr/bin/stepwised /usr/bin/stepwise /lib/systemd/system/stepwised.service \
  /lib/systemd/system/stepwised.socket /usr/lib/sysusers.d/stepwise.conf /etc/default/stepwised \
  /usr/share/man/man8/stepwised.8.gz /usr/share/man/man1/stepwise.1.gz \
  /usr/share/doc/stepwise/copyright; do
  dpkg -L stepwise | grep -qx "$f" || fail "$f is not in the package"
  [ -e "$f" ] || fail "$f is not installed"
done
dpkg-query -W -f='${Conffiles}\n' stepwise | grep -q "/etc/default/stepwised" ||
  fail "/etc/default/stepwised is not a conffile"
getent group stepwise >/dev/null || fail "the stepwise group was not created (sysusers)"
/usr/bin/stepwised --help | grep -q "usage: stepwised" || fail "/usr/bin/stepwised --help"
/usr/bin/stepwise --help >/dev/null || fail "/usr/bin/stepwise --help"
man -w stepwised >/dev/null || fail "man cannot find stepwised(8)"
man -w stepwise >/dev/null || fail "man cannot find stepwise(1)"
# A real man page: man renders it without a warning.
for page in /usr/share/man/man8/stepwised.8.gz /usr/share/man/man1/stepwise.1.gz; do
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "$page: $warnings"
done
# A replay through the installed daemon.
/usr/bin/stepwised --route Simulations/001-marais-drive/route.json --fast \
  Simulations/001-marais-drive/drive.nmea | grep -q "ARRIVED" || fail "the installed daemon did not arrive"

dpkg -r stepwise
removed=yes
if [ -e /usr/bin/stepwised ] || [ -e /lib/systemd/system/stepwised.service ]; then
  fail "dpkg -r left files behind"
fi
[ -e /etc/default/stepwised ] || fail "dpkg -r removed the conffile"
dpkg -P stepwise
[ ! -e /etc/default/stepwised ] || fail "dpkg -P left /etc/default/stepwised"
if dpkg-query -W -f='${Status}' stepwise 2>/dev/null | grep -q "installed\|config-files"; then
  fail "stepwise is still known to dpkg after purge"
fi
echo "deb-test: passed"
