#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make coverage: line and branch coverage of the ccaas modules (kmod/) by
# the KUnit suites and the VM files, on the sanitizer kernel, which is
# built with CONFIG_GCOV_KERNEL (scripts/debug-kernel/ccaas-debug.config).
#
#  1. the modules are built again for that kernel with GCOV_PROFILE=y, in
#     build/coverage/<release>/ (the usual build is left alone);
#  2. tests/vm/run.sh runs on the sanitizer kernel with that build
#     (CCAAS_BUILD_DIR), every file unless -t says otherwise
#     (CCAAS_VM_ALL_FILES: the behaviour files too, which `make check`
#     keeps to the Debian lines), and the guest copies the modules' gcov
#     counters out at the end (CCAAS_VM_GCOV; the kernel keeps the counters
#     of an unloaded module and adds them up over reloads);
#  3. gcovr (Debian's package, installed if missing) reports per file of
#     kmod/, the table in DIR/coverage.txt, and lists every line no test
#     reached in DIR/uncovered.txt.
#
# A failing test does not stop the report: its file still ran up to the
# failure. The sanitizer kernel has no tc classifiers (docs/testing.md), so
# the files that need them fail there; their lines count as far as they ran.
#
# Usage: scripts/coverage.sh [-t PATTERN]... [-o DIR]
#   -t PATTERN  the VM files to run (tests/vm/run.sh -t); default all. Each
#               -t is a VM of its own, all of them side by side, and the
#               report adds their counters up
#   -o DIR      where the report goes (default: a new directory under
#               ${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts})
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"
# shellcheck source=versions.conf
. "$here/versions.conf"
# shellcheck source=vm/common.sh
. "$here/vm/common.sh"

patterns=() out=""
while getopts "t:o:h" opt; do
	case $opt in
	t) patterns+=("$OPTARG") ;;
	o) out=$OPTARG ;;
	*)
		sed -n '/^# Usage:/,/^#$/p' "$0" | sed 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
done
out=${out:-${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}/coverage-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

if ! dpkg-query -W -f '${Status}' gcovr 2>/dev/null | grep -q 'ok installed'; then
	echo "coverage: installing gcovr" >&2
	apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends gcovr >/dev/null
fi

eval "$(scripts/debug-kernel.sh)"
bdir=$root/build/coverage/$KVER
mkdir -p "$bdir"
rsync -a --delete --delete-excluded --exclude '*.o' --exclude '*.ko' --exclude '*.cmd' \
	--exclude '*.mod*' --exclude '*.gc*' --exclude 'compat-generated.h' \
	Kbuild kmod include kunit "$bdir/"
# stale counters of an older build would not match its notes
find "$bdir" -name '*.gcda' -delete
echo "coverage: building the modules with gcov in build/coverage/$KVER" >&2
make -s -C "$KDIR" M="$bdir" GCOV_PROFILE=y CCAAS_TEST_MODULES=m \
	CCAAS_KUNIT_MODULE=m modules >"$out/build.log" 2>&1 ||
	{ tail -20 "$out/build.log" >&2; ccaas_die "module build failed ($out/build.log)"; }
make -s ccactl >/dev/null


# One VM per -t pattern, side by side; each run's counters become a gcovr
# tracefile, and the report adds them up.
tracefile() {
	gcovr -r "$bdir" --object-directory "$bdir" --gcov-executable gcov \
		--filter "$bre/kmod/" --exclude "$bre/kmod/test/" "$@"
}
# the filters are regular expressions: the build's path, escaped
bre=$(python3 -c 'import re, sys; print(re.escape(sys.argv[1]))' "$bdir")
[ ${#patterns[@]} -gt 0 ] || patterns=("")
echo "coverage: the VM files on $KVER, ${#patterns[@]} VM(s) side by side (results in $out/vm-N)" >&2
pids=()
for i in "${!patterns[@]}"; do
	p=${patterns[$i]}
	CCAAS_BUILD_DIR=$root/build/coverage CCAAS_VM_ALL_FILES=1 CCAAS_VM_GCOV=1 \
		CCAAS_ARTIFACTS=$out/vm-$i tests/vm/run.sh -k "$KVER" ${p:+-t "$p"} \
		>"$out/vm-$i.log" 2>&1 &
	pids+=($!)
done
for pid in "${pids[@]}"; do
	wait "$pid" || true
done
cat "$out"/vm-*.log >"$out/vm.log"
passed=$(grep -c '^PASS' "$out/vm.log" || true)
failed=$(grep -c '^FAIL' "$out/vm.log" || true)
echo "coverage: the runs: $passed passed, $failed failed" >&2
adds=()
for i in "${!patterns[@]}"; do
	gcda=$(find "$out/vm-$i" -path '*/results/gcov' -type d | head -n 1)
	if [ -z "$gcda" ]; then
		echo "coverage: WARNING: the guest of vm-$i copied no gcov counters (see $out/vm-$i.log)" >&2
		continue
	fi
	# the counters next to the notes the build wrote, one run at a time;
	# only the modules' own objects: the KUnit module and the test
	# modules also compile the helpers of kmod/include/ and would credit
	# them with calls the modules never make
	find "$bdir" -name '*.gcda' -delete
	(cd "$gcda" && find ./kmod -name '*.gcda' -not -path './kmod/test/*') | while read -r g; do
		cp "$gcda/$g" "$bdir/$g"
	done
	tracefile --json -o "$out/run-$i.json" >>"$out/gcovr.log" 2>&1 ||
		ccaas_die "gcovr failed on vm-$i's counters (see $out/gcovr.log)"
	adds+=(-a "$out/run-$i.json")
done
[ ${#adds[@]} -gt 0 ] || ccaas_die "no counters from any VM"
find "$bdir" -name '*.gcda' -delete

report() {
	gcovr -r "$bdir" "${adds[@]}" "$@" 2>>"$out/gcovr.log" ||
		ccaas_die "gcovr failed (see $out/gcovr.log)"
}
{
	echo "coverage of kmod/ on $KVER: KUnit and the VM files${patterns[*]:+ matching ${patterns[*]}}"
	echo "(the runs: $passed passed, $failed failed; see vm.log)"
	echo
	report --txt --sort-uncovered
	echo
	echo "branches:"
	report --txt --branches
} >"$out/coverage.txt"
# every line no test reached, file by file
report --json-pretty -o "$out/coverage.json" >>"$out/gcovr.log"
python3 - "$out/coverage.json" >"$out/uncovered.txt" <<-'EOF'
	import json, sys
	for f in sorted(json.load(open(sys.argv[1]))["files"], key=lambda f: f["file"]):
	    miss = [l["line_number"] for l in f["lines"] if l["count"] == 0 and not l.get("gcovr/noncode")]
	    if miss:
	        print("%s: %s" % (f["file"], " ".join(map(str, miss))))
EOF
cat "$out/coverage.txt"
echo "coverage: $out/coverage.txt, $out/uncovered.txt" >&2
