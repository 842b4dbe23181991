#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suites of kunit/*_test.c in the sanitizer kernel, under its
# KASAN, lockdep, UBSAN and kmemleak: build the kernel (scripts/
# debug-kernel.sh, cached) and the modules against it if needed, then boot
# it with tests/vm/05-kunit.sh, which loads ccaas_kunit.ko after the core
# and the CCAs.
#
# Usage: scripts/kunit.sh [-t PATTERN]
#
#   -t PATTERN  run only suites matching PATTERN, a KUnit filter glob
#               ("suite_glob" or "suite_glob.case_glob"); a plain word with
#               no glob characters matches suites containing it.
#
# Prints one "PASS: vm-debug/kunit.<suite>.<case>" or "FAIL: ..." line per
# case and "PASS: vm-debug/kunit" when every declared suite ran its whole
# plan; a suite without results, a crashed kernel or a sanitizer report
# fails. Exits non-zero on any FAIL.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=versions.conf
. scripts/versions.conf

pattern=""
while getopts t:h opt; do
	case $opt in
	t) pattern=$OPTARG ;;
	*)
		sed -n '/^# Usage:/,/^#   *no glob/p' "$0" | sed 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
done
case $pattern in
"" | *[][*?.]*) ;;
*) pattern="*$pattern*" ;;
esac
# No suite can match: nothing to boot for (make check T=... passes its
# pattern here whatever it names).
if [ -n "$pattern" ]; then
	matched=$(python3 - "$pattern" kunit <<-'EOF'
		import fnmatch, sys
		sys.path.insert(0, "tests/vm/lib")
		from kunit_results import declared_suites
		g = sys.argv[1].split(".", 1)[0]
		print(sum(fnmatch.fnmatchcase(s, g) for s in declared_suites(sys.argv[2])))
	EOF
	)
	if [ "$matched" = 0 ]; then
		echo "kunit: no suite matches '$pattern'"
		exit 0
	fi
fi

make --no-print-directory "build/$KVER_DEBUG/.built" >/dev/null ||
	{ echo "FAIL: kunit/build (make build/$KVER_DEBUG/.built)"; exit 1; }
CCAAS_KUNIT_FILTER=$pattern exec tests/vm/run.sh -k "$KVER_DEBUG" -t 05-kunit
