# What no friendly client does: a task that holds its own socket's lock,
# and sockets half-closed, orphaned, not yet accepted or mid-handshake.
#   lock_holder_migrate     a task blocked in send() with its socket's lock
#                           held (a userfaultfd page never filled): migrate,
#                           drain and `log add` return, count it busy, and
#                           move it once the task lets go
#   drain_every_state       `cca drain` moves CLOSE_WAIT, FIN_WAIT1 (orphan),
#                           FIN_WAIT2, accept-queue children and listeners,
#                           and the module unloads; stats saw them
#   drain_syn_sent          a connection in SYN_SENT is drained too, to the
#                           transitional CCA (its SYN asked for ECN), and
#                           ends on the policy's CCA once established
#                           without ECN
#   handshake_spans_commit  a commit while a SYN waits: the connection
#                           gets the new policy's CCA when it completes
#   min_rto_owner           a rule's min_rto (rounded up to two jiffies,
#                           with a warning) goes back to the floor only
#                           where ccaas set it; the application's and a
#                           listener's own values are kept
#   drain_route_lock        a drain leaves a socket whose route says
#                           `congctl lock` (pinned) unless forced
#   takeover_list_new_conns a CCA with a takeover list gets new passive
#                           connections, and refuses running ones
#
# Hosts a (clients) and b (servers). Ports 6100-6105.
# vm-debug: yes
# vm-debug-skip: min_rto_owner drain_route_lock takeover_list_new_conns
# vm-lines: newest
# vm-timeout: 240

HOLDER=$CCAAS_ROOT/tests/vm/lib/lockholder.py
STATES=$CCAAS_ROOT/tests/vm/lib/states.py
CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py

load_ccaas tcp_cca_dctcp tcp_cca_cubic

# h_setup: fresh a and b, a server holding connections on b:6100
h_setup() {
	netns_cleanup
	netns_pair a b || return 1
	ns b python3 "$CONNS" server 0.0.0.0 6100 >/dev/null 2>&1 &
	wait_port b 6100
}

# h_wait FILE: wait for a helper's READY file (up to 30 s)
h_wait() {
	for _ in $(seq 300); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}

# cca_of NS PORT: the CCA of NS's connection with local port PORT, from
# SOCK_GET, which reads it without the socket's lock (`ss -i` would wait for
# a socket a task owns: tcp_get_info() takes the lock)
cca_of() {
	"$CCACTL" -n "$1" -j sock show sport "$2" |
		python3 -c 'import json, sys; print(" ".join(s["cca"] for s in json.load(sys.stdin)))'
}

test_lock_holder_migrate() {
	local rdy=/tmp/h_holder out port log
	h_setup || return 1
	"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	rm -f "$rdy"
	ns a python3 "$HOLDER" "$PAIR_B_IP" 6100 "$rdy" >/tmp/h_holder.out 2>&1 &
	h_wait "$rdy" || fail lock_holder_migrate "the holder did not block: $(cat /tmp/h_holder.out)" ||
		return 1
	port=$(cat "$rdy")
	[ "$(cca_of a "$port")" = cubic ] || fail lock_holder_migrate "not on cubic" || return 1

	# With the socket owned by a task, every pass must return (not wait
	# for the task), and say what it could not move. The caps only catch
	# a hang.
	"$CCACTL" -n a policy set default cca cca_dctcp no_migrate >/dev/null || return 1
	out=$(timeout 60 "$CCACTL" -n a -j migrate) ||
		fail lock_holder_migrate "migrate did not return: rc $?" || return 1
	[ "$(counts "$out" examined migrated busy)" = "1 0 1" ] ||
		fail lock_holder_migrate "migrate with the lock held: $out" || return 1
	out=$(timeout 60 "$CCACTL" -n a -j cca drain cubic to reno) ||
		fail lock_holder_migrate "drain did not return: rc $?" || return 1
	[ "$(counts "$out" migrated busy)" = "0 1" ] ||
		fail lock_holder_migrate "drain with the lock held: $out" || return 1
	log=$(timeout 60 "$CCACTL" -n a log add all 2>&1) ||
		fail lock_holder_migrate "log add did not return: $log" || return 1
	# genetlink as a whole still answers, from another namespace
	timeout 30 "$CCACTL" cca list >/dev/null ||
		fail lock_holder_migrate "a genl request elsewhere did not return" || return 1
	[ "$(cca_of a "$port")" = cubic ] || fail lock_holder_migrate "moved while owned" || return 1

	# The task lets go; the next pass moves the socket.
	pkill -TERM -f "$HOLDER"
	for _ in $(seq 100); do grep -q released /tmp/h_holder.out && break; sleep 0.1; done
	grep -q released /tmp/h_holder.out || fail lock_holder_migrate "holder: $(cat /tmp/h_holder.out)" ||
		return 1
	out=$("$CCACTL" -n a -j migrate) || return 1
	[ "$(counts "$out" migrated busy)" = "1 0" ] && [ "$(cca_of a "$port")" = cca_dctcp-reno ] ||
		fail lock_holder_migrate "after the release: $out, on $(cca_of a "$port")" || return 1
	pass lock_holder_migrate
}

