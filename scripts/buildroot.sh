#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian build root for the kernel lines whose headers cannot build on the
# host (KROOT_<n>_<m> in scripts/versions.conf: 7.3's headers need trixie's
# gcc-14 and glibc >= 2.38). The root is made with `debootstrap
# --variant=minbase` from the machine's Debian mirror (read from its apt
# sources at run time), gets gcc-14, make and the line's pinned headers
# (from KSUITE_<n>_<m>), and is cached by content under
# ${CCAAS_CACHE:-/var/cache/ccaas}/buildroot/<suite>-<hash>/: a rerun with
# the same script and pins reuses it.
#
# Usage: scripts/buildroot.sh KVER                 prepare; print ROOT= KDIR=
#        scripts/buildroot.sh [-b DIR]... KVER -- CMD [ARG...]
#            run CMD inside the root, in the current directory, which is
#            bind-mounted at the same path (as is each DIR); the mounts live
#            in a private mount namespace and vanish with CMD.
# KVER may be a short name (7.3). KDIR is the headers' path, the same inside.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$here/vm/common.sh"

log() { echo "buildroot: $*" >&2; }

binds=()
while [ $# -gt 0 ]; do
	case "$1" in
	-b) binds+=("$(cd "$2" && pwd)"); shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || ccaas_die "usage: $0 [-b DIR]... KVER [-- CMD...]"
kver=$(ccaas_resolve_kver "$1")
shift
suite=$(ccaas_kline_var "$kver" KROOT)
ksuite=$(ccaas_kline_var "$kver" KSUITE)
kversion=$(ccaas_kline_var "$kver" KVERSION)
[ -n "$suite" ] || ccaas_die "$kver: no KROOT_ line in versions.conf (it builds on the host)"
if [ -z "$ksuite" ] || [ -z "$kversion" ]; then
	ccaas_die "$kver: KSUITE_/KVERSION_ missing"
fi

# dkms: tests/build/run.sh checks the DKMS build of these lines in here;
# libmnl0 and python3, the ccaas package's dependencies: it installs the
# Debian packages in a copy of the root, offline (tests/build/deb-root.sh)
pkgs="gcc-14 make dkms libmnl0 python3 linux-headers-$kver=$kversion"

# in_root ROOT CMD...: CMD chrooted into ROOT with /proc and $mounts mounted
mounts=()
in_root() {
	local r=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m --propagation private /bin/bash -c '
		set -e
		r=$1; n=$2; shift 2
		mount -t proc proc "$r/proc"
		while [ "$n" -gt 0 ]; do
			mkdir -p "$r$1"
			mount --bind "$1" "$r$1"
			shift; n=$((n - 1))
		done
		cd "$r$PWD" 2>/dev/null || cd "$r"
		wd=${PWD#"$r"}
		exec chroot "$r" /bin/sh -c "cd \"\${1:-/}\" && shift && exec \"\$@\"" sh "$wd" "$@"
	' in_root "$r" ${#mounts[@]} ${mounts[@]+"${mounts[@]}"} "$@"
}

make_root() {
	local mirror tmp t0 inc
	mirror=$(ccaas_debian_mirror) || ccaas_die "no Debian mirror in the apt sources"
	command -v debootstrap >/dev/null || ccaas_die "debootstrap not found (scripts/deps.sh)"
	tmp="$root.tmp"
	rm -rf "$tmp"
	t0=$(date +%s)
	# an https mirror needs the CA certificates inside for apt
	case "$mirror" in https:*) inc=(--include=ca-certificates) ;; *) inc=() ;; esac
	log "debootstrap --variant=minbase $suite"
	debootstrap --variant=minbase ${inc[@]+"${inc[@]}"} "$suite" "$tmp" "$mirror" \
		>"$tmp.log" 2>&1 || {
		tail -20 "$tmp.log" >&2
		ccaas_die "debootstrap $suite failed (log: $tmp.log)"
	}
	log "debootstrap took $(($(date +%s) - t0)) s"
	{
		echo "deb $mirror $suite main"
		[ "$ksuite" = "$suite" ] || echo "deb $mirror $ksuite main"
	} >"$tmp/etc/apt/sources.list"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
	t0=$(date +%s)
	log "installing $pkgs"
	# shellcheck disable=SC2086 # the package list is words
	in_root "$tmp" env DEBIAN_FRONTEND=noninteractive LC_ALL=C /bin/sh -c \
		"apt-get update -q && apt-get install -y -q --no-install-recommends $pkgs &&
		 apt-get clean" >>"$tmp.log" 2>&1 || {
		tail -20 "$tmp.log" >&2
		ccaas_die "installing the headers failed (log: $tmp.log)"
	}
	log "installing took $(($(date +%s) - t0)) s"
	[ -f "$tmp$kdir/Makefile" ] || ccaas_die "no $kdir in the root"
	touch "$tmp/.ready"
	mv "$tmp.log" "$tmp/.buildroot.log"
	mv "$tmp" "$root"
	# keep the three newest roots of this suite (about 0.6 GB each)
	# shellcheck disable=SC2012 # the names are ours, without white space
	ls -td "$CCAAS_CACHE/buildroot/$suite"-*/ | tail -n +4 | xargs -r rm -rf
}

kdir=/usr/src/linux-headers-$kver
# The key covers what makes the root: the function above and its inputs.
key=$(
	{
		declare -f make_root in_root
		echo "$suite $ksuite $pkgs"
	} | sha256sum | cut -c1-16
)
mkdir -p "$CCAAS_CACHE/buildroot"
root="$CCAAS_CACHE/buildroot/$suite-$key"

# One preparation per root at a time.
exec 9>"$CCAAS_CACHE/.lock-buildroot-$suite-$key"
flock 9
[ -e "$root/.ready" ] || make_root
exec 9>&-

if [ $# = 0 ]; then
	echo "ROOT=$root"
	echo "KDIR=$kdir"
	exit 0
fi
[ "$1" = -- ] || ccaas_die "usage: $0 [-b DIR]... KVER [-- CMD...]"
shift
[ $# -ge 1 ] || ccaas_die "no command"
mounts=(${binds[@]+"${binds[@]}"} "$PWD")
in_root "$root" env LC_ALL=C "$@"
