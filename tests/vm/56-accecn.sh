# Accurate ECN (RFC 9768) on the kernels that have it. A connection
# negotiates off, RFC 3168 or AccECN feedback at the handshake, from the
# namespace's net.ipv4.tcp_ecn and the flags of the CCA the selector gave
# it before its SYN; `ccactl sock show` tells which. cca_dctcp keeps an
# AccECN connection (its CE counters reach the CCA) rather than falling
# back to Reno; migration obeys sticky ECN by the mode: AccECN sockets go
# to any CCA that takes ECN, RFC 3168 ones not to a CCA that refuses the
# RFC 3168 fallback; packets are ECT(1), ECT(0) or Not-ECT as the stack
# marks them.
#
# cca_ecntest (kmod/test/ecntest.c) is Reno with AccECN's flags, as an
# L4S CCA would have them: TCP_CONG_NEEDS_ACCECN, TCP_CONG_ECT_1_NEGOTIATION
# and TCP_CONG_NO_FALLBACK_RFC3168; like dctcp, it puts an established
# socket without ECN on its Reno fallback, ecntest-reno. Hosts ac_a
# (clients) and ac_b (server).
# vm-requires: CCAAS_HAVE_TCP_CONG_NEEDS_ACCECN
# vm-timeout: 200

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
ECN_CONNS=$CCAAS_ROOT/tests/vm/lib/ecn_conns.py
AC_PORT=5020
# TCP_CONG_NEEDS_ECN | _NEEDS_ACCECN | _ECT_1_NEGOTIATION | _NO_FALLBACK_RFC3168
AC_L4S_FLAGS=30

load_ccaas tcp_cca_dctcp tcp_cca_cubic && modprobe tcp_dctcp || return 1

# ac_setup CLIENT_ECN SERVER_ECN: fresh ac_a and ac_b with those
# net.ipv4.tcp_ecn values, a server holding connections on AC_PORT in ac_b
ac_setup() {
	netns_cleanup
	rm -f /tmp/ac_*
	_ccaas_insmod tcp_cca_ecntest && netns_pair ac_a ac_b &&
		ns ac_a sysctl -qw net.ipv4.tcp_ecn="$1" &&
		ns ac_b sysctl -qw net.ipv4.tcp_ecn="$2" || return 1
	# The listener on in-tree dctcp: Linux accepts RFC 3168 ECN from an
	# ECT SYN (cca_dctcp's) only for a listener whose CCA needs ECN.
	ns ac_b python3 "$CONNS" server 0.0.0.0 $AC_PORT --cc dctcp >/dev/null 2>&1 &
	wait_port ac_b $AC_PORT
}

# ac_open TAG N: N connections from ac_a to the server, held by one process
# whose pid goes to /tmp/ac_pid_TAG; returns once they are established
ac_open() {
	local i
	# not through ns(): ip netns exec execs python, so $! is its pid
	ip netns exec ac_a python3 "$ECN_CONNS" "$PAIR_B_IP" $AC_PORT "$2" \
		"/tmp/ac_ready_$1" "/tmp/ac_tos_$1" >/dev/null 2>&1 &
	echo $! >"/tmp/ac_pid_$1"
	for i in $(seq 100); do
		[ -e "/tmp/ac_ready_$1" ] && return 0
		sleep 0.1
	done
	echo "ac_open: $1 not established" >&2
	return 1
}

# ac_tos TAG: the ECN codepoints (0 Not-ECT, 1 ECT(1), 2 ECT(0)) of TAG's
# connections, sorted and joined: "1 1"
ac_tos() {
	local i
	rm -f "/tmp/ac_tos_$1"
	kill -USR1 "$(cat "/tmp/ac_pid_$1")" || return 1
	for i in $(seq 50); do
		[ -e "/tmp/ac_tos_$1" ] && break
		sleep 0.1
	done
	awk '{ print $2 }' "/tmp/ac_tos_$1" | sort | tr '\n' ' ' | sed 's/ $//'
}

# ac_socks: "CCA/ECN_MODE" of each of ac_a's connections to the server,
# sorted and joined: "cca_dctcp/accecn cca_dctcp/accecn"
ac_socks() {
	"$CCACTL" -n ac_a -j sock show | python3 -c '
import json, sys
print(" ".join(sorted("%s/%s" % (s["cca"], s["ecn_mode"])
                      for s in json.load(sys.stdin) if s["dport"] == int(sys.argv[1]))))
' $AC_PORT
}

# ac_policy CCA [ARGS...]: ac_a's default rule on CCA
ac_policy() {
	local cca=$1
	shift
	"$CCACTL" -n ac_a policy set default cca "$cca" "$@" >/dev/null
}

