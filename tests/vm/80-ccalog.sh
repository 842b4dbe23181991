# shellcheck shell=bash
# ccalog: the per-RTT tracepoints on real connections, the cookie selection
# (ccactl log), trace-cmd recording and filtering, and ccalog-plot.
#
# Two paths:
# - lg_a -- lg_b, 20 ms netem delay on lg_b's egress (the ACK path) and no
#   bandwidth limit: application-limited transfers (tests/vm/lib/paced.py)
#   whose round trips can be counted again from a packet capture;
# - lg_c -- lg_r -- lg_s, a 20 Mbit/s HTB bottleneck whose fq_codel marks
#   CE above 2 ms, 2 ms more on the ACK path: bulk cca_dctcp transfers
#   whose alpha, ssthresh and cwnd move, for the filter and plot tests.
# The lg_a -- lg_b path also carries bursts separated by idle periods, for
# the idle-restart event every ccaas CCA must see.
# Not on the sanitizer kernel: its checks count rounds of paced transfers in
# wall-clock windows, which a guest that slow does not fill. The ccalog
# walks run there under the soak (log add/del all) and the fuzzer.
# make check runs it on the oldest line only (make check-full on the
# newest too), where ccalog's compat (no skaddr in tcp_probe) does the most;
# 81-ccalog-race runs the walks on the newest and the sanitizer kernel.
# vm-timeout: 300
# vm-alone: yes
# vm-lines: oldest

LG_RESULTS=$RESULTS/ccalog
mkdir -p "$LG_RESULTS"
PACED=$CCAAS_ROOT/tests/vm/lib/paced.py
PLOT=$CCAAS_ROOT/tools/ccalog-plot
PNGCHECK=$CCAAS_ROOT/tests/lib/pngcheck.py

load_ccaas tcp_cca_dctcp tcp_cca_cubic tcp_cca_dcndelay tcp_cca_xregion &&
	modprobe sch_netem && modprobe sch_htb
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic cca_dctcp cca_cubic"

# lg_pair: lg_a -- lg_b, cca_dctcp with ECN both ends, 20 ms on the ACKs
lg_pair() {
	netns_cleanup
	netns_pair lg_a lg_b &&
		tc -n lg_b qdisc add dev eth0 root netem delay 20ms limit 10000 &&
		ns lg_a sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_congestion_control=cca_dctcp &&
		ns lg_b sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_congestion_control=cca_dctcp
}

# lg_bottleneck: lg_c -- lg_r -- lg_s with the marking bottleneck
lg_bottleneck() {
	netns_cleanup
	netns_topo3 lg_c lg_r lg_s &&
		tc -n lg_r qdisc add dev eth1 root handle 1: htb default 1 &&
		tc -n lg_r class add dev eth1 parent 1: classid 1:1 htb rate 20mbit &&
		tc -n lg_r qdisc add dev eth1 parent 1:1 handle 10: fq_codel ce_threshold 2ms ecn &&
		tc -n lg_r qdisc add dev eth0 root netem delay 2ms &&
		ns lg_c sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_congestion_control=cca_dctcp &&
		ns lg_s sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_congestion_control=cca_dctcp
}

# lg_cookie NS DPORT: the cookie of NS's established connection to DPORT
lg_cookie() {
	"$CCACTL" -n "$1" -j sock show dport "$2" |
		python3 -c 'import json, sys; s = json.load(sys.stdin); print(s[0]["cookie"] if len(s) == 1 else "")'
}

# lg_cca NS PORT: the CCA of the connection to PORT, as sock show says
lg_cca() {
	"$CCACTL" -n "$1" -j sock show dport "$2" |
		python3 -c 'import json, sys; s = json.load(sys.stdin); print(s[0]["cca"] if len(s) == 1 else "")'
}

# lg_logged NS PORT COOKIE: sock show's "logged" for that connection
# (True or False), or what sock show printed when it is not listed
lg_logged() {
	"$CCACTL" -n "$1" -j sock show dport "$2" | python3 -c '
import json, sys
raw = sys.stdin.read()
m = [e["logged"] for e in json.loads(raw) if e["cookie"] == int(sys.argv[1])]
print(m[0] if m else "connection gone: " + raw)' "$3"
}

