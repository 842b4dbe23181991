# The CCA family on emulated paths, each CCA chosen the way an operator
# would, by a ccactl policy in the senders' namespace:
#   family_incast              synchronized short transfers into one shallow
#                              ECN-marking buffer: cca_dcndelay and cca_dctcp
#                              against in-tree cubic, with and without the
#                              policy's min_rto knob
#   family_long_rtt            cca_xregion against cubic with ECN on a long
#                              path with a shallow marking threshold
#   family_coexistence         short-RTT cca_dcndelay and long-RTT cca_xregion
#                              flows on one bottleneck, against cubic + cubic
#   family_rollback_under_load live cca_xregion transfers rolled back to
#                              cca_cubic; in-tree cubic refused unless forced
#
# Every bottleneck is a router's HTB class feeding one FIFO: fq_codel with a
# single flow queue (flow queueing would make any mix of CCAs fair), a CE
# mark once a packet has queued for more than FAM_CE, and a packet limit.
# Senders send one MSS per packet (gso_max_segs 1) so that the limit counts
# segments. Rates stay at 10-20 Mbit/s, which TCG sustains. Receivers'
# listeners are put on an ECN CCA by their own policy, set before they
# listen, so that they accept ECN (and echo CE exactly).
#
# Timing under TCG is noisy: the emulated machine sometimes stalls for
# hundreds of ms while the host is busy. Comparisons therefore interleave
# their runs and compare sums, and each margin below leaves room for such a
# stall. The comment at each assertion gives the range seen in the
# calibration runs (eight full runs on 6.12, two on 6.1, on a shared,
# busy 2-core host).
# Results: stdout and $RESULTS/family.txt.
# vm-timeout: 360
# vm-alone: yes

BURST=$CCAAS_ROOT/tests/vm/lib/burst.py
FAM_RESULTS=$RESULTS/family.txt
FAM_CE=1ms

load_ccaas tcp_cca_dctcp tcp_cca_cubic tcp_cca_dcndelay tcp_cca_xregion &&
	modprobe sch_htb && modprobe sch_netem && modprobe sch_fq_codel

# ---- helpers ---------------------------------------------------------------

# say FORMAT ARGS...: printf to stdout and the results file
say() {
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$@" | tee -a "$FAM_RESULTS"
}

# verdict NAME WHY CMD...: PASS NAME if CMD succeeds, else FAIL NAME WHY
verdict() {
	local name=$1 why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}

# py EXPR: print the value of a Python expression (arithmetic for the shell)
py() {
	python3 -c "print($1)"
}

# pytrue EXPR: succeed if the Python expression is true
pytrue() {
	python3 -c "import sys; sys.exit(not ($1))"
}

# bottleneck NS DEV RATE LIMIT [CE]: the bottleneck on NS's DEV, marking
# above CE (default FAM_CE)
bottleneck() {
	tc -n "$1" qdisc add dev "$2" root handle 1: htb default 1 &&
		tc -n "$1" class add dev "$2" parent 1: classid 1:1 htb rate "$3" &&
		tc -n "$1" qdisc add dev "$2" parent 1:1 handle 10: \
			fq_codel flows 1 limit "$4" ce_threshold "${5:-$FAM_CE}" ecn
}

# delay NS DEV DELAY: netem delay on NS's DEV (put on the ACK path)
delay() {
	tc -n "$1" qdisc add dev "$2" root netem delay "$3" limit 10000
}

# one_mss NS...: senders in NS send one segment per packet
one_mss() {
	local n
	for n in "$@"; do
		ip -n "$n" link set dev eth0 gso_max_segs 1 || return 1
	done
}

# policy NS ARGS...: `ccactl -n NS policy set ARGS`, quietly
policy() {
	local n=$1
	shift
	"$CCACTL" -n "$n" policy set "$@" >/dev/null
}

# data_ss NS DPORT: `ss -tio` of NS's established connections to DPORT (two
# lines per connection; -o is what makes ss print "ecn")
data_ss() {
	ns "$1" ss -tinoH state established "( dport = :$2 )" | tr -s ' '
}