# ac_migrate CCA: ac_a's default rule on CCA, then a migration pass; prints
# the pass's JSON counts
ac_migrate() {
	ac_policy "$1" no_migrate && "$CCACTL" -n ac_a -j migrate
}

# ac_open_modes N: N connections of each feedback mode, held as TAGs off
# (on Reno, no ECN), classic (cca_dctcp, RFC 3168) and acc (cca_dctcp,
# AccECN); leaves net.ipv4.tcp_ecn=3 on ac_a
ac_open_modes() {
	ac_policy reno && ac_open off "$1" || return 1
	ns ac_a sysctl -qw net.ipv4.tcp_ecn=1
	ac_policy cca_dctcp no_migrate && ac_open classic "$1" || return 1
	ns ac_a sysctl -qw net.ipv4.tcp_ecn=3
	ac_open acc "$1"
}

# The registry holds AccECN's flags to what the stack does with them:
# AccECN or ECT(1) without TCP_CONG_NEEDS_ECN would negotiate ECN and send
# Not-ECT, and is refused; so is ops refusing the RFC 3168 fallback that
# cannot hold a socket without ECN. cca show reports the flags.
test_registry_checks_accecn_flags() {
	local t=registry_checks_accecn_flags f out msgs
	! grep -q '^tcp_cca_ecntest ' /proc/modules || rmmod tcp_cca_ecntest || return 1
	msgs=$(dmesg | grep -c 'cca_ecntest declares features or names that do not match its ops')
	for f in 4 8 20; do
		if insmod "$CCAAS_KO_DIR/tcp_cca_ecntest.ko" ecn_flags=$f 2>/dev/null; then
			rmmod tcp_cca_ecntest
			fail $t "ecn_flags=$f (no TCP_CONG_NEEDS_ECN) registered"
			return 1
		fi
	done
	# A fallback name that fills TCP_CA_NAME_MAX with no NUL: netlink
	# replies read it as a string (a fortify report before the check). No
	# fallback ops: its non-ECN sockets would send ECT(0).
	for f in unterminated_name=1 no_fallback=1; do
		if insmod "$CCAAS_KO_DIR/tcp_cca_ecntest.ko" $f 2>/dev/null; then
			rmmod tcp_cca_ecntest
			fail $t "$f registered"
			return 1
		fi
	done
	[ "$(dmesg | grep -c 'cca_ecntest declares features or names that do not match its ops')" = $((msgs + 5)) ] ||
		fail $t "registry messages: $(dmesg | grep cca_ecntest)" || return 1
	insmod "$CCAAS_KO_DIR/tcp_cca_ecntest.ko" || fail $t "default flags refused" || return 1
	out=$("$CCACTL" -j cca show cca_ecntest) || return 1
	echo "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
j = j[0] if isinstance(j, list) else j
assert j["flags"] == int(sys.argv[1]), j
' $AC_L4S_FLAGS || fail $t "cca show: $out" || return 1
	"$CCACTL" cca show cca_ecntest | grep -q 'needs_ecn,needs_accecn,ect_1_negotiation,no_fallback_rfc3168' ||
		fail $t "text: $("$CCACTL" cca show cca_ecntest)"
}

# What a connection negotiates, as sock show tells it: off, rfc3168 or
# accecn, in JSON and in the ECN column.
test_sock_show_ecn_modes() {
	local t=sock_show_ecn_modes got
	ac_setup 0 3 && ac_open_modes 1 || return 1
	got=$(ac_socks)
	[ "$got" = "cca_dctcp/accecn cca_dctcp/rfc3168 reno/off" ] ||
		fail $t "sock show: $got" || return 1
	"$CCACTL" -n ac_a sock show | grep -q ":$AC_PORT .* accecn " ||
		fail $t "text: $("$CCACTL" -n ac_a sock show)"
}

