#!/bin/bash
# The kernel's YNL tools (tools/net/ynl: cli.py and its Python library) and
# netlink schemas (Documentation/netlink/*.yaml, specs/ included), extracted
# from the pinned linux-source tarball into
# ${CCAAS_CACHE:-/var/cache/ccaas}/ynl-<source version>/, once.
#
# Usage: scripts/ynl-prepare.sh      prints the directory
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$here/versions.conf"
CCAAS_CACHE=${CCAAS_CACHE:-/var/cache/ccaas}
dir=$CCAAS_CACHE/ynl-$LINUX_SOURCE_VERSION
tarball=/usr/src/$LINUX_SOURCE_PKG.tar.xz

mkdir -p "$CCAAS_CACHE"
exec 9>"$CCAAS_CACHE/.lock-ynl"
flock 9
if [ ! -e "$dir/.done" ]; then
	[ -f "$tarball" ] || { echo "ynl-prepare: no $tarball ($LINUX_SOURCE_PKG)" >&2; exit 1; }
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
	tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1 --wildcards \
		'*/tools/net/ynl/cli.py' '*/tools/net/ynl/lib/*.py' \
		'*/Documentation/netlink/*.yaml'
	touch "$dir.tmp/.done"
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
echo "$dir"
