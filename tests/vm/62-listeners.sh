# Listeners follow the policy as connections do: migration moves a listener
# opened before an ECN policy onto the policy's ECN CCA, so that it accepts
# ECN without a restart of the service, and back to the namespace's default
# CCA when the policy no longer names one; `cca drain` moves listeners off
# a CCA, so its module unloads; a second pass changes nothing; listeners the
# application pinned stay, counted as pinned; the sticky-ECN rule, which
# protects what a handshake negotiated, does not apply to listeners.
#
# Hosts ls_a (clients) and ls_b (servers).
# vm-debug: yes
# On the sanitizer kernel, the migration and drain of listeners only: the
# other tests check which ECN choice a listener holds after a commit.
# vm-debug-skip: listener_accepts_ecn_after_policy listener_no_sticky_ecn
# vm-debug-skip: listener_back_to_default
# vm-timeout: 240

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
LS_PORT=5010
LS_PINNED_PORT=5011

load_ccaas tcp_cca_dctcp && modprobe tcp_dctcp

# ls_setup: fresh ls_a and ls_b
ls_setup() {
	netns_cleanup
	netns_pair ls_a ls_b
}

# ls_serve PORT [--cc NAME]: a server in ls_b that accepts and holds
ls_serve() {
	local port=$1
	shift
	ns ls_b python3 "$CONNS" server :: "$port" "$@" >/dev/null 2>&1 &
	wait_port ls_b "$port"
}

# listener_cca PORT: the CCA of ls_b's listener on PORT (as ss -i shows it)
listener_cca() {
	ns ls_b ss -ltinH "( sport = :$1 )" | sed -nE 's/^[[:space:]]+([A-Za-z0-9_-]+) .*/\1/p'
}

# ecn_conn CCA: connect from ls_a to ls_b's LS_PORT on CCA (asking for ECN
# if it needs ECN), hold it; print its `ss -tei` line once established
ecn_conn() {
	local i
	rm -f /tmp/ls_ready
	ns ls_a python3 "$CONNS" client "$PAIR_B_IP" $LS_PORT 1 /tmp/ls_ready --cc "$1" \
		>/dev/null 2>&1 &
	for i in $(seq 100); do [ -e /tmp/ls_ready ] && break; sleep 0.1; done
	ns ls_a ss -teinH state established "( dport = :$LS_PORT )"
}

# A server listening before the policy names an ECN CCA accepts ECN once
# the policy is set, without a restart: a client on an ECN CCA then
# negotiates ECN.
test_listener_accepts_ecn_after_policy() {
	local def line
	ls_setup || return 1
	def=$(ns ls_b sysctl -n net.ipv4.tcp_congestion_control)
	ls_serve $LS_PORT || return 1
	[ "$(listener_cca $LS_PORT)" = "$def" ] ||
		fail listener_accepts_ecn_after_policy "listener not on $def: $(listener_cca $LS_PORT)" ||
		return 1
	"$CCACTL" -n ls_b policy set default cca cca_dctcp >/dev/null || return 1
	[ "$(listener_cca $LS_PORT)" = cca_dctcp ] ||
		fail listener_accepts_ecn_after_policy "listener still on $(listener_cca $LS_PORT)" ||
		return 1
	line=$(ecn_conn cca_dctcp)
	echo "$line" | grep -qw ecn ||
		fail listener_accepts_ecn_after_policy "no ECN negotiated: $line"
}

# In-tree dctcp needs ECN and declares no fallback: a connection without
# ECN is refused a move to it, but a listener is not (nothing was
# negotiated), and it then accepts ECN.
test_listener_no_sticky_ecn() {
	local out line
	ls_setup || return 1
	ls_serve $LS_PORT || return 1
	out=$("$CCACTL" -n ls_b -j policy set default cca dctcp no_migrate) || return 1
	out=$("$CCACTL" -n ls_b -j migrate) || return 1
	[ "$(counts "$out" listeners migrated refused)" = "1 1 0" ] &&
		[ "$(listener_cca $LS_PORT)" = dctcp ] ||
		fail listener_no_sticky_ecn "migrate: $out; listener on $(listener_cca $LS_PORT)" ||
		return 1
	line=$(ecn_conn dctcp)
	echo "$line" | grep -qw ecn ||
		fail listener_no_sticky_ecn "no ECN negotiated: $line"
}

