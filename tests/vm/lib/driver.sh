#!/bin/bash
# Guest side of tests/vm/run.sh: runs inside the VM (scripts/vm-run.sh).
#
# Usage: driver.sh TEST_FILE...
# Each file runs in its own bash with tests/vm/lib.sh sourced, under its time
# limit (`# vm-timeout: N` header, else $CCAAS_VM_FILE_TIMEOUT, else 300 s).
# $RESULTS/results.txt gets the tests' PASS/FAIL lines between markers
#   @start FILE       and       @end FILE STATUS
# that the host uses to account for tests that never reported.
set -u

lib="$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
# shellcheck disable=SC1090 # lib.sh, next to this directory
. "$lib"
export CCAAS_RESULTS_FILE="$RESULTS/results.txt"
: >>"$CCAAS_RESULTS_FILE"

for f in "$@"; do
	name=$(basename "$f")
	limit=$(sed -nE 's/^# vm-timeout: *([0-9]+).*/\1/p' "$f" | head -n 1)
	limit=${limit:-${CCAAS_VM_FILE_TIMEOUT:-300}}
	[ "$limit" -ge "${CCAAS_VM_FILE_TIMEOUT_MIN:-0}" ] || limit=$CCAAS_VM_FILE_TIMEOUT_MIN
	echo "=== $name (limit $limit s)"
	echo "@start $name" >>"$CCAAS_RESULTS_FILE"
	# timeout runs the file in a process group of its own and kills it all
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout -k 5 "$limit" bash -c '. "$1" && . "$2" && ccaas_run_tests "$2"' \
		driver "$lib" "$f"
	rc=$?
	echo "@end $name $rc" >>"$CCAAS_RESULTS_FILE"
	netns_cleanup
done
echo "=== done"
