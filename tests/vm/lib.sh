# shellcheck shell=bash
# Helpers for VM test files (tests/vm/NN-*.sh).  Sourced inside the guest by
# tests/vm/lib/driver.sh; has no side effects when sourced.
#
# Writing a test file:
#   - Define one function per test, named test_<name>.  The driver runs them
#     in file order, each in its own subshell.  A test passes if its function
#     returns 0; or it reports its own result with pass/fail/check <name>
#     (then its return status is not used).  Extra results under other names
#     are allowed.  Code outside functions runs once, before the tests.
#   - Optional header line `# vm-timeout: SECONDS` (default 300): the limit
#     for the whole file; on expiry the file is killed and its unreported
#     tests FAIL.
#   - Other header lines, read by tests/vm/run.sh (docs/testing.md):
#     `# vm-alone: yes` (compares CCAs: not beside other guests),
#     `# vm-debug: yes|only` (also, or only, on the sanitizer kernel),
#     `# vm-debug-skip: NAME...` (tests left off the sanitizer kernel),
#     `# vm-oldest-skip: NAME...` (tests left off the oldest line),
#     `# vm-lines: newest|oldest|spare` (one Debian line only),
#     `# vm-lines: edges` (the oldest and the newest), `# vm-lines:
#     sanitizer` (none beside the sanitizer kernel),
#     `# vm-requires: CCAAS_HAVE_X` (a probe result of the headers),
#     `# vm-manual: yes` (only when named), `# vm-full: yes` (only in
#     make check-full, or when named), `# vm-ansible: yes` (the
#     Ansible controller on the host, tests/vm/lib/ansible-controller.sh).
#   - Tests that change global state should use network namespaces; the
#     driver deletes all namespaces (and kills their processes) after each
#     file.
#
# Environment: CCAAS_ROOT (repo), CCAAS_YNL (the kernel's YNL tools and netlink
# schemas, scripts/ynl-prepare.sh), CCAAS_KO_DIR (built .ko files for this
# kernel), CCACTL (ccactl binary), RESULTS (writable, kept on the host), KVER.
#
# Addresses (exist only inside the guest's namespaces):
#   netns_pair A B:   A eth0 10.0.0.1/24 fd00::1/64 -- B eth0 10.0.0.2/24 fd00::2/64
#   netns_topo3 C R S:
#     C eth0 10.0.1.1/24 fd00:1::1/64 -- R eth0 10.0.1.2/24 fd00:1::2/64
#     R eth1 10.0.2.2/24 fd00:2::2/64 -- S eth0 10.0.2.1/24 fd00:2::1/64
#     R forwards; C and S route everything through R.  R's eth1 carries
#     C->S data: put the bottleneck qdisc there.

PAIR_A_IP=10.0.0.1 PAIR_B_IP=10.0.0.2 PAIR_A_IP6=fd00::1 PAIR_B_IP6=fd00::2
CLIENT_IP=10.0.1.1 SERVER_IP=10.0.2.1 CLIENT_IP6=fd00:1::1 SERVER_IP6=fd00:2::1
ROUTER_C_IP=10.0.1.2 ROUTER_S_IP=10.0.2.2 ROUTER_C_IP6=fd00:1::2 ROUTER_S_IP6=fd00:2::2

# ---- results -----------------------------------------------------------------

# Results go to stdout and to the file the host reads ($RESULTS/results.txt).
_ccaas_results_file() { echo "${CCAAS_RESULTS_FILE:-${RESULTS:-/tmp}/results.txt}"; }

# _ccaas_report STATUS NAME [WHY...]: one result line, plus an indented reason
_ccaas_report() {
	local status=$1 name=$2 file
	shift 2
	file=$(_ccaas_results_file)
	echo "$status: $name" | tee -a "$file"
	# the reason, indented line by line so no line can pass for a result
	if [ $# -gt 0 ]; then
		printf '%s\n' "$*" | sed "1s/^/  $name: /; 2,\$s/^/    /" | tee -a "$file"
	fi
}

# pass NAME: report NAME as passed
pass() { _ccaas_report PASS "$1"; }

# fail NAME [WHY...]: report NAME as failed; returns 1
fail() { _ccaas_report FAIL "$@"; return 1; }

# check NAME CMD [ARGS...]: run CMD; PASS if it exits 0, else FAIL with the
# tail of its output
check() {
	local name=$1 out rc
	shift
	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		pass "$name"
	else
		tail -n 20 "$out" | sed 's/^/    /'
		fail "$name" "'$*' exited with status $rc"
	fi
	rm -f "$out"
	return "$rc"
}

# ccaas_test_functions FILE: the test_* functions FILE defines, in file order
ccaas_test_functions() {
	sed -nE 's/^(test_[A-Za-z0-9_]+)[[:space:]]*\(\).*/\1/p' "$1"
}

# ccaas_match PATTERN STRING: a glob match if PATTERN has * ? or [, else a
# substring match; an empty PATTERN matches everything
# shellcheck disable=SC2053 # a glob match is the point
ccaas_match() {
	case "$1" in
	"") return 0 ;;
	*[*?[]*) [[ "$2" == $1 ]] ;;
	*) [[ "$2" == *"$1"* ]] ;;
	esac
}