# When the policy no longer names an ECN CCA, the listener goes back to the
# namespace's default CCA, as a new listener would have it.
test_listener_back_to_default() {
	local def
	ls_setup || return 1
	def=$(ns ls_b sysctl -n net.ipv4.tcp_congestion_control)
	"$CCACTL" -n ls_b policy set default cca cca_dctcp >/dev/null || return 1
	ls_serve $LS_PORT || return 1
	[ "$(listener_cca $LS_PORT)" = cca_dctcp ] ||
		fail listener_back_to_default "selector: listener on $(listener_cca $LS_PORT)" ||
		return 1
	"$CCACTL" -n ls_b policy set default cca reno >/dev/null || return 1
	[ "$(listener_cca $LS_PORT)" = "$def" ] ||
		fail listener_back_to_default "listener kept $(listener_cca $LS_PORT), not $def"
}

# A pass moves the listener once and reports it; the second pass changes
# nothing. A listener whose CCA the application set is left alone and
# counted as pinned.
test_listener_migrate_idempotent() {
	local out
	ls_setup || return 1
	ls_serve $LS_PORT || return 1
	ls_serve $LS_PINNED_PORT --cc reno || return 1
	"$CCACTL" -n ls_b policy set default cca cca_dctcp no_migrate >/dev/null || return 1
	out=$("$CCACTL" -n ls_b -j migrate) || return 1
	[ "$(counts "$out" examined listeners migrated skipped_pinned errors)" = "2 2 1 1 0" ] &&
		[ "$(listener_cca $LS_PORT)" = cca_dctcp ] &&
		[ "$(listener_cca $LS_PINNED_PORT)" = reno ] ||
		fail listener_migrate_idempotent "first pass: $out; listeners on $(listener_cca $LS_PORT), $(listener_cca $LS_PINNED_PORT)" ||
		return 1
	out=$("$CCACTL" -n ls_b -j migrate) || return 1
	[ "$(counts "$out" listeners migrated unchanged skipped_pinned)" = "2 0 1 1" ] ||
		fail listener_migrate_idempotent "second pass changed something: $out"
}

# The selector put a listener on cca_dctcp, the application another one:
# once the policy names cca_dctcp no more (changed without migrating), the
# listeners alone hold the module. `cca drain` moves both (pinned ones too,
# as for connections) and the module unloads.
test_listener_drain_unloads() {
	local out def
	ls_setup || return 1
	def=$(ns ls_b sysctl -n net.ipv4.tcp_congestion_control)
	"$CCACTL" -n ls_b policy set default cca cca_dctcp >/dev/null || return 1
	ls_serve $LS_PORT || return 1
	ls_serve $LS_PINNED_PORT --cc cca_dctcp || return 1
	"$CCACTL" -n ls_b policy set default cca cubic no_migrate >/dev/null || return 1
	[ "$(listener_cca $LS_PORT) $(listener_cca $LS_PINNED_PORT)" = "cca_dctcp cca_dctcp" ] ||
		fail listener_drain_unloads "setup: listeners on $(listener_cca $LS_PORT), $(listener_cca $LS_PINNED_PORT)" ||
		return 1
	out=$("$CCACTL" -n ls_b -j cca drain cca_dctcp) || return 1
	[ "$(counts "$out" listeners migrated)" = "2 2" ] &&
		[ "$(listener_cca $LS_PORT) $(listener_cca $LS_PINNED_PORT)" = "$def $def" ] ||
		fail listener_drain_unloads "drain: $out; listeners on $(listener_cca $LS_PORT), $(listener_cca $LS_PINNED_PORT)" ||
		return 1
	rmmod_poll tcp_cca_dctcp ||
		fail listener_drain_unloads "rmmod tcp_cca_dctcp failed: $(grep '^tcp_cca_dctcp ' /proc/modules)" ||
		return 1
	load_ccaas tcp_cca_dctcp
}
