# The selector: new connections get the policy's CCA before the SYN leaves,
# on both ends; an application's choice and a route lock are respected;
# knobs reach the socket; `ccactl sock show` reports it.
#
# Hosts a (10.0.0.1, fd00::1) and b (10.0.0.2, fd00::2), one veth pair. Each
# namespace has its own scope table and policy. b's policy is set before its
# server listens: a policy naming an ECN CCA puts new listeners on it, which
# is what makes a server accept ECN from ECT-marked SYNs.
# vm-debug: yes
# On the sanitizer kernel, not the tests of decisions alone (which SYN
# each CCA sends, an application's choice kept, in-tree CCAs named, knobs
# and RTO floors, IPv6 addresses): the selector's allocations, locks and
# passive-side paths are those of the route-lock, passive and sock-show
# tests (and of the migration and hostile files' connections). The Debian
# lines run them all.
# vm-debug-skip: select_plain_syn_for_other_cca select_respects_application
# vm-debug-skip: select_in_tree_ccas select_ecn_syn_for_ecn_cca
# vm-debug-skip: select_passive_without_ecn select_ipv6 select_knobs
# vm-debug-skip: select_min_rto_sysctl
# vm-timeout: 300

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
SEL_PORT=5001

load_ccaas tcp_cca_dctcp && modprobe tcp_dctcp && modprobe tcp_bbr

# sel_setup [B_DEFAULT_CCA]: fresh hosts a and b; b's policy default rule
# (if given), then a b-side server holding connections
sel_setup() {
	netns_cleanup
	netns_pair a b || return 1
	if [ -n "${1:-}" ]; then
		"$CCACTL" -n b policy set default cca "$1" >/dev/null || return 1
	fi
	ns b python3 "$CONNS" server :: $SEL_PORT >/dev/null 2>&1 &
	wait_port b $SEL_PORT
}

# sel_connect ADDR [--cc NAME]: one held connection from a to b:ADDR
sel_connect() {
	local addr=$1
	shift
	rm -f /tmp/sel_ready
	ns a python3 "$CONNS" client "$addr" $SEL_PORT 1 /tmp/sel_ready "$@" >/dev/null 2>&1 &
	for _ in $(seq 50); do [ -e /tmp/sel_ready ] && return 0; sleep 0.1; done
	echo "sel_connect: no connection to $addr" >&2
	return 1
}

# syn_flags ADDR [--cc NAME]: connect and print the TCP flags of the SYN as
# b received it, e.g. "S" or "SEW" (ECE and CWR: ECN requested)
syn_flags() {
	local log=/tmp/syn.$$
	ns b tcpdump -i eth0 -nn -l -c 1 "tcp[13] & 0x12 == 0x02" > "$log" 2> "$log.err" &
	for _ in $(seq 50); do grep -q listening "$log.err" && break; sleep 0.1; done
	sel_connect "$@" || return 1
	for _ in $(seq 50); do [ -s "$log" ] && break; sleep 0.1; done
	sed -nE 's/.*Flags \[([A-Z.]+)\].*/\1/p' "$log" | head -n 1
	rm -f "$log" "$log.err"
}

# client_ss: the client's view of its connection to b
client_ss() {
	ns a ss -tinoH state established "( dport = :$SEL_PORT )"
}

test_select_ecn_syn_for_ecn_cca() {
	local flags
	sel_setup cca_dctcp || return 1
	"$CCACTL" -n a scope add 10.0.0.2/32 locality dc region 1 dc 7 &&
		"$CCACTL" -n a policy set locality dc cca cca_dctcp >/dev/null &&
		"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	flags=$(syn_flags "$PAIR_B_IP")
	[ "$flags" = SEW ] || fail select_ecn_syn_for_ecn_cca "SYN flags [$flags]" || return 1
	client_ss | grep -q 'ecn.*cca_dctcp ' ||
		fail select_ecn_syn_for_ecn_cca "not on cca_dctcp with ECN: $(client_ss)"
}

