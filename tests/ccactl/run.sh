#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests for ccactl: command line, exit codes, batch mode, netns, man
# page, completion, and the "module not loaded" path (the host kernel has no
# ccaas module). Output against the real kernel family is tested in the VM
# (tests/vm/15-ccactl.sh).
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
	if make -C "$ROOT/tools/ccactl" WERROR=1 >"$TMP/out" 2>"$TMP/err"; then
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
	'[[ "$OUT" =~ OBJECT\ :=\ \{\ cca\ (\|\ [a-z]+\ )*\|\ help\ \} ]]' '[ -z "$ERR" ]'
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
check completion '[ $RC -eq 0 ]' '[[ "$c_obj" =~ ^cca\ ([a-z]+\ )*help$ ]]' \
	'[ "$c_cmd" = "list show drain help" ]' '[ "$c_opt" = "--json" ]'

# ---- memory checks ----

if command -v valgrind >/dev/null 2>&1; then
	VG="valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=3"
	if ! $HAVE_MODULE; then
		RC=0
		timeout 120 $VG "$CCACTL" cca list >"$TMP/out" 2>"$TMP/err" || RC=$?
		check valgrind_family_missing '[ $RC -eq 2 ]' '[ "$(cat "$TMP/err")" = "$FAMILY_MSG" ]'
	fi
else
	skip valgrind "valgrind is not installed (package valgrind)"
fi

# ---- migrate, cca drain, sock show, monitor ----
# Argument parsing, help and the "module not loaded" path; the output
# against the real family is tested in the VM.

run help
check help_migrate_sock_monitor '[ $RC -eq 0 ]' \
	'[[ "$OUT" =~ OBJECT\ :=\ \{[a-z\ \|]*\ migrate\ \|\ sock\ \|\ log\ \|\ monitor\ \| ]]' \
	'grep -q "^  migrate  " "$TMP/out"' 'grep -q "^  sock  " "$TMP/out"' \
	'grep -q "^  monitor  " "$TMP/out"'
run migrate help
check migrate_help '[ $RC -eq 0 ]' '[ -z "$ERR" ]' \
	'grep -qx "Usage: ccactl migrate \[force\]" "$TMP/out"' \
	'contains "$OUT" "ccactl migrate help"'
run cca help
check cca_drain_help '[ $RC -eq 0 ]' \
	'contains "$OUT" "ccactl cca drain NAME [to NAME] [force]"'
run sock help
check sock_help '[ $RC -eq 0 ]' \
	'contains "$OUT" "ccactl sock show [cca NAME] [locality LOC] [dport PORT] [sport PORT]"' \
	'contains "$OUT" "Without a command, \"show\" is run."'
run log help
check log_help '[ $RC -eq 0 ]' '[ -z "$ERR" ]' \
	'contains "$OUT" "ccactl log add { cookie N [cookie N]... | all | FILTER }"' \
	'contains "$OUT" "ccactl log record [duration SECONDS] [file FILE] [filter EXPR]"' \
	'contains "$OUT" "Without a command, \"show\" is run."'
run monitor help
check monitor_help '[ $RC -eq 0 ]' '[ -z "$ERR" ]' 'contains "$OUT" "Usage: ccactl monitor"'

# usage_case NAME EXPECTED-STDERR-PART ARGS...: exit 1, nothing on stdout.
usage_case()
{
	local name=$1 msg=$2
	shift 2
	run "$@"
	check "$name" '[ $RC -eq 1 ]' '[ -z "$OUT" ]' 'contains "$ERR" "$msg"'
}
usage_case migrate_unknown_arg 'unknown migrate argument "bogus"' migrate bogus
usage_case migrate_force_twice '"force" given twice' migrate force force
usage_case drain_missing_name 'cca drain: missing CCA name' cca drain
usage_case drain_to_missing '"to" needs a CCA name' cca drain cca_dctcp to
usage_case drain_unknown_arg 'unknown cca drain argument "frob"' cca drain cca_dctcp frob
usage_case drain_name_too_long 'invalid CCA name "abcdefghijklmnopq"' cca drain abcdefghijklmnopq
usage_case drain_to_too_long 'invalid CCA name "abcdefghijklmnopq"' \
	cca drain cca_dctcp to abcdefghijklmnopq
