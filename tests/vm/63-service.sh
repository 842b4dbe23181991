# Rules per service: `cgroup PATH` (the socket's cgroup v2, or one above it)
# and `port N[-M]` (the server's port of the connection). Real cgroups, real
# sockets: two services of one host talking to the same region get two
# CCAs, and their SYNs ask for ECN as their CCAs do; a rule on a parent
# cgroup covers its children; the port match on both sides; listeners
# follow their service's rules; a rollback moves both services back; a
# process moved to another cgroup leaves its connections where they were
# made; `sock show` and `policy show` show cgroups by path and id.
#
# Hosts sv_a (clients, 10.0.0.1) and sv_b (servers, 10.0.0.2); sv_a's scope
# puts sv_b in region 1.
# vm-debug: yes
# On the sanitizer kernel, the file's lifetime-sensitive parts only: the
# cgroup paths' references and the mkdir probe, and listeners looked up
# and moved by migration; the other tests are decisions and refusals.
# vm-debug-skip: service_two_cgroups_two_ccas service_parent_covers_children
# vm-debug-skip: service_rollback service_moved_process
# vm-debug-skip: service_show_and_errors service_ecn_child_own_service
# vm-lines: edges
# vm-timeout: 300

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
SV_CG=/sys/fs/cgroup/ccaas-svc
SV_PORT=5020
SV_PORT2=5021

load_ccaas tcp_cca_dctcp || true
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup

# sv_cgroups_clean: remove the test's cgroups, deepest first (their
# processes are gone: netns_cleanup killed them)
sv_cgroups_clean() {
	[ -d $SV_CG ] || return 0
	for _ in $(seq 20); do
		find $SV_CG -depth -type d -exec rmdir {} + 2>/dev/null
		[ -d $SV_CG ] || return 0
		sleep 0.1
	done
	echo "cannot remove $SV_CG" >&2
	return 1
}

# sv_setup: fresh hosts, fresh cgroups rpc, bulk and rpc/worker
sv_setup() {
	netns_cleanup
	sv_cgroups_clean || return 1
	mkdir -p $SV_CG/rpc/worker $SV_CG/bulk $SV_CG/moved &&
		netns_pair sv_a sv_b &&
		"$CCACTL" -n sv_a scope add 10.0.0.2/32 locality region region 1 &&
		sv_serve sv_b $SV_PORT
}

# sv_serve NS PORT: a server in NS holding what it accepts
sv_serve() {
	ns "$1" python3 "$CONNS" server :: "$2" >/dev/null 2>&1 &
	wait_port "$1" "$2"
}

# sv_connect CGROUP PORT: one held connection from sv_a to sv_b:PORT, made
# by a process of CGROUP (below $SV_CG); its pid in $SV_PID
sv_connect() {
	local ready=/tmp/sv_ready.$2
	rm -f "$ready"
	# shellcheck disable=SC2016 # expanded by the inner shell
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$SV_CG/$1" \
		ip netns exec sv_a python3 "$CONNS" client "$PAIR_B_IP" "$2" 1 "$ready" \
		--hold 120 >/dev/null 2>&1 &
	SV_PID=$!
	for _ in $(seq 50); do [ -e "$ready" ] && return 0; sleep 0.1; done
	echo "sv_connect: no connection from $1 to port $2" >&2
	return 1
}

# sv_syn CGROUP PORT: connect as sv_connect does; the TCP flags of the SYN
# sv_b received in $SV_FLAGS ("S", or "SEW": ECN requested)
sv_syn() {
	local log=/tmp/sv_syn.$$
	ns sv_b tcpdump -i eth0 -nn -l -c 1 "tcp[13] & 0x12 == 0x02 and dst port $2" \
		>"$log" 2>"$log.err" &
	for _ in $(seq 50); do grep -q listening "$log.err" && break; sleep 0.1; done
	sv_connect "$1" "$2" || return 1
	for _ in $(seq 50); do [ -s "$log" ] && break; sleep 0.1; done
	SV_FLAGS=$(sed -nE 's/.*Flags \[([A-Z.]+)\].*/\1/p' "$log" | head -n 1)
	rm -f "$log" "$log.err"
}

