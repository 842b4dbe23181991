# Live upgrades with deploy/ccaas-service: a CCA module replaced
# (upgrade-cca: parked on the transitional cca_cubic, unloaded, loaded
# again, moved back) and ccaas_core itself with every CCA module
# (upgrade-core: drained to in-tree CCAs, all unloaded, loaded again,
# /etc/ccaas applied again), each under bulk streams and held idle
# connections. None may be reset, no stream may pause longer than
# UPG_MAX_GAP_MS, and the configuration must be what it was. The helpers
# are shared with 69-upgrade-refused.sh (UPG_LIB_ONLY=1: no tests).
#
# Hosts a (clients, where ccaas runs) and b (servers on in-tree dctcp
# listeners, which accept ECN: so the connections negotiate it).
# Beside the sanitizer kernel, one stock line (the newest; make
# check-full on every line): the procedure is the subject. The sanitizer
# kernel runs upgrade_core only: its drain, unload and reload of every
# module take the paths upgrade_cca's take for one (and 60-migrate.sh's
# moves between two ccaas CCAs are there too).
# vm-debug: yes
# vm-debug-skip: upgrade_cca
# vm-lines: newest
# vm-timeout: 240

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
STREAM=$CCAAS_ROOT/tests/vm/lib/stream.py
SERVICE=$CCAAS_ROOT/deploy/ccaas-service
UPG_HELD=5005 UPG_BULK=5006
UPG_N=10	# held idle connections
UPG_STREAMS=3	# bulk streams
# The longest pause a stream may see. An upgrade that broke a connection
# (a switch leaving it without a CCA, say) stalls it for good or resets
# it; what the procedure itself costs is measured and printed.
UPG_MAX_GAP_MS=$((3000 * ${CCAAS_VM_TIME_SCALE:-1}))

load_ccaas tcp_cca_dctcp tcp_cca_cubic && modprobe tcp_dctcp

upg_conf() {
	local d=/tmp/upg_etc
	rm -rf $d && mkdir -p $d
	printf '10.0.0.2/32 locality dc region 1 dc 7\n10.9.0.0/16 locality region region 2\n' >$d/scope.conf
	printf 'locality dc cca cca_dctcp param shift_g=5 min_rto 5ms\nlocality region cca cca_cubic\n' >$d/policy.conf
	echo $d
}

# upg_setup: a, b, /etc/ccaas of a applied by ccaas-service start
upg_setup() {
	netns_cleanup
	netns_pair a b || return 1
	ns b python3 "$CONNS" server :: $UPG_HELD --cc dctcp >/dev/null 2>&1 &
	wait_port b $UPG_HELD || return 1
	UPG_ETC=$(upg_conf)
	ns a env CCAAS_CONF_DIR="$UPG_ETC" CCACTL="$CCACTL" CCAAS_MODULE_DIR="$CCAAS_KO_DIR" \
		bash "$SERVICE" start || return 1
	rm -f /tmp/upg_ready
	ns a python3 "$CONNS" client "$PAIR_B_IP" $UPG_HELD $UPG_N /tmp/upg_ready --hold 900 \
		>/dev/null 2>&1 &
	for _ in $(seq $((300 * ${CCAAS_VM_TIME_SCALE:-1}))); do [ -e /tmp/upg_ready ] && break; sleep 0.1; done
	[ -e /tmp/upg_ready ]
}

# upg_config: the scope and rules in force in a (no generation line)
upg_config() {
	"$CCACTL" -n a scope show
	"$CCACTL" -n a policy show | grep -v '^#'
}

# upg_on NAME: a's connections to b on CCA NAME
upg_on() {
	ns a ss -tinH state established dst "$PAIR_B_IP" | grep -c " $1 "
}

# upg_ino MODULE: its sysfs directory's inode (a new one once reloaded)
upg_ino() { stat -c %i "/sys/module/$1"; }