# With net.ipv4.tcp_ecn=3 on both ends, cca_dctcp stays the CCA of an
# AccECN connection (not its Reno fallback) and its alpha follows the CE
# marks the AccECN counters deliver: netem marks 5 % of ECT packets CE,
# and alpha starts at 0 (param alpha_on_init=0), so only marks raise it.
test_accecn_cca_dctcp_keeps_ecn() {
	local t=accecn_cca_dctcp_keeps_ecn json snap ss_out alpha ce mode client sample
	ac_setup 3 3 || return 1
	tc -n ac_a qdisc add dev eth0 root netem loss 5% ecn || return 1
	ac_policy cca_dctcp param alpha_on_init=0 || return 1
	json=$(mktemp) snap=$(mktemp)
	nstat_snapshot ac_a "$snap"
	iperf_server ac_b || return 1
	iperf_client ac_a "$PAIR_B_IP" 6 "$json" &
	client=$!
	# samples while the transfer runs; the last one with the data
	# connection in it counts
	ss_out="" mode="" alpha=0
	while kill -0 $client 2>/dev/null; do
		sample=$(ns ac_a ss -tinH state established "( dport = :5201 )" | tr '\n' ' ')
		case "$sample" in
		*bytes_acked*)
			ss_out=$sample
			mode=$("$CCACTL" -n ac_a -j sock show | python3 -c '
import json, sys
print(" ".join(s["ecn_mode"] for s in json.load(sys.stdin) if s["dport"] == 5201))')
			# the largest alpha of the sockets: iperf3's control
			# connection is on 5201 too and carries no data
			alpha=$(echo "$ss_out" | grep -oE 'alpha:[0-9]+' | cut -d: -f2 | sort -n | tail -n 1)
			[ "${alpha:-0}" -gt 0 ] && break
			;;
		esac
		sleep 0.2
	done
	wait $client || { fail $t "iperf3: $(tail -3 "$json")"; return 1; }
	ce=$(nstat_delta ac_a "$snap" TcpExtTCPDeliveredCE)
	rm -f "$json" "$snap"
	echo "cca_dctcp over AccECN: ecn modes '$mode', alpha ${alpha:-0}, $ce CE delivered"
	case "$ss_out" in
	*cca_dctcp-reno*) fail $t "fell back to Reno: $ss_out"; return 1 ;;
	*cca_dctcp*) ;;
	*) fail $t "not on cca_dctcp: $ss_out"; return 1 ;;
	esac
	echo " $mode " | grep -q ' accecn ' || fail $t "ecn modes: $mode" || return 1
	[ "$ce" -gt 0 ] && [ "${alpha:-0}" -gt 0 ] ||
		fail $t "CE delivered $ce, alpha ${alpha:-0}: $ss_out"
}

# Sticky ECN by the mode. Three pairs of connections, negotiated off
# (Reno), RFC 3168 and AccECN (cca_dctcp). To cca_ecntest, which refuses
# the RFC 3168 fallback: the AccECN and off pairs move (the off pair to its
# Reno fallback), the RFC 3168 pair is refused. To in-tree reno (no ECN):
# only the off pair moves. To cca_cubic (takes either): all move, and keep
# their modes.
test_accecn_migrate_sticky() {
	local t=accecn_migrate_sticky out got
	ac_setup 0 3 && ac_open_modes 2 || return 1

	out=$(ac_migrate cca_ecntest) || return 1
	got=$(ac_socks)
	[ "$(counts "$out" migrated refused)" = "4 2" ] &&
		[ "$got" = "cca_dctcp/rfc3168 cca_dctcp/rfc3168 cca_ecntest/accecn cca_ecntest/accecn ecntest-reno/off ecntest-reno/off" ] ||
		fail $t "to cca_ecntest: $out; sockets: $got" || return 1

	out=$(ac_migrate reno) || return 1
	got=$(ac_socks)
	[ "$(counts "$out" migrated refused)" = "2 4" ] &&
		[ "$got" = "cca_dctcp/rfc3168 cca_dctcp/rfc3168 cca_ecntest/accecn cca_ecntest/accecn reno/off reno/off" ] ||
		fail $t "to reno: $out; sockets: $got" || return 1

	out=$(ac_migrate cca_cubic) || return 1
	got=$(ac_socks)
	[ "$(counts "$out" migrated refused)" = "6 0" ] &&
		[ "$got" = "cca_cubic/accecn cca_cubic/accecn cca_cubic/off cca_cubic/off cca_cubic/rfc3168 cca_cubic/rfc3168" ] ||
		fail $t "to cca_cubic: $out; sockets: $got"
}

