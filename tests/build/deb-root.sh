#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages in a line's build root (scripts/buildroot.sh: trixie
# for 7.3): `apt install ./ccaas_*.deb ./ccaas-dkms_*.deb` in a throwaway
# overlay of the root, offline (the root has the packages' dependencies),
# DKMS building for the line's kernel as the package's postinst does
# (AUTOINSTALL: the newest kernel with headers, the root's only one); the
# modules signed with the DKMS key the fleet provisioned (Secure Boot:
# docs/operations.md); the units enabled, no alias loading ccaas_core; `apt remove` taking the
# metrics textfile ccaas-metrics wrote and keeping /etc/ccaas; then `apt
# purge`, and what the overlay's upper layer still holds beyond the
# package system's own records (/run/ccaas included) must be nothing.
#
# Usage: tests/build/deb-root.sh KVER DEB...
# Prints the DKMS build time, then "ok" or what is wrong; exit 1 if wrong.
set -eu
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. scripts/vm/common.sh
[ $# -ge 2 ] || { echo "usage: $0 KVER DEB..." >&2; exit 2; }
kver=$(ccaas_resolve_kver "$1")
shift
root=$(scripts/buildroot.sh "$kver" | sed -n 's/^ROOT=//p')
[ -d "$root" ] || { echo "no build root for $kver" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
mkdir -p "$work/upper/tmp/debs" "$work/work" "$work/merged"
cp "$@" "$work/upper/tmp/debs/"
# A fleet's module signing key, put where DKMS's framework.conf points
# before the package is installed (the root has no openssl, so DKMS could
# not make one: it would build the modules unsigned)
signer="ccaas fleet test signing key"
mkdir -p "$work/upper/var/lib/dkms"
openssl req -new -x509 -nodes -days 1 -subj "/CN=$signer" -newkey rsa:2048 \
	-keyout "$work/upper/var/lib/dkms/mok.key" -outform DER \
	-out "$work/upper/var/lib/dkms/mok.pub" 2>/dev/null
serial=$(openssl x509 -inform DER -in "$work/upper/var/lib/dkms/mok.pub" -noout -serial)

# What runs in the root: install, check the modules, purge.
cat >"$work/upper/tmp/debs/test.sh" <<'INNER'
set -eu
kver=$1 signer=$2
# the certificate's serial, as modinfo prints a PKCS#7 signature's key
serial=$(echo "${3#serial=}" | tr -d ':' | tr a-f A-F | sed 's/^0*//')
export DEBIAN_FRONTEND=noninteractive
cd /tmp/debs
# offline: apt sees no archive, only the local files and what is installed
# (dependencies missing here fail rather than download)
offline="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=/nonexistent"
t0=$(date +%s)
apt-get install -y -q --no-install-recommends $offline /tmp/debs/*.deb >install.log 2>&1 ||
	{ tail -20 install.log; echo "apt install failed"; exit 1; }
echo "install (DKMS build for $kver): $(($(date +%s) - t0)) s"
bad=0
for m in ccaas_core tcp_cca_dctcp tcp_cca_dcndelay tcp_cca_cubic tcp_cca_xregion tcp_cca_hpcc; do
	ko=$(ls /lib/modules/"$kver"/updates/dkms/"$m".ko* 2>/dev/null | head -1)
	if [ -z "$ko" ]; then
		echo "$m not installed in /lib/modules/$kver/updates/dkms"; bad=1
	elif [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$kver" ]; then
		echo "$m: vermagic $(modinfo -F vermagic "$ko")"; bad=1
	elif [ "$(modinfo -F signer "$ko")" != "$signer" ] ||
		[ "$(modinfo -F sig_key "$ko" | tr -d ': \t\n' | sed 's/^0*//')" != "$serial" ]; then
		echo "$m: signed by '$(modinfo -F signer "$ko")' key $(modinfo -F sig_key "$ko" | tr -d ' \t\n'), not '$signer' $serial"; bad=1
	fi
done
dkms status ccaas | grep -q "ccaas/.*, $kver, .*: installed" ||
	{ echo "dkms status: $(dkms status ccaas)"; bad=1; }
[ -x /usr/sbin/ccactl ] && /usr/sbin/ccactl -V >/dev/null ||
	{ echo "ccactl does not run"; bad=1; }
[ -e /etc/systemd/system/sysinit.target.wants/ccaas.service ] ||
	{ echo "ccaas.service not enabled"; bad=1; }
[ -e /etc/systemd/system/timers.target.wants/ccaas-metrics.timer ] ||
	{ echo "ccaas-metrics.timer not enabled"; bad=1; }
# nothing but ccaas-service loads ccaas_core: the kernel's autoload of
# the genl family (any ccactl call) finds no module with its alias. The
# root has no kernel image, so no modules.dep for modprobe to resolve
# with: the module's own alias list is read (modinfo reads the file: its
# name must come back, or the check would pass on nothing)
core=$(ls /lib/modules/"$kver"/updates/dkms/ccaas_core.ko* 2>/dev/null | head -1)
if [ "$(modinfo -F name "$core" 2>/dev/null)" != ccaas_core ]; then
	echo "modinfo cannot read ccaas_core ($core)"; bad=1
elif modinfo -F alias "$core" | grep -q 'net-pf-16-proto-16-family-ccaas'; then
	echo "ccaas_core has the genl family's alias: $(modinfo -F alias "$core")"; bad=1
fi
# what ccaas makes at run time: the outcome of a start, the metrics
# textfile (node_exporter's directory made as its package does)
mkdir -p /run/ccaas /var/lib/prometheus/node-exporter
echo 1700000000 >/run/ccaas/last-apply
ccaas-metrics -o /var/lib/prometheus/node-exporter/ccaas.prom 2>/dev/null
grep -q '^ccaas_up 0$' /var/lib/prometheus/node-exporter/ccaas.prom ||
	{ echo "ccaas-metrics -o: $(cat /var/lib/prometheus/node-exporter/ccaas.prom)"; bad=1; }
# remove: the textfile goes (it would say ccaas_up as if ccaas ran), the
# configuration stays
apt-get remove -y -q $offline ccaas >remove.log 2>&1 ||
	{ tail -20 remove.log; echo "apt remove failed"; exit 1; }
[ ! -e /var/lib/prometheus/node-exporter/ccaas.prom ] || { echo "remove left ccaas.prom"; bad=1; }
[ -e /etc/ccaas/policy.conf ] || { echo "remove took /etc/ccaas/policy.conf"; bad=1; }
rmdir /var/lib/prometheus/node-exporter /var/lib/prometheus 2>/dev/null || true
apt-get purge -y -q $offline ccaas ccaas-dkms >purge.log 2>&1 ||
	{ tail -20 purge.log; echo "apt purge failed"; exit 1; }
[ -z "$(dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'ccaas*' 2>/dev/null | grep -v '^un ')" ] ||
	{ echo "still known to dpkg: $(dpkg-query -W 'ccaas*')"; bad=1; }
exit $bad
INNER

rc=0
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m --propagation private /bin/bash -c '
	set -e
	root=$1 work=$2 kver=$3
	mount -t overlay overlay \
		-o "lowerdir=$root,upperdir=$work/upper,workdir=$work/work" "$work/merged"
	mount -t proc proc "$work/merged/proc"
	mount --bind /dev "$work/merged/dev"
	mount --bind /dev/pts "$work/merged/dev/pts"
	exec chroot "$work/merged" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
		/bin/sh /tmp/debs/test.sh "$kver" "$4" "$5"
' deb-root "$root" "$work" "$kver" "$signer" "$serial" || rc=1

# Left behind: what the upper layer holds besides the package system's
# records, caches and logs and the test's own files (the signing key is
# the fleet's, not the package's); a depmod index left in the kernel's
# directory counts too.
cd "$work/upper"
left=$({
	find . -mindepth 1 ! -type d | sed 's|^\.||' | grep -Ev \
		'^/(tmp|proc|var/lib/dpkg|var/lib/apt|var/cache/(apt|debconf|ldconfig)|var/log|etc/ld\.so\.cache$|var/lib/dkms/mok\.(key|pub)$)'
	# a directory ccaas made and left empty counts too
	find . -mindepth 1 -type d -empty | sed 's|^\.||' | grep -E 'ccaas|updates/dkms'
} || true)
cd /
if [ -n "$left" ]; then
	echo "left after purge:"
	echo "$left"
	rc=1
fi
echo "install, checks, purge: $(($(date +%s) - t0)) s"
[ "$rc" != 0 ] || echo ok
exit $rc