# upg_run T MODULE CMD...: streams and held connections through CMD, in
# a; MODULE must have been loaded again
upg_run() {
	local t=$1 mod=$2 before after snap_a snap_b report=/tmp/upg_report send rc resets gap ino
	shift 2
	ino=$(upg_ino "$mod")
	before=$(upg_config)
	snap_a=$(mktemp) snap_b=$(mktemp)
	nstat_snapshot a "$snap_a"
	nstat_snapshot b "$snap_b"
	rm -f $report
	ns b python3 "$STREAM" sink :: $UPG_BULK $UPG_STREAMS $report --cc dctcp >/dev/null 2>&1 &
	wait_port b $UPG_BULK || return 1
	ip netns exec a python3 "$STREAM" send "$PAIR_B_IP" $UPG_BULK $UPG_STREAMS \
		$((8 * ${CCAAS_VM_TIME_SCALE:-1})) >/tmp/upg_send.out 2>&1 &
	send=$!
	sleep $((2 * ${CCAAS_VM_TIME_SCALE:-1}))
	[ "$(upg_on cca_dctcp)" = $((UPG_N + UPG_STREAMS)) ] ||
		fail $t "before: $(upg_on cca_dctcp) on cca_dctcp" || return 1
	ns a env CCAAS_CONF_DIR="$UPG_ETC" CCACTL="$CCACTL" CCAAS_MODULE_DIR="$CCAAS_KO_DIR" \
		"$@" >/tmp/upg_service.out 2>&1
	rc=$?
	cat /tmp/upg_service.out
	wait $send || fail $t "a stream failed: $(cat /tmp/upg_send.out)" || return 1
	for _ in $(seq $((300 * ${CCAAS_VM_TIME_SCALE:-1}))); do [ -s $report ] && break; sleep 0.1; done
	after=$(upg_config)
	resets=$(( $(nstat_delta a "$snap_a" TcpEstabResets) + $(nstat_delta b "$snap_b" TcpEstabResets) +
		$(nstat_delta a "$snap_a" TcpExtTCPAbortOnData) + $(nstat_delta b "$snap_b" TcpExtTCPAbortOnData) ))
	rm -f "$snap_a" "$snap_b"
	gap=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("%d %d %s" % (max(s["max_gap_ms"] for s in r), min(s["bytes"] for s in r),
                    "ok" if not any(s["error"] for s in r) else "error"))' $report)
	echo "$t: service exit $rc; longest pause, fewest bytes, errors: $gap; resets $resets"
	[ $rc = 0 ] || fail $t "ccaas-service exit $rc" || return 1
	[ "$resets" = 0 ] && [ "${gap##* }" = ok ] ||
		fail $t "connections reset: $resets, stream errors: $gap" || return 1
	set -- $gap
	[ "$1" -le $UPG_MAX_GAP_MS ] && [ "$2" -gt 0 ] ||
		fail $t "a stream paused $1 ms (at most $UPG_MAX_GAP_MS) or moved $2 bytes" || return 1
	[ "$after" = "$before" ] ||
		fail $t "configuration changed: before: $before; after: $after" || return 1
	[ "$(upg_ino "$mod")" != "$ino" ] || fail $t "$mod was not loaded again" || return 1
	[ "$(upg_on cca_dctcp)" = $UPG_N ] && [ "$(upg_on cubic)" = 0 ] && [ "$(upg_on cca_cubic)" = 0 ] ||
		fail $t "held connections after: $(upg_on cca_dctcp) on cca_dctcp of $UPG_N: $(ns a ss -tinH state established | grep -o 'cca_[a-z]*\| cubic \| dctcp ' | sort | uniq -c)"
}

[ -n "${UPG_LIB_ONLY:-}" ] && return 0

test_upgrade_cca() {
	upg_setup || return 1
	upg_run upgrade_cca tcp_cca_dctcp \
		bash "$SERVICE" upgrade-cca cca_dctcp "$CCAAS_KO_DIR/tcp_cca_dctcp.ko"
}

test_upgrade_core() {
	upg_setup || return 1
	upg_run upgrade_core ccaas_core bash "$SERVICE" upgrade-core || return 1
	load_ccaas tcp_cca_dctcp tcp_cca_cubic
	# /etc/ccaas applied again: its outcome is recorded as a start's
	# (ccaas-metrics: ccaas_up 1)
	[ ! -e /run/ccaas/failed ] && [ -s /run/ccaas/last-apply ] ||
		fail upgrade_core "outcome: $(cat /run/ccaas/failed 2>/dev/null || echo "no last-apply")"
}
