# Sockets whose CCA someone else chose or that sit on a fallback: a route's
# `congctl`, the stack's own fallback ops (in-tree dctcp-reno), passive
# children the stack put on the namespace default, and knobs that outlive
# their rule (min_rto) or that a CCA cannot honour (init_cwnd, tso_segs).
#
# Hosts a (10.0.0.1) and b (10.0.0.2), one veth pair.
# vm-debug: yes
# On the sanitizer kernel, only the route's congctl test: the others count
# (in-tree dctcp-reno as dctcp), refuse (knobs a CCA cannot honour) or
# check a value restored (the RTO floor, a child's ECN); the moves they
# make are those 60-migrate.sh makes there.
# vm-debug-skip: dctcp_reno_is_dctcp knobs_need_ccaas_cca
# vm-debug-skip: min_rto_restored passive_ecn_child_holds_ecn
# vm-timeout: 300

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
OV_PORT=5003

load_ccaas tcp_cca_dctcp tcp_cca_cubic tcp_cca_dcndelay && modprobe tcp_dctcp

# ov_setup [B_DEFAULT]: fresh a and b, b (with that default rule, which
# puts its listener on an ECN CCA if it names one) serving held connections
# on OV_PORT
ov_setup() {
	netns_cleanup
	netns_pair a b || return 1
	if [ -n "${1:-}" ]; then
		"$CCACTL" -n b policy set default cca "$1" >/dev/null || return 1
	fi
	"$CCACTL" -n a scope add 10.0.0.2/32 locality dc region 1 dc 7 || return 1
	ns b python3 "$CONNS" server :: $OV_PORT >/dev/null 2>&1 &
	wait_port b $OV_PORT
}

# ov_open N [--cc NAME]: N held connections from a to b
ov_open() {
	local n=$1
	shift
	rm -f /tmp/ov_ready
	ns a python3 "$CONNS" client "$PAIR_B_IP" $OV_PORT "$n" /tmp/ov_ready "$@" \
		>/dev/null 2>&1 &
	for _ in $(seq 100); do [ -e /tmp/ov_ready ] && return 0; sleep 0.1; done
	echo "ov_open: connections not established" >&2
	return 1
}

# sock_field NS PORT-KIND KEY: KEY of each of NS's connections with
# dport (kind "dport") or sport ("sport") OV_PORT in `ccactl -j sock show`,
# one per line ("-" when absent)
sock_field() {
	"$CCACTL" -n "$1" -j sock show "$2" $OV_PORT | python3 -c 'import json, sys
for s in json.load(sys.stdin):
    v = s.get(sys.argv[1], "-")
    print(str(v).lower() if isinstance(v, bool) else v)' "$3"
}

# migrate_count NS KEY [ARGS]: KEY of `ccactl -j migrate` in NS
migrate_count() {
	local n=$1 k=$2
	shift 2
	"$CCACTL" -n "$n" -j migrate "$@" | python3 -c 'import json, sys
print(json.load(sys.stdin).get(sys.argv[1], "-"))' "$k"
}

# A route's congctl replaces the CCA the selector chose before the SYN. The
# route's CCA must start clean (module defaults, no generation of ours), and
# migration must agree with connect: such sockets are pinned.
test_route_congctl_gets_clean_state() {
	local t=route_congctl_gets_clean_state out
	# decrease_pct is cca_dcndelay's 4th parameter; cca_cubic's 4th is
	# alpha_on_init, which its get_info reports as alpha before any round
	# on a connection with ECN: a asks for it (tcp_ecn=1), b's listener on
	# cca_dctcp accepts it.
	ov_setup cca_dctcp && ns a sysctl -qw net.ipv4.tcp_ecn=1 || return 1
	"$CCACTL" -n a policy set locality dc cca cca_dcndelay param decrease_pct=37 \
		>/dev/null || return 1
	ip -n a route replace 10.0.0.2/32 dev eth0 congctl cca_cubic || return 1
	ov_open 2 || return 1
	out=$(ns a ss -tinH state established "( dport = :$OV_PORT )")
	[ "$(echo "$out" | grep -c ' cca_cubic ')" = 2 ] ||
		fail $t "not on the route's cca_cubic: $out" || return 1
	echo "$out" | grep -q 'alpha:1024' ||
		fail $t "cca_cubic runs with the selector's parameters: $out" || return 1
	[ "$(sock_field a dport generation | sort -u)" = "-" ] ||
		fail $t "generation of a rule on a route-chosen socket: $(sock_field a dport generation)" ||
		return 1
	[ "$(sock_field a dport pinned | sort -u)" = true ] ||
		fail $t "route-chosen sockets not pinned: $(sock_field a dport pinned)" || return 1
	[ "$(migrate_count a migrated)" = 0 ] && [ "$(migrate_count a migrated force)" = 0 ] ||
		fail $t "migration overrides the route" || return 1
	[ "$(ns a ss -tinH state established "( dport = :$OV_PORT )" | grep -c ' cca_cubic ')" = 2 ] ||
		fail $t "left the route's CCA" || return 1
	pass $t
}

