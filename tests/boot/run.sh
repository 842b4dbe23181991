#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot test: a VM boots systemd as init over a writable overlay of the
# host's root, with ccaas installed as an operator installs it (modules in
# /lib/modules/KVER/updates, `make install-tools`, `systemctl enable
# ccaas`) and /etc/ccaas from tests/boot/etc-ccaas; tests/boot/check.sh
# then checks, from a unit of its own, that the policy was in force before
# network-pre.target and on the connections a network service opened at
# boot, that `systemctl reload ccaas` diffs, is idempotent, keeps the
# policy when the file is refused and migrates after a scope change, and,
# on the last kernel given, that ccaas-metrics.timer writes the textfile
# and how a start fails: a missing CCA module, a bad file, fallback.conf,
# a hang.
#
# The package test (check-deb.sh) boots the same system without ccaas and
# installs the Debian packages (make deb; build/deb/) with apt, DKMS
# building the modules in the guest: a 15 min VM under TCG, so only on
# the lines of BOOT_DEB_LINES (6.1: its headers and gcc-12 are the host's;
# 7.3's need the trixie root, where tests/build/deb-root.sh installs the
# packages instead), and by make check-full only.
#
# Usage: tests/boot/run.sh [KVER...]   (default: every pinned line)
#   BOOT_DEB_LINES="6.1"  lines (short names) that also get the package
#                         test, if among KVER; "" for none (make check)
# Prints PASS: boot-<short kernel>/<name>; exit 1 if anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 1
# shellcheck source-path=SCRIPTDIR/../..
. scripts/vm/common.sh

# boot_modules KVER DIR [deb]: what `make modules_install` and depmod add
# to KVER's module tree (updates/ccaas/*.ko and the modules.* indexes),
# made in DIR from a tree of symbolic links; prints the directory the
# guest lays over its /lib/modules. With deb, no ccaas modules but the
# link to the headers that linux-headers-KVER installs, for DKMS.
boot_modules() {
	local kver=$1 dir=$2 deb=${3:-} tree
	tree=$(scripts/vm-prepare.sh "$kver" | sed -n 's/^MODULES=//p')
	[ -d "$tree/$kver" ] || return 1
	mkdir -p "$dir/lib/modules" &&
		cp -as "$tree/$kver" "$dir/lib/modules/" &&
		find "$dir/lib/modules/$kver" -maxdepth 1 -name 'modules.*' -type l \
			! -name modules.order ! -name modules.builtin \
			! -name modules.builtin.modinfo -delete &&
		if [ -z "$deb" ]; then
			mkdir -p "$dir/lib/modules/$kver/updates/ccaas" &&
				cp "build/$kver"/*.ko "$dir/lib/modules/$kver/updates/ccaas/"
		fi &&
		depmod -b "$dir" "$kver" >&2 &&
		find "$dir/lib/modules" -type l -delete &&
		{ [ -z "$deb" ] || ln -s "/usr/src/linux-headers-$kver" "$dir/lib/modules/$kver/build"; } &&
		echo "$dir/lib/modules"
}

# report KVER NAME VM-EXIT RUNDIR: the VM's PASS/FAIL lines as
# boot-<short>/NAME; 1 if it failed
report() {
	local short out
	short=$(ccaas_short_kver "$1")
	out=$4/results/output.log
	if [ -r "$out" ]; then
		sed -nE "s|^(PASS\|FAIL): |\1: boot-$short/|p; /^  /p; /^apt /p" "$out"
	fi
	if [ "$3" != 0 ] || ! grep -q '^PASS: ' "$out" 2>/dev/null ||
		grep -q '^FAIL: ' "$out"; then
		grep -q '^PASS: \|^FAIL: ' "$out" 2>/dev/null ||
			echo "FAIL: boot-$short/$2 (VM exit $3; $(tail -3 "$4/serial.log" | tr -d '\r'))"
		echo "boot-$short: artifacts in $4"
		return 1
	fi
}

# deb_test KVER: the package test (check-deb.sh) on KVER
deb_test() {
	local kver=$1 short dir stage vrc ver arch
	short=$(ccaas_short_kver "$kver")
	ver=$(cat VERSION)
	arch=$(dpkg --print-architecture)
	debs="$root/build/deb/ccaas_${ver}_$arch.deb $root/build/deb/ccaas-dkms_${ver}_all.deb"
	for d in $debs; do
		[ -e "$d" ] || { echo "FAIL: boot-$short/deb ($d missing: make deb)"; return 1; }
	done
	dir="${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}/$(date +%Y%m%d-%H%M%S)-$kver-boot-deb-$$"
	mkdir -p "$dir"
	stage=$(boot_modules "$kver" "$dir/boot-modules" deb) ||
		{ echo "FAIL: boot-$short/deb (cannot stage the module tree)"; return 1; }
	# shellcheck disable=SC2086 # two paths without white space
	scripts/vm-run.sh -q -t 1200 -m 1024 -d "$dir/vm" -S "$here/units:$here/etc-ccaas" \
		-e "CCAAS_BOOT_MODULES=$stage" -e CCAAS_BOOT_INSTALL=none \
		"$kver" -- bash tests/boot/check-deb.sh $debs
	vrc=$?
	report "$kver" deb "$vrc" "$dir/vm" || rc=1
	echo "boot-$short: $kver: packages: $(cat "$dir/vm/times" 2>/dev/null)"
}

kvers=${*:-$(ccaas_all_kvers)}
# the checks of how the start fails and of the metrics (half of the
# checks' time) on the last line only: what they test is the script's
# and systemd's, the same on every line
for last in $kvers; do :; done
deb_lines=${BOOT_DEB_LINES-6.1}
rc=0
for k in $kvers; do
	kver=$(ccaas_resolve_kver "$k")
	short=$(ccaas_short_kver "$kver")
	[ -e "build/$kver/.built" ] || ccaas_die "build/$kver is not built (make build/$kver/.built)"
	dir="${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}/$(date +%Y%m%d-%H%M%S)-$kver-boot-$$"
	mkdir -p "$dir"
	stage=$(boot_modules "$kver" "$dir/boot-modules") ||
		{ echo "FAIL: boot-$short/boot (cannot stage the modules)"; rc=1; continue; }
	scripts/vm-run.sh -q -t 300 -m 768 -d "$dir/vm" -S "$here/units:$here/etc-ccaas" \
		-e "CCAAS_BOOT_MODULES=$stage" -e "CCAAS_BOOT_FAILURES=$([ "$k" = "$last" ] && echo 1)" \
		"$kver" -- bash tests/boot/check.sh
	vrc=$?
	report "$kver" boot "$vrc" "$dir/vm" || rc=1
	echo "boot-$short: $kver: $(cat "$dir/vm/times" 2>/dev/null)"
	case " $deb_lines " in *" $short "*) deb_test "$kver" ;; esac
done
exit $rc