# sv_cca NS PID: the CCA of process PID's connection in NS, as ss shows it:
# the word of its line that names one of the kernel's CCAs (or the fallback
# ops of one, "cca_dctcp-reno": the CCA without ECN)
sv_cca() {
	local avail
	avail=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)
	ns "$1" ss -tinpH state established | grep -A1 "pid=$2," | tail -n 1 |
		tr ' ' '\n' | grep -xE "$(echo "$avail" | tr ' ' '|')|[a-z_]+-reno" | head -n 1
}

# sv_sock NS sport|dport PORT: `ccactl -j sock show` of those connections
sv_sock() {
	"$CCACTL" -n "$1" -j sock show "$2" "$3"
}

# Two services in two cgroups, talking to the same region: the rpc service
# gets cca_dctcp (its SYN asks for ECN, and the server, whose listener its
# policy put on cca_dctcp, agrees), the bulk one cubic (no ECN).
test_service_two_cgroups_two_ccas() {
	local f_rpc f_bulk rpc bulk
	sv_setup || return 1
	"$CCACTL" -n sv_b policy set default cca cca_dctcp >/dev/null &&
		"$CCACTL" -n sv_a policy set locality region cca cubic >/dev/null &&
		"$CCACTL" -n sv_a policy set cgroup ccaas-svc/rpc locality region \
			cca cca_dctcp >/dev/null || return 1
	sv_syn rpc $SV_PORT || return 1
	f_rpc=$SV_FLAGS rpc=$SV_PID
	sv_syn bulk $SV_PORT || return 1
	f_bulk=$SV_FLAGS bulk=$SV_PID
	[ "$f_rpc" = SEW ] && [ "$f_bulk" = S ] ||
		fail service_two_cgroups_two_ccas "SYN flags: rpc [$f_rpc], bulk [$f_bulk]" ||
		return 1
	[ "$(sv_cca sv_a $rpc)" = cca_dctcp ] && [ "$(sv_cca sv_a $bulk)" = cubic ] ||
		fail service_two_cgroups_two_ccas \
			"ss: rpc $(sv_cca sv_a $rpc), bulk $(sv_cca sv_a $bulk)"
}

# A rule on a parent cgroup covers the cgroups below it; a rule on a deeper
# cgroup is more specific and wins there.
test_service_parent_covers_children() {
	local w b
	sv_setup || return 1
	"$CCACTL" -n sv_a policy set default cca cubic >/dev/null &&
		"$CCACTL" -n sv_a policy set cgroup ccaas-svc cca reno >/dev/null || return 1
	sv_connect rpc/worker $SV_PORT && w=$SV_PID || return 1
	sv_connect bulk $SV_PORT && b=$SV_PID || return 1
	[ "$(sv_cca sv_a $w)" = reno ] && [ "$(sv_cca sv_a $b)" = reno ] ||
		fail service_parent_covers_children \
			"parent rule: worker $(sv_cca sv_a $w), bulk $(sv_cca sv_a $b)" || return 1
	# the deeper rule: the running worker's connection migrates to it
	"$CCACTL" -n sv_a policy set cgroup ccaas-svc/rpc cca cca_dctcp >/dev/null || return 1
	[ "$(sv_cca sv_a $w)" = cca_dctcp-reno ] && [ "$(sv_cca sv_a $b)" = reno ] ||
		fail service_parent_covers_children \
			"child rule: worker $(sv_cca sv_a $w), bulk $(sv_cca sv_a $b)"
}