# In-tree dctcp puts non-ECN sockets on its own dctcp-reno ops: they are on
# dctcp for every count, every forced pass and `cca drain dctcp`.
test_dctcp_reno_is_dctcp() {
	local t=dctcp_reno_is_dctcp n
	ov_setup || return 1
	ns b sysctl -qw net.ipv4.tcp_ecn=0 || return 1
	"$CCACTL" -n a policy set default cca dctcp >/dev/null || return 1
	ov_open 3 || return 1
	n=$(ns a ss -tinH state established "( dport = :$OV_PORT )" | grep -c ' dctcp-reno ')
	[ "$n" = 3 ] || fail $t "expected 3 on dctcp-reno, got $n" || return 1
	[ "$(migrate_count a refused)" = 0 ] || fail $t "dctcp-reno counted refused" || return 1
	[ "$(migrate_count a unchanged)" = 3 ] || fail $t "not counted unchanged" || return 1
	[ "$(migrate_count a migrated force)" = 0 ] && [ "$(migrate_count a migrated force)" = 0 ] ||
		fail $t "forced passes re-initialise dctcp-reno sockets" || return 1
	out=$("$CCACTL" -n a -j cca drain dctcp to cubic) || fail $t "drain failed" || return 1
	n=$(ns a ss -tinH state established "( dport = :$OV_PORT )" | grep -c ' cubic ')
	[ "$n" = 3 ] || fail $t "drain dctcp missed dctcp-reno sockets: $out" || return 1
	pass $t
}

# A rule's min_rto lasts only as long as a rule sets it: a new rule without
# it, a rollback and a drain give the socket the kernel's floor back.
test_min_rto_restored() {
	local t=min_rto_restored def=200000 g1
	ov_setup || return 1
	"$CCACTL" -n a policy set locality dc cca cubic min_rto 5ms >/dev/null || return 1
	g1=$("$CCACTL" -n a -j policy show | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])') ||
		return 1
	ov_open 2 || return 1
	[ "$(sock_field a dport min_rto_us | sort -u)" -le 8000 ] ||
		fail $t "rule's min_rto not applied: $(sock_field a dport min_rto_us)" || return 1
	"$CCACTL" -n a policy set locality dc cca cubic >/dev/null || return 1
	[ "$(sock_field a dport min_rto_us | sort -u)" = $def ] ||
		fail $t "new rule without min_rto: $(sock_field a dport min_rto_us)" || return 1
	"$CCACTL" -n a policy rollback "$g1" >/dev/null || return 1
	[ "$(sock_field a dport min_rto_us | sort -u)" -le 8000 ] ||
		fail $t "rollback did not re-apply min_rto: $(sock_field a dport min_rto_us)" ||
		return 1
	"$CCACTL" -n a policy set locality dc cca cca_cubic min_rto 5ms >/dev/null &&
		"$CCACTL" -n a cca drain cca_cubic to cubic >/dev/null || return 1
	[ "$(sock_field a dport min_rto_us | sort -u)" = $def ] ||
		fail $t "drain to a CCA kept the rule's min_rto: $(sock_field a dport min_rto_us)" ||
		return 1
	pass $t
}

# A passive child that negotiated ECN gets a CCA that can hold ECN: its
# rule's, else the transitional one, else the listener's; the stack itself
# puts it on the namespace default.
test_passive_ecn_child_holds_ecn() {
	local t=passive_ecn_child_holds_ecn out
	netns_cleanup
	netns_pair a b || return 1
	ns b sysctl -qw net.ipv4.tcp_congestion_control=reno || return 1
	"$CCACTL" -n b scope add 10.0.0.1/32 locality region region 2 &&
		"$CCACTL" -n b policy set locality region cca cubic >/dev/null &&
		"$CCACTL" -n b policy set locality dc cca cca_dctcp >/dev/null || return 1
	ns b python3 "$CONNS" server :: $OV_PORT >/dev/null 2>&1 &
	wait_port b $OV_PORT || return 1
	"$CCACTL" -n a policy set default cca cca_dctcp >/dev/null || return 1
	ov_open 2 || return 1
	out=$(ns b ss -tieH state established "( sport = :$OV_PORT )")
	[ "$(echo "$out" | grep -c ' ecn ')" = 2 ] ||
		fail $t "children did not negotiate ECN: $out" || return 1
	[ "$(echo "$out" | grep -c ' cca_cubic ')" = 2 ] ||
		fail $t "ECN children not on the transitional cca_cubic: $out" || return 1
	[ "$(migrate_count b refused)" = 0 ] || fail $t "children counted refused" || return 1
	pass $t
}

# init_cwnd and tso_segs need the CCA's cooperation: a rule giving them to a
# CCA not built on ccaas is refused, and the policy in force is kept.
test_knobs_need_ccaas_cca() {
	local t=knobs_need_ccaas_cca before out rc
	netns_cleanup
	netns_add a || return 1
	"$CCACTL" -n a policy set default cca cubic >/dev/null || return 1
	before=$("$CCACTL" -n a -j policy show)
	for knob in "init_cwnd 20" "tso_segs 4"; do
		# shellcheck disable=SC2086 # the knob and its value
		out=$("$CCACTL" -n a policy set locality dc cca cubic $knob 2>&1)
		rc=$?
		[ $rc = 2 ] && echo "$out" | grep -q '^Error: .*ccaas' ||
			fail $t "'$knob' for cubic: exit $rc: $out" || return 1
	done
	[ "$("$CCACTL" -n a -j policy show)" = "$before" ] ||
		fail $t "a refused rule changed the policy" || return 1
	"$CCACTL" -n a policy set locality dc cca cca_cubic init_cwnd 20 tso_segs 4 >/dev/null ||
		fail $t "knobs refused for cca_cubic" || return 1
	pass $t
}