# iperf_stats JSON: "<receiver bit/s> <sender retransmits> <mean snd_cwnd,
# packets> <max snd_cwnd, packets> <mean RTT, ms>" of a one-stream report
iperf_stats() {
	python3 - "$1" <<-'EOF'
		import json, sys
		j = json.load(open(sys.argv[1]))
		e = j["end"]
		mss = j["start"].get("tcp_mss_default") or 1448
		cw = [i["streams"][0]["snd_cwnd"] for i in j["intervals"]]
		s = e["streams"][0]["sender"]
		print(int(e["sum_received"]["bits_per_second"]), e["sum_sent"].get("retransmits", 0),
		      round(sum(cw) / len(cw) / mss, 1), round(s.get("max_snd_cwnd", 0) / mss),
		      round(s.get("mean_rtt", 0) / 1000, 1))
	EOF
}

# ---- a. incast ---------------------------------------------------------------
#
# in_c (16 senders: one namespace, one socket each) -- in_r -- in_s (one
# receiver). 10 Mbit/s into a 48-packet buffer (3 packets per sender, 56 ms),
# CE above 1 ms (less than a packet's time: any packet queued behind another
# is marked). Each round the receiver asks all senders at once for 32 KB
# (lib/burst.py); a flow completes with its last byte. Before the measured
# rounds, a warm-up round: it starts from the initial window, and 16 x 10
# packets overflow the buffer whatever the CCA.
#
# As data centers that lower the RTO do, the senders keep their window over
# idle periods (tcp_slow_start_after_idle=0: else, with a 4 ms RTO, every
# pause between rounds restarts them at 10 packets) and the receiver ACKs
# every segment at once (route quickack: a 40 ms delayed ACK outlasts a 4 ms
# RTO and fires spurious timeouts; without it the ECN CCAs' rounds took
# 460-740 ms instead of 440, with or without the knob). The knob is the variable: min_rto 1ms
# (4 ms at HZ=250) or the kernel's 200 ms.
INCAST_N=16
INCAST_BYTES=32768
INCAST_ROUNDS=4
INCAST_REPS=2
INCAST_PORT=5301

incast_setup() {
	netns_cleanup
	netns_topo3 in_c in_r in_s && one_mss in_c &&
		ns in_c sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 &&
		ip -n in_s route change default via "$ROUTER_S_IP" quickack 1 &&
		bottleneck in_r eth1 10mbit 48 &&
		policy in_s default cca cca_dctcp
}

# incast_run CCA MIN_RTO: a warm-up round and INCAST_ROUNDS measured rounds
# over fresh connections whose policy rule is CCA with min_rto MIN_RTO (or
# no knob: "default"). Appends the receiver's report to
# $RESULTS/incast-CCA-MIN_RTO.json and the senders' retransmissions and
# timeouts during the measured rounds to ...-MIN_RTO.nstat; sets sock_json
incast_run() {
	local cca=$1 rto=$2 knob="" out snap ready=/tmp/incast.ready warm=/tmp/incast.warm rpid i
	[ "$rto" = default ] || knob="min_rto $rto"
	# shellcheck disable=SC2086 # knob is two words or none
	policy in_c default cca "$cca" $knob || return 1
	out=$RESULTS/incast-$cca-$rto
	snap=$(mktemp)
	rm -f "$ready" "$warm".*
	ns in_s timeout 120 python3 "$BURST" recv 0.0.0.0 $INCAST_PORT $INCAST_N \
		$INCAST_ROUNDS $INCAST_BYTES 0.05 "$warm" >>"$out.json" &
	rpid=$!
	wait_port in_s $INCAST_PORT || return 1
	ns in_c timeout 120 python3 "$BURST" send "$SERVER_IP" $INCAST_PORT $INCAST_N \
		$INCAST_BYTES "$ready" &
	for i in $(seq 100); do [ -e "$ready" ] && break; sleep 0.1; done
	sock_json=$("$CCACTL" -n in_c -j sock show dport $INCAST_PORT)
	for i in $(seq 300); do [ -e "$warm.done" ] && break; sleep 0.1; done
	nstat_snapshot in_c "$snap"
	touch "$warm.go"
	if ! wait $! || ! wait $rpid; then
		echo "incast $cca $rto: transfer failed"
		return 1
	fi
	echo "$(nstat_delta in_c "$snap" TcpRetransSegs)" \
		"$(nstat_delta in_c "$snap" TcpExtTCPTimeouts)" >>"$out.nstat"
	rm -f "$snap"
}