# lg_count FILE EVENT COOKIE: EVENT lines of a trace-cmd report for COOKIE
lg_count() {
	grep -c " $2: *cookie=$3 " "$1"
}

# tracefs, for the tests that watch the live ring buffer
TRACEFS=/sys/kernel/tracing

# lg_live_count EVENT COOKIE: EVENT lines for COOKIE in the ring buffer now
lg_live_count() {
	grep -c " $1: *cookie=$2 " "$TRACEFS/trace"
}

# Over an application-limited transfer of known length (3 s at 4 Mbit/s,
# 20 ms RTT), the selected connection emits one ccalog_rtt per round trip
# and the connection beside it, never selected, emits none. The reference
# count replays the CCA's round rule on the kernel's own tcp:tcp_probe
# events (snd_una and snd_nxt as each ACK is processed), recorded in the
# same trace: equal within 1. A replay on a packet capture must agree
# within 15 %.
test_ccalog_one_event_per_round() {
	local dir=$LG_RESULTS/rounds c1 c2 ev1 ev2 wire init
	rm -rf "$dir" && mkdir -p "$dir"
	lg_pair || { fail ccalog_one_event_per_round "path setup failed"; return 1; }
	ns lg_b python3 "$PACED" sink "$PAIR_B_IP" 5201 &
	ns lg_b python3 "$PACED" sink "$PAIR_B_IP" 5202 &
	wait_port lg_b 5201 && wait_port lg_b 5202 || return 1
	ns lg_a tcpdump -q -n -U -i eth0 -s 128 -B 4096 -w "$dir/a.pcap" 'tcp port 5201' \
		2>"$dir/tcpdump.err" &
	local dump=$!
	ns lg_a timeout 30 python3 "$PACED" send "$PAIR_B_IP" 5201 4e6 3 "$dir/r1" "$dir/go" &
	local s1=$!
	ns lg_a timeout 30 python3 "$PACED" send "$PAIR_B_IP" 5202 4e6 3 "$dir/r2" "$dir/go" &
	local s2=$! i
	for i in $(seq 50); do [ -e "$dir/r1" ] && [ -e "$dir/r2" ] && break; sleep 0.1; done
	c1=$(lg_cookie lg_a 5201) c2=$(lg_cookie lg_a 5202)
	if [ -z "$c1" ] || [ -z "$c2" ]; then
		fail ccalog_one_event_per_round "no cookies"
		return 1
	fi
	trace-cmd record -q -e ccalog -e tcp:tcp_probe -o "$dir/trace.dat" sleep 7 \
		>"$dir/record.log" 2>&1 &
	local rec=$!
	sleep 1.5
	"$CCACTL" -n lg_a log add cookie "$c1" >"$dir/add.txt" || {
		fail ccalog_one_event_per_round "log add cookie $c1 failed"; return 1; }
	touch "$dir/go"
	wait "$s1" "$s2"
	ns lg_a ss -tnoi >"$dir/ss-after.txt"
	sleep 0.5
	# (a background job ignores SIGINT: signal tcpdump itself)
	pkill -TERM -x tcpdump
	wait "$rec" "$dump"
	trace-cmd report -i "$dir/trace.dat" >"$dir/report.txt" 2>/dev/null
	ev1=$(lg_count "$dir/report.txt" ccalog_rtt "$c1")
	ev2=$(lg_count "$dir/report.txt" ccalog_rtt "$c2")
	init=$(lg_count "$dir/report.txt" ccalog_init "$c1")
	wire=$(python3 "$CCAAS_ROOT/tests/vm/lib/rounds.py" "$dir/a.pcap" 5201)
	read -r kern probes span < <(python3 "$CCAAS_ROOT/tests/vm/lib/probe_rounds.py" \
		"$dir/report.txt" "$c1")
	echo "selected $c1: $ev1 ccalog_rtt ($span while established), $init ccalog_init;" \
		"round trips: $kern from $probes tcp_probe events, $wire from the capture;" \
		"unselected $c2: $ev2 ccalog_rtt; $(tail -1 "$dir/tcpdump.err")" | tee "$dir/summary.txt"
	if grep -q ' [1-9][0-9]* packets dropped by kernel' "$dir/tcpdump.err"; then
		fail ccalog_one_event_per_round "the capture dropped packets"
	elif [ "$init" -ne 1 ]; then
		fail ccalog_one_event_per_round "expected one ccalog_init for the selected connection, got $init"
	elif [ "$kern" -lt 100 ]; then
		fail ccalog_one_event_per_round "only $kern round trips in 3 s (expected ~150 at 20 ms)"
	elif [ $((span - kern)) -gt 1 ] || [ $((kern - span)) -gt 1 ]; then
		fail ccalog_one_event_per_round "$span events for $kern round trips"
	elif [ $((100 * (ev1 - wire) / wire)) -gt 15 ] || [ $((100 * (wire - ev1) / wire)) -gt 15 ]; then
		# The capture cannot be exact: ACKs that wait in the socket's
		# backlog while the sender writes are processed after data the
		# capture shows later (seen: 5-8 % fewer rounds on the wire).
		fail ccalog_one_event_per_round "$ev1 events for $wire round trips on the wire (> 15 % apart)"
	elif [ "$ev2" -ne 0 ]; then
		fail ccalog_one_event_per_round "the unselected connection emitted $ev2 events"
	else
		pass ccalog_one_event_per_round
	fi
}

