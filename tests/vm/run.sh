#!/bin/bash
# The VM integration suite: for each kernel, one VM boot runs the test files
# tests/vm/[0-9][0-9]-*.sh (through tests/vm/lib/driver.sh) and the host
# prints their results as `PASS: vm-<short kernel>/<name>`.
#
# Usage: tests/vm/run.sh [-k KVERS] [-L KVERS] [-t PATTERN] [-X PATTERN] [-x alone|shared|lane1] [-d] [-j] [-v]
#   -k KVERS    kernels, comma/space separated, full or short (6.1,6.12);
#               default: all pinned in scripts/versions.conf
#   -L KVERS    the kernels of the whole run, when this one runs a part of
#               them (make check's lanes): the oldest, newest and spare
#               line of `# vm-lines:` are chosen among these (default -k)
#   -t PATTERN  only test files whose name matches PATTERN (a glob if it has
#               * ? or [, else a substring), and in other files only the
#               tests whose name matches (the file's top-level code still runs)
#   -X PATTERN  leave out the test files whose name matches PATTERN
#   -x alone    only the files marked `# vm-alone: yes`: those that compare
#               CCAs' behaviour on the emulated CPU, which make check runs
#               with no more guests than the host has cores
#   -x shared   only the other files, which may share the host, less
#               those marked `# vm-lane: 1`
#   -x lane1    only the files marked `# vm-lane: 1`: shared files that make
#               check runs in its first lane, which has room
#   -d          the sanitizer kernel runs in another lane: leave the files
#               marked `# vm-debug: yes` to it on the Debian kernel of its
#               own source (DEBUG_LINE in versions.conf)
#   -j          run the kernels' VMs in parallel (one vCPU each)
#   -v          show the VMs' consoles (lines prefixed with "  | ")
#
# Tests that never reported (file timed out, VM died) are printed as FAIL,
# a kernel Oops/panic/WARNING as FAIL: vm-<k>/kernel_oops.  Exit status 1 if
# anything failed.
set -eu

vmdir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$vmdir/../.." && pwd)
cd "$root" || exit 1
# shellcheck source-path=SCRIPTDIR source-path=SCRIPTDIR/../..
. "$root/scripts/vm/common.sh"
. "$vmdir/lib.sh"

usage() {
	sed -n '/^# Usage:/,/^#$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# the modules' build (make coverage builds its own, with gcov)
build=${CCAAS_BUILD_DIR:-$root/build}
kvers="" pattern="" parallel=0 verbose=0 alone="" exclude="" debug_twin="" lines=""
while getopts "k:L:t:X:x:djvh" opt; do
	case "$opt" in
	k) kvers=${OPTARG//,/ } ;;
	L) lines=${OPTARG//,/ } ;;
	t) pattern=$OPTARG ;;
	x) alone=$OPTARG ;;
	d) debug_twin=$(ccaas_resolve_kver "$DEBUG_LINE") ;;
	X) exclude=$OPTARG ;;
	j) parallel=1 ;;
	v) verbose=1 ;;
	*) usage ;;
	esac
done
case "$alone" in "" | alone | shared | lane1) ;; *) usage ;; esac
[ -n "$kvers" ] || kvers=$(ccaas_all_kvers)
[ -n "$lines" ] || lines=$kvers

# file_limit FILE: the file's time limit in seconds
file_limit() {
	local l m=${CCAAS_VM_FILE_TIMEOUT_MIN:-0}
	l=$(sed -nE 's/^# vm-timeout: *([0-9]+).*/\1/p' "$1" | head -n 1)
	l=${l:-${CCAAS_VM_FILE_TIMEOUT:-300}}
	# CCAAS_VM_FILE_TIMEOUT_MIN: a floor for longer runs (make fuzz)
	l=$((l > m ? l : m))
	echo $((l * ${time_scale:-1}))
}