# ccaas_selected_tests FILE [PATTERN]: the test_* functions of FILE to run:
# all of them if the file's name matches PATTERN, else those whose test name
# matches. On the sanitizer kernel (CCAAS_VM_SANITIZER=1) less the tests
# that `# vm-debug-skip: NAME...` lines of FILE name, unless PATTERN names
# them: tests of what the policy decides, whose code paths the file's other
# tests take as well, for which the sanitizer would find nothing new. On
# the oldest of several Debian lines (CCAAS_VM_OLDEST=1, not in make
# check-full) less those `# vm-oldest-skip: NAME...` names: tests whose
# subject is not the kernel (userspace under valgrind, a Prometheus
# exporter), run on the newest.
ccaas_selected_tests() {
	local t skip=""
	[ "${CCAAS_VM_SANITIZER:-0}" != 1 ] ||
		skip=" $(sed -nE 's/^# vm-debug-skip: *//p' "$1" | tr '\n' ' ') "
	[ "${CCAAS_VM_OLDEST:-0}" != 1 ] ||
		skip="$skip $(sed -nE 's/^# vm-oldest-skip: *//p' "$1" | tr '\n' ' ') "
	for t in $(ccaas_test_functions "$1"); do
		if [[ "$skip" == *" ${t#test_} "* ]] && ! { [ -n "${2:-}" ] && ccaas_match "$2" "${t#test_}"; }; then
			continue
		fi
		if ccaas_match "${2:-}" "$(basename "$1")" || ccaas_match "$2" "${t#test_}"; then
			echo "$t"
		fi
	done
}

