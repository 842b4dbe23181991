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
#   CCAAS_VM_ALL_LINES=1  (make check-full) lift the `# vm-lines:` tiers:
#                       every VM file on every line its group runs on
#   T=PATTERN           run only tests whose name matches PATTERN
#   SUITES="build ccactl kunit vm boot demo"   suites to run (default: all;
#                       the KUnit suites run in the sanitizer kernel's lane
#                       with the vm suite, or alone as "kunit")
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

# The time budget (docs/testing.md): 35 minutes when the caches are warm,
# 60 on a new machine (the sanitizer kernel, the trixie root and the
# kernel packages made first); CI stops a run at 90.
BUDGET_WARM=2100
BUDGET_COLD=3600
budget=$BUDGET_WARM
case " $KERNELS " in
*" debug "*)
	[ -e "$CCAAS_CACHE/debug/$(scripts/debug-kernel.sh -n)/.ready" ] || budget=$BUDGET_COLD ;;
esac

# wait_flag FILE PID: until FILE exists, or PID (the lane that makes it)
# has ended
wait_flag() {
	while [ ! -e "$1" ] && kill -0 "$2" 2>/dev/null; do sleep 2; done
}

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
	if DEMO_PREBUILT=1 DEMO_KERNEL=$k scripts/demo.sh >"$out" 2>&1; then
		echo "PASS: demo/make_demo"
	else
		echo "FAIL: demo/make_demo (see $out)"
		tail -n 20 "$out"
	fi
}

# build_modules KVER: the modules for KVER, with W=1, into build/KVER/
build_modules() {
	if make --no-print-directory "build/$1/.built" W=1 \
		> "$CCAAS_ARTIFACTS/build-$1.log" 2>&1; then
		echo "built modules for $1"
	else
		echo "FAIL: setup/modules-$1 (see $CCAAS_ARTIFACTS/build-$1.log)"
		tail -20 "$CCAAS_ARTIFACTS/build-$1.log"
	fi
}

suite() {
	local name=$1 label=$1 a prev=""
	shift
	case " $SUITES " in *" $name "*) ;; *) return 0 ;; esac
	# the stage's name in the times: the suite, and its kernels (-k) and
	# group (-x) if it has them
	for a in "$@"; do
		case "$prev" in
		-k) label="$label $(for k in $a; do ccaas_short_kver "$k"; done | tr '\n' ' ')" ;;
		-x) label="$label($a)" ;;
		esac
		prev=$a
	done
	echo "=== suite $name: $*"
	local t0
	t0=$(date +%s)
	"$@" 2>&1 || echo "(suite $name exited $?)"
	echo "=== suite ${label% } took $(($(date +%s) - t0)) s"
}