# Selection applies to a live connection at once, both ways, and is
# reported by log show and sock show; bad requests change nothing.
test_ccalog_live_add_del() {
	local c n json f
	lg_pair || { fail ccalog_live_add_del "path setup failed"; return 1; }
	ns lg_b python3 "$PACED" sink "$PAIR_B_IP" 5201 &
	wait_port lg_b 5201 || return 1
	local dir=$LG_RESULTS/live
	rm -rf "$dir" && mkdir -p "$dir" && touch "$dir/go"
	# The sender outlives the test (the cleanup ends it): under host
	# load the checks below may take longer than any fixed transfer.
	ns lg_a timeout 120 python3 "$PACED" send "$PAIR_B_IP" 5201 4e6 100 "$dir/r" "$dir/go" &
	local i
	for i in $(seq 50); do [ -e "$dir/r" ] && break; sleep 0.1; done
	c=$(lg_cookie lg_a 5201)
	[ -n "$c" ] || { fail ccalog_live_add_del "no cookie"; return 1; }

	echo 0 >"$TRACEFS/tracing_on"
	echo >"$TRACEFS/trace"
	echo 1 >"$TRACEFS/events/ccalog/enable"
	echo 1 >"$TRACEFS/tracing_on"
	sleep 1
	n=$(lg_live_count ccalog_rtt "$c")
	[ "$n" -eq 0 ] || { fail ccalog_live_add_del "$n events before log add"; return 1; }

	"$CCACTL" -n lg_a log add cookie "$c" >/dev/null || { fail ccalog_live_add_del "log add failed"; return 1; }
	sleep 1
	n=$(lg_live_count ccalog_rtt "$c")
	[ "$n" -ge 20 ] || { fail ccalog_live_add_del "$n events in the second after log add (expected ~50)"; return 1; }
	[ "$(lg_live_count ccalog_init "$c")" -eq 1 ] || { fail ccalog_live_add_del "no ccalog_init on log add"; return 1; }
	json=$("$CCACTL" -n lg_a -j log show)
	echo "$json" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert not s["all"] and s["logging"] == 1, s
assert [(e["cookie"], e["live"], e["cca"]) for e in s["cookies"]] == [(int(sys.argv[1]), True, "cca_dctcp")], s
' "$c" || { fail ccalog_live_add_del "log show: $json"; return 1; }
	json=$(lg_logged lg_a 5201 "$c")
	[ "$json" = True ] || { fail ccalog_live_add_del "sock show does not say logged: $json"; return 1; }

	# Bad input: a cookie no connection has, twice the same add, a
	# deselect of what is not selected. Each fails, naming why; the
	# selection stays.
	local out
	local rc
	out=$("$CCACTL" -n lg_a log add cookie 987654321 2>&1)
	rc=$?
	if [ $rc -ne 2 ] || ! echo "$out" | grep -q '^Error: no open TCP connection has this cookie'; then
		fail ccalog_live_add_del "unknown cookie (exit $rc): $out"
		return 1
	fi
	out=$("$CCACTL" -n lg_a log del cookie 987654321 2>&1)
	rc=$?
	if [ $rc -ne 2 ] || ! echo "$out" | grep -q '^Error: this cookie is not selected'; then
		fail ccalog_live_add_del "del of an unselected cookie (exit $rc): $out"
		return 1
	fi
	"$CCACTL" -n lg_a -j log show | grep -q "\"cookie\":$c," ||
		{ fail ccalog_live_add_del "the selection changed after refused requests"; return 1; }

	"$CCACTL" -n lg_a log del cookie "$c" >/dev/null || { fail ccalog_live_add_del "log del failed"; return 1; }
	echo >"$TRACEFS/trace"
	sleep 1
	n=$(lg_live_count ccalog_rtt "$c")
	echo 0 >"$TRACEFS/events/ccalog/enable"
	[ "$n" -eq 0 ] || { fail ccalog_live_add_del "$n events after log del"; return 1; }
	json=$(lg_logged lg_a 5201 "$c")
	[ "$json" = False ] || { fail ccalog_live_add_del "sock show after log del: $json"; return 1; }

	# Filters, resolved to cookies through sock_diag: all must hold.
	out=$("$CCACTL" -n lg_a log add dport 5201 dst "$PAIR_B_IP/24" cca cca_dctcp locality unknown 2>&1) ||
		{ fail ccalog_live_add_del "log add by filter: $out"; return 1; }
	"$CCACTL" -n lg_a -j log show | grep -q "\"cookie\":$c," ||
		{ fail ccalog_live_add_del "the filter did not select cookie $c"; return 1; }
	out=$("$CCACTL" -n lg_a log del src "$PAIR_A_IP" 2>&1) ||
		{ fail ccalog_live_add_del "log del by filter: $out"; return 1; }
	"$CCACTL" -n lg_a -j log show | grep -q '"cookies":\[\]' ||
		{ fail ccalog_live_add_del "log del by filter left: $("$CCACTL" -n lg_a log show)"; return 1; }
	for f in "dport 5299" "cca cca_cubic" "locality rack" "dst 10.9.0.0/16"; do
		# shellcheck disable=SC2086 # the words of the filter
		out=$("$CCACTL" -n lg_a log add $f 2>&1)
		rc=$?
		if [ $rc -ne 2 ] || [ "$out" != "Error: no established connection matches" ]; then
			fail ccalog_live_add_del "log add $f (exit $rc): $out"
			return 1
		fi
	done
	pass ccalog_live_add_del
}

