#!/bin/bash
# Install the Debian packages that `make check` needs (build, ccactl, VM tests,
# and `make deb`: dpkg-dev, debhelper, dh-dkms, lintian).
#
# Idempotent and quick when everything is present: each package is checked
# with dpkg-query first; only missing ones (or a pinned package at another
# version) are installed, with one `apt-get update` and one `apt-get install`.
#
# Lines built in a Debian root (KROOT_* in versions.conf: 7.3) get their
# compiler and headers there (scripts/buildroot.sh, with debootstrap), not
# on the host.
#
# Kernel images are deliberately NOT installed (their postinst builds an
# initramfs for minutes); scripts/vm-prepare.sh downloads and extracts them.
#
# Usage: scripts/deps.sh [-n]     -n: only print what would be installed
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$here/versions.conf"

dry_run=0
if [ "${1:-}" = "-n" ]; then
	dry_run=1
fi

# name or name=version, one per word
wanted="
qemu-system-x86 busybox-static iproute2 iperf3 trace-cmd tcpdump procps
libmnl-dev pkg-config kmod dkms gcc make bc flex bison libelf-dev libssl-dev
xz-utils zstd cpio rsync util-linux openssl python3 python3-yaml python3-jsonschema
gnuplot-nox prometheus-node-exporter prometheus systemd
ansible-core openssh-server openssh-client
python3-voluptuous python3-pycodestyle yamllint
debootstrap debian-archive-keyring
groff-base man-db valgrind shellcheck
clang libbpf-dev bpftool
dpkg-dev debhelper dh-dkms lintian
linux-headers-$KVER_6_1 linux-headers-$KVER_6_12
$LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION
"

# installed_ok NAME [VERSION]: true if NAME is installed (at VERSION if given)
installed_ok() {
	local st
	st=$(dpkg-query -W -f='${db:Status-Abbrev}|${Version}' "$1" 2>/dev/null) || return 1
	case "$st" in
	ii*) ;;
	*) return 1 ;;
	esac
	[ -z "${2:-}" ] || [ "${st#*|}" = "$2" ]
}

missing=""
for spec in $wanted; do
	name=${spec%%=*}
	version=""
	[ "$name" = "$spec" ] || version=${spec#*=}
	installed_ok "$name" "$version" || missing="$missing $spec"
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

echo "deps: installing:$missing"
[ "$dry_run" = 0 ] || exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: must run as root to install packages" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086 # word splitting of the package list is intended
apt-get install -y -q --no-install-recommends $missing
echo "deps: done"