# Every server-side state that holds a CCA, on b, whose policy puts its
# listeners and children on cca_dctcp (children fall back to Reno: the
# clients do not ask for ECN). A drain must leave nothing on cca_dctcp.
test_drain_every_state() {
	local rdy=/tmp/h_states out st left
	netns_cleanup
	netns_pair a b || return 1
	"$CCACTL" -n b policy set default cca cca_dctcp >/dev/null || return 1
	rm -f "$rdy"
	ns b python3 "$STATES" -c a "$PAIR_B_IP" 6102 "$rdy" >/tmp/h_states.out 2>&1 &
	h_wait "$rdy" || fail drain_every_state "states.py: $(cat /tmp/h_states.out)" || return 1
	for st in close-wait fin-wait-1 fin-wait-2 established listening; do
		ns b ss -tinH state "$st" | grep -q " cca_dctcp" ||
			fail drain_every_state "no $st socket on cca_dctcp: $(ns b ss -tinaH)" || return 1
	done
	# STATS_GET and SOCK_GET see the four connections (not the listeners).
	out=$("$CCACTL" -n b -j stats) || return 1
	echo "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
n = sum(c["sockets"] for c in j["ccas"] if c["cca"].startswith("cca_dctcp"))
sys.exit(n != 4)' || fail drain_every_state "stats: $out" || return 1
	out=$("$CCACTL" -n b -j sock show cca cca_dctcp-reno) || return 1
	[ "$(echo "$out" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" = 4 ] ||
		fail drain_every_state "sock show: $out" || return 1

	"$CCACTL" -n b policy set default cca cubic no_migrate >/dev/null || return 1
	out=$("$CCACTL" -n b -j cca drain cca_dctcp) || return 1
	left=$(ns b ss -tinaH | grep -c " cca_dctcp")
	[ "$(counts "$out" migrated listeners busy)" = "6 2 0" ] && [ "$left" = 0 ] ||
		fail drain_every_state "drain: $out; left on cca_dctcp: $left: $(ns b ss -tinaH)" ||
		return 1
	for st in close-wait fin-wait-1 fin-wait-2; do
		ns b ss -tinH state "$st" | grep -q " cubic " ||
			fail drain_every_state "$st not on cubic: $(ns b ss -tinaH state "$st")" || return 1
	done
	for _ in $(seq 50); do
		rmmod tcp_cca_dctcp 2>/dev/null && break
		sleep 0.2
	done
	! grep -q '^tcp_cca_dctcp ' /proc/modules ||
		fail drain_every_state "module still loaded after the drain" || return 1
	load_ccaas tcp_cca_dctcp tcp_cca_cubic
	pass drain_every_state
}

# h_block_syns: b cannot answer a (a blackhole route for a's address, which
# needs no tc classifier: the sanitizer kernel has none), so a connection
# from a waits in SYN_SENT until h_unblock_syns; then the next SYN or SYN-ACK
# retransmission completes it
h_block_syns() {
	ip -n b route add blackhole "$PAIR_A_IP/32"
}

h_unblock_syns() {
	ip -n b route del blackhole "$PAIR_A_IP/32"
}