# incast_summary CCA MIN_RTO: "p50 p99s p99 max mean_round retransmits
# timeouts" of the configuration's measured rounds (times in ms): p99s is the
# 99th percentile of each repetition, p99 the lowest of them. A stall of the
# emulated CPU (hundreds of ms) delays every flow of a round: it should not
# decide a comparison alone, and a real effect such as cubic's 200 ms RTOs
# shows in every repetition.
incast_summary() {
	python3 - "$RESULTS/incast-$1-$2" <<-'EOF'
		import json, sys
		def pick(v, q):
		    v = sorted(v)
		    return v[min(len(v) - 1, int(q * len(v)))]
		fct, rounds, p99s = [], [], []
		for line in open(sys.argv[1] + ".json"):
		    j = json.loads(line)
		    rounds += j["round_ms"]
		    rep = [x for r in j["fct_ms"] for x in r]
		    fct += rep
		    p99s.append(pick(rep, 0.99))
		rx = to = 0
		for line in open(sys.argv[1] + ".nstat"):
		    a, b = line.split()
		    rx, to = rx + int(a), to + int(b)
		print("%.1f %s %.1f %.1f %.1f %d %d" % (pick(fct, 0.5), "/".join("%.0f" % v for v in p99s),
		      min(p99s), max(fct), sum(rounds) / len(rounds), rx, to))
	EOF
}