usage_case drain_to_twice '"to" given twice' cca drain a to b to c
usage_case drain_force_twice '"force" given twice' cca drain a force force
usage_case sock_filter_unknown 'unknown sock show filter "frob"' sock show frob 1
usage_case sock_filter_no_value '"cca" needs a value' sock show cca
usage_case sock_cca_too_long 'invalid CCA name' sock show cca abcdefghijklmnopq
usage_case sock_locality_unknown 'unknown locality "moon"' sock show locality moon
usage_case sock_locality_ambiguous 'ambiguous locality "r"' sock show locality r
usage_case sock_port_zero 'invalid port "0"' sock show dport 0
usage_case sock_port_big 'invalid port "65536"' sock show sport 65536
usage_case sock_port_text 'invalid port "ssh"' sock show dport ssh
usage_case sock_port_sign 'invalid port "+22"' sock show dport +22
usage_case sock_filter_twice '"sport" given twice' sock show sport 1 sport 2
usage_case sock_cgroup_bad 'is not a cgroup path' sock show cgroup a/../b
# service matches, refused before the kernel is asked
usage_case policy_port_zero 'port: "0" is out of range (1..65535)' policy set port 0 cca reno
usage_case policy_port_reversed 'port: "90-80" ends below its start' policy set port 90-80 cca reno
usage_case policy_port_text 'port: "http" is not a port or a range' policy set port http cca reno
usage_case policy_port_twice 'port given twice' policy set port 80 port 81 cca reno
usage_case policy_cgroup_bad 'cgroup: "a//b" is not a cgroup path' policy set cgroup a//b cca reno
usage_case policy_cgroup_root 'the root is every socket' policy set cgroup / cca reno
usage_case policy_cgroup_missing 'cgroup: missing value' policy set cgroup
usage_case policy_cgroup_after_locality 'unknown word "cgroup"' \
	policy set locality dc cgroup a cca reno
usage_case log_add_nothing 'log add: name connections: cookie N, all, or a filter' log add
usage_case log_del_nothing 'log del: name connections' log del
usage_case log_cookie_text 'invalid cookie "abc"' log add cookie abc
usage_case log_cookie_zero 'invalid cookie "0"' log add cookie 0
usage_case log_cookie_big 'invalid cookie "18446744073709551616"' log add cookie 18446744073709551616
usage_case log_cookie_no_value '"cookie" needs a value' log del cookie
usage_case log_all_and_cookie 'cookies, "all" and a filter exclude each other' log add all cookie 4
usage_case log_filter_and_cookie 'exclude each other' log add cookie 4 dport 80
usage_case log_prefix_bad 'invalid prefix "10.0.0.0/33"' log add dst 10.0.0.0/33
usage_case log_prefix_text 'invalid prefix "host"' log add src host
usage_case log_port_bad 'invalid port "0"' log add dport 0
usage_case log_locality_bad 'unknown locality "moon"' log add locality moon
usage_case log_filter_twice '"dport" given twice' log add dport 1 dport 2
usage_case log_unknown_arg 'unknown log argument "frob"' log add frob 1
usage_case log_show_args 'log show takes no arguments' log show all
usage_case log_record_duration 'invalid duration "0"' log record duration 0
usage_case log_record_unknown 'unknown log record argument "for"' log record for 3
usage_case monitor_extra_arg 'monitor: unexpected argument "now"' monitor now
usage_case abbrev_m_ambiguous 'ambiguous object "m"' m

if $HAVE_MODULE; then
	skip family_missing_migrate "ccaas_core is loaded here"
else
	# family_case NAME ARGS...: exit 2 with only the family message.
	family_case()
	{
		local name=$1
		shift
		run "$@"
		check "$name" '[ $RC -eq 2 ]' '[ -z "$OUT" ]' '[ "$ERR" = "$FAMILY_MSG" ]'
	}
	family_case family_missing_migrate migrate
	family_case family_missing_migrate_force -j migrate force
	family_case family_missing_migrate_abbrev mi f
	family_case family_missing_drain cca drain cca_dctcp
	family_case family_missing_drain_to cca drain cca_dctcp to cca_cubic force -j
	family_case family_missing_drain_abbrev c dr cca_dctcp t cca_cubic
	family_case family_missing_sock sock
	family_case family_missing_sock_filters sock show cca cca_dctcp locality x \
		dport 443 sport 50000
	family_case family_missing_sock_json -j -p sock show
	family_case family_missing_monitor monitor
	family_case family_missing_log log
	family_case family_missing_log_add log add cookie 4097 cookie 4098
	family_case family_missing_log_del_all -j log del all
	family_case family_missing_monitor_json mo -j
	family_case family_missing_monitor_netns -n /proc/self/ns/net monitor

	printf 'migrate help\nsock help\nmonitor help\nsock show\nmigrate\n' >"$TMP/batch6"
	run -b "$TMP/batch6"
	check batch_sock_family_missing '[ $RC -eq 2 ]' \
		'contains "$ERR" "$TMP/batch6:4: command failed (exit 2)"' \
		'contains "$OUT" "ccactl migrate [force]"' 'contains "$OUT" "Usage: ccactl monitor"'
fi