# h_syn_sent: a connect()s to b:6101 from a background task, which holds the
# connection open once established; prints a's local port once in SYN_SENT
h_syn_sent() {
	local port
	ns a python3 -c '
import socket, sys, time
s = socket.create_connection((sys.argv[1], 6101), timeout=120)
time.sleep(120)' "$PAIR_B_IP" >/dev/null 2>&1 &
	for _ in $(seq 100); do
		port=$(ns a ss -tnH state syn-sent "( dport = :6101 )" | awk '{ sub(/.*:/, "", $3); print $3 }')
		[ -n "$port" ] && { echo "$port"; return 0; }
		sleep 0.1
	done
	return 1
}

test_drain_syn_sent() {
	local port out
	h_setup || return 1
	ns b python3 "$CONNS" server 0.0.0.0 6101 >/dev/null 2>&1 &
	wait_port b 6101 && h_block_syns || return 1
	"$CCACTL" -n a policy set default cca cca_dctcp >/dev/null || return 1
	port=$(h_syn_sent) || fail drain_syn_sent "no SYN_SENT socket" || return 1
	[ "$(cca_of a "$port")" = cca_dctcp ] || fail drain_syn_sent "not on cca_dctcp: $(cca_of a "$port")" ||
		return 1
	"$CCACTL" -n a policy set default cca cubic no_migrate >/dev/null || return 1
	# The SYN asked for ECN (cca_dctcp needs it), which cubic cannot
	# hold: the drain sends it where the selector sends an ECN child.
	out=$("$CCACTL" -n a -j cca drain cca_dctcp) || return 1
	[ "$(counts "$out" migrated)" = 1 ] && [ "$(cca_of a "$port")" = cca_cubic ] ||
		fail drain_syn_sent "drain: $out; on $(cca_of a "$port")" || return 1
	# The handshake completes on a retransmitted SYN, which the stack
	# sends without ECN (net.ipv4.tcp_ecn_fallback): no ECN, so the
	# selector, checking again at SYN_SENT -> ESTABLISHED, puts it on
	# the policy's cubic, before any CCA ran on it.
	h_unblock_syns || return 1
	# the next SYN retransmission: up to 16 s away (1, 2, 4, 8, 16 s)
	for _ in $(seq 400); do
		ns a ss -tnH state established "( sport = :$port )" | grep -q . && break
		sleep 0.1
	done
	[ "$(cca_of a "$port")" = cubic ] &&
		! ns a ss -tinH state established "( sport = :$port )" | grep -qw ecn ||
		fail drain_syn_sent "after the handshake: $(ns a ss -tinaH "( sport = :$port )")" || return 1
	pass drain_syn_sent
}

test_handshake_spans_commit() {
	local port
	h_setup || return 1
	ns b python3 "$CONNS" server 0.0.0.0 6101 >/dev/null 2>&1 &
	wait_port b 6101 && h_block_syns || return 1
	"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	port=$(h_syn_sent) || fail handshake_spans_commit "no SYN_SENT socket" || return 1
	# no_migrate: only the selector can move it, when the handshake ends
	"$CCACTL" -n a policy set default cca cca_dctcp no_migrate >/dev/null || return 1
	[ "$(cca_of a "$port")" = cubic ] || fail handshake_spans_commit "moved early" || return 1
	h_unblock_syns || return 1
	# the next SYN retransmission: up to 16 s away (1, 2, 4, 8, 16 s)
	for _ in $(seq 400); do
		ns a ss -tnH state established "( sport = :$port )" | grep -q . && break
		sleep 0.1
	done
	# No ECN asked (the SYN went out on cubic): cca_dctcp's Reno fallback.
	[ "$(cca_of a "$port")" = cca_dctcp-reno ] ||
		fail handshake_spans_commit "established on $(cca_of a "$port"), not the new policy's cca_dctcp" ||
		return 1
	pass handshake_spans_commit
}

# min_rto_of NS PORT: the minimum RTO (us) of NS's connection with local
# port PORT, as SOCK_GET reports it
min_rto_of() {
	"$CCACTL" -n "$1" -j sock show sport "$2" |
		python3 -c 'import json, sys; print(" ".join(str(s["min_rto_us"]) for s in json.load(sys.stdin)))'
}