test_family_incast() {
	local rep cca rto p50 p99s p99 max rnd rx to name
	local -A P99 RX
	incast_setup || fail family_incast "setup failed" || return 1
	rm -f "$RESULTS"/incast-*
	# Interleaved: every configuration once per repetition.
	for rep in $(seq $INCAST_REPS); do
		for rto in default 1ms; do
			for cca in cubic cca_dctcp cca_dcndelay; do
				incast_run "$cca" "$rto" ||
					fail family_incast "$cca min_rto $rto failed (repetition $rep)" || return 1
			done
		done
	done
	say 'incast: %d senders x %d KB, 10 Mbit/s, 48 packets, %d rounds each; per-flow completion (ms; p99 of each repetition, the lower one compared), mean round (ms), sender retransmits and RTOs\n' \
		$INCAST_N $((INCAST_BYTES / 1024)) $((INCAST_ROUNDS * INCAST_REPS))
	for rto in default 1ms; do
		for cca in cubic cca_dctcp cca_dcndelay; do
			read -r p50 p99s p99 max rnd rx to < <(incast_summary "$cca" "$rto")
			P99[$cca-$rto]=$p99 RX[$cca-$rto]=$rx
			say '  %-12s min_rto %-7s p50 %5.0f p99 %-9s max %5.0f round %5.0f retrans %4d timeouts %3d\n' \
				"$cca" "$rto" "$p50" "$p99s" "$max" "$rnd" "$rx" "$to"
		done
	done
	pass family_incast
	# The last batch ran on cca_dcndelay with the knob: the policy reached
	# every sender's socket, with ECN, at 4 ms (HZ=250) or less.
	verdict family_incast_policy_applied "sock show: $sock_json" python3 -c '
import json, sys
s = json.loads(sys.argv[1])
assert len(s) == int(sys.argv[2]), len(s)
assert all(x["cca"] == "cca_dcndelay" and x["ecn"] and x["min_rto_us"] <= 4000 for x in s), s
' "$sock_json" $INCAST_N
	for rto in default 1ms; do
		for cca in cca_dctcp cca_dcndelay; do
			name=family_incast_${cca#cca_}_$rto
			# Retransmissions in 8 rounds. Calibration: the ECN CCAs
			# 0-20, cubic 716-829 without the knob and 525-665 with it.
			# Margin: at most a quarter of cubic's.
			verdict "${name}_retrans" "${RX[$cca-$rto]} vs cubic ${RX[cubic-$rto]}" \
				[ $((4 * ${RX[$cca-$rto]})) -le "${RX[cubic-$rto]}" ]
		done
	done
	# Tails (ms; a round's ideal is 419). Calibration, without the knob:
	# the ECN CCAs 438-470, cubic 630-707 (one of its flows waits out a
	# 200 ms RTO in most rounds). Margin: below cubic's by at least half
	# of that RTO floor, 100 ms.
	for cca in cca_dctcp cca_dcndelay; do
		verdict "family_incast_${cca#cca_}_default_p99" \
			"${P99[$cca-default]} ms vs cubic ${P99[cubic-default]} ms" \
			pytrue "${P99[$cca-default]} + 100 <= ${P99[cubic-default]}"
	done
	# With the knob, cubic's RTOs cost a few ms each. Calibration: the ECN
	# CCAs 438-461, cubic 468-560. Margin: none beyond "below": the gap,
	# 25-100 ms, is what is left of the RTOs. This is the tightest
	# comparison of the file.
	for cca in cca_dctcp cca_dcndelay; do
		verdict "family_incast_${cca#cca_}_1ms_p99" \
			"${P99[$cca-1ms]} ms vs cubic ${P99[cubic-1ms]} ms" \
			pytrue "${P99[$cca-1ms]} < ${P99[cubic-1ms]}"
	done
	# What the knob contributes: cubic's tail without the 200 ms RTO floor.
	# Calibration: 468-560 ms against 630-707 (ratios 0.67-0.87; cubic's
	# retransmissions, backed off when lost again, make both vary). Margin:
	# at least 5 % shorter.
	verdict family_incast_min_rto_cubic_p99 "${P99[cubic-1ms]} ms vs ${P99[cubic-default]} ms" \
		pytrue "${P99[cubic-1ms]} < 0.95 * ${P99[cubic-default]}"
}

# ---- b. long RTT -------------------------------------------------------------
#
# lr_c -- lr_r -- lr_s: 20 Mbit/s, CE above 1 ms (1.7 packets), 1000
# packets of buffer, 40 ms of netem delay on the ACK path (BDP 69 packets).
# ECN on both ends (tcp_ecn=1); cca_xregion's receiver is on cca_xregion.
LR_SECS=6

# lr_run CCA: one transfer; sets bps retrans cwnd maxcw rtt and ss_out
lr_run() {
	local cca=$1 json i
	netns_cleanup
	netns_topo3 lr_c lr_r lr_s && one_mss lr_c &&
		bottleneck lr_r eth1 20mbit 1000 && delay lr_r eth0 40ms &&
		ns lr_c sysctl -qw net.ipv4.tcp_ecn=1 && ns lr_s sysctl -qw net.ipv4.tcp_ecn=1 ||
		return 1
	if [ "$cca" = cca_xregion ]; then
		policy lr_s default cca cca_xregion || return 1
	fi
	policy lr_c default cca "$cca" || return 1
	json=$RESULTS/long-rtt-$cca.json
	iperf_server lr_s || return 1
	iperf_client lr_c "$SERVER_IP" $LR_SECS "$json" &
	ss_out=""
	for i in $(seq 40); do
		sleep 0.25
		ss_out=$(data_ss lr_c 5201 | grep 'bytes_acked:[0-9]\{6,\}')
		[ -z "$ss_out" ] || break
	done
	wait $! || { echo "iperf3 failed: $(tail -5 "$json")"; return 1; }
	read -r bps retrans cwnd maxcw rtt < <(iperf_stats "$json")
	say '  %-11s %5.1f Mbit/s, mean cwnd %5.1f (max %3d) packets, mean RTT %5.1f ms, %3d retransmits\n' \
		"$cca" "$(py "$bps / 1e6")" "$cwnd" "$maxcw" "$rtt" "$retrans"
}

test_family_long_rtt() {
	local i ref_bps=0 ref_cw=0 ref_ss x_bps=0 x_cw=0 x_ss
	say 'long RTT: 20 Mbit/s, 40 ms ACK delay, CE above %s, ECN on both ends, %d s\n' \
		$FAM_CE $LR_SECS
	for i in 1 2; do
		lr_run cubic || fail family_long_rtt "cubic run $i failed" || return 1
		ref_bps=$(py "$ref_bps + $bps") ref_cw=$(py "$ref_cw + $cwnd") ref_ss=$ss_out
		lr_run cca_xregion || fail family_long_rtt "cca_xregion run $i failed" || return 1
		x_bps=$(py "$x_bps + $bps") x_cw=$(py "$x_cw + $cwnd") x_ss=$ss_out
	done
	say '  two runs each: goodput ratio xregion/cubic %.1f, mean cwnd ratio %.1f\n' \
		"$(py "$x_bps / $ref_bps")" "$(py "$x_cw / $ref_cw")"
	pass family_long_rtt
	# shellcheck disable=SC2016 # expanded by eval
	verdict family_long_rtt_ecn "cubic: $ref_ss; xregion: $x_ss" eval \
		'echo "$ref_ss" | grep -q "\<ecn\>.* cubic " && echo "$x_ss" | grep -q "\<ecn\>.* cca_xregion "'
	# Calibration: cubic 1.0-1.2 Mbit/s with a mean cwnd of 3-5 packets (the
	# third segment of an unpaced burst already waits 1.2 ms, and classic
	# ECN cuts every marked round), cca_xregion 14.9-18.0 Mbit/s at 57-68
	# packets (paced, it answers the marked rate only): ratios of 14.6-17.2
	# for the sums. Exploratory runs with the emulated CPU stalling for
	# seconds still gave 8.5 Mbit/s against 0.8. Margin: "much larger"
	# taken as at least 5 times.
	verdict family_long_rtt_goodput "xregion $x_bps vs cubic $ref_bps bit/s" \
		pytrue "$x_bps >= 5 * $ref_bps"
	verdict family_long_rtt_cwnd "xregion $x_cw vs cubic $ref_cw packets" \
		pytrue "$x_cw >= 5 * $ref_cw"
}

# ---- c. coexistence ----------------------------------------------------------
#
# co_a (short RTT: 5 ms of ACK delay) and co_b (long RTT: 50 ms) -- co_r --
# co_s: two flows from each on one 20 Mbit/s bottleneck (CE above 1 ms, 200
# packets). The short path is 5 ms rather than a data center's 0.1 ms: at
# 20 Mbit/s a sub-ms path holds less than one packet, and the 2-packet
# minimum window of two flows alone would keep the queue above the marking
# threshold. cca_dcndelay's target_rtt_us is that path's base RTT, as its
# per-locality meaning asks.
CO_SECS=10
CO_OMIT=2
CO_B_IP=10.0.3.1
CO_RB_IP=10.0.3.2

co_setup() {
	netns_cleanup
	netns_topo3 co_a co_r co_s && netns_add co_b &&
		veth_link co_b eth0 co_r eth2 &&
		ip -n co_b addr add $CO_B_IP/24 dev eth0 &&
		ip -n co_r addr add $CO_RB_IP/24 dev eth2 &&
		ip -n co_b route add default via $CO_RB_IP &&
		one_mss co_a co_b &&
		bottleneck co_r eth1 20mbit 200 &&
		delay co_r eth0 5ms && delay co_r eth2 50ms &&
		policy co_s default cca cca_dctcp
}

# co_run SHORT_RULE LONG_RULE: two flows from each side at once, each
# side's policy default rule as given; sets shares (Mbit/s per flow, the
# first omitted CO_OMIT s), jain, ss_a and ss_b
co_run() {
	local ja=$RESULTS/coexist-a.json jb=$RESULTS/coexist-b.json pa pb
	co_setup || return 1
	# shellcheck disable=SC2086 # the rules are words
	policy co_a default $1 && policy co_b default $2 || return 1
	iperf_server co_s 5201 && iperf_server co_s 5202 || return 1
	iperf_client co_a "$SERVER_IP" $CO_SECS "$ja" -p 5201 -P 2 -O $CO_OMIT &
	pa=$!
	iperf_client co_b "$SERVER_IP" $CO_SECS "$jb" -p 5202 -P 2 -O $CO_OMIT &
	pb=$!
	sleep 3
	ss_a=$(data_ss co_a 5201) ss_b=$(data_ss co_b 5202)
	if ! wait $pa || ! wait $pb; then
		echo "iperf3 failed"
		return 1
	fi
	read -r shares jain < <(python3 - "$ja" "$jb" <<-'EOF'
		import json, sys
		x = []
		for f in sys.argv[1:]:
		    x += [s["receiver"]["bits_per_second"] / 1e6 for s in json.load(open(f))["end"]["streams"]]
		j = sum(x) ** 2 / (len(x) * sum(v * v for v in x))
		print(",".join("%.1f" % v for v in x), "%.3f" % j)
	EOF
	)
}

test_family_coexistence() {
	local i fam=0 ref=0 n=0 fam_a fam_b
	say 'coexistence: 2 short-RTT (5 ms) + 2 long-RTT (50 ms) flows, 20 Mbit/s, CE above %s; Mbit/s per flow (short,short,long,long), Jain index\n' \
		$FAM_CE
	for i in 1 2; do
		co_run "cca cubic" "cca cubic" || fail family_coexistence "cubic run $i failed" || return 1
		say '  cubic + cubic               %-20s J %s\n' "$shares" "$jain"
		ref=$(py "$ref + $jain")
		co_run "cca cca_dcndelay param target_rtt_us=5000" "cca cca_xregion" ||
			fail family_coexistence "family run $i failed" || return 1
		say '  cca_dcndelay + cca_xregion  %-20s J %s\n' "$shares" "$jain"
		fam=$(py "$fam + $jain") n=$((n + 1)) fam_a=$ss_a fam_b=$ss_b
	done
	say '  mean Jain index: family %.3f, cubic %.3f\n' "$(py "$fam / $n")" "$(py "$ref / $n")"
	pass family_coexistence
	# shellcheck disable=SC2016 # expanded by eval
	verdict family_coexistence_ccas "short: $fam_a; long: $fam_b" eval \
		'[ "$(echo "$fam_a" | grep -c "\<ecn\>.* cca_dcndelay ")" -ge 2 ] &&
		 [ "$(echo "$fam_b" | grep -c "\<ecn\>.* cca_xregion ")" -ge 2 ]'
	# Calibration (single runs): cubic + cubic 0.710-0.797 (the short flows
	# take about 4 times the long ones' share), the family 0.955-0.997.
	# Margin: the mean index at least 0.1 higher.
	verdict family_coexistence_fairer "family $fam vs cubic $ref (sums of $n)" \
		pytrue "$fam >= $ref + 0.1 * $n"
}

# ---- d. rollback under load --------------------------------------------------
#
# rb_c -- rb_r -- rb_s: 20 Mbit/s, CE above 1 ms, 200 packets, 10 ms of ACK
# delay. Generation 1 of rb_c's policy names cca_cubic, generation 2
# cca_xregion; four ECN transfers then start (rb_s's listener is on
# cca_xregion). The policy then names in-tree cubic, which the sticky-ECN
# rule refuses; a rollback to generation 1 moves them to cca_cubic; a forced
# change finally moves them to cubic. Retransmissions and segments sent are
# compared over a window of RB_WINDOW s before and after the rollback. Each
# command takes a second or more under TCG, so the transfers run until the
# test stops them.
RB_WINDOW=3

# rb_on CCA: how many of rb_c's connections to port 5201 are on CCA
rb_on() {
	data_ss rb_c 5201 | grep -c " $1 "
}

# rb_counts JSON KEY...: values of KEYs in a migrate reply
rb_counts() {
	echo "$1" | python3 -c 'import json, sys
j = json.load(sys.stdin)
print(" ".join(str(j.get(k, "-")) for k in sys.argv[1:]))' "${@:2}"
}

# rb_counters: "<seconds> <TcpRetransSegs> <TcpOutSegs>" of rb_c, now
rb_counters() {
	ns rb_c nstat -asz TcpRetransSegs TcpOutSegs |
		awk -v t="$(date +%s.%N)" '{ v[$1] = $2 } END { print t, v["TcpRetransSegs"] + 0, v["TcpOutSegs"] + 0 }'
}

test_family_rollback_under_load() {
	local gen_cubic live n out t0 rx0 out0 t1 rx1 out1 t2 rx2 out2 t3 rx3 out3
	local before after rate_before rate_after
	netns_cleanup
	netns_topo3 rb_c rb_r rb_s && one_mss rb_c &&
		bottleneck rb_r eth1 20mbit 200 && delay rb_r eth0 10ms &&
		policy rb_s default cca cca_xregion &&
		policy rb_c default cca cca_cubic || return 1
	gen_cubic=$("$CCACTL" -n rb_c -j policy show |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["generation"])')
	policy rb_c default cca cca_xregion || return 1
	ns rb_s iperf3 -s -p 5201 >/dev/null 2>&1 &
	wait_port rb_s 5201 || return 1
	ns rb_c iperf3 -c "$SERVER_IP" -t 120 -P 4 >/dev/null 2>&1 &
	live=$!
	# The first window lets the initial windows (4 x 100 packets into 200)
	# settle; the second is the reference.
	sleep $RB_WINDOW
	read -r t0 rx0 out0 < <(rb_counters)
	sleep $RB_WINDOW
	read -r t1 rx1 out1 < <(rb_counters)
	# iperf3's four data connections and its control connection
	n=$(data_ss rb_c 5201 | grep -c 'rtt:')
	[ "$n" -ge 5 ] && [ "$(data_ss rb_c 5201 | grep -c '\<ecn\>.* cca_xregion ')" = "$n" ] ||
		fail family_rollback_under_load "not all on cca_xregion with ECN: $(data_ss rb_c 5201)" ||
		return 1

	policy rb_c default cca cubic || return 1
	out=$("$CCACTL" -n rb_c -j migrate) || return 1
	# shellcheck disable=SC2016 # expanded by eval
	verdict family_rollback_refused_to_cubic "migrate: $out; $(data_ss rb_c 5201)" eval \
		'[ "$(rb_counts "$out" refused migrated)" = "$n 0" ] && [ "$(rb_on cca_xregion)" = "$n" ]'

	"$CCACTL" -n rb_c policy rollback "$gen_cubic" >/dev/null || return 1
	read -r t2 rx2 out2 < <(rb_counters)
	verdict family_rollback_to_cca_cubic "$(data_ss rb_c 5201)" \
		[ "$(rb_on cca_cubic)" = "$n" ]
	sleep $RB_WINDOW
	read -r t3 rx3 out3 < <(rb_counters)

	policy rb_c default cca cubic force || return 1
	verdict family_rollback_forced_to_cubic "$(data_ss rb_c 5201)" [ "$(rb_on cubic)" = "$n" ]
	kill -0 $live 2>/dev/null || fail family_rollback_under_load "iperf3 ended early" || return 1
	kill $live
	before=$((rx1 - rx0)) after=$((rx3 - rx2))
	rate_before=$(py "round(($out1 - $out0) / ($t1 - $t0))")
	rate_after=$(py "round(($out3 - $out2) / ($t3 - $t2))")
	say 'rollback under load: 4 ECN flows, 20 Mbit/s, 10 ms ACK delay\n'
	say '  on cca_xregion:                 %4.1f s, %5d segments/s, %3d retransmitted\n' \
		"$(py "$t1 - $t0")" "$rate_before" "$before"
	say '  after the rollback to cca_cubic: %4.1f s, %5d segments/s, %3d retransmitted\n' \
		"$(py "$t3 - $t2")" "$rate_after" "$after"
	pass family_rollback_under_load
	# Calibration: no retransmission in either window in any run (the
	# initial windows' losses fall in the first, unmeasured window);
	# 1387-1639 segments/s before and after. Margin: 20 segments plus half
	# the reference window's count.
	verdict family_rollback_no_retrans_storm "$after after vs $before before" \
		[ "$after" -le $((before + 20 + before / 2)) ]
	# The transfers kept running: at least half the reference rate (a stall
	# of the emulated CPU can cost a second of the window).
	verdict family_rollback_kept_sending "$rate_after vs $rate_before segments/s" \
		[ $((2 * rate_after)) -ge "$rate_before" ]
}
