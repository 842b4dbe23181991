#!/bin/bash
# Guest side of tests/vm/run.sh: runs inside the VM (scripts/vm-run.sh).
#
# Usage: driver.sh TEST_FILE...
# Each file runs in its own bash with tests/vm/lib.sh sourced, under its time
# limit (`# vm-timeout: N` header, else $CCAAS_VM_FILE_TIMEOUT, else 300 s).
# $RESULTS/results.txt gets the tests' PASS/FAIL lines between markers
#   @start FILE       and       @end FILE STATUS
# that the host uses to account for tests that never reported, and before
# the end "@time FILE SECONDS" (guest clock).
#
# After each file the kernel's own reports since the previous file are
# checked (lockdep, RCU, sleep-in-atomic, UBSAN, list corruption: those
# that do not panic) and, on a kernel with kmemleak, a scan is made: any
# report is a FAIL named after the file, "kernel_reports_<file>", with the
# report's first lines. On such a kernel a clean file also gets a PASS.
set -u

lib="$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
# shellcheck disable=SC1090 # lib.sh, next to this directory
. "$lib"
export CCAAS_RESULTS_FILE="$RESULTS/results.txt"
: >>"$CCAAS_RESULTS_FILE"

kmemleak=/sys/kernel/debug/kmemleak
[ -w "$kmemleak" ] || kmemleak=""
# Kernel reports that do not stop the kernel; the rest panic
# (oops=panic panic_on_warn=1) and end the VM.
report_pat='BUG:|WARNING:|UBSAN:|KASAN|KFENCE|INFO: (possible|suspicious|trying|task)|circular locking|inconsistent lock state|lock held when returning|list_(add|del) corruption|Call Trace:'

# the printk time of the newest kernel message, as "seconds.micros"
klog_now() {
	dmesg | sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p' | tail -n 1
}

# kernel_reports FILE: the reports since the previous call; kmemleak scan
klog_mark=$(klog_now)
kernel_reports() {
	local stem=${1%.sh} found leaks
	found=$(dmesg | awk -v after="${klog_mark:-0}" '
		match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
			t = substr($0, 2, RLENGTH - 2) + 0
			if (t > after + 0) print
		}' | grep -aE "$report_pat" | head -n 20)
	klog_mark=$(klog_now)
	leaks=""
	if [ -n "$kmemleak" ]; then
		echo scan >"$kmemleak"
		leaks=$(head -n 40 "$kmemleak")
		echo clear >"$kmemleak"
	fi
	if [ -n "$found$leaks" ]; then
		echo "FAIL: kernel_reports_$stem" >>"$CCAAS_RESULTS_FILE"
		printf '%s\n%s\n' "$found" "$leaks" | sed '/^$/d; s/^/    /' |
			tee -a "$CCAAS_RESULTS_FILE"
	elif [ -n "$kmemleak" ]; then
		echo "PASS: kernel_reports_$stem" >>"$CCAAS_RESULTS_FILE"
	fi
}

# make coverage (CCAAS_VM_GCOV=1): the gcov counters of the modules built
# under CCAAS_KO_DIR, copied to $RESULTS/gcov/ under their path in that
# build after every file (the kernel keeps an unloaded module's counters
# and adds its reloads to them, so the last copy holds them all, and a VM
# that dies keeps what its earlier files reached)
gcov_copy() {
	local gcov=/sys/kernel/debug/gcov$CCAAS_KO_DIR g
	[ "${CCAAS_VM_GCOV:-0}" = 1 ] && [ -d "$gcov" ] || return 0
	(cd "$gcov" && find . -name '*.gcda') | while read -r g; do
		mkdir -p "$RESULTS/gcov/$(dirname "$g")"
		cat "$gcov/$g" >"$RESULTS/gcov/$g"
	done
}

# Leaks from before the first test are not ours to report.
if [ -n "$kmemleak" ]; then
	echo scan >"$kmemleak"
	echo clear >"$kmemleak"
fi

for f in "$@"; do
	name=$(basename "$f")
	limit=$(sed -nE 's/^# vm-timeout: *([0-9]+).*/\1/p' "$f" | head -n 1)
	limit=${limit:-${CCAAS_VM_FILE_TIMEOUT:-300}}
	[ "$limit" -ge "${CCAAS_VM_FILE_TIMEOUT_MIN:-0}" ] || limit=$CCAAS_VM_FILE_TIMEOUT_MIN
	limit=$((limit * ${CCAAS_VM_TIME_SCALE:-1}))
	echo "=== $name (limit $limit s)"
	echo "@start $name" >>"$CCAAS_RESULTS_FILE"
	t0=$(date +%s)
	export CCAAS_VM_FILE_LIMIT=$limit
	# timeout runs the file in a process group of its own and kills it all
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout -k 5 "$limit" bash -c '. "$1" && . "$2" && ccaas_run_tests "$2"' \
		driver "$lib" "$f"
	rc=$?
	netns_cleanup
	kernel_reports "$name"
	gcov_copy
	echo "@time $name $(($(date +%s) - t0))" >>"$CCAAS_RESULTS_FILE"
	echo "@end $name $rc" >>"$CCAAS_RESULTS_FILE"
done
echo "=== done"
