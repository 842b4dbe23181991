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
# Usage: tests/boot/run.sh [KVER...]   (default: every pinned line)
# Prints PASS: boot-<short kernel>/<name>; exit 1 if anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 1
# shellcheck source-path=SCRIPTDIR/../..
. scripts/vm/common.sh

# boot_modules KVER DIR: what `make modules_install` and depmod add to
# KVER's module tree (updates/ccaas/*.ko and the modules.* indexes), made
# in DIR from a tree of symbolic links; prints the directory the guest
# lays over its /lib/modules
boot_modules() {
	local kver=$1 dir=$2 tree
	tree=$(scripts/vm-prepare.sh "$kver" | sed -n 's/^MODULES=//p')
	[ -d "$tree/$kver" ] || return 1
	mkdir -p "$dir/lib/modules" &&
		cp -as "$tree/$kver" "$dir/lib/modules/" &&
		find "$dir/lib/modules/$kver" -maxdepth 1 -name 'modules.*' -type l \
			! -name modules.order ! -name modules.builtin \
			! -name modules.builtin.modinfo -delete &&
		mkdir -p "$dir/lib/modules/$kver/updates/ccaas" &&
		cp "build/$kver"/*.ko "$dir/lib/modules/$kver/updates/ccaas/" &&
		depmod -b "$dir" "$kver" >&2 &&
		find "$dir/lib/modules" -type l -delete &&
		echo "$dir/lib/modules"
}

kvers=${*:-$(ccaas_all_kvers)}
# the checks of how the start fails and of the metrics (half of the
# checks' time) on the last line only: what they test is the script's
# and systemd's, the same on every line
for last in $kvers; do :; done
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
	dir=$dir/vm
	out=$dir/results/output.log
	if [ -r "$out" ]; then
		sed -nE "s|^(PASS\|FAIL): |\1: boot-$short/|p; /^  /p" "$out"
	fi
	if [ "$vrc" != 0 ] || ! grep -q '^PASS: ' "$out" 2>/dev/null ||
		grep -q '^FAIL: ' "$out"; then
		rc=1
		grep -q '^PASS: \|^FAIL: ' "$out" 2>/dev/null ||
			echo "FAIL: boot-$short/boot (VM exit $vrc; $(tail -3 "$dir/serial.log" | tr -d '\r'))"
		echo "boot-$short: artifacts in $dir"
	fi
	echo "boot-$short: $kver: $(cat "$dir/times" 2>/dev/null)"
done
exit $rc
