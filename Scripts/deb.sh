#!/bin/sh
# deb.sh: builds the Debian package stepwise_VERSION_ARCH.deb (make deb) with dpkg-buildpackage
# and debhelper (debian/), into $DEB_OUT (default .build/debian), and prints its path.
#
# dpkg-buildpackage writes its results next to the source tree, so the tree (what git tracks
# plus new files it does not ignore) is copied to $DEB_OUT/stepwise-VERSION first and built
# there; the copy keeps its Swift build folder between runs, so a rebuild compiles only what
# changed. -us -uc: nothing is signed; -b: the binary package only.
set -eu
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && PATH="/opt/swift/usr/bin:$PATH"
OUT=${DEB_OUT:-.build/debian}
for tool in dpkg-buildpackage dh fakeroot; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "deb.sh: $tool is missing (apt-get install dpkg-dev debhelper fakeroot)" >&2
    exit 1
  }
done
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
tree="$OUT/stepwise-$version"
mkdir -p "$tree"
git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$tree"
(cd "$tree" && dpkg-buildpackage -us -uc -b >../build.log 2>&1) || {
  tail -n 40 "$OUT/build.log" >&2
  echo "deb.sh: dpkg-buildpackage failed (the whole log: $OUT/build.log)" >&2
  exit 1
}
echo "$OUT/stepwise_${version}_${arch}.deb"
