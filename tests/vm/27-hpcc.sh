# cca_hpcc on a shaped bottleneck with delay, side by side with in-tree
# cubic and cca_dctcp:
#   hpcc_side_by_side      one flow of each CCA, interleaved, three times
#                          (cca_dctcp once)
#   hpcc_no_ecn            cca_hpcc does not ask for ECN (cca_dctcp does)
#   hpcc_queue_near_zero   the bottleneck's queue under cca_hpcc stays near
#                          empty (its backlog, read from the qdisc)
#   hpcc_utilization       and its goodput is at least 0.9 * eta of what
#                          the link delivers (cubic's, same repetition)
#   hpcc_fair              four cca_hpcc flows share the link fairly (Jain)
#   hpcc_get_info_ccalog   ss shows U, W_ref and T; ccalog_rtt carries util
#                          and ref_cwnd
#   hpcc_ece_not_a_signal  with ECN negotiated and every data packet marked
#                          CE, cca_hpcc keeps its goodput: an ECE is no cut
#
# Path: hp_c -- hp_r -- hp_s. The router's link to the server is a
# 20 Mbit/s HTB class feeding one 300-packet FIFO (fq_codel with one flow
# queue and CoDel's target out of reach, so it only tail-drops) that marks
# ECN-capable packets CE once they have queued 2 ms (a DCTCP step
# threshold). netem adds 20 ms on the ACK path. B, the rule's bw parameter,
# is the bottleneck's 20 Mbit/s; T is measured (the connection's minimum
# RTT). cubic does not ask for ECN and fills the FIFO; cca_dctcp asks for it
# and holds the queue near the marking threshold; cca_hpcc asks for nothing
# and must hold it near zero from the RTT alone.
#
# The queue is read from the bottleneck itself (its backlog, sampled five
# times a second by one `tc -batch` process), not from the connection's
# RTT: under TCG the RTT also carries the emulated CPU's delays, which
# grow with the host's load (queueing "seen" by RTT: 5.9-12.1 ms with a
# third guest on the two cores, where the real queue was lower, since
# cca_hpcc backs off from the extra delay).
# Results: stdout and $RESULTS/hpcc.txt. The file takes 160-200 s alone,
# 218-273 s beside a busy guest; with five guests on the two cores it
# once reached 300 s, its old limit, so the limit is 420 s.
# vm-timeout: 420
# vm-alone: yes
# vm-lines: newest

HP_RESULTS=$RESULTS/hpcc.txt
HP_SECS=8
HP_OMIT=3
HP_BW=20

load_ccaas tcp_cca_dctcp tcp_cca_hpcc && modprobe sch_htb && modprobe sch_netem &&
	modprobe sch_fq_codel && modprobe sch_ingress && modprobe cls_u32 &&
	modprobe act_pedit && modprobe act_csum

say() {
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$@" | tee -a "$HP_RESULTS"
}

# hp_path: the path, the receivers' listener on cca_dctcp (exact CE echo)
hp_path() {
	netns_cleanup
	netns_topo3 hp_c hp_r hp_s &&
		ip -n hp_c link set dev eth0 gso_max_segs 1 &&
		tc -n hp_r qdisc add dev eth1 root handle 1: htb default 1 &&
		tc -n hp_r class add dev eth1 parent 1: classid 1:1 htb rate ${HP_BW}mbit &&
		tc -n hp_r qdisc add dev eth1 parent 1:1 handle 10: fq_codel flows 1 \
			limit 300 target 1s interval 10s ce_threshold 2ms ecn &&
		tc -n hp_r qdisc add dev eth0 root netem delay 20ms limit 10000 &&
		"$CCACTL" -n hp_s policy set default cca cca_dctcp >/dev/null
}

# hp_mark_all: the client asks for ECN (tcp_ecn=1), and the router marks
# CE on every ECN-capable packet that comes from it (ECT(0) or ECT(1) to
# CE, before the bottleneck), so the receiver echoes ECE on every ACK. The
# SYN is sent Not-ECT, so the handshake is left alone.
hp_mark_all() {
	ns hp_c sysctl -qw net.ipv4.tcp_ecn=1 &&
		tc -n hp_r qdisc add dev eth0 clsact &&
		tc -n hp_r filter add dev eth0 ingress protocol ip u32 \
			match ip tos 0x01 0x01 action pedit ex munge ip tos set 0x03 \
			pipe action csum ip &&
		tc -n hp_r filter add dev eth0 ingress protocol ip u32 \
			match ip tos 0x02 0x02 action pedit ex munge ip tos set 0x03 \
			pipe action csum ip
}