# The port is the server's: the remote port of a client's connection, the
# local port of a server's. Listeners follow the rules of their service:
# the one whose port has an ECN CCA accepts ECN, the other does not.
test_service_port_both_sides() {
	local c1 c2 srv l1 l2
	sv_setup || return 1
	"$CCACTL" -n sv_a policy set default cca cubic >/dev/null &&
		"$CCACTL" -n sv_a policy set port $SV_PORT cca reno >/dev/null &&
		"$CCACTL" -n sv_b policy set default cca cubic >/dev/null &&
		"$CCACTL" -n sv_b policy set port $SV_PORT2 cca cca_dctcp >/dev/null || return 1
	sv_serve sv_b $SV_PORT2 || return 1
	# active side: by the port connected to
	sv_connect bulk $SV_PORT && c1=$SV_PID || return 1
	sv_connect bulk $SV_PORT2 && c2=$SV_PID || return 1
	[ "$(sv_cca sv_a $c1)" = reno ] && [ "$(sv_cca sv_a $c2)" = cubic ] ||
		fail service_port_both_sides "client: $(sv_cca sv_a $c1) $(sv_cca sv_a $c2)" ||
		return 1
	# passive side: by its own port; the listener of SV_PORT2 is on
	# cca_dctcp (an ECN CCA: it accepts ECN), that of SV_PORT is not
	l1=$(ns sv_b ss -tilnH "( sport = :$SV_PORT )")
	l2=$(ns sv_b ss -tilnH "( sport = :$SV_PORT2 )")
	echo "$l2" | grep -q cca_dctcp && ! echo "$l1" | grep -q cca_dctcp ||
		fail service_port_both_sides "listeners: [$l1] [$l2]" || return 1
	srv=$(ns sv_b ss -tinH state established "( sport = :$SV_PORT2 )")
	echo "$srv" | grep -q 'cca_dctcp-reno' ||
		fail service_port_both_sides "server side of $SV_PORT2: $srv" || return 1
	srv=$(ns sv_b ss -tinH state established "( sport = :$SV_PORT )")
	echo "$srv" | grep -q ' cubic ' ||
		fail service_port_both_sides "server side of $SV_PORT: $srv" || return 1
	# a migration, which does not know which side opened a connection,
	# finds the same: the accepted one has its listener on its port
	"$CCACTL" -n sv_b migrate >/dev/null || return 1
	srv=$(ns sv_b ss -tinH state established "( sport = :$SV_PORT2 )")
	echo "$srv" | grep -q 'cca_dctcp-reno' ||
		fail service_port_both_sides "server side of $SV_PORT2 migrated: $srv" || return 1
	srv=$(sv_sock sv_b sport $SV_PORT2)
	echo "$srv" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert len(s) == 1 and s[0]["server_port"] == int(sys.argv[1]), s
assert s[0]["rule_match"] == "port %s" % sys.argv[1], s
' $SV_PORT2 || fail service_port_both_sides "sock show of the server: $srv" || return 1
	srv=$(sv_sock sv_a dport $SV_PORT2)
	echo "$srv" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert len(s) == 1 and s[0]["server_port"] == int(sys.argv[1]), s
' $SV_PORT2 || fail service_port_both_sides "sock show of the client: $srv" || return 1
	# the rule gone, the next migration moves the listener back
	"$CCACTL" -n sv_b policy del port $SV_PORT2 >/dev/null || return 1
	l2=$(ns sv_b ss -tilnH "( sport = :$SV_PORT2 )")
	! echo "$l2" | grep -q cca_dctcp ||
		fail service_port_both_sides "listener after del: $l2" || return 1
	# the other way round: the default rule's ECN CCA holds for the
	# children of SV_PORT's listener, the port rule for SV_PORT2 hides it
	# from SV_PORT2's
	printf 'default cca cca_dctcp\nport %s cca cubic\n' $SV_PORT2 |
		"$CCACTL" -n sv_b policy apply - >/dev/null || return 1
	l1=$(ns sv_b ss -tilnH "( sport = :$SV_PORT )")
	l2=$(ns sv_b ss -tilnH "( sport = :$SV_PORT2 )")
	echo "$l1" | grep -q cca_dctcp && ! echo "$l2" | grep -q cca_dctcp ||
		fail service_port_both_sides "listeners, ECN by default: [$l1] [$l2]"
}

