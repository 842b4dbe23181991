# Incast: many synchronized senders answer one receiver through a shallow
# buffer. In-tree cubic, whose lost answers wait out Linux's 200 ms minimum
# RTO, against cca_dctcp and cca_dcndelay with the policy's `min_rto 1ms`,
# each chosen by a ccactl policy in the senders' namespace:
#   incast               the runs, a table of per-flow completion times (FCT)
#   incast_policy_applied, incast_lossless_floor, incast_losses,
#   incast_default_waits_floor, incast_knob_waits_{cubic,dctcp,dcndelay}
#                        the assertions (incast_checks)
#
# in_c (40 senders: one namespace, one socket each) -- in_r -- in_s (one
# receiver). 20 Mbit/s into fq_codel with a single flow queue, a 4-packet
# limit and CE above 1 ms (ECN senders see a mark whenever two packets
# queue). Each round the receiver asks every sender at once for one segment
# (1448 B; lib/burst.py); a flow completes with its answer. The 40 answers
# (24 ms of the link) arrive faster than the link drains them and a third
# or more of them overflow the buffer, whatever the CCA: a window of one
# segment is all any of them sends. So a lost answer is the last (only)
# segment in flight, and nothing but a timer sends it again: its tail loss
# probe waits 2 srtt + the minimum RTO, its RTO the minimum RTO + srtt.
#
# What is asserted is that mechanism, per lost answer: the sender records
# each answer's retransmissions (tcpi_total_retrans between two requests),
# the receiver each answer's completion. Without the knob, no answer that
# needed a retransmission completes in under the 200 ms floor; with it, the
# answers that needed one retransmission complete in a small part of it.
# Both hold whether a round's retransmissions cascaded into further
# backoffs or not, and whatever else the host runs: a busy host makes
# fewer answers collide and fewer backoffs cascade, which moves the p99
# (one, two or three 200 ms waits: 430 to 1680 ms for cubic, so its ratio
# to the knob's p99 went from 31.6x to 5.4x between two new machines), but
# not the floor under each wait. The p99 table stays as the report; the
# headline ratio, with its spread over runs, is `make bench`'s incast part
# (bench/README.md).
#
# Calibration of the shape (6.12 under TCG): the lossless reference (the
# same rounds into 1000 packets) has a p99 of 24-44 ms, of which 12 ms is
# the link: the rest is the emulated CPU. The knob's 1 ms becomes two
# jiffies (the kernel's least, 8 ms at HZ=250), so an RTO is srtt + 8 ms
# rounded up to a tick. 48 senders
# collapse (cubic 3.3-13 s, the file out of time). At 40 Mbit/s a packet
# takes 0.29 ms of the link, about what the emulated CPU takes to answer
# one request, so whether a burst overflowed followed the host's load; at
# 20 Mbit/s (0.58 ms a packet) nearly every round overflows.
#
# Senders keep their window over idle periods (tcp_slow_start_after_idle=0)
# and send one MSS per packet (gso_max_segs 1); the receiver ACKs at once
# (route quickack: a 40 ms delayed ACK outlasts a knob's RTO).
#
# The configurations are interleaved (every one once per repetition). The
# p99 of the report leaves out each repetition's slowest round, so that one
# stall of the emulated machine, which delays a whole round, does not make
# the table. Results: stdout and $RESULTS/incast.txt.
# vm-timeout: 420
# vm-alone: yes
# vm-lines: newest

BURST=$CCAAS_ROOT/tests/vm/lib/burst.py
INC_RESULTS=$RESULTS/incast.txt
INCAST_N=40
INCAST_BYTES=1448
INCAST_ROUNDS=8
INCAST_REPS=2
INCAST_PORT=5301
INCAST_MBIT=20

load_ccaas tcp_cca_dctcp tcp_cca_dcndelay &&
	modprobe sch_htb && modprobe sch_fq_codel

# say FORMAT ARGS...: printf to stdout and the results file
say() {
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$@" | tee -a "$INC_RESULTS"
}

# policy NS ARGS...: `ccactl -n NS policy set ARGS`, quietly
policy() {
	local n=$1
	shift
	"$CCACTL" -n "$n" policy set "$@" >/dev/null
}


