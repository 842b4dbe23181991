#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests for ccactl: command line, exit codes, batch mode, netns, man
# page, completion, and the netlink code against a fake "ccaas" family
# (fake_genl.c, loaded with LD_PRELOAD) since the host kernel has no module.
#
#   tests/ccactl/run.sh            builds tools/ccactl first (make -C)
#   CCACTL=/path/ccactl run.sh     tests that binary instead
#
#   T=PATTERN run.sh               report only tests whose name contains PATTERN
#
# Prints one "PASS: ccactl/NAME" or "FAIL: ccactl/NAME" line per test;
# diagnostics start with "# ".  Exits 1 if any test failed.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ccactl-test.XXXXXX")
NETNS_NAME=""
cleanup()
{
	[ -z "$NETNS_NAME" ] || ip netns del "$NETNS_NAME" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

FAILED=0
T=${T:-}
FAMILY_MSG='Error: ccaas generic netlink family not found (is the ccaas_core module loaded?)'
PYTHON=$(command -v /usr/bin/python3 python3 2>/dev/null | head -n1 || true)

# ---- helpers ----

want() { [ -z "$T" ] || [[ "$1" == *"$T"* ]]; }
pass() { want "$1" && echo "PASS: ccactl/$1" || true; }
fail()
{
	want "$1" || return 0
	echo "FAIL: ccactl/$1"
	shift
	[ $# -eq 0 ] || echo "# $*"
	echo "# last command: rc=$RC"
	sed 's/^/# stdout: /' "$TMP/out" | head -n 20
	sed 's/^/# stderr: /' "$TMP/err" | head -n 20
	FAILED=$((FAILED + 1))
}
skip() { want "$1" && echo "# SKIP ccactl/$1: $2" || true; }

# run [VAR=value...] ARGS...: run ccactl (bounded in time); sets RC, OUT, ERR.
run()
{
	local envs=()
	while [ $# -gt 0 ] && [[ "$1" == *=* ]]; do
		envs+=("$1")
		shift
	done
	RC=0
	env ${envs[@]+"${envs[@]}"} timeout 30 "$CCACTL" "$@" \
		>"$TMP/out" 2>"$TMP/err" </dev/null || RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# run_in FILE ARGS...: like run, with FILE as standard input.
run_in()
{
	local input=$1
	shift
	RC=0
	timeout 30 "$CCACTL" "$@" >"$TMP/out" 2>"$TMP/err" <"$input" || RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# check NAME CONDITION...: PASS if every condition (a shell test string) holds.
check()
{
	local name=$1 cond
	shift
	for cond in "$@"; do
		if ! eval "$cond"; then
			fail "$name" "failed: $cond"
			return 0
		fi
	done
	pass "$name"
}

contains() { [[ "$1" == *"$2"* ]]; }

# ---- build ----

RC=0
: >"$TMP/out"
: >"$TMP/err"
if [ -z "${CCACTL:-}" ]; then
	if make -C "$ROOT/tools/ccactl" >"$TMP/out" 2>"$TMP/err"; then
		check build '! grep -qi "warning" "$TMP/out" "$TMP/err"'
	else
		RC=$?
		fail build "make -C tools/ccactl failed"
		exit 1
	fi
	CCACTL=$ROOT/tools/ccactl/ccactl
fi
[ -x "$CCACTL" ] || { echo "# no ccactl binary at $CCACTL"; echo "FAIL: ccactl/build"; exit 1; }
echo "# testing $CCACTL"

# Is the real family there (e.g. run in a guest with the module)?
HAVE_MODULE=false
[ ! -e /sys/module/ccaas_core ] || HAVE_MODULE=true

# ---- version ----

run -V
check version '[ $RC -eq 0 ]' '[[ "$OUT" =~ ^ccactl\ [^[:space:]]+$ ]]' '[ -z "$ERR" ]'
V_OUT=$OUT
run --version
check version_long '[ $RC -eq 0 ]' '[ "$OUT" = "$V_OUT" ]'

# The Makefile's VERSION: the default, then an override, in a scratch O= dir.
if [ -f "$ROOT/tools/ccactl/Makefile" ]; then
	want=0.1.0
	[ ! -f "$ROOT/VERSION" ] || want=$(cat "$ROOT/VERSION")
	RC=0
	(unset VERSION; make -s -C "$ROOT/tools/ccactl" O="$TMP/vb") \
		>"$TMP/out" 2>"$TMP/err" || RC=$?
	got=$("$TMP/vb/ccactl" -V 2>&1 || true)
	check version_default '[ $RC -eq 0 ]' '[ "$got" = "ccactl $want" ]'
	RC=0
	make -s -C "$ROOT/tools/ccactl" O="$TMP/vb" VERSION=9.8.7-test \
		>"$TMP/out" 2>"$TMP/err" || RC=$?
	got=$("$TMP/vb/ccactl" -V 2>&1 || true)
	check version_override '[ $RC -eq 0 ]' '[ "$got" = "ccactl 9.8.7-test" ]'
fi

# ---- help and usage errors ----

run help
check help '[ $RC -eq 0 ]' 'contains "$OUT" "Usage: ccactl"' \
	'[[ "$OUT" =~ OBJECT\ :=\ \{\ cca\ \|\ help\ \} ]]' '[ -z "$ERR" ]'
run -h
check help_option '[ $RC -eq 0 ]' 'contains "$OUT" "Usage: ccactl"'
run cca help
CCA_HELP=$OUT
check help_object '[ $RC -eq 0 ]' 'contains "$OUT" "ccactl cca list"' \
	'contains "$OUT" "ccactl cca show NAME"'
run help cca
check help_help_object '[ $RC -eq 0 ]' '[ "$OUT" = "$CCA_HELP" ]' \
	'contains "$OUT" "ccactl cca list"'

run
check no_arguments '[ $RC -eq 1 ]' '[ -z "$OUT" ]' 'contains "$ERR" "Usage: ccactl"'
run frobnicate list
check unknown_object '[ $RC -eq 1 ]' '[ -z "$OUT" ]' \
	'contains "$ERR" "unknown object \"frobnicate\""'
run cca frob
check unknown_command '[ $RC -eq 1 ]' 'contains "$ERR" "unknown cca command \"frob\""'
run cca show
check missing_argument '[ $RC -eq 1 ]' '[ -z "$OUT" ]' 'contains "$ERR" "missing CCA name"'
run cca list extra
rc1=$RC
run cca show a b
check extra_argument '[ $rc1 -eq 1 ]' '[ $RC -eq 1 ]' 'contains "$ERR" "unexpected argument \"b\""'
run cca show abcdefghijklmnopq
check name_too_long '[ $RC -eq 1 ]' 'contains "$ERR" "invalid CCA name"'
run -x cca list
rc1=$RC
run --bogus cca list
rc2=$RC
run cca list -n foo
rc3=$RC
run -n
check unknown_option '[ $rc1 -eq 1 ]' '[ $rc2 -eq 1 ]' '[ $rc3 -eq 1 ]' '[ $RC -eq 1 ]' \
	'contains "$ERR" "requires an argument"'

# ---- without the kernel module ----

if $HAVE_MODULE; then
	skip family_missing "ccaas_core is loaded here"
else
	run cca list
	check family_missing '[ $RC -eq 2 ]' '[ -z "$OUT" ]' '[ "$ERR" = "$FAMILY_MSG" ]'
	run cca show cca_dctcp
	check family_missing_show '[ $RC -eq 2 ]' '[ "$ERR" = "$FAMILY_MSG" ]'
	run -j cca list
	rc1=$RC out1=$OUT err1=$ERR
	run cca list -j -p
	check json_family_missing '[ $rc1 -eq 2 ]' '[ -z "$out1" ]' '[ "$err1" = "$FAMILY_MSG" ]' \
		'[ $RC -eq 2 ]' '[ -z "$OUT" ]' '[ "$ERR" = "$FAMILY_MSG" ]'
	run c l
	rc1=$RC err1=$ERR
	run cca
	check abbreviations '[ $rc1 -eq 2 ]' '[ "$err1" = "$FAMILY_MSG" ]' \
		'[ $RC -eq 2 ]' '[ "$ERR" = "$FAMILY_MSG" ]'
fi
run cca s
check abbreviation_show '[ $RC -eq 1 ]' 'contains "$ERR" "missing CCA name"'

# ---- batch ----

cat >"$TMP/batch1" <<'EOF'
# a comment line

help   # a trailing comment
cca "help"
cca frob
cca list
EOF
run -b "$TMP/batch1"
check batch_stops_at_bad_line '[ $RC -eq 1 ]' \
	'contains "$ERR" "$TMP/batch1:5: command failed (exit 1)"' \
	'! contains "$ERR" "family not found"' \
	'contains "$OUT" "ccactl cca show NAME"'

if ! $HAVE_MODULE; then
	printf 'help\ncca list\nhelp\n' >"$TMP/batch2"
	run -b "$TMP/batch2"
	check batch_exit_code '[ $RC -eq 2 ]' 'contains "$ERR" "$FAMILY_MSG"' \
		'contains "$ERR" "$TMP/batch2:2: command failed (exit 2)"' \
		'[ "$(grep -c "^Usage: ccactl" "$TMP/out")" -eq 1 ]'
fi

printf 'help\n\ncca show\n' >"$TMP/batch3"
run_in "$TMP/batch3" -b -
check batch_stdin '[ $RC -eq 1 ]' 'contains "$ERR" "<stdin>:3: command failed (exit 1)"'

printf 'help\ncca show "unterminated\n' >"$TMP/batch4"
run -b "$TMP/batch4"
check batch_bad_quote '[ $RC -eq 1 ]' 'contains "$ERR" "unterminated"' \
	'contains "$ERR" ":2: command failed (exit 1)"'

run -b "$TMP/no-such-file"
rc1=$RC
run -b "$TMP/batch3" cca list
check batch_usage '[ $rc1 -eq 1 ]' '[ $RC -eq 1 ]'

printf '# nothing but help\nhelp\ncca help\n' >"$TMP/batch5"
run -b "$TMP/batch5"
check batch_ok '[ $RC -eq 0 ]' '[ -z "$ERR" ]' \
	'[ "$(grep -c "^Usage: ccactl" "$TMP/out")" -eq 2 ]'

# ---- network namespaces ----

run -n nosuchns cca list
check netns_missing '[ $RC -ne 0 ]' '[ -z "$OUT" ]' 'contains "$ERR" "\"nosuchns\""' \
	'contains "$ERR" "No such file or directory"'

if ! $HAVE_MODULE; then
	# A path: entering our own namespace succeeds, then the family is missing.
	run -n /proc/self/ns/net cca list
	check netns_path '[ $RC -eq 2 ]' '[ "$ERR" = "$FAMILY_MSG" ]'

	name=ccactl-test-$$
	if command -v ip >/dev/null 2>&1 && ip netns add "$name" 2>/dev/null; then
		NETNS_NAME=$name
		run -n "$name" cca list
		check netns_named '[ $RC -eq 2 ]' '[ "$ERR" = "$FAMILY_MSG" ]'
		ip netns del "$name" 2>/dev/null || true
		NETNS_NAME=""
	else
		skip netns_named "cannot create a named netns here"
	fi
fi

# ---- man page and completion ----

MAN=$ROOT/tools/ccactl/ccactl.8
if command -v groff >/dev/null 2>&1; then
	RC=0
	groff -man -ww -z "$MAN" >"$TMP/out" 2>"$TMP/err" || RC=$?
	check man_groff '[ $RC -eq 0 ]' '[ ! -s "$TMP/err" ]'
else
	skip man_groff "groff is not installed (package groff-base)"
fi
if command -v man >/dev/null 2>&1; then
	RC=0
	MANPAGER=cat MANWIDTH=80 man --warnings -l "$MAN" >"$TMP/out" 2>"$TMP/err" || RC=$?
	check man_render '[ $RC -eq 0 ]' '[ ! -s "$TMP/err" ]' 'grep -q "EXIT STATUS" "$TMP/out"'
else
	skip man_render "man is not installed (package man-db)"
fi

COMP=$ROOT/tools/ccactl/completion/ccactl.bash
BINDIR=$TMP/bin
mkdir -p "$BINDIR"
ln -sf "$CCACTL" "$BINDIR/ccactl"
# complete WORDS...: the completions bash would offer for the last word.
complete_words()
{
	PATH="$BINDIR:$PATH" bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_ccactl ccactl; echo "${COMPREPLY[*]}"' _ "$COMP" "$@" 2>/dev/null
}
RC=0
bash -n "$COMP" >"$TMP/out" 2>"$TMP/err" || RC=$?
c_obj=$(complete_words ccactl "")
c_cmd=$(complete_words ccactl -j cca "")
c_opt=$(complete_words ccactl --js)
check completion '[ $RC -eq 0 ]' '[ "$c_obj" = "cca help" ]' \
	'[ "$c_cmd" = "list show help" ]' '[ "$c_opt" = "--json" ]'

# ---- against the fake ccaas family ----

FAKE=$TMP/fake_genl.so
RC=0
cc -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$ROOT/include/uapi" \
	$(pkg-config --cflags libmnl) -o "$FAKE" "$HERE/fake_genl.c" \
	$(pkg-config --libs libmnl) -ldl >"$TMP/out" 2>"$TMP/err" || RC=$?
if [ $RC -ne 0 ]; then
	fail fake_build "cannot build fake_genl.so"
	FAKE=""
fi

# fake ARGS...: run ccactl with the fake family.
fake() { run LD_PRELOAD="$FAKE" FAKE_GENL_LOG="$TMP/fake.log" "$@"; }

# json_check PYTHON-EXPR: evaluate with j = the JSON document on stdout.
json_check()
{
	[ -n "$PYTHON" ] || return 1
	"$PYTHON" -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$TMP/out" "$1"
}

if [ -n "$FAKE" ]; then
	rm -f "$TMP/fake.log"
	fake cca list
	cat >"$TMP/want" <<'EOF'
NAME         VERSION  MODULE           FLAGS  FEATURES
cca_cubic    1.0.0    tcp_cca_cubic    0x0    ecn_ok,nonecn_ok,transitional
cca_dctcp    1.2.3    tcp_cca_dctcp    0x2    needs_ecn,ecn_ok,nonecn_ok
cca_odd      2.0.0    odd"mod\         0x0    -
cca_xregion  0.9.1    tcp_cca_xregion  0x2    ecn_ok,cong_control,0x80
EOF
	check fake_list_text '[ $RC -eq 0 ]' '[ -z "$ERR" ]' 'diff -u "$TMP/want" "$TMP/out" >&2'
	LIST_TEXT=$OUT

	# The netlink requests as the fake kernel saw them.
	check fake_requests 'grep -qx "setsockopt ext_ack=1" "$TMP/fake.log"' \
		'grep -qx "setsockopt cap_ack=1" "$TMP/fake.log"' \
		'grep -qx "request type=ctrl cmd=3 version=1 flags=0x5" "$TMP/fake.log"' \
		'grep -qx "request type=ccaas cmd=1 version=1 flags=0x301" "$TMP/fake.log"'

	fake cca
	rc1=$RC out1=$OUT
	fake -s cca l
	check fake_default_and_abbrev '[ -n "$LIST_TEXT" ]' \
		'[ $rc1 -eq 0 ]' '[ "$out1" = "$LIST_TEXT" ]' \
		'[ $RC -eq 0 ]' '[ "$OUT" = "$LIST_TEXT" ]'

	if [ -z "$PYTHON" ]; then
		skip fake_json "no python3 to validate JSON"
	else
		fake -j cca list
		check fake_list_json '[ $RC -eq 0 ]' '[ "$(wc -l <"$TMP/out")" -eq 1 ]' \
			'json_check "isinstance(j, list) and [c[\"name\"] for c in j] == [\"cca_cubic\", \"cca_dctcp\", \"cca_odd\", \"cca_xregion\"]"' \
			'json_check "all(sorted(c) == [\"features\", \"flags\", \"module\", \"name\", \"version\"] for c in j)"' \
			'json_check "j[1] == {\"name\": \"cca_dctcp\", \"version\": \"1.2.3\", \"features\": [\"needs_ecn\", \"ecn_ok\", \"nonecn_ok\"], \"module\": \"tcp_cca_dctcp\", \"flags\": 2}"' \
			'json_check "j[2][\"module\"] == \"odd\\\"mod\\\\\" and j[2][\"features\"] == []"' \
			'json_check "j[3][\"features\"] == [\"ecn_ok\", \"cong_control\", \"0x80\"]"'
		compact=$OUT
		fake cca list -j -p
		check fake_list_json_pretty '[ $RC -eq 0 ]' '[ "$(wc -l <"$TMP/out")" -gt 10 ]' \
			'[ "$("$PYTHON" -c "import json,sys; print(json.dumps(json.load(sys.stdin)))" <"$TMP/out")" = "$("$PYTHON" -c "import json,sys; print(json.dumps(json.load(sys.stdin)))" <<<"$compact")" ]'
		fake -j cca show cca_xregion
		check fake_show_json '[ $RC -eq 0 ]' \
			'json_check "j == {\"name\": \"cca_xregion\", \"version\": \"0.9.1\", \"features\": [\"ecn_ok\", \"cong_control\", \"0x80\"], \"module\": \"tcp_cca_xregion\", \"flags\": 2}"'
		fake FAKE_GENL_EMPTY=1 -j cca list
		check fake_empty_json '[ $RC -eq 0 ]' '[ "$OUT" = "[]" ]'
	fi

	fake cca show cca_dctcp
	cat >"$TMP/want" <<'EOF'
name      cca_dctcp
version   1.2.3
features  needs_ecn,ecn_ok,nonecn_ok
module    tcp_cca_dctcp
flags     0x2 (needs_ecn)
EOF
	check fake_show_text '[ $RC -eq 0 ]' '[ -z "$ERR" ]' 'diff -u "$TMP/want" "$TMP/out" >&2'

	fake cca show nope
	check fake_show_unknown '[ $RC -eq 2 ]' '[ -z "$OUT" ]' '[ "$ERR" = "Error: CCA not registered" ]'
	fake FAKE_GENL_NO_CAP=1 cca show nope
	check fake_extack_uncapped '[ $RC -eq 2 ]' '[ "$ERR" = "Error: CCA not registered" ]'
	fake FAKE_GENL_DONE_ERR=1 -j cca list
	check fake_dump_error '[ $RC -eq 2 ]' '[ -z "$OUT" ]' '[ "$ERR" = "Error: fake dump failure" ]'
	fake FAKE_GENL_NO_FAMILY=1 cca list
	check fake_no_family '[ $RC -eq 2 ]' '[ "$ERR" = "$FAMILY_MSG" ]'
	rm -f "$TMP/fake.log"
	fake FAKE_GENL_EMPTY=1 cca list
	check fake_empty_text '[ $RC -eq 0 ]' '[ -z "$OUT" ]' '[ -z "$ERR" ]' \
		'grep -q "type=ccaas cmd=1 version=1 flags=0x301" "$TMP/fake.log"'

	printf 'cca list\ncca show cca_cubic -j\ncca show nope\ncca list\n' >"$TMP/batch6"
	rm -f "$TMP/fake.log"
	fake -b "$TMP/batch6"
	check fake_batch '[ $RC -eq 2 ]' \
		'contains "$ERR" "Error: CCA not registered"' \
		'contains "$ERR" "$TMP/batch6:3: command failed (exit 2)"' \
		'[ "$(grep -c "^cca_" "$TMP/out")" -eq 4 ]' \
		'contains "$OUT" "{\"name\":\"cca_cubic\""' \
		'[ "$(grep -c "type=ctrl" "$TMP/fake.log")" -eq 1 ]' \
		'[ "$(grep -c "type=ccaas" "$TMP/fake.log")" -eq 3 ]'
fi

# ---- memory checks ----

if command -v valgrind >/dev/null 2>&1; then
	VG="valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=3"
	if ! $HAVE_MODULE; then
		RC=0
		timeout 120 $VG "$CCACTL" cca list >"$TMP/out" 2>"$TMP/err" || RC=$?
		check valgrind_family_missing '[ $RC -eq 2 ]' '[ "$(cat "$TMP/err")" = "$FAMILY_MSG" ]'
	fi
	if [ -n "$FAKE" ]; then
		RC=0
		LD_PRELOAD="$FAKE" timeout 120 $VG "$CCACTL" -b "$TMP/batch6" \
			>"$TMP/out" 2>"$TMP/err" || RC=$?
		check valgrind_fake_batch '[ $RC -eq 2 ]' '! grep -q "==[0-9]*==" "$TMP/err"'
	fi
else
	skip valgrind "valgrind is not installed (package valgrind)"
fi

[ "$FAILED" -eq 0 ]
