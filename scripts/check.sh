#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what the tests need, build, run every suite, and sum
# their PASS:/FAIL: lines into one closing line "N passed, N failed".
#
#   KERNELS="6.1 6.12 7.3 debug"  kernel lines (pinned short names) for builds
#                       and VM tests (default: all of them; "debug" is the
#                       sanitizer kernel, built here, which runs the
#                       `# vm-debug: yes` VM files). The `# vm-alone: yes`
#                       files run on the oldest and the newest Debian line
#                       given (6.1 and 7.3 by default), the others on all.
#   T=PATTERN           run only tests whose name matches PATTERN
#   SUITES="build ccactl kunit vm boot demo"   suites to run (default: all)
set -u
cd "$(dirname "$0")/.."
root=$PWD
. scripts/vm/common.sh

KERNELS=${KERNELS:-6.1 6.12 7.3 debug}
T=${T:-}
SUITES=${SUITES:-build ccactl kunit vm boot demo}
export CCAAS_CACHE=${CCAAS_CACHE:-/var/cache/ccaas}
export CCAAS_ARTIFACTS=${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}
mkdir -p "$CCAAS_ARTIFACTS"
log=$CCAAS_ARTIFACTS/check-$(date +%Y%m%d-%H%M%S).log
start=$(date +%s)

kver_of() {
	ccaas_resolve_kver "$1"
}
kvers=$(for k in $KERNELS; do kver_of "$k"; done | tr '\n' ' ')
# the Debian kernels among them: the build suite's W=1, DKMS and checkpatch
stock=$(for k in $kvers; do [ "$k" = "$KVER_DEBUG" ] || echo "$k"; done | tr '\n' ' ')
# the oldest and the newest of those, for the files that compare CCAs
edges=$(echo "$stock" | tr ' ' '\n' | sed '/^$/d' | sort -V | sed -n '1p;$p' | sort -u | tr '\n' ' ')

# make demo, whose steps check what they show (scripts/demo.sh): one test,
# on DEBUG_LINE's Debian kernel if the run has it, else on its newest
demo_run() {
	local out k=""
	out=$CCAAS_ARTIFACTS/demo-$(date +%Y%m%d-%H%M%S).log
	for k in $stock; do
		[ "$(ccaas_short_kver "$k")" = "$DEBUG_LINE" ] && break
	done
	[ -n "$k" ] || { echo "demo: no Debian kernel in the run"; return 0; }
	if DEMO_KERNEL=$k scripts/demo.sh >"$out" 2>&1; then
		echo "PASS: demo/make_demo"
	else
		echo "FAIL: demo/make_demo (see $out)"
		tail -n 20 "$out"
	fi
}

suite() {
	local name=$1
	shift
	case " $SUITES " in *" $name "*) ;; *) return 0 ;; esac
	echo "=== suite $name: $*"
	local t0
	t0=$(date +%s)
	"$@" 2>&1 || echo "(suite $name exited $?)"
	echo "=== suite $name took $(($(date +%s) - t0)) s"
}

{
	echo "=== installing dependencies"
	if ! scripts/deps.sh; then
		echo "FAIL: setup/deps"
	fi

	case " $kvers " in
	*" $KVER_DEBUG "*)
		echo "=== sanitizer kernel $KVER_DEBUG (cached by content; a cold build takes ~10 min)"
		t0=$(date +%s)
		if ! scripts/debug-kernel.sh > "$CCAAS_ARTIFACTS/debug-kernel.log" 2>&1; then
			echo "FAIL: setup/debug-kernel (see $CCAAS_ARTIFACTS/debug-kernel.log)"
			tail -20 "$CCAAS_ARTIFACTS/debug-kernel.log"
		fi
		echo "=== sanitizer kernel took $(($(date +%s) - t0)) s"
		;;
	esac

	echo "=== building modules for: $kvers"
	for kver in $kvers; do
		if make --no-print-directory "build/$kver/.built" W=1 \
			> "$CCAAS_ARTIFACTS/build-$kver.log" 2>&1; then
			echo "built modules for $kver"
		else
			echo "FAIL: setup/modules-$kver (see $CCAAS_ARTIFACTS/build-$kver.log)"
			tail -20 "$CCAAS_ARTIFACTS/build-$kver.log"
		fi
	done
	if ! make --no-print-directory ccactl > "$CCAAS_ARTIFACTS/ccactl-build.log" 2>&1; then
		echo "FAIL: setup/ccactl (see $CCAAS_ARTIFACTS/ccactl-build.log)"
		tail -20 "$CCAAS_ARTIFACTS/ccactl-build.log"
	fi

	# The VM suite on two lanes, one single-vCPU guest per core. The
	# sanitizer kernel's lane starts first, beside the build, ccactl and
	# KUnit suites (mostly one core's work). While the sanitizer kernel
	# runs its files (the soak last) on one lane, the other runs the
	# Debian kernels' files that may share the host (the fleet rollout
	# on DEBUG_LINE's, `vm-lines: spare`). Then the files that compare CCAs' behaviour
	# (`# vm-alone: yes`), on the oldest and newest Debian lines, one
	# guest per core and nothing else on the host. The boot test (systemd
	# as init, ccaas installed) runs in the second lane. The sanitizer kernel
	# is built from DEBUG_LINE's source: with it in the run, its
	# `vm-debug: yes` files are not run again on that line's Debian
	# kernel (run.sh -d). docs/testing.md has the times.
	vm_dbg=$(mktemp) debug_lane=""
	if [ "$kvers" != "$stock" ]; then
		debug_lane=1
		{
			if [ -n "$T" ]; then
				suite vm tests/vm/run.sh -k "$KVER_DEBUG" -t "$T"
			else
				suite vm tests/vm/run.sh -k "$KVER_DEBUG"
			fi
			# then make demo (a Debian kernel) on this lane's core
			[ -n "$T" ] || suite demo demo_run
		} >"$vm_dbg" 2>&1 &
	fi
	suite build env T="$T" tests/build/run.sh $stock
	suite ccactl env T="$T" tests/ccactl/run.sh
	suite kunit scripts/kunit.sh ${T:+-t "$T"}
	if [ -n "${stock// /}" ]; then
		suite vm tests/vm/run.sh -k "$stock" -x shared ${debug_lane:+-d} ${T:+-t "$T"}
		# systemd booting with ccaas installed (tests/boot/run.sh)
		# on the oldest and newest lines: what it tests is systemd's
		case "$T" in "" | *boot*) suite boot tests/boot/run.sh $edges ;; esac
	fi
	[ -n "$debug_lane" ] || [ -n "$T" ] || suite demo demo_run
	wait
	cat "$vm_dbg"
	rm -f "$vm_dbg"
	if [ -n "${edges// /}" ]; then
		suite vm tests/vm/run.sh -k "$edges" -x alone -j ${T:+-t "$T"}
	fi
} 2>&1 | tee "$log"

passed=$(grep -c '^PASS: ' "$log")
failed=$(grep -c '^FAIL: ' "$log")
echo "make check took $(($(date +%s) - start)) s; log: $log"
if [ "$failed" -gt 0 ]; then
	echo "failed tests:"
	grep '^FAIL: ' "$log" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
