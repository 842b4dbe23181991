#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Repeat one VM test file and count its verdicts: how often each test of the
# file passed, alone or with a busy neighbour guest beside it, as when CI's
# host runs another VM. docs/testing.md keeps the counts for the files that
# compare CCAs' behaviour.
#
# Usage: tests/vm/repeat.sh [-n N] [-b] [-k KVER] FILE
#   FILE      a test file of tests/vm/ (72-incast or 72-incast.sh)
#   -n N      runs, one after the other (default 5)
#   -b        a busy neighbour: another guest of the same kernel spins its
#             vCPU for as long as the runs take (one host core's worth)
#   -k KVER   the kernel line (default 7.3)
#
# Prints each run's results as tests/vm/run.sh does, then a line per test,
# "repeat: NAME passed P of N", and "repeat: FILE P of N runs passed".
# Exits 0 if every run passed.
set -eu

vmdir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$vmdir/../.." && pwd)
# shellcheck source-path=SCRIPTDIR/../..
. "$root/scripts/vm/common.sh"

n=5 busy=0 kver=7.3
while getopts "n:bk:h" opt; do
	case $opt in
	n) n=$OPTARG ;;
	b) busy=1 ;;
	k) kver=$OPTARG ;;
	*)
		sed -n '/^# Usage:/,/^# Exits/p' "$0" | sed 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || ccaas_die "usage: $0 [-n N] [-b] [-k KVER] FILE"
file=$(basename "${1%.sh}")
[ -f "$vmdir/$file.sh" ] || ccaas_die "no test file tests/vm/$file.sh"

out=$(mktemp -d)
npid=""
stop_neighbour() {
	[ -z "$npid" ] || kill "$npid" 2>/dev/null || true
	[ -z "$npid" ] || wait "$npid" 2>/dev/null || true
	rm -rf "$out"
}
trap stop_neighbour EXIT
if [ "$busy" = 1 ]; then
	# A guest that spins until it is killed: the host loses a core to it,
	# as to another test VM. Its limit only bounds a forgotten one.
	"$root/scripts/vm-run.sh" -q -t 14400 -d "$out/neighbour" "$kver" -- \
		sh -c 'while :; do :; done' >/dev/null 2>&1 &
	npid=$!
	echo "repeat: a busy neighbour guest ($kver) runs beside the runs"
fi

passed_runs=0
declare -A pass_count
for i in $(seq "$n"); do
	echo "=== repeat: $file, run $i of $n$([ "$busy" = 1 ] && echo ", busy neighbour")"
	if "$vmdir/run.sh" -k "$kver" -t "$file" >"$out/run.$i" 2>&1; then
		passed_runs=$((passed_runs + 1))
	fi
	cat "$out/run.$i"
	while read -r verdict name; do
		name=${name#vm-*/}
		pass_count[$name]=$(( ${pass_count[$name]:-0} + (verdict == 1) ))
	done < <(sed -nE 's/^PASS: (.*)/1 \1/p; s/^FAIL: (.*)/0 \1/p' "$out/run.$i")
done
for name in $(printf '%s\n' "${!pass_count[@]}" | sort); do
	echo "repeat: $name passed ${pass_count[$name]} of $n"
done
echo "repeat: $file $passed_runs of $n runs passed$([ "$busy" = 1 ] && echo " (busy neighbour)")"
[ "$passed_runs" = "$n" ]