test_select_plain_syn_for_other_cca() {
	local flags
	sel_setup || return 1
	"$CCACTL" -n a policy set locality dc cca cca_dctcp >/dev/null &&
		"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	# No scope entry: unknown scope, the default rule applies.
	flags=$(syn_flags "$PAIR_B_IP")
	[ "$flags" = S ] || fail select_plain_syn_for_other_cca "SYN flags [$flags]" || return 1
	client_ss | grep -q ' cubic ' && ! client_ss | grep -qw ecn ||
		fail select_plain_syn_for_other_cca "$(client_ss)"
}

test_select_respects_application() {
	local flags
	sel_setup || return 1
	"$CCACTL" -n a policy set default cca cca_dctcp >/dev/null || return 1
	flags=$(syn_flags "$PAIR_B_IP" --cc reno)
	[ "$flags" = S ] && client_ss | grep -q ' reno ' ||
		fail select_respects_application "flags [$flags]: $(client_ss)"
}

test_select_respects_route_lock() {
	sel_setup || return 1
	"$CCACTL" -n a policy set default cca cca_dctcp >/dev/null || return 1
	ip -n a route add 10.0.0.2/32 dev eth0 congctl lock reno || return 1
	sel_connect "$PAIR_B_IP" || return 1
	client_ss | grep -q ' reno ' || fail select_respects_route_lock "$(client_ss)"
}

# In-tree CCAs named by a policy: dctcp asks for ECN, bbr does not.
test_select_in_tree_ccas() {
	local flags
	sel_setup dctcp || return 1
	"$CCACTL" -n a policy set default cca dctcp >/dev/null || return 1
	flags=$(syn_flags "$PAIR_B_IP")
	[ "$flags" = SEW ] && client_ss | grep -q 'ecn.* dctcp ' ||
		fail select_in_tree_ccas "dctcp: flags [$flags] $(client_ss)" || return 1
	sel_setup || return 1
	"$CCACTL" -n a policy set default cca bbr >/dev/null || return 1
	flags=$(syn_flags "$PAIR_B_IP")
	[ "$flags" = S ] && client_ss | grep -q ' bbr ' ||
		fail select_in_tree_ccas "bbr: flags [$flags] $(client_ss)"
}

# The server's accepted connection follows the server's own policy, and its
# listener, put on the policy's ECN CCA, accepted ECN.
test_select_passive_side() {
	local srv lst
	netns_cleanup
	netns_pair a b || return 1
	"$CCACTL" -n a policy set default cca cca_dctcp >/dev/null &&
		"$CCACTL" -n b scope add 10.0.0.0/24 locality rack region 1 dc 7 &&
		"$CCACTL" -n b policy set locality rack cca cca_dctcp >/dev/null &&
		"$CCACTL" -n b policy set default cca cubic >/dev/null || return 1
	ns b python3 "$CONNS" server :: $SEL_PORT >/dev/null 2>&1 &
	wait_port b $SEL_PORT || return 1
	lst=$(ns b ss -tilnH "( sport = :$SEL_PORT )")
	echo "$lst" | grep -q cca_dctcp || fail select_passive_side "listener: $lst" || return 1
	sel_connect "$PAIR_B_IP" || return 1
	srv=$(ns b ss -tinoH state established "( sport = :$SEL_PORT )")
	echo "$srv" | grep -q 'ecn.*cca_dctcp ' ||
		fail select_passive_side "server side: $srv"
}

# A client that does not ask for ECN gets none; the server's child still gets
# cca_dctcp, which falls back to Reno by itself.
test_select_passive_without_ecn() {
	local srv
	sel_setup cca_dctcp || return 1
	"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	sel_connect "$PAIR_B_IP" || return 1
	srv=$(ns b ss -tinoH state established "( sport = :$SEL_PORT )")
	echo "$srv" | grep -q 'cca_dctcp-reno ' && ! echo "$srv" | grep -qw ecn ||
		fail select_passive_without_ecn "server side: $srv"
}

test_select_ipv6() {
	sel_setup || return 1
	"$CCACTL" -n a scope add fd00::2/128 locality region region 3 &&
		"$CCACTL" -n a policy set locality region cca cca_dctcp >/dev/null &&
		"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	sel_connect "$PAIR_B_IP6" || return 1
	client_ss | grep -q 'cca_dctcp' || fail select_ipv6 "$(client_ss)"
}