# hp_stats JSON: "<Mbit/s> <retransmits> <median srtt, ms> <Jain index>"
# over the intervals after the omitted start (iperf3 -O)
hp_stats() {
	python3 - "$1" <<-'EOF'
		import json, statistics, sys
		j = json.load(open(sys.argv[1]))
		e = j["end"]
		rtts = [s["rtt"] / 1000 for i in j["intervals"] if not i["sum"].get("omitted")
		        for s in i["streams"]]
		x = [s["receiver"]["bits_per_second"] for s in e["streams"]]
		jain = sum(x) ** 2 / (len(x) * sum(v * v for v in x))
		print("%.2f" % (e["sum_received"]["bits_per_second"] / 1e6),
		      e["sum_sent"].get("retransmits", 0), "%.1f" % statistics.median(rtts),
		      "%.3f" % jain)
	EOF
}

# hp_ss: the client's data connection (the line with its TCP info), once
# it has carried 100 kB
hp_ss() {
	local i out
	for i in $(seq 60); do
		out=$(ns hp_c ss -tinoH state established "( dport = :5201 )" | tr -s ' ' |
			grep 'bytes_acked:[0-9]\{6,\}')
		[ -z "$out" ] || { echo "$out"; return 0; }
		sleep 0.25
	done
	return 1
}

# hp_backlog: the bottleneck's backlog in packets, one number a line, sampled
# every 0.2 s over the measured part of a transfer by a single tc process
# (-batch from a pipe: no process per sample to disturb the path). Packets,
# not bytes: tc prints a byte count near a multiple of 1024 as "34Kb".
hp_backlog() {
	local i
	{
		sleep $HP_OMIT
		for i in $(seq $((HP_SECS * 5 - 5))); do
			echo "qdisc show dev eth1"
			sleep 0.2
		done
	} | ns hp_r tc -s -b - 2>/dev/null |
		awk '/^qdisc/ { fq = ($2 == "fq_codel") }
		     fq && $1 == "backlog" { sub(/p$/, "", $3); print $3 }'
}