# select_files KVER: set files (the test files for KVER, in order) and
# vm_limit (every file's limit plus time to boot and clean up). The
# sanitizer kernel runs only the files marked `# vm-debug: yes`, the
# lifetime-sensitive ones (its KASAN and lockdep make it several times
# slower), and `# vm-debug: only`, those that need its fault injection.
select_files() {
	local f req debian
	files=()
	# The sanitizer kernel is about five times slower: its files get
	# three times their limits (CCAAS_VM_TIME_SCALE in the guest).
	time_scale=1
	[ "$1" != "$KVER_DEBUG" ] || time_scale=3
	for f in "$vmdir"/[0-9][0-9]-*.sh; do
		[ -f "$f" ] || continue
		if [ "$1" = "$KVER_DEBUG" ]; then
			# CCAAS_VM_ALL_FILES=1 (make coverage): every file
			[ "${CCAAS_VM_ALL_FILES:-0}" = 1 ] ||
				grep -qE '^# vm-debug: *(yes|only)' "$f" || continue
		else
			! grep -qE '^# vm-debug: *only' "$f" || continue
			# -d: the sanitizer kernel, built from this kernel's
			# source, runs them in the other lane
			[ "$1" != "$debug_twin" ] ||
				! grep -qE '^# vm-debug: *yes' "$f" || continue
		fi
		[ -z "$exclude" ] || ! ccaas_match "$exclude" "$(basename "$f")" || continue
		# `# vm-lines:` chooses among the Debian kernels; the
		# sanitizer kernel runs what `# vm-debug:` gives it.
		# `# vm-lines: newest`: only on the newest Debian kernel of
		# this run (files whose subject is not the kernel's: the
		# procedures around it)
		# CCAAS_VM_ALL_LINES=1 (make check-full): every line.
		debian=1
		[ "$1" != "$KVER_DEBUG" ] || debian=
		[ "${CCAAS_VM_ALL_LINES:-0}" != 1 ] || debian=
		if [ -n "$debian" ] && grep -qE '^# vm-lines: *newest' "$f" &&
			[ "$1" != "$newest" ]; then
			continue
		fi
		# `# vm-lines: oldest`: likewise, on the oldest
		if [ -n "$debian" ] && grep -qE '^# vm-lines: *oldest' "$f" &&
			[ "$1" != "$oldest" ]; then
			continue
		fi
		# `# vm-lines: edges`: on the oldest and the newest (files of
		# the control plane, whose netlink interface is the same on
		# every line; `make check KERNELS=6.12` runs them on 6.12)
		if [ -n "$debian" ] && grep -qE '^# vm-lines: *edges' "$f" &&
			[ "$1" != "$oldest" ] && [ "$1" != "$newest" ]; then
			continue
		fi
		# `# vm-lines: sanitizer`: on the sanitizer kernel alone when
		# the run has it in the other lane (-d), else on the newest
		if [ -n "$debian" ] && grep -qE '^# vm-lines: *sanitizer' "$f" &&
			{ [ -n "$debug_twin" ] || [ "$1" != "$newest" ]; }; then
			continue
		fi
		# `# vm-lines: spare`: likewise, on the line whose lane has
		# room: the stock kernel of DEBUG_LINE, whose `vm-debug: yes`
		# files the sanitizer kernel takes (else the newest)
		if [ -n "$debian" ] && grep -qE '^# vm-lines: *spare' "$f" &&
			[ "$1" != "$spare" ]; then
			continue
		fi
		# `# vm-requires: CCAAS_HAVE_X`: only where kmod/compat/probe.sh
		# found X in the kernel's headers
		req=$(sed -nE 's/^# vm-requires: *([A-Z0-9_]+).*/\1/p' "$f" | head -n 1)
		if [ -n "$req" ] &&
			! grep -qw "$req" "$build/$1/kmod/compat/compat-generated.h" 2>/dev/null; then
			[ -n "${quiet_skips:-}" ] ||
				echo "vm-$(ccaas_short_kver "$1"): $(basename "$f") not run: $req not in the kernel's headers ($build/$1/kmod/compat/compat-generated.h)" >&2
			continue
		fi
		case "$alone" in
		alone) grep -qE '^# vm-alone: *yes' "$f" || continue ;;
		shared)
			! grep -qE '^# vm-alone: *yes' "$f" || continue
			! grep -qE '^# vm-lane: *1' "$f" || continue ;;
		lane1) grep -qE '^# vm-lane: *1' "$f" || continue ;;
		esac
		# `# vm-full: yes`: a long run (the soak) kept for make
		# check-full, or when the pattern names the file (make soak)
		# or one of its tests
		if grep -qE '^# vm-full: *yes' "$f" && [ "${CCAAS_VM_ALL_LINES:-0}" != 1 ] &&
			{ [ -z "$pattern" ] ||
			  { ! ccaas_match "$pattern" "$(basename "$f")" &&
			    [ -z "$(ccaas_selected_tests "$f" "$pattern")" ]; }; }; then
			continue
		fi
		# `# vm-manual: yes`: only when the pattern names the file
		if grep -qE '^# vm-manual: *yes' "$f" &&
			{ [ -z "$pattern" ] || ! ccaas_match "$pattern" "$(basename "$f")"; }; then
			continue
		fi
		if ccaas_match "$pattern" "$(basename "$f")" ||
			[ -n "$(ccaas_selected_tests "$f" "$pattern")" ]; then
			files+=("$f")
		fi
	done
	vm_limit=120
	for f in ${files[@]+"${files[@]}"}; do
		vm_limit=$((vm_limit + $(file_limit "$f") + 10))
	done
}