# ccaas_run_tests FILE: run the selected ($CCAAS_VM_PATTERN) test_* functions
# of FILE (already sourced)
ccaas_run_tests() {
	local t name before rc file t0
	file=$(_ccaas_results_file)
	for t in $(ccaas_selected_tests "$1" "${CCAAS_VM_PATTERN:-}"); do
		name=${t#test_}
		before=$(wc -l <"$file")
		echo "--- $name"
		t0=$SECONDS
		("$t")
		rc=$?
		# for balancing the lanes (docs/testing.md): what each test costs
		echo "... $name took $((SECONDS - t0)) s"
		# Report from the return status unless the test reported itself.
		if ! tail -n +$((before + 1)) "$file" | grep -qxE "(PASS|FAIL): $name"; then
			if [ "$rc" = 0 ]; then
				pass "$name"
			else
				fail "$name" "test function returned $rc"
			fi
		fi
	done
}

# ---- verdicts ------------------------------------------------------------------

# verdict NAME WHY CMD...: PASS NAME if CMD succeeds, else FAIL NAME WHY
verdict() {
	local name=$1 why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}

# pytrue EXPR: succeed if the Python expression is true
pytrue() {
	python3 -c "import sys; sys.exit(not ($1))"
}

# py EXPR: print the value of a Python expression (arithmetic for the shell)
py() {
	python3 -c "print($1)"
}

# sleep SECONDS: sleep(1) without a process for a plain number of seconds
# (read times out on a pipe nobody writes to): the suite's wait loops sleep
# 0.1 s at a time, and on the sanitizer kernel under TCG each exec costs
# about 0.3 s. Anything else, or a read that ends other than by its
# timeout, goes to sleep(1). The pipe is opened here, once, as this file is
# sourced: a process substitution sets $!, which a test may still want for
# the job it started before its first sleep. The read's status is caught
# so that a caller under set -e (demo/guest.sh) lives through the timeout.
exec {CCAAS_SLEEP_FD}<> <(:)
sleep() {
	local rc
	if [ $# -ne 1 ] || [ -z "$1" ] || [ -n "${1//[0-9.]/}" ]; then
		command sleep "$@"
		return
	fi
	rc=0
	read -rt "$1" -u "$CCAAS_SLEEP_FD" || rc=$?
	[ "$rc" -gt 128 ] || command sleep "$1"
}

# ---- namespaces ------------------------------------------------------------------

# ns NS CMD [ARGS...]: run CMD in namespace NS ("" = the initial one)
ns() {
	local n=$1
	shift
	if [ -n "$n" ]; then
		ip netns exec "$n" "$@"
	else
		"$@"
	fi
}

# netns_add NS: a new namespace with lo up
netns_add() {
	ip netns add "$1" && ip -n "$1" link set lo up
}

# veth_link NS1 IF1 NS2 IF2: a veth pair NS1:IF1 <-> NS2:IF2, both up
veth_link() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" &&
		ip -n "$1" link set "$2" up && ip -n "$3" link set "$4" up
}

# addr_add NS IF IPV4/LEN IPV6/LEN: addresses (IPv6 without DAD delay)
addr_add() {
	ip -n "$1" addr add "$3" dev "$2" &&
		ip -n "$1" addr add "$4" dev "$2" nodad
}

# memcg_stat CGROUP KEY...: the sum of the KEY lines of CGROUP's
# memory.stat (a cgroup2 directory), read after the statistics' periodic
# flush (every 2 s), so that recent charges and uncharges are in it
memcg_stat() {
	local cg=$1
	shift
	command sleep 2.5
	awk -v keys=" $* " 'index(keys, " " $1 " ") { s += $2 } END { print s + 0 }' \
		"$cg/memory.stat"
}

# netns_pair A B: two namespaces joined by a veth pair (addresses above)
netns_pair() {
	netns_add "$1" && netns_add "$2" &&
		veth_link "$1" eth0 "$2" eth0 &&
		addr_add "$1" eth0 "$PAIR_A_IP/24" "$PAIR_A_IP6/64" &&
		addr_add "$2" eth0 "$PAIR_B_IP/24" "$PAIR_B_IP6/64"
}

# netns_topo3 C R S: client -- router -- server (addresses above)
netns_topo3() {
	local c=$1 r=$2 s=$3
	netns_add "$c" && netns_add "$r" && netns_add "$s" &&
		veth_link "$c" eth0 "$r" eth0 &&
		veth_link "$r" eth1 "$s" eth0 &&
		addr_add "$c" eth0 "$CLIENT_IP/24" "$CLIENT_IP6/64" &&
		addr_add "$r" eth0 "$ROUTER_C_IP/24" "$ROUTER_C_IP6/64" &&
		addr_add "$r" eth1 "$ROUTER_S_IP/24" "$ROUTER_S_IP6/64" &&
		addr_add "$s" eth0 "$SERVER_IP/24" "$SERVER_IP6/64" &&
		ns "$r" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 &&
		ip -n "$c" route add default via "$ROUTER_C_IP" &&
		ip -n "$c" -6 route add default via "$ROUTER_C_IP6" &&
		ip -n "$s" route add default via "$ROUTER_S_IP" &&
		ip -n "$s" -6 route add default via "$ROUTER_S_IP6"
}

# netns_cleanup: kill every process outside the initial network namespace,
# then delete all named namespaces.  (Do not call it from inside a namespace.)
# The test -ef (same device and inode: the same namespace) is bash's own: a
# readlink per process cost a process each, 10 s a call on the sanitizer
# kernel.
netns_cleanup() {
	local p
	for p in /proc/[0-9]*; do
		if [ -e "$p/ns/net" ] && ! [ "$p/ns/net" -ef /proc/1/ns/net ]; then
			kill -9 "${p#/proc/}" 2>/dev/null
		fi
	done
	ip -all netns delete 2>/dev/null
	return 0
}

# wait_port NS PORT [SECONDS]: wait until a TCP socket listens on PORT in NS
wait_port() {
	local i=0 max=$((${3:-5} * 10))
	while [ "$i" -lt "$max" ]; do
		[ -z "$(ns "$1" ss -Hltn "sport = :$2")" ] || return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "wait_port: nothing listens on port $2 in '$1'" >&2
	return 1
}

# ---- ccactl replies ---------------------------------------------------------------

# counts JSON-REPLY KEY...: the values of KEYs in a migrate reply
counts() {
	local json=$1
	shift
	echo "$json" | python3 -c 'import json, sys
j = json.load(sys.stdin)
print(" ".join(str(j.get(k, "-")) for k in sys.argv[1:]))' "$@"
}

# any_user FILE [MODULE...]: the path of a copy of FILE that every user can
# read and run, for what a test runs as another user: the checkout may sit
# under a directory only its owner can enter (root's home is mode 700), and
# the guest sees the host's permissions. The MODULEs (what FILE imports
# from its own directory) are copied beside it.
any_user() {
	local d=/tmp/ccaas-any-user
	install -d -m 0755 "$d" && install -m 0755 "$@" "$d/" &&
		echo "$d/$(basename "$1")"
}

# ---- modules -------------------------------------------------------------------------

# _ccaas_insmod NAME: insmod $CCAAS_KO_DIR/NAME.ko unless already loaded
_ccaas_insmod() {
	grep -q "^$1 " /proc/modules && return 0
	insmod "$CCAAS_KO_DIR/$1.ko"
}

# load_ccaas [MODULE...]: load ccaas_core.ko, then each given project module
# (tcp_cca_dctcp or tcp_cca_dctcp.ko) from $CCAAS_KO_DIR
load_ccaas() {
	local m
	if [ ! -f "${CCAAS_KO_DIR:-}/ccaas_core.ko" ]; then
		echo "load_ccaas: no ccaas_core.ko in '${CCAAS_KO_DIR:-}' (not built for $KVER?)" >&2
		return 1
	fi
	_ccaas_insmod ccaas_core || return 1
	for m in "$@"; do
		_ccaas_insmod "${m%.ko}" || return 1
	done
}

# rmmod_poll MODULE [SECONDS]: unload MODULE, giving namespaces of earlier
# tests (whose policies and closing sockets hold it) up to SECONDS (10) to go
# away; the kernel dismantles a namespace in a work item that a loaded host
# can delay, so a caller that just deleted namespaces passes more
rmmod_poll() {
	local i
	for i in $(seq $((${2:-10} * 5))); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "rmmod_poll: $1 still in use after ${2:-10} s:" \
		"$(grep "^$1 " /proc/modules)" >&2
	return 1
}

# ccaas_autoload: let modprobe (and so the kernel's autoload on
# setsockopt(TCP_CONGESTION, "cca_x")) find the project's modules, through
# install rules in /run/modprobe.d; no depmod needed
ccaas_autoload() {
	local ko n pre
	[ -d "${CCAAS_KO_DIR:-}" ] || return 1
	mkdir -p /run/modprobe.d
	for ko in "$CCAAS_KO_DIR"/*.ko; do
		[ -f "$ko" ] || continue
		n=$(basename "$ko" .ko)
		pre=""
		[ "$n" = ccaas_core ] || pre="/sbin/modprobe ccaas_core && "
		echo "install $n grep -q '^$n ' /proc/modules || { $pre/sbin/insmod $ko; }"
	done >/run/modprobe.d/ccaas.conf
}

# ---- traffic and counters --------------------------------------------------------------

# iperf_server NS [PORT]: a one-shot iperf3 server in NS, in the background
iperf_server() {
	local port=${2:-5201}
	ns "$1" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	wait_port "$1" "$port"
}

# iperf_client NS ADDR SECONDS JSON [IPERF3 ARGS...]: a TCP client run in NS,
# report (iperf3 -J) written to file JSON
iperf_client() {
	local n=$1 addr=$2 secs=$3 json=$4
	shift 4
	ns "$n" timeout $((secs + 20)) iperf3 -c "$addr" -t "$secs" -J "$@" >"$json"
}

# iperf_summary JSON: print "<bits/s at the receiver> <sender retransmits>"
iperf_summary() {
	python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["end"]
print(int(e["sum_received"]["bits_per_second"]), e["sum_sent"].get("retransmits", 0))
' "$1"
}

# iperf_tcp CLIENT_NS SERVER_NS SERVER_ADDR SECONDS [IPERF3 ARGS...]: server,
# client, then print "<bits/s> <retransmits>"; the report is kept in
# $RESULTS/iperf-*.json
iperf_tcp() {
	local c=$1 s=$2 addr=$3 secs=$4 json
	shift 4
	json=$(mktemp "${RESULTS:-/tmp}/iperf-XXXXXX.json")
	iperf_server "$s" || return 1
	iperf_client "$c" "$addr" "$secs" "$json" "$@" || {
		echo "iperf_tcp: client failed, report in $json" >&2
		return 1
	}
	iperf_summary "$json"
}

# nstat_value NS COUNTER: absolute value of an SNMP counter in NS, e.g.
# TcpRetransSegs, TcpExtTCPDeliveredCE (0 if the kernel lacks it)
nstat_value() {
	ns "$1" nstat -asz "$2" 2>/dev/null | awk -v c="$2" '$1 == c { v = $2 } END { print v + 0 }'
}

# nstat_snapshot NS FILE: save all counters of NS to FILE
nstat_snapshot() {
	ns "$1" nstat -asz >"$2"
}

# nstat_delta NS FILE COUNTER: growth of COUNTER since nstat_snapshot NS FILE
nstat_delta() {
	local now before
	now=$(nstat_value "$1" "$3")
	before=$(awk -v c="$3" '$1 == c { v = $2 } END { print v + 0 }' "$2")
	echo $((now - before))
}

# tcp_rtts_ms NS [SS FILTER...]: smoothed RTT (ms) of each established TCP
# socket in NS matching the filter, one per line
tcp_rtts_ms() {
	local n=$1
	shift
	ns "$n" ss -Htin state established "$@" | sed -nE 's/.* rtt:([0-9.]+)\/.*/\1/p'
}
