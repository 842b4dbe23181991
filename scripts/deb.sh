#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the Debian packages ccaas and ccaas-dkms (debian/), and
# lintian on them.
#
# dpkg-buildpackage writes its results next to the source tree, so it runs
# in a copy of the tree (the files git knows, committed or not) at
# build/deb/ccaas-VERSION/, and the .debs, .dsc, .tar.xz, .buildinfo and
# .changes land in build/deb/. The version of debian/changelog must be the
# VERSION file's, as dkms.conf's is.
#
# lintian's errors and warnings fail; its overrides are in
# debian/*.lintian-overrides, each with its reason. Prints the paths of
# the two .debs last.
#
# Usage: scripts/deb.sh
set -eu
cd "$(dirname "$0")/.."

die() { echo "deb: $*" >&2; exit 1; }

ver=$(cat VERSION)
chver=$(dpkg-parsechangelog -S Version)
[ "$chver" = "$ver" ] || die "debian/changelog is at $chver, VERSION at $ver (add a changelog entry)"
grep -q "^PACKAGE_VERSION=\"$ver\"" dkms.conf || die "dkms.conf's PACKAGE_VERSION is not $ver"

out=build/deb
src=$out/ccaas-$ver
rm -rf "$out"
mkdir -p "$src"
# the tree as git sees it, without what it ignores (build/, objects)
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	rsync -a --from0 --files-from=- . "$src/"

arch=$(dpkg --print-architecture)
(cd "$src" && dpkg-buildpackage -us -uc --build=full -Jauto) >"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log" >&2; die "dpkg-buildpackage failed (log: $out/build.log)"; }

changes=$out/ccaas_${ver}_$arch.changes
# --fail-on warning: lintian's exit status counts warnings too
lintian --fail-on error,warning --info --display-info --pedantic "$changes" >"$out/lintian.log" 2>&1 ||
	{ cat "$out/lintian.log" >&2; die "lintian found problems (log: $out/lintian.log)"; }
cat "$out/lintian.log"
echo "$out/ccaas_${ver}_$arch.deb"
echo "$out/ccaas-dkms_${ver}_all.deb"