if command -v man >/dev/null 2>&1; then
	MANPAGER=cat MANWIDTH=200 man -l "$MAN" >"$TMP/man.txt" 2>/dev/null || true
	RC=0
	: >"$TMP/out"
	: >"$TMP/err"
	check man_migrate_sock_monitor \
		'grep -q "OBJECT := { cca |.* migrate | sock | log | monitor |.* help }" "$TMP/man.txt"' \
		'grep -q "ccactl log add { cookie N \[cookie N\]... | all | FILTER }" "$TMP/man.txt"' \
		'grep -q "ccactl migrate \[force\]" "$TMP/man.txt"' \
		'grep -q "ccactl cca drain NAME \[to NAME\] \[force\]" "$TMP/man.txt"' \
		'grep -q "ccactl sock show \[cca NAME\] \[locality LOC\] \[dport PORT\] \[sport PORT\]" "$TMP/man.txt"' \
		'grep -q "^ *ccactl monitor$" "$TMP/man.txt"' \
		'grep -q "skipped_pinned" "$TMP/man.txt"' 'grep -q "min_rto_us" "$TMP/man.txt"'
else
	skip man_migrate_sock_monitor "man is not installed (package man-db)"
fi

RC=0
c1=$(complete_words ccactl migrate "")
c2=$(complete_words ccactl monitor "")
c3=$(complete_words ccactl sock "")
c4=$(complete_words ccactl sock show "")
c5=$(complete_words ccactl sock show locality x)
c6=$(complete_words ccactl sock show dport "")
c7=$(complete_words ccactl cca drain cca_dctcp "")
c8=$(complete_words ccactl cca drain cca_dctcp f)
check completion_migrate_sock_monitor '[ "$c1" = "force help" ]' '[ "$c2" = "help" ]' \
	'[ "$c3" = "show help" ]' '[ "$c4" = "cca locality dport sport cgroup" ]' \
	'[ "$c5" = "xregion" ]' '[ -z "$c6" ]' '[ "$c7" = "to force" ]' '[ "$c8" = "force" ]'

# ---- scope load dry_run ----
# The words and their order; the dry run itself is tested in the VM.

run scope help
check scope_load_help '[ $RC -eq 0 ]' '[ -z "$ERR" ]' \
	'contains "$OUT" "ccactl scope load FILE|- [dry_run]"'
printf '10.0.0.0/8 dc\n' >"$TMP/scope.conf"
printf '10.0.0.0/33 dc\n' >"$TMP/scope_bad.conf"
usage_case scope_load_unknown_word 'scope load: unexpected argument "dry"' \
	scope load "$TMP/scope.conf" dry
usage_case scope_load_dry_run_twice 'scope load: "--dry-run" given twice' \
	scope load "$TMP/scope.conf" dry_run --dry-run
usage_case scope_load_no_file 'scope load: missing FILE; usage: ccactl scope load FILE|- [dry_run]' \
	scope load
usage_case scope_load_dry_run_first 'scope load: cannot open "dry_run"' scope load dry_run
# the file is read before anything is sent, dry run or not
usage_case scope_load_dry_run_bad_line "$TMP/scope_bad.conf:1: invalid prefix" \
	scope load "$TMP/scope_bad.conf" dry_run
if $HAVE_MODULE; then
	skip family_missing_scope_dry_run "ccaas_core is loaded here"
else
	for w in dry_run dry-run --dry-run; do
		run scope load "$TMP/scope.conf" $w
		check "family_missing_scope_load_$w" '[ $RC -eq 2 ]' '[ -z "$OUT" ]' \
			'[ "$ERR" = "$FAMILY_MSG" ]'
	done
	run_in "$TMP/scope.conf" -j scope load - dry_run
	check family_missing_scope_load_stdin '[ $RC -eq 2 ]' '[ -z "$OUT" ]' \
		'[ "$ERR" = "$FAMILY_MSG" ]'
fi
RC=0
c1=$(complete_words ccactl scope load "$TMP/scope.conf" "")
c2=$(complete_words ccactl scope load "$TMP/scope.conf" dry_run "")
check completion_scope_load_dry_run '[ "$c1" = "dry_run" ]' '[ -z "$c2" ]'
if command -v man >/dev/null 2>&1; then
	: >"$TMP/out"
	: >"$TMP/err"
	check man_scope_load_dry_run \
		'grep -q "ccactl scope load FILE|- \[dry_run\]" "$TMP/man.txt"' \
		'grep -q "dry run is one object with the keys dry_run (true)" "$TMP/man.txt"'
else
	skip man_scope_load_dry_run "man is not installed (package man-db)"
fi

if command -v valgrind >/dev/null 2>&1 && ! $HAVE_MODULE; then
	# NAME:ARGS
	for case in "migrate:migrate force" \
		"drain:cca drain cca_dctcp to cca_cubic force" \
		"sock:sock show cca cca_dctcp dport 443" "monitor:monitor"; do
		RC=0
		timeout 120 $VG "$CCACTL" ${case#*:} >"$TMP/out" 2>"$TMP/err" || RC=$?
		check "valgrind_family_missing_${case%%:*}" '[ $RC -eq 2 ]' \
			'[ "$(cat "$TMP/err")" = "$FAMILY_MSG" ]'
	done
fi

[ "$FAILED" -eq 0 ]