# Knobs: the initial window reaches a ccaas CCA; the minimum RTO any CCA.
test_select_knobs() {
	local s json
	sel_setup cca_dctcp || return 1
	"$CCACTL" -n a scope add 10.0.0.2/32 locality dc region 1 dc 7 &&
		"$CCACTL" -n a policy set locality dc cca cca_dctcp init_cwnd 20 min_rto 1ms >/dev/null &&
		"$CCACTL" -n a policy set default cca cubic min_rto 5ms >/dev/null || return 1
	sel_connect "$PAIR_B_IP" || return 1
	s=$(client_ss)
	echo "$s" | grep -q 'cwnd:20 ' || fail select_knobs "init_cwnd: $s" || return 1
	# rto = srtt + 4 rttvar with rttvar floored at rto_min: with the
	# kernel's 200 ms floor it cannot be below 200 ms, whatever the RTT
	[ "$(echo "$s" | sed -nE 's/.* rto:([0-9]+).*/\1/p')" -lt 200 ] ||
		fail select_knobs "rto: $s" || return 1
	json=$("$CCACTL" -n a -j sock show)
	echo "$json" | python3 -c '
import json, sys
socks = [s for s in json.load(sys.stdin) if s["dport"] == 5001]
assert len(socks) == 1, socks
s = socks[0]
assert s["cca"] == "cca_dctcp" and s["policy_cca"] == "cca_dctcp", s
# 1 ms, rounded up to two jiffies, the least the kernel takes (8 ms at HZ=250)
assert 2000 <= s["min_rto_us"] <= 8000, s
' || fail select_knobs "sock show: $json"
}

# Without a min_rto knob a socket keeps its namespace's floor, the sysctl
# net.ipv4.tcp_rto_min_us that tcp_init_sock() gave it (6.11+; on older
# kernels, without the sysctl, there is nothing to test), not 200 ms.
test_select_min_rto_sysctl() {
	local json want=12000
	sel_setup cca_dctcp || return 1
	# Without the sysctl (before 6.11) the floor is TCP_RTO_MIN, 200 ms.
	ns a sysctl -qw net.ipv4.tcp_rto_min_us=12000 2>/dev/null || want=200000
	"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	sel_connect "$PAIR_B_IP" || return 1
	json=$("$CCACTL" -n a -j sock show)
	echo "$json" | python3 -c '
import json, sys
socks = [s for s in json.load(sys.stdin) if s["dport"] == 5001]
assert len(socks) == 1, socks
assert socks[0]["cca"] == "cubic" and socks[0]["min_rto_us"] == int(sys.argv[1]), socks
' "$want" || fail select_min_rto_sysctl "sock show (want min_rto_us $want): $json"
}

test_sock_show() {
	local json
	sel_setup cca_dctcp || return 1
	"$CCACTL" -n a scope add 10.0.0.2/32 locality dc region 1 dc 7 &&
		"$CCACTL" -n a policy set locality dc cca cca_dctcp >/dev/null || return 1
	sel_connect "$PAIR_B_IP" || return 1
	json=$("$CCACTL" -n a -j sock show)
	echo "$json" | python3 -c '
import json, sys
socks = [s for s in json.load(sys.stdin) if s["dport"] == 5001]
assert len(socks) == 1, socks
s = socks[0]
assert s["daddr"] == "10.0.0.2" and s["saddr"] == "10.0.0.1", s
assert (s["locality"], s["region"], s["dc"]) == ("dc", 1, 7), s
assert s["ecn"] is True and s["pinned"] is False, s
assert s["ecn_mode"] == "rfc3168", s
assert s["generation"] == 1 and s["cookie"] > 0, s
' || fail sock_show "$json" || return 1
	"$CCACTL" -n a sock show | grep -q '10.0.0.2:5001.*cca_dctcp' ||
		fail sock_show "text: $("$CCACTL" -n a sock show)"
}