# h_rto_conn NS ADDR PORT RTO_US READY: a connection whose application set
# TCP_RTO_MIN_US (45) before connect(); READY gets its local port
h_rto_conn() {
	ns "$1" python3 -c '
import os, socket, sys, time
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, 45, int(sys.argv[3]))
s.connect((sys.argv[1], int(sys.argv[2])))
open(sys.argv[4], "w").write("%d\n" % s.getsockname()[1])
time.sleep(120)' "$2" "$3" "$4" "$5" >/dev/null 2>&1 &
}

# The minimum RTO belongs to whoever set it. A rule's min_rto applies,
# rounded up to two jiffies (the kernel's least, 8 ms at HZ=250 on every
# line this suite boots) with a warning; a rule without one gives the
# namespace's floor back only where ccaas wrote a value, and leaves what the
# application chose (TCP_RTO_MIN_US, 7.x), on a connection or on a
# listener whose children inherit it.
test_min_rto_owner() {
	local port err out have_opt=1
	h_setup || return 1
	err=$("$CCACTL" -n a policy set default cca cca_dctcp min_rto 1ms 2>&1 >/dev/null) ||
		fail min_rto_owner "policy set: $err" || return 1
	echo "$err" | grep -q "^Warning: min_rto below two jiffies" ||
		fail min_rto_owner "no warning for 1 ms: '$err'" || return 1
	rm -f /tmp/h_rto1 /tmp/h_rto3
	ns a python3 "$CONNS" client "$PAIR_B_IP" 6100 1 /tmp/h_rto1 >/dev/null 2>&1 &
	h_wait /tmp/h_rto1 || return 1
	port=$(ns a ss -tnH state established "( dport = :6100 )" | awk '{ sub(/.*:/, "", $3); print $3 }')
	[ "$(min_rto_of a "$port")" = 8000 ] ||
		fail min_rto_owner "a rule's 1 ms gave $(min_rto_of a "$port") us" || return 1
	# the rule loses its min_rto: the floor ccaas replaced comes back
	"$CCACTL" -n a policy set default cca cca_dctcp >/dev/null || return 1
	[ "$(min_rto_of a "$port")" = 200000 ] ||
		fail min_rto_owner "after a rule without min_rto: $(min_rto_of a "$port") us" || return 1

	# The application's own value (TCP_RTO_MIN_US, 7.x only).
	ns a python3 -c 'import socket; socket.socket().setsockopt(socket.IPPROTO_TCP, 45, 48000)' \
		2>/dev/null || have_opt=
	if [ -n "$have_opt" ]; then
		rm -f /tmp/h_rto2
		h_rto_conn a "$PAIR_B_IP" 6100 48000 /tmp/h_rto2
		h_wait /tmp/h_rto2 || return 1
		port=$(cat /tmp/h_rto2)
		out=$(min_rto_of a "$port")
		"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
		[ "$out" = 48000 ] && [ "$(min_rto_of a "$port")" = 48000 ] ||
			fail min_rto_owner "the application's 48 ms: $out at connect, $(min_rto_of a "$port") after a migration" ||
			return 1
		# a listener's value, which its children inherit
		ns b python3 -c '
import socket, time
ls = socket.socket()
ls.setsockopt(socket.IPPROTO_TCP, 45, 40000)
ls.bind(("0.0.0.0", 6104))
ls.listen(8)
held = [ls.accept()[0] for _ in range(1)]
time.sleep(120)' >/dev/null 2>&1 &
		wait_port b 6104 || return 1
		"$CCACTL" -n b policy set default cca cca_dctcp >/dev/null || return 1
		ns a python3 "$CONNS" client "$PAIR_B_IP" 6104 1 /tmp/h_rto3 >/dev/null 2>&1 &
		h_wait /tmp/h_rto3 || return 1
		out=$("$CCACTL" -n b -j sock show sport 6104 |
			python3 -c 'import json, sys; print(" ".join("%s:%s" % (s["cca"], s["min_rto_us"]) for s in json.load(sys.stdin)))')
		[ "$out" = cca_dctcp-reno:40000 ] ||
			fail min_rto_owner "a child of a listener with 40 ms: $out" || return 1
	else
		echo "min_rto_owner: no TCP_RTO_MIN_US on this kernel, the application's part not run"
	fi
	pass min_rto_owner
}