# A switch marks packets as the stack does when it gives an established
# socket a CCA: ECT(0) for a CCA that needs ECN (ECT(1) is only the
# handshake's codepoint, TCP_CONG_ECT_1_NEGOTIATION), none for one that
# does not, and none for a socket without ECN whichever CCA it lands on.
# The sockets are idle, so what IP_TOS shows is what the switch set.
test_accecn_switch_sets_ect() {
	local t=accecn_switch_sets_ect out
	ac_setup 0 3 && ac_open_modes 2 || return 1
	# ECT of the AccECN, RFC 3168 and off pairs
	[ "$(ac_tos acc) $(ac_tos classic) $(ac_tos off)" = "2 2 2 2 0 0" ] ||
		fail $t "before: ECT $(ac_tos acc) / $(ac_tos classic) / $(ac_tos off)" || return 1
	out=$(ac_migrate cca_cubic) || return 1
	[ "$(ac_tos acc) $(ac_tos classic) $(ac_tos off)" = "0 0 0 0 0 0" ] ||
		fail $t "on cca_cubic (no TCP_CONG_NEEDS_ECN): ECT $(ac_tos acc) / $(ac_tos classic) / $(ac_tos off); $out" ||
		return 1
	# the RFC 3168 pair is refused and stays on cca_cubic
	out=$(ac_migrate cca_ecntest) || return 1
	[ "$(ac_tos acc) $(ac_tos classic) $(ac_tos off)" = "2 2 0 0 0 0" ] &&
		[ "$(ac_socks)" = "cca_cubic/rfc3168 cca_cubic/rfc3168 cca_ecntest/accecn cca_ecntest/accecn ecntest-reno/off ecntest-reno/off" ] ||
		fail $t "on cca_ecntest: ECT $(ac_tos acc) / $(ac_tos classic) / $(ac_tos off); $out; $(ac_socks)"
}

# tos_of NS FILTER CMD...: run CMD once tcpdump in NS captures, and print
# the tos byte of the first packet FILTER matches ("0x1": ECT(1))
tos_of() {
	local ns=$1 filter=$2 cap=/tmp/ac_cap i dump
	shift 2
	rm -f "$cap" "$cap.err"
	ns "$ns" timeout 20 tcpdump -i eth0 -c 1 -nv "$filter" >"$cap" 2>"$cap.err" &
	dump=$!
	# tcpdump says "listening on" once its filter is in place
	for i in $(seq 100); do
		grep -q 'listening on' "$cap.err" 2>/dev/null && break
		sleep 0.1
	done
	"$@" || return 1
	wait "$dump"
	sed -nE 's/.*\(tos (0x[0-9a-f]+).*/\1/p' "$cap" | head -n 1
}

# syn_tos TAG: the tos of the SYN of one connection opened as ac_open TAG 1
syn_tos() {
	tos_of ac_a "dst port $AC_PORT and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn" \
		ac_open "$1" 1
}

# The selector gives a connection its CCA before the SYN, so the CCA's
# flags decide the handshake: with net.ipv4.tcp_ecn=1 (classic only) on
# the client, cca_ecntest still asks for AccECN, on an ECT(1) SYN, and gets
# it from a server that accepts it, where cca_dctcp gets RFC 3168 on an
# ECT(0) SYN; against a server that only speaks RFC 3168, cca_ecntest
# refuses the fallback and goes without ECN, on its Reno fallback.
test_accecn_selector_negotiates() {
	local t=accecn_selector_negotiates got l4s_tos dctcp_tos
	ac_setup 1 3 || return 1
	ac_policy cca_ecntest && l4s_tos=$(syn_tos l4s) || return 1
	ac_policy cca_dctcp no_migrate && dctcp_tos=$(syn_tos dctcp) || return 1
	got=$(ac_socks)
	[ "$got" = "cca_dctcp/rfc3168 cca_ecntest/accecn" ] ||
		fail $t "server with AccECN: $got" || return 1
	[ "$l4s_tos $dctcp_tos" = "0x1 0x2" ] ||
		fail $t "SYN tos: cca_ecntest '$l4s_tos', cca_dctcp '$dctcp_tos' (want 0x1 0x2)" ||
		return 1
	ac_setup 1 1 || return 1
	ac_policy cca_ecntest && ac_open l4s 1 || return 1
	ac_policy cca_dctcp no_migrate && ac_open dctcp 1 || return 1
	got=$(ac_socks)
	[ "$got" = "cca_dctcp/rfc3168 ecntest-reno/off" ] ||
		fail $t "RFC 3168 server: $got" || return 1
	[ "$(ac_tos l4s)" = 0 ] || fail $t "cca_ecntest without ECN sends ECT $(ac_tos l4s)"
}

# ac_listener_cca: the CCA of ac_b's listener on AC_PORT+1 (as ss shows it)
ac_listener_cca() {
	ns ac_b ss -ltinH "( sport = :$((AC_PORT + 1)) )" |
		sed -nE 's/^[[:space:]]+([A-Za-z0-9_-]+) .*/\1/p'
}