{
	echo "=== installing dependencies"
	if ! scripts/deps.sh; then
		echo "FAIL: setup/deps"
	fi

	if ! make --no-print-directory ccactl WERROR=1 > "$CCAAS_ARTIFACTS/ccactl-build.log" 2>&1; then
		echo "FAIL: setup/ccactl (see $CCAAS_ARTIFACTS/ccactl-build.log)"
		tail -20 "$CCAAS_ARTIFACTS/ccactl-build.log"
	fi

	# Two lanes, one single-vCPU guest each, one per core
	# (docs/testing.md has the times they were balanced by):
	#
	#  lane 1: the newest Debian line's modules, the sanitizer kernel
	#          (built here if its inputs changed, beside lane 2's first
	#          steps), its modules, its files
	#          (KUnit first); the build suite (on the host, beside lane
	#          2's guest); then the files that compare CCAs' behaviour
	#          (`# vm-alone: yes`) on the oldest line, make demo, and the
	#          boot suite (systemd as init) on the newest line;
	#  lane 2: the Debian lines' modules, the ccactl suite, the Debian
	#          kernels' other files (the fleet rollout on DEBUG_LINE's,
	#          `vm-lines: spare`), the vm-alone files on the newest line.
	#
	# A vm-alone file shares the host with one other guest at most and
	# starts only once the modules are built and the build suite is done
	# (each lane waits for the other's flag). The sanitizer
	# kernel is built from DEBUG_LINE's source: with it in the run, its
	# `vm-debug: yes` files are not run again on that line's Debian
	# kernel (run.sh -d).
	lanes=$(mktemp -d)
	lane1_log=$CCAAS_ARTIFACTS/check-lane1-$(date +%Y%m%d-%H%M%S).log
	oldest=$(echo "$edges" | awk '{print $1}')
	newest=$(echo "$edges" | awk '{print $NF}')
	[ "$oldest" != "$newest" ] || newest=""
	alone() {
		[ -n "$1" ] || return 0
		suite vm tests/vm/run.sh -k "$1" -L "$stock" -x alone ${T:+-t "$T"}
	}
	# With the sanitizer kernel in the run and cached, lane 1 builds the
	# newest line's modules first (lane 2 needs them last), and lane 2 the
	# others. Not on a new machine: there the newest line's modules need
	# its build root made first (minutes), and the sanitizer kernel's
	# build, the longest stage, must start at once.
	lane1_mods=""
	if [ "$kvers" != "$stock" ] && [ "$budget" = "$BUDGET_WARM" ]; then
		lane1_mods=$newest
	fi
	{
		if [ -n "$lane1_mods" ]; then
			build_modules "$lane1_mods"
			touch "$lanes/built-lane1"
		fi
		# KUnit runs as the first of the sanitizer kernel's files
		# (tests/vm/05-kunit.sh); on its own (scripts/kunit.sh, which
		# builds that kernel if needed) when the run has no sanitizer
		# kernel, no vm suite, or a pattern (which it takes as a KUnit
		# filter)
		kunit_alone=1
		if [ "$kvers" != "$stock" ]; then
			echo "=== sanitizer kernel $KVER_DEBUG (cached by content; a cold build takes ~8 min)"
			t0=$(date +%s)
			if ! scripts/debug-kernel.sh > "$CCAAS_ARTIFACTS/debug-kernel.log" 2>&1; then
				echo "FAIL: setup/debug-kernel (see $CCAAS_ARTIFACTS/debug-kernel.log)"
				tail -20 "$CCAAS_ARTIFACTS/debug-kernel.log"
			fi
			echo "=== sanitizer kernel took $(($(date +%s) - t0)) s"
			build_modules "$KVER_DEBUG"
			if [ -n "$T" ]; then
				suite vm tests/vm/run.sh -k "$KVER_DEBUG" -X 05-kunit -t "$T"
			else
				suite vm tests/vm/run.sh -k "$KVER_DEBUG"
				case " $SUITES " in *" vm "*) kunit_alone="" ;; esac
			fi
		fi
		[ -z "$kunit_alone" ] || suite kunit scripts/kunit.sh ${T:+-t "$T"}
		wait_flag "$lanes/built" $$
		# the build suite (host only: W=1, checkpatch, DKMS, the
		# packages) beside lane 2's guest, not ahead of it
		suite build env T="$T" tests/build/run.sh $stock
		touch "$lanes/build-suite"
		# the shared files marked `# vm-lane: 1` (28-reductions, on
		# the spare line), in this lane, which has room
		[ -z "${stock// /}" ] ||
			suite vm tests/vm/run.sh -k "$stock" -L "$stock" -x lane1 ${T:+-t "$T"}
		alone "$oldest"
		[ -n "$T" ] || suite demo demo_run
		# systemd booting with ccaas installed (tests/boot/run.sh) on
		# the newest line (make check-full: the oldest too; systemd
		# and the units are the host's on every line, and the newest
		# runs every boot test, the oldest a part). The packages
		# installed in a booted system (DKMS compiling under TCG: a
		# 12 min VM on 6.1, more than the budget has) only in make
		# check-full, on the oldest line; make check installs them in
		# 7.3's build root instead (the build suite's deb-root).
		if [ -n "${stock// /}" ]; then
			deb_lines="" boot_lines=${newest:-$oldest}
			if [ "${CCAAS_VM_ALL_LINES:-0}" = 1 ]; then
				deb_lines=$(ccaas_short_kver "$oldest")
				boot_lines=$edges
			fi
			case "$T" in "" | *boot*) suite boot env BOOT_DEB_LINES="$deb_lines" tests/boot/run.sh $boot_lines ;; esac
		fi
	} >"$lane1_log" 2>&1 &
	lane1=$!
	# an interrupted run takes lane 1 down too (its VMs end with it)
	trap 'kill $lane1 2>/dev/null; pkill -TERM -P $lane1 2>/dev/null' INT TERM
	{
		# the Debian lines' modules while lane 1 builds the newest's (in
		# its build root, made there on a new machine), then the
		# sanitizer kernel
		echo "=== building modules for: $stock${lane1_mods:+ (lane 1: $lane1_mods)}"
		t0=$(date +%s)
		for kver in $stock; do
			[ "$kver" = "$lane1_mods" ] || build_modules "$kver"
		done
		echo "=== modules for the Debian lines took $(($(date +%s) - t0)) s"
		suite ccactl env T="$T" tests/ccactl/run.sh
		[ -z "$lane1_mods" ] || wait_flag "$lanes/built-lane1" $lane1
		touch "$lanes/built"
		if [ -n "${stock// /}" ]; then
			suite vm tests/vm/run.sh -k "$stock" -x shared \
				$([ "$kvers" = "$stock" ] || echo -d) ${T:+-t "$T"}
		fi
		# the vm-alone files not beside the build suite's compilers
		wait_flag "$lanes/build-suite" $lane1
		alone "$newest"
	} 2>&1 | tee "$lanes/2"
	wait "$lane1"
	echo "=== lane 1 (sanitizer kernel, then the vm-alone files on $oldest; $lane1_log):"
	cat "$lane1_log"
	rm -rf "$lanes"
} 2>&1 | tee "$log"

passed=$(grep -c '^PASS: ' "$log")
failed=$(grep -c '^FAIL: ' "$log")
total=$(($(date +%s) - start))
echo "make check took $total s; log: $log"
echo "stage times:"
grep -E '^=== (suite .* took|sanitizer kernel took|modules for .* took)' "$log" | sed 's/^=== /  /'
if [ "${CCAAS_VM_ALL_LINES:-0}" = 1 ]; then
	echo "budget: none (make check-full: the vm-lines tiers lifted)"
else
	echo "budget: $total s of $budget s ($([ "$budget" = "$BUDGET_WARM" ] && echo warm || echo cold: the sanitizer kernel was built)); CI stops at 5400 s"
	[ "$total" -le "$budget" ] || echo "budget: OVER by $((total - budget)) s"
fi
if [ "$failed" -gt 0 ]; then
	echo "failed tests:"
	grep '^FAIL: ' "$log" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