# A route with `congctl lock`: the kernel refuses any other CCA for its
# sockets (setsockopt(TCP_CONGESTION) gets EPERM), so a drain leaves them,
# counted pinned, unless forced.
test_drain_route_lock() {
	local port out
	h_setup || return 1
	ip -n a route add "$PAIR_B_IP/32" dev eth0 congctl lock cca_dctcp || return 1
	rm -f /tmp/h_lock
	ns a python3 "$CONNS" client "$PAIR_B_IP" 6100 1 /tmp/h_lock >/dev/null 2>&1 &
	h_wait /tmp/h_lock || return 1
	port=$(ns a ss -tnH state established "( dport = :6100 )" | awk '{ sub(/.*:/, "", $3); print $3 }')
	[ "$(cca_of a "$port")" = cca_dctcp-reno ] ||
		fail drain_route_lock "not on the route's CCA: $(cca_of a "$port")" || return 1
	out=$("$CCACTL" -n a -j cca drain cca_dctcp to cubic) || return 1
	[ "$(counts "$out" migrated skipped_pinned)" = "0 1" ] &&
		[ "$(cca_of a "$port")" = cca_dctcp-reno ] ||
		fail drain_route_lock "drain: $out; on $(cca_of a "$port")" || return 1
	out=$("$CCACTL" -n a -j cca drain cca_dctcp to cubic force) || return 1
	[ "$(counts "$out" migrated)" = 1 ] && [ "$(cca_of a "$port")" = cubic ] ||
		fail drain_route_lock "forced drain: $out; on $(cca_of a "$port")" || return 1
	pass drain_route_lock
}

# A CCA that lists the CCAs it may take sockets over from (here cca_ecntest,
# Reno, taking over only from cca_dcndelay) still gets new connections,
# passive ones included: their CCA has not run, there is nothing to take
# over. A migration of a running connection from another CCA is refused.
test_takeover_list_new_conns() {
	local out port
	netns_cleanup
	! grep -q '^tcp_cca_ecntest ' /proc/modules || rmmod_poll tcp_cca_ecntest || return 1
	insmod "$CCAAS_KO_DIR/tcp_cca_ecntest.ko" ecn_flags=0 takeover_from=cca_dcndelay || return 1
	netns_pair a b || return 1
	"$CCACTL" -n b policy set default cca cca_ecntest >/dev/null &&
		"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	ns b python3 "$CONNS" server 0.0.0.0 6105 >/dev/null 2>&1 &
	wait_port b 6105 || return 1
	rm -f /tmp/h_take
	ns a python3 "$CONNS" client "$PAIR_B_IP" 6105 1 /tmp/h_take >/dev/null 2>&1 &
	h_wait /tmp/h_take || return 1
	out=$("$CCACTL" -n b -j sock show sport 6105 |
		python3 -c 'import json, sys; print(" ".join(s["cca"] for s in json.load(sys.stdin)))')
	[ "$out" = ecntest-reno ] ||
		fail takeover_list_new_conns "the passive child is on '$out', not cca_ecntest's Reno fallback" ||
		return 1
	port=$(ns a ss -tnH state established "( dport = :6105 )" | awk '{ sub(/.*:/, "", $3); print $3 }')
	"$CCACTL" -n a policy set default cca cca_ecntest >/dev/null || return 1
	out=$("$CCACTL" -n a -j stats | python3 -c 'import json, sys; print(json.load(sys.stdin)["counters"]["refused"])')
	[ "$(cca_of a "$port")" = cubic ] && [ "$out" = 1 ] ||
		fail takeover_list_new_conns "a running cubic connection: on $(cca_of a "$port"), $out refused" ||
		return 1
	netns_cleanup
	rmmod_poll tcp_cca_ecntest
	pass takeover_list_new_conns
}