# hp_run CCA [IPERF3 ARGS]: one transfer under `policy default cca CCA`;
# sets mbps retrans rtt jain, ss_out, base: the connection's minimum RTT
# (ms), read when it has carried 100 kB, before cubic fills the queue, and
# queue: the bottleneck's median backlog over the measured part, in ms of
# the link (packets of 1514 bytes on the wire: one MSS each, gso_max_segs 1)
hp_run() {
	local cca=$1 json ipid qpid
	shift
	hp_path || return 1
	[ -z "${HP_MARK_ALL:-}" ] || hp_mark_all || return 1
	if [ "$cca" = cca_hpcc ]; then
		"$CCACTL" -n hp_c policy set default cca cca_hpcc param bw=$HP_BW >/dev/null
	else
		"$CCACTL" -n hp_c policy set default cca "$cca" >/dev/null
	fi || return 1
	json=$RESULTS/hpcc-$cca.json
	iperf_server hp_s || return 1
	iperf_client hp_c "$SERVER_IP" $HP_SECS "$json" -O $HP_OMIT "$@" &
	ipid=$!
	hp_backlog >"$json.backlog" &
	qpid=$!
	ss_out=$(hp_ss | head -n 1)
	base=$(echo "$ss_out" | sed -nE 's/.* minrtt:([0-9.]+).*/\1/p')
	wait $ipid || { echo "iperf3 failed: $(tail -5 "$json")"; return 1; }
	wait $qpid
	[ -n "$base" ] || { echo "no minrtt in: $ss_out"; return 1; }
	[ -s "$json.backlog" ] || { echo "no backlog samples"; return 1; }
	read -r mbps retrans rtt jain < <(hp_stats "$json")
	queue=$(python3 -c '
import statistics, sys
v = [int(l) for l in open(sys.argv[1])]
print("%.1f" % (statistics.median(v) * 1514 * 8 / (int(sys.argv[2]) * 1000)))' "$json.backlog" $HP_BW)
	say '  %-10s %6.2f Mbit/s, queue %6.1f ms (bottleneck backlog, median), median RTT %6.1f ms (base %5.1f), %4d retransmits\n' \
		"$cca" "$mbps" "$queue" "$rtt" "$base" "$retrans"
}

test_hpcc_side_by_side() {
	local i cca
	local -A MB Q R
	say 'one flow each, three times (cca_dctcp once): %d Mbit/s, 20 ms on the ACK path, 300-packet FIFO, CE above 2 ms for ECN packets, %d s (the first %d s left out)\n' \
		$HP_BW $((HP_SECS + HP_OMIT)) $HP_OMIT
	# cca_dctcp in the first repetition only: it is there for the ECN
	# it negotiates (hpcc_no_ecn) and as a reference in the table
	for i in 1 2 3; do
		for cca in cubic cca_dctcp cca_hpcc; do
			[ $cca != cca_dctcp ] || [ $i = 1 ] || continue
			hp_run $cca || fail hpcc_side_by_side "$cca run $i failed" || return 1
			MB[$cca]+="$mbps," Q[$cca]+="$queue," R[$cca]+="$(py "round(max(0, $rtt - $base), 1)"),"
			[ $cca = cca_hpcc ] && hpcc_ss=$ss_out && HP_PLAIN=$mbps
			[ $cca = cca_dctcp ] && dctcp_ss=$ss_out
		done
	done
	pass hpcc_side_by_side
	for cca in cubic cca_dctcp cca_hpcc; do
		say '  %-10s Mbit/s: %s  queue (ms of the link): %s  RTT - base (ms): %s\n' \
			"$cca" "${MB[$cca]}" "${Q[$cca]}" "${R[$cca]}"
	done
	# Under the same sysctls (tcp_ecn=2: ECN only when the CCA asks),
	# cca_dctcp's connections negotiate ECN and cca_hpcc's do not.
	# shellcheck disable=SC2016 # expanded by eval
	verdict hpcc_no_ecn "hpcc: $hpcc_ss; dctcp: $dctcp_ss" eval \
		'echo "$hpcc_ss" | grep -q " cca_hpcc " && ! echo "$hpcc_ss" | grep -qw ecn &&
		 echo "$dctcp_ss" | grep -qw ecn'
	# The bottleneck's queue, the median of three runs' medians. At most
	# 5 ms (a quarter of T) and a quarter of cubic's, which fills the
	# 300-packet FIFO (174 ms). Calibration: see docs/testing.md.
	verdict hpcc_queue_near_zero "queue ${Q[cca_hpcc]} ms vs cubic ${Q[cubic]}" \
		pytrue "sorted([${Q[cca_hpcc]}])[1] <= 5 and 4 * sorted([${Q[cca_hpcc]}])[1] <= min([${Q[cubic]}])"
	# Goodput against what the link delivered in the same repetition:
	# cubic's, whose full FIFO keeps the link busy (19.1 Mbit/s of payload
	# on a quiet host). The link is an HTB class in the same guest, so
	# when the host descheduled the guest its time was lost to whichever
	# flow ran: measured against the fixed 0.9 * eta * B (17.1 Mbit/s),
	# cca_hpcc fell to 12.9-16.2 with a third guest on the two cores. The
	# ratio, the best of three, must reach 0.9 * eta = 0.855. Calibration
	# (quiet host, against B): 17.6-18.7 of 19.1, 0.92-0.98.
	local ratios
	ratios=$(python3 -c '
import sys
h = [float(x) for x in sys.argv[1].split(",") if x]
c = [float(x) for x in sys.argv[2].split(",") if x]
print(",".join("%.3f" % (a / b) for a, b in zip(h, c)))' "${MB[cca_hpcc]}" "${MB[cubic]}")
	say '  cca_hpcc / cubic goodput, each repetition: %s\n' "$ratios"
	verdict hpcc_utilization "goodput ${MB[cca_hpcc]} Mbit/s, cubic ${MB[cubic]}: ratios $ratios, 0.855 wanted" \
		pytrue "max([$ratios]) >= 0.9 * 0.95"
}

test_hpcc_fair() {
	hp_run cca_hpcc -P 4 || fail hpcc_fair "four-flow run failed" || return 1
	say '  four cca_hpcc flows: %.2f Mbit/s in all, Jain index %s, median RTT %.1f ms (base %.1f)\n' \
		"$mbps" "$jain" "$rtt" "$base"
	# Calibration: Jain 0.998-1.000, 9.7-18.5 Mbit/s in all, the queue
	# 18-20 ms: each flow sees only its own rate, so four settle with
	# about (eta - 1/4) * T of queue (docs/ccas.md). Margin: Jain at
	# least 0.95 as asked; the total only at least 0.4 * B (one run).
	verdict hpcc_fair "Jain $jain, $mbps Mbit/s" \
		pytrue "$jain >= 0.95 and $mbps >= 0.4 * $HP_BW"
}

# ECE is not a signal to cca_hpcc (docs/ccas.md): the queue it reports is
# already in the RTT. With ECN negotiated and every data packet marked,
# an ECE arrives on every ACK and the stack calls ssthresh() once per
# round trip (tcp_enter_cwr() at the end of each CWR episode). Cutting
# there, as cca_hpcc did before, brings W down by 30 % a round trip, to
# its 2-packet floor within a second: about 0.6 Mbit/s on this path. The
# verdict compares the marked flow with an unmarked one on the same path
# (side_by_side's last cca_hpcc run), and checks that the marks arrived (TcpExtTCPDeliveredCE).
# Measured: 0.83 against 17.50 Mbit/s with the cut (cwnd 2), 10.36 against
# 12.87 without it, beside two other guests; half is asked for.
test_hpcc_ece_not_a_signal() {
	local plain=${HP_PLAIN:-} marked ce
	# the unmarked figure: side_by_side's last cca_hpcc run, else one here
	if [ -z "$plain" ]; then
		hp_run cca_hpcc || fail hpcc_ece_not_a_signal "unmarked run failed" || return 1
		plain=$mbps
	fi
	HP_MARK_ALL=1 hp_run cca_hpcc ||
		fail hpcc_ece_not_a_signal "marked run failed" || return 1
	marked=$mbps
	ce=$(ns hp_c nstat -az TcpExtTCPDeliveredCE | awk '$1 == "TcpExtTCPDeliveredCE" { print $2 }')
	say '  cca_hpcc, every data packet CE: %.2f Mbit/s (unmarked %.2f), %s packets delivered CE\n' \
		"$marked" "$plain" "${ce:-?}"
	# shellcheck disable=SC2016 # expanded by eval
	verdict hpcc_ece_not_a_signal "marked $marked Mbit/s, unmarked $plain, delivered CE ${ce:-?}; ss: $ss_out" \
		eval 'echo "$ss_out" | grep -qw ecn && [ "${ce:-0}" -ge 100 ] &&
		      pytrue "$marked >= 0.5 * $plain"'
}

test_hpcc_get_info_ccalog() {
	local dir=$RESULTS/hpcc-ccalog c
	mkdir -p "$dir"
	hp_path && "$CCACTL" -n hp_c policy set default cca cca_hpcc param bw=$HP_BW >/dev/null &&
		"$CCACTL" -n hp_c log add all >/dev/null || { fail hpcc_get_info_ccalog "setup failed"; return 1; }
	iperf_server hp_s || { fail hpcc_get_info_ccalog "no server"; return 1; }
	trace-cmd record -q -e ccalog:ccalog_rtt -o "$dir/trace.dat" sleep 9 >/dev/null 2>&1 &
	sleep 1
	iperf_client hp_c "$SERVER_IP" 6 "$dir/iperf.json" &
	c=$(hp_ss | head -n 1)
	wait
	trace-cmd report -i "$dir/trace.dat" >"$dir/report.txt" 2>/dev/null
	# ss: dctcp:(ce_state:STAGE,alpha:U,ab_ecn:W_REF bytes,ab_tot:T us), T
	# within a few ms of the path's 20 ms.
	verdict hpcc_get_info_ccalog "ss: $c; $(grep -c cca=cca_hpcc "$dir/report.txt") ccalog_rtt events" python3 - "$c" "$dir/report.txt" <<-'EOF'
		import re, sys
		m = re.search(r"dctcp:\(ce_state:(\d+),alpha:(\d+),ab_ecn:(\d+),ab_tot:(\d+)\)", sys.argv[1])
		assert m, "no dctcp info"
		stage, u, wref, t = map(int, m.groups())
		assert 19000 <= t <= 40000, t
		assert 0 < u < 64 * 1024 and wref > 0, (u, wref)
		ev = [l for l in open(sys.argv[2]) if "cca=cca_hpcc" in l]
		assert len(ev) >= 10, len(ev)
		f = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in ev]
		assert all(0 < int(x["util"]) < 4294967295 and int(x["ref_cwnd"]) > 0 and
		           19000 <= int(x["target_us"]) <= 40000 for x in f[-5:]), f[-5:]
	EOF
}