# The selector's and the migrator's moves are traced (ccalog_switch, with
# their reason and the policy generation), and a logged connection's
# ccalog_init carries its CCA, version, scope and generation, again when a
# migration puts it on another CCA, whose rounds are then reported.
test_ccalog_switch_and_init() {
	local dir=$LG_RESULTS/switch c g1 g2 t
	rm -rf "$dir" && mkdir -p "$dir" && touch "$dir/go"
	lg_pair || { fail ccalog_switch_and_init "path setup failed"; return 1; }
	ns lg_a sysctl -qw net.ipv4.tcp_congestion_control=cubic
	"$CCACTL" -n lg_a scope add "$PAIR_B_IP/32" locality dc region 1 dc 7 &&
		g1=$("$CCACTL" -n lg_a policy set locality dc cca cca_dctcp | sed -n 's/^generation //p') &&
		"$CCACTL" -n lg_a log add all >/dev/null ||
		{ fail ccalog_switch_and_init "configuration failed"; return 1; }
	ns lg_b python3 "$PACED" sink "$PAIR_B_IP" 5201 &
	wait_port lg_b 5201 || return 1
	# trace-cmd, not tracefs: it prints from the format files, which must
	# carry what it needs (the switch reasons' names).
	# It records until the migration's rounds are in (a slow guest, the
	# sanitizer kernel's, takes far longer than a fixed window), at most 60 s.
	trace-cmd record -q -e ccalog -o "$dir/trace.dat" \
		timeout 60 sh -c "until [ -e '$dir/stop' ]; do sleep 0.2; done" \
		>"$dir/record.log" 2>&1 &
	local rec=$! i
	sleep 1.5
	# The transfer lasts until the migration is seen: a fixed length (4 s
	# at first) could end before a loaded guest got to the policy.
	ns lg_a timeout 60 python3 "$PACED" send "$PAIR_B_IP" 5201 4e6 55 "$dir/r" "$dir/go" &
	local snd=$!
	for i in $(seq 50); do [ -e "$dir/r" ] && break; sleep 0.1; done
	sleep 1
	c=$(lg_cookie lg_a 5201)
	g2=$("$CCACTL" -n lg_a policy set locality dc cca cca_cubic | sed -n 's/^generation //p')
	for i in $(seq 60); do
		lg_cca lg_a 5201 | grep -qx cca_cubic && break
		sleep 0.25
	done
	sleep 1
	touch "$dir/stop"
	wait "$rec"
	# the sender, not only the shell that started it (ip netns exec and
	# timeout run it as a child)
	pkill -f "$PACED send $PAIR_B_IP 5201 " 2>/dev/null
	wait "$snd" 2>/dev/null
	t=$dir/trace.txt
	trace-cmd report -i "$dir/trace.dat" >"$t" 2>/dev/null
	grep -E "ccalog_(switch|init): +cookie=$c " "$t" | sed 's/^.*: cookie=/cookie=/'
	if ! grep -q "ccalog_switch: *cookie=$c .* from=cubic to=cca_dctcp reason=select generation=$g1\$" "$t"; then
		fail ccalog_switch_and_init "no ccalog_switch cubic -> cca_dctcp by the selector (generation $g1)"
	elif ! grep -q "ccalog_init: *cookie=$c .* cca=cca_dctcp version=1.0.0 locality=dc region=1 dc=7 generation=$g1\$" "$t"; then
		fail ccalog_switch_and_init "no ccalog_init for cca_dctcp with the connection's scope and generation $g1"
	elif ! grep -q "ccalog_switch: *cookie=$c .* from=cca_dctcp to=cca_cubic reason=migrate generation=$g2\$" "$t"; then
		fail ccalog_switch_and_init "no ccalog_switch cca_dctcp -> cca_cubic by the migrator (generation $g2)"
	elif ! grep -q "ccalog_init: *cookie=$c .* cca=cca_cubic version=[0-9.]* locality=dc region=1 dc=7 generation=$g2\$" "$t"; then
		fail ccalog_switch_and_init "no ccalog_init for cca_cubic after the migration"
	elif ! grep -q "ccalog_rtt: *cookie=$c .* cca=cca_cubic " "$t"; then
		fail ccalog_switch_and_init "no rounds reported on cca_cubic after the migration"
	else
		pass ccalog_switch_and_init
	fi
}