# An ECN child whose own rule names a CCA that cannot hold ECN goes to an
# ECN CCA of its own service (the one its listener is on, which is why it
# negotiated ECN), not to another service's: here no transitional CCA is
# loaded, and the other service's port rule, which sorts first, names
# cca_dctcp. A migration leaves the child where it is.
test_service_ecn_child_own_service() {
	local srv
	sv_setup || return 1
	if grep -q '^tcp_cca_cubic ' /proc/modules; then
		rmmod_poll tcp_cca_cubic || return 1
	fi
	load_ccaas tcp_cca_dcndelay || return 1
	sv_serve sv_b $SV_PORT2 || return 1
	printf '%s\n' "default cca cubic" "port $SV_PORT cca cca_dctcp" \
		"port $SV_PORT2 locality xregion cca cca_dcndelay" "port $SV_PORT2 cca reno" |
		"$CCACTL" -n sv_b policy apply - >/dev/null &&
		"$CCACTL" -n sv_a policy set default cca cca_dctcp >/dev/null || return 1
	# the listener accepts ECN: its service's ECN rule (the remote fields
	# left open) put it on cca_dcndelay
	srv=$(ns sv_b ss -tilnH "( sport = :$SV_PORT2 )")
	echo "$srv" | grep -q cca_dcndelay ||
		fail service_ecn_child_own_service "listener: $srv" || return 1
	sv_connect bulk $SV_PORT2 || return 1
	# (ss of bookworm does not show AccECN, which 7.3 negotiates)
	srv=$(sv_sock sv_b sport $SV_PORT2)
	echo "$srv" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert len(s) == 1 and s[0]["ecn"] and s[0]["cca"] == "cca_dcndelay", s
' || fail service_ecn_child_own_service "accepted: $srv" || return 1
	"$CCACTL" -n sv_b migrate >/dev/null || return 1
	srv=$(ns sv_b ss -tinH state established "( sport = :$SV_PORT2 )")
	echo "$srv" | grep -q ' cca_dcndelay ' ||
		fail service_ecn_child_own_service "after a migration: $srv"
}

# A rollback moves both services back to the CCAs of the generation it
# restores.
test_service_rollback() {
	local rpc bulk gen
	sv_setup || return 1
	"$CCACTL" -n sv_a policy set locality region cca cubic >/dev/null &&
		"$CCACTL" -n sv_a policy set cgroup ccaas-svc/rpc cca cca_dctcp >/dev/null || return 1
	gen=$("$CCACTL" -n sv_a -j policy show | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["generation"])')
	sv_connect rpc $SV_PORT && rpc=$SV_PID || return 1
	sv_connect bulk $SV_PORT && bulk=$SV_PID || return 1
	printf 'locality region cca reno\ncgroup ccaas-svc/rpc cca cubic\n' |
		"$CCACTL" -n sv_a policy apply - >/dev/null || return 1
	[ "$(sv_cca sv_a $rpc)" = cubic ] && [ "$(sv_cca sv_a $bulk)" = reno ] ||
		fail service_rollback "after apply: $(sv_cca sv_a $rpc) $(sv_cca sv_a $bulk)" ||
		return 1
	"$CCACTL" -n sv_a policy rollback "$gen" >/dev/null || return 1
	[ "$(sv_cca sv_a $rpc)" = cca_dctcp-reno ] && [ "$(sv_cca sv_a $bulk)" = cubic ] ||
		fail service_rollback "after rollback: $(sv_cca sv_a $rpc) $(sv_cca sv_a $bulk)"
}

# A process moved to another cgroup: its sockets stay in the cgroup they
# were made in (as the kernel, `ss`'s cgroup filter and BPF cgroup programs
# see them), so its existing connection keeps its CCA, through a migration
# too; the connections it makes after the move are its new cgroup's.
test_service_moved_process() {
	local p json
	sv_setup || return 1
	"$CCACTL" -n sv_a policy set default cca cubic >/dev/null &&
		"$CCACTL" -n sv_a policy set cgroup ccaas-svc/rpc cca cca_dctcp >/dev/null &&
		"$CCACTL" -n sv_a policy set cgroup ccaas-svc/moved cca reno >/dev/null || return 1
	sv_connect rpc $SV_PORT && p=$SV_PID || return 1
	echo "$p" >$SV_CG/moved/cgroup.procs || return 1
	"$CCACTL" -n sv_a migrate >/dev/null || return 1
	[ "$(sv_cca sv_a $p)" = cca_dctcp-reno ] ||
		fail service_moved_process "after the move: $(sv_cca sv_a $p)" || return 1
	json=$(sv_sock sv_a dport $SV_PORT)
	echo "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert len(s) == 1 and s[0]["cgroup"] == "ccaas-svc/rpc", s
assert s[0]["rule_match"] == "cgroup ccaas-svc/rpc", s
' || fail service_moved_process "sock show: $json" || return 1
	# a connection made from the new cgroup is the new cgroup's
	sv_connect moved $SV_PORT || return 1
	[ "$(sv_cca sv_a $SV_PID)" = reno ] ||
		fail service_moved_process "new connection: $(sv_cca sv_a $SV_PID)"
}