# oldest_tier KVER: 1 if KVER is the oldest of several Debian lines and
# the tiers hold (not make check-full): `# vm-oldest-skip:` applies
oldest_tier() {
	if [ "$1" = "$oldest" ] && [ "$oldest" != "$newest" ] &&
		[ "${CCAAS_VM_ALL_LINES:-0}" != 1 ]; then
		echo 1
	else
		echo 0
	fi
}

# The newest Debian kernel of the run, for `# vm-lines: newest`.
newest=$(for k in $lines; do ccaas_resolve_kver "$k"; done | grep -vx "$KVER_DEBUG" |
	sort -V | tail -n 1)

# The oldest, for `# vm-lines: oldest`.
oldest=$(for k in $lines; do ccaas_resolve_kver "$k"; done | grep -vx "$KVER_DEBUG" |
	sort -V | head -n 1)

# The Debian kernel of DEBUG_LINE if the run has it, for `# vm-lines: spare`.
spare=$newest
for k in $lines; do
	k=$(ccaas_resolve_kver "$k")
	[ "$k" = "$KVER_DEBUG" ] || [ "$(ccaas_short_kver "$k")" != "$DEBUG_LINE" ] || spare=$k
done

# Some file must match on some kernel.
any=0
for k in $kvers; do
	select_files "$(ccaas_resolve_kver "$k")"
	[ ${#files[@]} = 0 ] || any=1
done
[ "$any" = 1 ] || [ -n "$alone" ] || ccaas_die "no test file matches '$pattern'"

# The kernel's YNL CLI and schemas, for tests that drive the family with a
# client nobody here wrote (extracted on the host: tar is slow under TCG).
ynl=$("$root/scripts/ynl-prepare.sh") || ynl=""

# report KVER RUNDIR: print the results of one VM run; return 1 on failure
report() {
	local kver=$1 rundir=$2 suite status line name file rc ok=0 t times=""
	suite="vm-$(ccaas_short_kver "$kver")"
	status=$(cat "$rundir/status" 2>/dev/null || echo no-status)
	local results="$rundir/results/results.txt"
	[ -f "$results" ] || : >"$results"

	declare -A reported started ended
	while IFS= read -r line; do
		case "$line" in
		"PASS: "* | "FAIL: "*)
			name=${line#*: }
			reported[$name]=1
			echo "${line%%: *}: $suite/$name"
			[ "${line%%: *}" = PASS ] || ok=1
			;;
		"@start "*) started[${line#@start }]=1 ;;
		"@time "*)
			line=${line#@time }
			times+=" ${line%.sh *} ${line##* }s"
			;;
		"@end "*)
			line=${line#@end }
			ended[${line% *}]=${line##* }
			;;
		[[:space:]]*) echo "$line" ;; # a failure reason
		esac
	done <"$results"

	# Tests that did not report, and why.
	for f in "${files[@]}"; do
		file=$(basename "$f")
		rc=${ended[$file]:-}
		if [ -z "${started[$file]:-}" ]; then
			why="not run: the VM ended before $file ($status)"
		elif [ -z "$rc" ]; then
			why="the VM ended during $file ($status)"
		elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			why="$file timed out after $(file_limit "$f") s"
		else
			why="$file exited with status $rc before reporting"
		fi
		local names
		# the tests the guest ran: on the sanitizer kernel less those of
		# `# vm-debug-skip:`
		names=$(CCAAS_VM_SANITIZER=$([ "$kver" = "$KVER_DEBUG" ] && echo 1 || echo 0) \
			CCAAS_VM_OLDEST=$(oldest_tier "$kver") \
			ccaas_selected_tests "$f" "$pattern" | sed 's/^test_//')
		# a file without test_ functions that failed counts as one test
		if [ -z "$names" ] && [ "${rc:-x}" != 0 ]; then
			names=${file%.sh}
		fi
		for t in $names; do
			[ -z "${reported[$t]:-}" ] || continue
			echo "FAIL: $suite/$t"
			echo "  $t: $why"
			ok=1
		done
	done

	case "$status" in
	ok) ;;
	kernel-error) echo "FAIL: $suite/kernel_oops" ;;
	timeout) echo "FAIL: $suite/vm_timeout" ;;
	*) echo "FAIL: $suite/vm_run" ;;
	esac
	if [ "$status" != ok ]; then
		grep -av '^vm-run: .*: boot' "$rundir/vm-run.log" | sed 's/^/  /'
		ok=1
	fi
	read -r t <"$rundir/times" 2>/dev/null || t="boot=? total=?"
	t=${t//=/ }
	t=${t//none/n\/a}
	echo "$suite: $kver: ${t%% total*} s, total ${t##* } s (qemu start to driver start, whole VM)"
	[ -z "$times" ] || echo "$suite: file times:$times"
	[ "$ok" = 0 ] || echo "$suite: artifacts in $rundir"
	return $ok
}

# run_kernel KVER: boot one VM for KVER, then report
run_kernel() {
	local kver rundir log q=-q mem=512
	kver=$(ccaas_resolve_kver "$1")
	quiet_skips=1 select_files "$kver"
	if [ ${#files[@]} = 0 ]; then
		echo "vm-$(ccaas_short_kver "$kver"): no test file for this kernel matches '$pattern'"
		return 0
	fi
	# KASAN's shadow and kmemleak's pool want more room.
	[ "$kver" != "$KVER_DEBUG" ] || mem=1024
	rundir="${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}/$(date +%Y%m%d-%H%M%S)-$kver-vmtests-$$"
	log=$(mktemp)
	[ "$verbose" = 0 ] || q=""
	local pass=() v
	# the fuzzer's knobs (tests/vm/90-fuzz.sh) and 73-hostcn's HC_ALL,
	# when given
	for v in FUZZ_MESSAGES FUZZ_SECONDS FUZZ_SEED CCAAS_VM_FILE_TIMEOUT_MIN CCAAS_KUNIT_FILTER \
		CCAAS_VM_GCOV HC_ALL; do
		[ -z "${!v:-}" ] || pass+=(-e "$v=${!v}")
	done
	# `# vm-ansible: yes`: the Ansible controller runs on the host
	# (lib/ansible-controller.sh), reaching the guest's sshd through a
	# forwarded port of its own
	local ctl_pid="" port f
	for f in "${files[@]}"; do
		grep -qE '^# vm-ansible: *yes' "$f" || continue
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		pass+=(-N "$port")
		"$vmdir/lib/ansible-controller.sh" "$port" "$rundir/results" &
		ctl_pid=$!
		break
	done
	"$root/scripts/vm-run.sh" $q -t "$vm_limit" -m "$mem" -d "$rundir" "${pass[@]}" \
		-e "CCAAS_ROOT=$root" -e "CCAAS_KO_DIR=$build/$kver" \
		-e "CCACTL=$root/tools/ccactl/ccactl" -e "CCAAS_YNL=$ynl" \
		-e "CCAAS_VM_TIME_SCALE=$time_scale" \
		-e "CCAAS_VM_SANITIZER=$([ "$kver" = "$KVER_DEBUG" ] && echo 1 || echo 0)" \
		-e "CCAAS_VM_OLDEST=$(oldest_tier "$kver")" \
		-e "CCAAS_VM_FILE_TIMEOUT=${CCAAS_VM_FILE_TIMEOUT:-300}" \
		-e "CCAAS_VM_PATTERN=$pattern" \
		"$kver" -- "$vmdir/lib/driver.sh" "${files[@]}" 2>"$log" |
		sed 's/^/  | /' || true
	[ -z "$ctl_pid" ] || { kill "$ctl_pid" 2>/dev/null; wait "$ctl_pid" 2>/dev/null; }
	mkdir -p "$rundir"
	mv "$log" "$rundir/vm-run.log"
	report "$kver" "$rundir"
}

rc=0
if [ "$parallel" = 1 ]; then
	tmp=$(mktemp -d)
	i=0
	for k in $kvers; do
		run_kernel "$k" >"$tmp/$i" 2>&1 &
		i=$((i + 1))
	done
	wait || true
	i=0
	for k in $kvers; do
		cat "$tmp/$i"
		grep -q '^FAIL: ' "$tmp/$i" && rc=1
		i=$((i + 1))
	done
	rm -rf "$tmp"
else
	for k in $kvers; do
		run_kernel "$k" || rc=1
	done
fi
exit $rc