incast_setup() {
	netns_cleanup
	netns_topo3 in_c in_r in_s &&
		ip -n in_c link set dev eth0 gso_max_segs 1 &&
		ns in_c sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 &&
		ip -n in_s route change default via "$ROUTER_S_IP" quickack 1 &&
		tc -n in_r qdisc add dev eth1 root handle 1: htb default 1 &&
		tc -n in_r class add dev eth1 parent 1: classid 1:1 htb rate ${INCAST_MBIT}mbit &&
		tc -n in_r qdisc add dev eth1 parent 1:1 handle 10: \
			fq_codel flows 1 limit 4 ce_threshold 1ms ecn &&
		policy in_s default cca cca_dctcp
}

# incast_drops: the packets the bottleneck has dropped
incast_drops() {
	tc -n in_r -s qdisc show dev eth1 | sed -nE '/fq_codel/,$ s/.*\(dropped ([0-9]+),.*/\1/p' | head -n 1
}

# incast_run CCA MIN_RTO [TAG]: a warm-up round and INCAST_ROUNDS measured
# rounds over fresh connections whose policy rule is CCA with min_rto
# MIN_RTO (or no knob: "default"). Appends the receiver's report to
# $RESULTS/incast-CCA-MIN_RTO[TAG].json, the senders' retransmissions of
# each answer to ....retrans (a line per run, burst.py's RETRANS) and
# their retransmissions, timeouts and loss probes during the measured
# rounds to ....nstat; sets sock_json
incast_run() {
	local cca=$1 rto=$2 knob="" out snap ready=/tmp/incast.ready warm=/tmp/incast.warm rpid spid c
	[ "$rto" = default ] || knob="min_rto $rto"
	# shellcheck disable=SC2086 # knob is two words or none
	policy in_c default cca "$cca" $knob || return 1
	out=$RESULTS/incast-$cca-$rto${3:-}
	snap=$(mktemp)
	rm -f "$ready" "$warm".*
	ns in_s timeout 120 python3 "$BURST" recv 0.0.0.0 $INCAST_PORT $INCAST_N \
		$INCAST_ROUNDS $INCAST_BYTES 0.05 "$warm" >>"$out.json" &
	rpid=$!
	wait_port in_s $INCAST_PORT || return 1
	ns in_c timeout 120 python3 "$BURST" send "$SERVER_IP" $INCAST_PORT $INCAST_N \
		$INCAST_BYTES "$ready" "$out.rx1" &
	spid=$!
	for _ in $(seq 100); do [ -e "$ready" ] && break; sleep 0.1; done
	sock_json=$("$CCACTL" -n in_c -j sock show dport $INCAST_PORT)
	for _ in $(seq 300); do [ -e "$warm.done" ] && break; sleep 0.1; done
	nstat_snapshot in_c "$snap"
	touch "$warm.go"
	if ! wait $spid || ! wait $rpid; then
		echo "incast $cca $rto: transfer failed"
		return 1
	fi
	{ cat "$out.rx1" && echo; } >>"$out.retrans" && rm -f "$out.rx1"
	for c in TcpRetransSegs TcpExtTCPTimeouts TcpExtTCPLossProbes; do
		printf '%s ' "$(nstat_delta in_c "$snap" $c)"
	done >>"$out.nstat"
	echo >>"$out.nstat"
	rm -f "$snap"
}

# incast_summary CCA MIN_RTO [TAG]: "p50 p99 p99s max retransmits timeouts
# probes" of the configuration's measured rounds (times in ms): p99 over
# every repetition's rounds but its slowest (a stall of the emulated CPU
# delays a whole round), p99s the 99th percentile of each repetition, all
# its rounds
incast_summary() {
	python3 - "$RESULTS/incast-$1-$2${3:-}" <<-'EOF'
		import json, sys
		def pick(v, q):
		    v = sorted(v)
		    return v[min(len(v) - 1, int(q * len(v)))]
		fct, kept, p99s = [], [], []
		for line in open(sys.argv[1] + ".json"):
		    rounds = json.loads(line)["fct_ms"]
		    rep = [x for r in rounds for x in r]
		    fct += rep
		    p99s.append(pick(rep, 0.99))
		    worst = max(range(len(rounds)), key=lambda i: max(rounds[i]))
		    kept += [x for i, r in enumerate(rounds) if i != worst for x in r]
		tot = [0, 0, 0]
		for line in open(sys.argv[1] + ".nstat"):
		    tot = [a + int(b) for a, b in zip(tot, line.split())]
		print("%.1f %.1f %s %.1f %d %d %d" % (pick(fct, 0.5), pick(kept, 0.99),
		      "/".join("%.0f" % v for v in p99s), max(fct), *tot))
	EOF
}