# `sock show` names the connection's cgroup and the rule it matched;
# `policy show` prints the cgroup's path and the id the kernel bound it to,
# and its output applies back; bad service matches are refused with a
# reason, leaving the policy as it was.
test_service_show_and_errors() {
	local json out id rc
	sv_setup || return 1
	"$CCACTL" -n sv_a policy set cgroup ccaas-svc/rpc port $SV_PORT-$SV_PORT2 \
		locality region cca cca_dctcp >/dev/null &&
		"$CCACTL" -n sv_a policy set default cca cubic >/dev/null || return 1
	sv_connect rpc $SV_PORT || return 1
	id=$(stat -c %i $SV_CG/rpc)
	json=$(sv_sock sv_a dport $SV_PORT)
	echo "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert len(s) == 1, s
s = s[0]
assert s["cgroup"] == "ccaas-svc/rpc" and s["cgroup_id"] == int(sys.argv[1]), s
assert s["rule_match"] == "cgroup ccaas-svc/rpc port %s-%s locality region" % (sys.argv[2], sys.argv[3]), s
assert s["server_port"] == int(sys.argv[2]), s
assert s["cca"].startswith("cca_dctcp"), s
' "$id" $SV_PORT $SV_PORT2 || fail service_show_and_errors "sock show: $json" || return 1
	out=$("$CCACTL" -n sv_a sock show cgroup ccaas-svc)
	echo "$out" | grep -q "ccaas-svc/rpc" ||
		fail service_show_and_errors "sock show cgroup: $out" || return 1
	# stats per rule, and the Prometheus series of the rule, by its match
	out=$("$CCACTL" -n sv_a stats prometheus)
	echo "$out" | grep -qE "^ccaas_rule_sockets\{netns=\"sv_a\",match=\"cgroup ccaas-svc/rpc port $SV_PORT-$SV_PORT2 locality region\",cca=\"cca_dctcp\",state=\"[a-z_]+\"\} 1\$" ||
		fail service_show_and_errors "stats prometheus: $out" || return 1
	out=$("$CCACTL" -n sv_a policy show)
	echo "$out" | grep -qx "cgroup ccaas-svc/rpc port $SV_PORT-$SV_PORT2 locality region cca cca_dctcp  # cgroup id $id" ||
		fail service_show_and_errors "policy show: $out" || return 1
	echo "$out" | "$CCACTL" -n sv_a policy apply - | grep -q unchanged ||
		fail service_show_and_errors "apply of policy show: not unchanged" || return 1
	out=$("$CCACTL" -n sv_a policy set cgroup ccaas-svc//rpc cca reno 2>&1)
	rc=$?
	[ $rc = 1 ] && echo "$out" | grep -q 'is not a cgroup path' ||
		fail service_show_and_errors "bad path: $rc $out" || return 1
	out=$("$CCACTL" -n sv_a policy set port 0 cca reno 2>&1)
	rc=$?
	[ $rc = 1 ] && echo "$out" | grep -q 'out of range' ||
		fail service_show_and_errors "port 0: $rc $out" || return 1
	# from a task in a cgroup namespace of its own: its paths are not
	# the host's, so the kernel refuses
	# shellcheck disable=SC2016 # expanded by the inner shell
	out=$(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh $SV_CG/bulk \
		unshare -C "$CCACTL" -n sv_a policy set cgroup ccaas-svc/rpc cca reno 2>&1)
	rc=$?
	[ $rc = 2 ] && echo "$out" | grep -q 'Error: cgroup rules are set from the initial cgroup namespace' ||
		fail service_show_and_errors "cgroup namespace: $rc $out" || return 1
	[ "$("$CCACTL" -n sv_a -j policy show | python3 -c \
		'import json, sys; print(len(json.load(sys.stdin)["rules"]))')" = 2 ] ||
		fail service_show_and_errors "a refused rule changed the policy"
}

# A rule may name a path before any cgroup is there (a policy applied at
# boot, before its services start): it binds to the cgroup made there. A
# cgroup removed and made again at the path (systemd makes a service's
# cgroup anew at each start) is the new one the rule matches.
test_service_cgroup_lifecycle() {
	local out id1 id2 p
	sv_setup || return 1
	"$CCACTL" -n sv_a policy set default cca cubic >/dev/null || return 1
	out=$("$CCACTL" -n sv_a policy set cgroup ccaas-svc/later cca reno 2>&1 >/dev/null)
	echo "$out" | grep -q 'warning: no cgroup "ccaas-svc/later" under .* yet' ||
		fail service_cgroup_lifecycle "set before the cgroup: $out" || return 1
	out=$("$CCACTL" -n sv_a policy show)
	echo "$out" | grep -qx "cgroup ccaas-svc/later cca reno  # no cgroup made at the path yet" ||
		fail service_cgroup_lifecycle "policy show before: $out" || return 1
	mkdir $SV_CG/later && id1=$(stat -c %i $SV_CG/later) || return 1
	sv_connect later $SV_PORT && p=$SV_PID || return 1
	[ "$(sv_cca sv_a $p)" = reno ] ||
		fail service_cgroup_lifecycle "cgroup made after the rule: $(sv_cca sv_a $p)" ||
		return 1
	# the service stops: its cgroup goes, the rule keeps its id
	kill "$p" && wait "$p" 2>/dev/null
	for _ in $(seq 50); do rmdir $SV_CG/later 2>/dev/null && break; sleep 0.1; done
	[ ! -d $SV_CG/later ] || return 1
	out=$("$CCACTL" -n sv_a policy show)
	echo "$out" | grep -qx "cgroup ccaas-svc/later cca reno  # cgroup id $id1, removed" ||
		fail service_cgroup_lifecycle "policy show after rmdir: $out" || return 1
	# and starts again: a new cgroup, a new id, the same rule
	mkdir $SV_CG/later && id2=$(stat -c %i $SV_CG/later) || return 1
	[ "$id2" != "$id1" ] || return 1
	out=$("$CCACTL" -n sv_a policy show)
	echo "$out" | grep -qx "cgroup ccaas-svc/later cca reno  # cgroup id $id2" ||
		fail service_cgroup_lifecycle "policy show made again: $out" || return 1
	sv_connect later $SV_PORT && p=$SV_PID || return 1
	[ "$(sv_cca sv_a $p)" = reno ] ||
		fail service_cgroup_lifecycle "cgroup made again: $(sv_cca sv_a $p)" ||
		return 1
	sv_probe_cycle
}

# The mkdir probe is there only while a rule names a path: the namespace
# that held the host's only cgroup rules gone, it goes; a rule for a path
# again brings it back, and a cgroup made there then is bound. The kernel
# says so in pr_debug lines where it has dynamic debug (Debian's kernels);
# without it (the sanitizer kernel) only the binding is checked.
sv_probe_cycle() {
	local dd=/proc/dynamic_debug/control mark out p
	[ ! -w $dd ] || echo 'file cgroup_bind.c +p' >$dd || return 1
	mark=$(dmesg | wc -l)
	# its processes gone, and its name: the namespace goes with its rules
	ip netns pids sv_a | xargs -r kill
	for _ in $(seq 50); do [ -z "$(ip netns pids sv_a)" ] && break; sleep 0.1; done
	ip netns del sv_a || return 1
	if [ -w $dd ]; then
		for _ in $(seq 100); do
			dmesg | tail -n +$((mark + 1)) | grep -q 'cgroup_mkdir probe unregistered' && break
			sleep 0.1
		done
		dmesg | tail -n +$((mark + 1)) | grep -q 'cgroup_mkdir probe unregistered' ||
			fail service_cgroup_lifecycle "the probe stayed with no cgroup rule" || return 1
	fi
	mark=$(dmesg | wc -l)
	netns_add sv_a &&
		"$CCACTL" -n sv_a policy set cgroup ccaas-svc/again cca reno >/dev/null 2>&1 ||
		return 1
	if [ -w $dd ]; then
		dmesg | tail -n +$((mark + 1)) | grep -q 'cgroup_mkdir probe registered (0)' ||
			fail service_cgroup_lifecycle "no probe for the new rule" || return 1
		echo 'file cgroup_bind.c -p' >$dd
		echo "the kernel log: the probe went with the last cgroup rule, came back with the next"
	else
		echo "no dynamic debug: the probe's comings and goings not checked"
	fi
	mkdir $SV_CG/again || return 1
	out=$("$CCACTL" -n sv_a policy show)
	echo "$out" | grep -qx "cgroup ccaas-svc/again cca reno  # cgroup id $(stat -c %i $SV_CG/again)" ||
		fail service_cgroup_lifecycle "after the probe came back: $out"
}