# Idle restarts reach every ccaas CCA. A connection that writes a burst,
# waits until it is all acknowledged and writes again starts each burst
# with nothing in flight, so the stack raises CA_EVENT_TX_START, which
# the CCA notes in the round (ccalog_rtt is_tx_start=1). Six bursts: at
# least four such rounds per CCA (one per burst but the first, with a
# margin). On kernels that deliver the event only through the
# cwnd_event_tx_start callback, a CCA that does not forward it has none.
test_ccalog_tx_start_after_idle() {
	local dir=$LG_RESULTS/txstart cca n bad="" counts=""
	rm -rf "$dir" && mkdir -p "$dir"
	lg_pair && "$CCACTL" -n lg_a log add all >/dev/null ||
		{ fail ccalog_tx_start_after_idle "setup failed"; return 1; }
	ns lg_b python3 "$PACED" sink "$PAIR_B_IP" 5203 &
	wait_port lg_b 5203 || return 1
	trace-cmd record -q -e ccalog:ccalog_rtt -o "$dir/trace.dat" \
		timeout 120 sh -c "until [ -e '$dir/stop' ]; do sleep 0.2; done" \
		>"$dir/record.log" 2>&1 &
	local rec=$!
	sleep 1.5
	for cca in cca_dctcp cca_cubic cca_dcndelay cca_xregion; do
		ns lg_a timeout 60 python3 "$PACED" bursts "$PAIR_B_IP" 5203 "$cca" 6 30000 ||
			bad+=" $cca: the transfer failed;"
	done
	touch "$dir/stop"
	wait "$rec"
	trace-cmd report -i "$dir/trace.dat" >"$dir/trace.txt" 2>/dev/null
	for cca in cca_dctcp cca_cubic cca_dcndelay cca_xregion; do
		n=$(grep -c "ccalog_rtt: .* cca=$cca .* is_tx_start=1 " "$dir/trace.txt")
		counts+=" $cca $n,"
		[ "$n" -ge 4 ] || bad+=" $cca: $n rounds with is_tx_start=1;"
	done
	echo "rounds with is_tx_start=1 over 6 bursts:${counts%,}"
	if [ -n "$bad" ]; then
		fail ccalog_tx_start_after_idle "${bad%;}"
	else
		pass ccalog_tx_start_after_idle
	fi
}