# A policy's listeners go on a CCA that needs ECN, preferring one that asks
# for AccECN, and never on one refusing the RFC 3168 fallback (a classic
# client would see ECN agreed while the child has none).
test_accecn_listener_placement() {
	local t=accecn_listener_placement def
	ac_setup 1 1 || return 1
	def=$(ns ac_b sysctl -n net.ipv4.tcp_congestion_control)
	"$CCACTL" -n ac_b policy set default cca cca_ecntest >/dev/null || return 1
	ns ac_b python3 "$CONNS" server 0.0.0.0 $((AC_PORT + 1)) >/dev/null 2>&1 &
	wait_port ac_b $((AC_PORT + 1)) || return 1
	[ "$(ac_listener_cca)" = "$def" ] ||
		fail $t "policy of cca_ecntest only: listener on $(ac_listener_cca), not $def" ||
		return 1
	"$CCACTL" -n ac_b policy set locality rack cca cca_dctcp >/dev/null || return 1
	[ "$(ac_listener_cca)" = cca_dctcp ] ||
		fail $t "with a cca_dctcp rule: listener on $(ac_listener_cca)"
}

# ecntest_reload [PARAM...]: tcp_cca_ecntest loaded afresh with PARAMs
# (none: the default flags); every namespace is deleted first, since their
# sockets and policies hold the module
ecntest_reload() {
	netns_cleanup
	if grep -q '^tcp_cca_ecntest ' /proc/modules; then
		rmmod_poll tcp_cca_ecntest || { echo "tcp_cca_ecntest still in use" >&2; return 1; }
	fi
	insmod "$CCAAS_KO_DIR/tcp_cca_ecntest.ko" "$@"
}

# TCP_CONG_NEEDS_ECN | _NEEDS_ACCECN | _ECT_1_NEGOTIATION: AccECN asked for,
# RFC 3168 feedback accepted
AC_ACCECN_FLAGS=14

# A CCA that asks for AccECN but accepts RFC 3168 feedback (no
# TCP_CONG_NO_FALLBACK_RFC3168) takes RFC 3168 sockets too.
test_accecn_fallback_takes_classic() {
	local t=accecn_fallback_takes_classic out got rc=0
	ecntest_reload ecn_flags=$AC_ACCECN_FLAGS || return 1
	{ ac_setup 1 3 && ac_policy cca_dctcp && ac_open classic 2 &&
		out=$(ac_migrate cca_ecntest); } || rc=1
	got=$(ac_socks)
	[ $rc = 0 ] && [ "$(counts "$out" migrated refused)" = "2 0" ] &&
		[ "$got" = "cca_ecntest/rfc3168 cca_ecntest/rfc3168" ] ||
		{ fail $t "migrate: $out; sockets: $got"; rc=1; }
	ecntest_reload || rc=1
	return $rc
}

# synack_tos: the tos of the SYN-ACK ac_b sends to a new connection from
# ac_a to AC_PORT+1
synack_tos() {
	tos_of ac_b "src port $((AC_PORT + 1)) and tcp[tcpflags] & (tcp-syn|tcp-ack) == (tcp-syn|tcp-ack)" \
		synack_client
}

# synack_client: one connection from ac_a to AC_PORT+1, held in the background
synack_client() {
	ns ac_a python3 "$CONNS" client "$PAIR_B_IP" $((AC_PORT + 1)) 1 /tmp/ac_syn_ready \
		>/dev/null 2>&1 &
}

# Listeners prefer a CCA that asks for AccECN: with a cca_dctcp rule and a
# cca_ecntest one that accepts the RFC 3168 fallback, the listener goes on
# cca_ecntest. The selector put it there before it was initialised, so its
# packets carry the handshake's codepoint, ECT(1): so does its SYN-ACK.
test_accecn_listener_prefers_accecn() {
	local t=accecn_listener_prefers_accecn got rc=0
	ecntest_reload ecn_flags=$AC_ACCECN_FLAGS || return 1
	{ ac_setup 1 1 &&
		"$CCACTL" -n ac_b policy set locality rack cca cca_dctcp >/dev/null &&
		"$CCACTL" -n ac_b policy set default cca cca_ecntest >/dev/null; } || rc=1
	ns ac_b python3 "$CONNS" server 0.0.0.0 $((AC_PORT + 1)) >/dev/null 2>&1 &
	wait_port ac_b $((AC_PORT + 1)) || rc=1
	[ $rc = 0 ] && [ "$(ac_listener_cca)" = cca_ecntest ] ||
		{ fail $t "listener on $(ac_listener_cca)"; rc=1; }
	if [ $rc = 0 ]; then
		got=$(synack_tos)
		[ "$got" = 0x1 ] || { fail $t "SYN-ACK tos '$got', want 0x1 (ECT(1))"; rc=1; }
	fi
	ecntest_reload || rc=1
	return $rc
}