test_incast() {
	local rep cca rto p50 p99 p99s max rx to tlp knob_json drops
	incast_setup || fail incast "setup failed" || return 1
	rm -f "$RESULTS"/incast-*
	# Interleaved: every configuration once per repetition.
	for rep in $(seq $INCAST_REPS); do
		for rto in default 1ms; do
			for cca in cubic cca_dctcp cca_dcndelay; do
				incast_run "$cca" "$rto" ||
					fail incast "$cca min_rto $rto failed (repetition $rep)" || return 1
			done
		done
	done
	# The last batch ran on cca_dcndelay with the knob.
	knob_json=$sock_json
	# The lossless reference: the same rounds into 1000 packets.
	tc -n in_r qdisc change dev eth1 parent 1:1 handle 10: fq_codel limit 1000 &&
		drops=$(incast_drops) &&
		incast_run cubic default -deep && incast_run cca_dctcp 1ms -deep ||
		fail incast "lossless reference failed" || return 1
	echo $(($(incast_drops) - drops)) >"$RESULTS/incast-deep.drops"
	say 'incast: %d senders x %d B, %d Mbit/s, 4 packets, CE above 1 ms, %d x %d rounds each; per-flow completion (ms): p50, p99 (each repetition'"'"'s slowest round left out), p99 of each repetition, max; sender retransmits, RTOs, loss probes\n' \
		$INCAST_N $INCAST_BYTES $INCAST_MBIT $INCAST_REPS $INCAST_ROUNDS
	for rto in default 1ms; do
		for cca in cubic cca_dctcp cca_dcndelay; do
			read -r p50 p99 p99s max rx to tlp < <(incast_summary "$cca" "$rto")
			echo "$p99 $rx $to" >"$RESULTS/incast-$cca-$rto.sum"
			say '  %-12s min_rto %-7s p50 %5.0f p99 %5.0f (%-15s) max %5.0f retrans %4d RTOs %4d probes %4d\n' \
				"$cca" "$rto" "$p50" "$p99" "$p99s" "$max" "$rx" "$to" "$tlp"
		done
	done
	for cca in cubic-default cca_dctcp-1ms; do
		read -r p50 p99 p99s max rx to tlp < <(incast_summary "${cca%-*}" "${cca##*-}" -deep)
		echo "$p99 $rx $to" >"$RESULTS/incast-$cca-deep.sum"
		say '  %-12s min_rto %-7s p50 %5.0f p99 %5.0f (%-15s) max %5.0f retrans %4d RTOs %4d probes %4d  (1000 packets: lossless reference)\n' \
			"${cca%-*}" "${cca##*-}" "$p50" "$p99" "$p99s" "$max" "$rx" "$to" "$tlp"
	done
	echo "$knob_json" >"$RESULTS/incast-knob-sock.json"
	pass incast
}

# incast_sum CCA MIN_RTO [TAG] FIELD: a figure of test_incast's summary
# (1 p99, 2 retransmits, 3 RTOs)
incast_sum() {
	cut -d' ' -f"$4" "$RESULTS/incast-$1-$2${3:-}.sum"
}

# incast_waits CCA MIN_RTO: of the answers that needed a retransmission in
# the measured rounds, "N SHORTEST MEDIAN LONGEST N1 MEDIAN1": how many,
# their completion times (ms), how many needed exactly one and the median
# completion of those (0 and 0 when there were none)
incast_waits() {
	python3 - "$RESULTS/incast-$1-$2" <<-'EOF'
		import json, statistics, sys
		lost, once = [], []
		runs = [json.loads(l) for l in open(sys.argv[1] + ".json") if l.strip()]
		rx = [json.loads(l) for l in open(sys.argv[1] + ".retrans") if l.strip()]
		for run, by_port in zip(runs, rx):
		    for i, rnd in enumerate(run["fct_ms"]):
		        for port, fct in zip(run["ports"], rnd):
		            r = by_port[str(port)][i + 1]    # [0]: the warm-up
		            if r >= 1:
		                lost.append(fct)
		            if r == 1:
		                once.append(fct)
		med = lambda v: statistics.median(v) if v else 0
		print(len(lost), "%.1f" % min(lost or [0]), "%.1f" % med(lost),
		      "%.1f" % max(lost or [0]), len(once), "%.1f" % med(once))
	EOF
}