# ccalog_bulk DIR SECS: two bulk cca_dctcp transfers over the marking
# bottleneck, to ports 5201 and 5202, every connection logged ("log add
# all" before they open); `ccactl log record` with a port filter runs
# alongside. Leaves DIR/filtered.dat.
ccalog_bulk() {
	local dir=$1 secs=$2
	rm -rf "$dir" && mkdir -p "$dir"
	lg_bottleneck || return 1
	"$CCACTL" -n lg_c log add all >/dev/null || return 1
	iperf_server lg_s 5201 && iperf_server lg_s 5202 || return 1
	"$CCACTL" -n lg_c log record duration $((secs + 3)) file "$dir/filtered.dat" \
		filter 'dport==5201' >"$dir/record.txt" 2>&1 &
	local rec=$!
	sleep 1.5
	iperf_client lg_c "$SERVER_IP" "$secs" "$dir/5201.json" -p 5201 &
	local c1=$!
	iperf_client lg_c "$SERVER_IP" "$secs" "$dir/5202.json" -p 5202 &
	local c2=$!
	sleep 1
	"$CCACTL" -n lg_c -j sock show >"$dir/socks.json"
	wait "$c1" "$c2"
	wait "$rec" || { cat "$dir/record.txt"; return 1; }
	trace-cmd report -i "$dir/filtered.dat" >"$dir/filtered.txt" 2>/dev/null
}

# trace-cmd filters on the numeric fields: with -f 'dport==5201' (through
# `ccactl log record ... filter`), only the connection to 5201 is in the
# trace, though both are logged.
test_ccalog_trace_cmd_filter() {
	local dir=$LG_RESULTS/bulk n other
	ccalog_bulk "$dir" 4 || { fail ccalog_trace_cmd_filter "bulk transfers failed"; return 1; }
	n=$(grep -c ' ccalog_rtt: ' "$dir/filtered.txt")
	other=$(grep ' ccalog_rtt: ' "$dir/filtered.txt" | grep -vc 'dst=[0-9.]*:5201 ')
	echo "filtered trace: $n ccalog_rtt events, $other not to port 5201" | tee "$dir/summary.txt"
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
logged = sorted(c["dport"] for c in s if c.get("logged"))
assert 5201 in logged and 5202 in logged, s
' "$dir/socks.json" || { fail ccalog_trace_cmd_filter "both data connections should be logged"; return 1; }
	if [ "$n" -lt 50 ]; then
		fail ccalog_trace_cmd_filter "only $n events in 4 s"
	elif [ "$other" -ne 0 ]; then
		fail ccalog_trace_cmd_filter "$other events of other connections passed the filter"
	else
		pass ccalog_trace_cmd_filter
	fi
}

# ccalog-plot turns the recorded trace into a PNG with all five series
# (cwnd, ssthresh, alpha, srtt, min_rtt), found in the image by color.
test_ccalog_plot() {
	local dir=$LG_RESULTS/bulk out=$LG_RESULTS/plot.png
	[ -s "$dir/filtered.dat" ] || ccalog_bulk "$dir" 4 ||
		{ fail ccalog_plot "no trace to plot"; return 1; }
	"$PLOT" -o "$out" --data "$LG_RESULTS/plot.dat" "$dir/filtered.dat" >"$LG_RESULTS/plot.txt" 2>&1 ||
		{ cat "$LG_RESULTS/plot.txt"; fail ccalog_plot "ccalog-plot failed"; return 1; }
	cat "$LG_RESULTS/plot.txt"
	# A series' key sample alone is ~94 pixels of its color: 300 means
	# its line is drawn too.
	check ccalog_plot python3 "$PNGCHECK" "$out" --min-size 800x600 \
		--color 'cwnd=#1f77b4:300' --color 'ssthresh=#ff7f0e:300' \
		--color 'alpha=#2ca02c:300' --color 'srtt=#d62728:300' \
		--color 'min_rtt=#9467bd:300'
}
