# cca_cubic on a real path: with ECN it reacts to CE marks (ss shows its
# alpha); without ECN it neither asks for ECN at the handshake nor sends ECT,
# and still fills the link.
#
# Path: client -- router -- server. The router's link to the server is a
# 20 Mbit/s HTB bottleneck whose fq_codel marks CE once a packet has queued
# for more than 2 ms; netem adds 2 ms on the ACK path.
# make check runs it on the oldest and the newest line (the vm-alone
# files' lines).
# vm-timeout: 240
# vm-alone: yes

CUBIC_SECS=4
CUBIC_RESULTS=$RESULTS/cubic.txt

load_ccaas tcp_cca_cubic && modprobe sch_htb && modprobe sch_netem
# A namespace may only make a CCA its default once the initial namespace
# allows it (TCP_CONG_NON_RESTRICTED).
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic cca_cubic"

# cubic_path CLIENT_ECN SERVER_ECN [CLIENT_CCA]: the path, CLIENT_CCA
# (cca_cubic) as the client's default CCA, cubic as the server's; tcp_ecn as
# given on each side
cubic_path() {
	netns_topo3 cu_c cu_r cu_s || return 1
	tc -n cu_r qdisc add dev eth1 root handle 1: htb default 1 &&
		tc -n cu_r class add dev eth1 parent 1: classid 1:1 htb rate 20mbit &&
		tc -n cu_r qdisc add dev eth1 parent 1:1 handle 10: fq_codel ce_threshold 2ms ecn &&
		tc -n cu_r qdisc add dev eth0 root netem delay 2ms || return 1
	ns cu_c sysctl -qw net.ipv4.tcp_ecn="$1" net.ipv4.tcp_congestion_control="${3:-cca_cubic}" &&
		ns cu_s sysctl -qw net.ipv4.tcp_ecn="$2" net.ipv4.tcp_congestion_control=cubic
}

# cubic_run CLIENT_ECN SERVER_ECN [CLIENT_CCA]: one transfer; sets bps,
# retrans, ce, ss_out (client's view of the data connection mid-transfer)
# and qdisc
cubic_run() {
	local json snap i
	netns_cleanup
	cubic_path "$@" || return 1
	json=$RESULTS/cubic-${3:-cca_cubic}-ecn$1.json
	snap=$(mktemp)
	nstat_snapshot cu_c "$snap"
	iperf_server cu_s || return 1
	iperf_client cu_c "$SERVER_IP" $CUBIC_SECS "$json" &
	ss_out=""
	for i in $(seq 40); do
		sleep 0.25
		ss_out=$(ns cu_c ss -tino state established dst "$SERVER_IP" | grep -A1 ':5201' | tr '\n' ' ')
		echo "$ss_out" | grep -q 'bytes_acked:[0-9]\{6,\}' && break
	done
	wait $! || { echo "iperf3 failed: $(tail -5 "$json")"; return 1; }
	read -r bps retrans < <(iperf_summary "$json")
	ce=$(nstat_delta cu_c "$snap" TcpExtTCPDeliveredCE)
	qdisc=$(tc -n cu_r -s qdisc show dev eth1 parent 1:1)
	rm -f "$snap"
	printf '%-9s client ecn=%s server ecn=%s: %6.1f Mbit/s, %4d retransmits, %6d CE-marked packets delivered\n' \
		"${3:-cca_cubic}" "$1" "$2" "$(echo "$bps / 1000000" | bc -l)" "$retrans" "$ce" | tee -a "$CUBIC_RESULTS"
	echo "  ss: $ss_out" >>"$CUBIC_RESULTS"
}

# ECN negotiated (the client's tcp_ecn=1 asks): marks, not losses, slow it.
# Three interleaved pairs with the in-tree cubic, which takes each ECN echo as
# a loss, for reference (summed, so that a slow patch of the emulated CPU
# does not land on one CCA only).
test_cubic_ecn() {
	local ref_bps=0 sum_bps=0 sum_retrans=0 sum_ce=0 pairs=0
	while [ $pairs -lt 3 ]; do
		pairs=$((pairs + 1))
		cubic_run 1 1 cubic || fail cubic_ecn "in-tree cubic run failed" || return 1
		ref_bps=$((ref_bps + bps))
		cubic_run 1 1 || fail cubic_ecn "cca_cubic run failed" || return 1
		sum_bps=$((sum_bps + bps)) sum_retrans=$((sum_retrans + retrans)) sum_ce=$((sum_ce + ce))
	done
	bps=$sum_bps retrans=$sum_retrans ce=$sum_ce
	python3 -c "print('three runs each: cubic %.1f Mbit/s; cca_cubic %.1f Mbit/s %d retransmits %d CE; throughput ratio %.3f' % ($ref_bps / 3e6, $bps / 3e6, $retrans, $ce, $bps / $ref_bps))" |
		tee -a "$CUBIC_RESULTS"
	pass cubic_ecn
	verdict cubic_ecn_negotiated "ss: $ss_out" \
		eval 'echo "$ss_out" | grep -q "cca_cubic" && echo "$ss_out" | grep -qw ecn'
	verdict cubic_ecn_ce_marks_seen "no CE-marked deliveries" [ "$ce" -gt 0 ]
	# ss -ti shows cca_cubic's alpha in the DCTCP layout.
	verdict cubic_ecn_ss_shows_alpha "ss: $ss_out" \
		eval 'echo "$ss_out" | grep -q "dctcp:(ce_state:[01],alpha:[0-9]*,"'
	# Congestion is signalled by marks, not drops, and a proportional cut
	# does at least as well as treating marks as losses (within 10 %: runs
	# under TCG vary with the host's load, which hits both CCAs alike).
	verdict cubic_ecn_few_retransmits "$retrans retransmits" [ "$retrans" -le 20 ]
	verdict cubic_ecn_throughput "cca_cubic $bps vs cubic $ref_bps bit/s (three runs)" \
		python3 -c "import sys; sys.exit($bps < 0.9 * $ref_bps)"
}

# The client does not ask for ECN (tcp_ecn=2, the default) though the server
# would accept it: cca_cubic must not ask either, nor send ECT.
test_cubic_without_ecn() {
	cubic_run 2 1 || fail cubic_without_ecn "transfer failed" || return 1
	echo "$ss_out" | grep -q cca_cubic && ! echo "$ss_out" | grep -qw ecn ||
		fail cubic_without_ecn "ECN negotiated or not on cca_cubic: $ss_out" || return 1
	! echo "$ss_out" | grep -q 'dctcp:' ||
		fail cubic_without_ecn "ss shows ECN state without ECN: $ss_out" || return 1
	[ "$ce" -eq 0 ] || fail cubic_without_ecn "$ce CE marks without ECN" || return 1
	# (tc prints ce_mark only when it is not zero)
	! echo "$qdisc" | grep -q 'ce_mark [1-9]' && echo "$qdisc" | grep -q 'ecn_mark 0' ||
		fail cubic_without_ecn "bottleneck marked packets: $qdisc" || return 1
	[ "$bps" -gt 10000000 ] || fail cubic_without_ecn "only $bps bit/s"
}