test_incast_checks() {
	local cca rx
	[ -f "$RESULTS/incast-cubic-default.sum" ] || fail incast_checks "no results" || return 1
	# The policy reached every sender's socket, with ECN, at two jiffies
	# (1 ms rounded up to the kernel's least: 8 ms at HZ=250) or less.
	verdict incast_policy_applied "sock show: $(cat "$RESULTS/incast-knob-sock.json")" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s) == int(sys.argv[2]), len(s)
assert all(x["cca"] == "cca_dcndelay" and x["ecn"] and x["min_rto_us"] <= 8000 for x in s), s
' "$RESULTS/incast-knob-sock.json" $INCAST_N
	# The reference loses nothing: its p99 is what the emulated CPU and
	# the link cost. Calibration: no drop in any run; p99 16-44 ms (cubic)
	# and 20-34 ms at 40 Mbit/s, 26-28 and 27-29 ms at 20 (cca_dctcp with
	# the knob; 2-25 retransmissions, loss
	# probes that fire without a loss under TCG, hence drops counted, not
	# retransmissions). Margin: none, a drop would mean the reference is
	# no longer one.
	verdict incast_lossless_floor "the bottleneck dropped $(cat "$RESULTS/incast-deep.drops")" \
		[ "$(cat "$RESULTS/incast-deep.drops")" = 0 ]
	# Every configuration lost answers (else the comparison measures the
	# CPU) and cubic waited out RTOs. Calibration, in 32 rounds: 297-995
	# retransmissions per configuration, cubic 132-344 RTOs at 40 Mbit/s;
	# 676-1635 and 462-985 at 20. Margin: one retransmission per round.
	rx=""
	for cca in cubic-default cubic-1ms cca_dctcp-default cca_dctcp-1ms cca_dcndelay-default cca_dcndelay-1ms; do
		rx+=" $cca $(incast_sum "${cca%-*}" "${cca##*-}" "" 2)"
	done
	verdict incast_losses "retransmits:$rx; cubic's RTOs $(incast_sum cubic default "" 3)" python3 -c '
import sys
v = sys.argv[1].split()
assert all(int(n) >= int(sys.argv[2]) for n in v[1::2]), v
assert int(sys.argv[3]) > 0
' "$rx" $((INCAST_REPS * INCAST_ROUNDS)) "$(incast_sum cubic default "" 3)"
	# Each lost answer's wait. Without the knob, every answer that needed
	# a retransmission completed after at least 190 ms: the 200 ms floor
	# less a jiffy (a timer armed late in a tick fires up to 4 ms early in
	# wall time) and a little. It is a floor, not a calibration: nothing
	# but a timer resends a lone segment, neither timer may fire sooner
	# (tcp_rto_min()), and host load only lengthens waits.
	local w n lo med hi n1 med1
	w=""
	for cca in cubic cca_dctcp cca_dcndelay; do
		w+=" $cca $(incast_waits "$cca" default)"
	done
	verdict incast_default_waits_floor "per CCA: lost answers, their shortest, median and longest completion (ms), those with one retransmission and their median:$w" \
		python3 -c '
import sys
v = sys.argv[1].split()
for i in range(0, len(v), 7):
    assert int(v[i + 1]) > 0 and float(v[i + 2]) >= 190, v[i:i + 7]
' "$w"
	# With the knob (1 ms, a jiffy), the answers that needed one
	# retransmission: their median completion is below the floor that
	# binds every one of them without the knob (190 ms). An upper bound
	# moves with the host's load, which inflates the RTT the timer is
	# computed from: the knob's whole p99 was 45-90 ms on 6.12 and 7.3
	# with one busy neighbour, but once, with seven guests on the two
	# cores, cca_dctcp's median was 116.5 ms (against 100 ms then asked).
	# Below the floor is what only a lower RTO floor allows.
	for cca in cubic cca_dctcp cca_dcndelay; do
		read -r n lo med hi n1 med1 < <(incast_waits "$cca" 1ms)
		verdict "incast_knob_waits_${cca#cca_}" \
			"$n lost answers: completion $lo / $med / $hi ms (shortest, median, longest); $n1 with one retransmission, median $med1 ms" \
			pytrue "$n1 > 0 and $med1 < 190"
	done
}
