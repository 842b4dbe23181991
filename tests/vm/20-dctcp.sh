# cca_dctcp against the in-tree dctcp on one emulated path, and its Reno
# fallback when the peer does not negotiate ECN.
#
# Path: client -- router -- server. The router's link to the server is a
# 20 Mbit/s HTB bottleneck whose fq_codel marks CE once a packet has queued
# for more than 2 ms (a DCTCP-style step threshold); netem adds 2 ms on the
# ACK path. 20 Mbit/s is well below what TCP over veth reaches under TCG, so
# the bottleneck, not the emulated CPU, sets the rate.
# make check runs it on the oldest line only (make check-full on the
# newest too), where the compat layer does the most.
# vm-timeout: 240
# vm-alone: yes
# vm-lines: oldest

DCTCP_SECS=4
DCTCP_RESULTS=$RESULTS/dctcp.txt

load_ccaas tcp_cca_dctcp && modprobe tcp_dctcp && modprobe sch_htb &&
	modprobe sch_netem
# A namespace may only make a CCA its default once the initial namespace
# allows it (TCP_CONG_NON_RESTRICTED).
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp cca_dctcp"

# dctcp_path CLIENT_CCA SERVER_CCA SERVER_ECN: build the path, CCAs set as
# each namespace's default (so the server's listener uses SERVER_CCA too)
dctcp_path() {
	netns_topo3 dc_c dc_r dc_s || return 1
	tc -n dc_r qdisc add dev eth1 root handle 1: htb default 1 &&
		tc -n dc_r class add dev eth1 parent 1: classid 1:1 htb rate 20mbit &&
		tc -n dc_r qdisc add dev eth1 parent 1:1 handle 10: fq_codel ce_threshold 2ms ecn &&
		tc -n dc_r qdisc add dev eth0 root netem delay 2ms || return 1
	ns dc_c sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_congestion_control="$1" &&
		ns dc_s sysctl -qw net.ipv4.tcp_ecn="$3" net.ipv4.tcp_congestion_control="$2"
}

# dctcp_run CCA SERVER_CCA SERVER_ECN: one transfer; sets bps, retrans, ce,
# ss_out (client's view of the data connection mid-transfer) and qdisc
dctcp_run() {
	local json snap i
	netns_cleanup
	dctcp_path "$@" || return 1
	json=$RESULTS/dctcp-$1-$2.json
	snap=$(mktemp)
	nstat_snapshot dc_c "$snap"
	iperf_server dc_s || return 1
	iperf_client dc_c "$SERVER_IP" $DCTCP_SECS "$json" &
	ss_out=""
	for i in $(seq 40); do
		sleep 0.25
		ss_out=$(ns dc_c ss -tino state established dst "$SERVER_IP" | grep -A1 ':5201' | tr '\n' ' ')
		echo "$ss_out" | grep -q 'bytes_acked:[0-9]\{6,\}' && break
	done
	wait $! || { echo "iperf3 failed: $(tail -5 "$json")"; return 1; }
	read -r bps retrans < <(iperf_summary "$json")
	ce=$(nstat_delta dc_c "$snap" TcpExtTCPDeliveredCE)
	qdisc=$(tc -n dc_r -s qdisc show dev eth1 parent 1:1)
	rm -f "$snap"
	printf '%-10s server %-6s ecn=%s: %6.1f Mbit/s, %4d retransmits, %6d CE-marked packets delivered\n' \
		"$1" "$2" "$3" "$(echo "$bps / 1000000" | bc -l)" "$retrans" "$ce" | tee -a "$DCTCP_RESULTS"
}

# Three interleaved pairs of runs, summed, so that a slow patch of the
# emulated CPU does not land on one CCA only.
test_dctcp_side_by_side() {
	local ref_bps=0 ref_retrans=0 ref_ce=0 ref_ss sum_bps=0 sum_retrans=0 sum_ce=0 margin i
	for i in 1 2 3; do
		dctcp_run dctcp dctcp 1 || fail dctcp_side_by_side "in-tree dctcp run failed" || return 1
		ref_bps=$((ref_bps + bps)) ref_retrans=$((ref_retrans + retrans)) ref_ce=$((ref_ce + ce))
		ref_ss=$ss_out
		dctcp_run cca_dctcp cca_dctcp 1 || fail dctcp_side_by_side "cca_dctcp run failed" || return 1
		sum_bps=$((sum_bps + bps)) sum_retrans=$((sum_retrans + retrans)) sum_ce=$((sum_ce + ce))
	done
	bps=$sum_bps retrans=$sum_retrans ce=$sum_ce
	python3 -c "print('three runs each: dctcp %.1f Mbit/s %d retransmits %d CE; cca_dctcp %.1f Mbit/s %d retransmits %d CE; throughput ratio %.3f' % ($ref_bps / 3e6, $ref_retrans, $ref_ce, $bps / 3e6, $retrans, $ce, $bps / $ref_bps))" |
		tee -a "$DCTCP_RESULTS"
	pass dctcp_side_by_side

	# Both negotiated ECN and saw CE marks: the comparison is meaningful.
	verdict dctcp_intree_ecn_marked "ce=$ref_ce ss: $ref_ss" \
		eval 'echo "$ref_ss" | grep -qw ecn && [ "$ref_ce" -gt 0 ]'
	verdict cca_dctcp_ecn_negotiated "ss: $ss_out" \
		eval 'echo "$ss_out" | grep -qw ecn'
	verdict cca_dctcp_ce_marks_seen "no CE-marked deliveries" [ "$ce" -gt 0 ]
	# ss -ti shows cca_dctcp by name, with its alpha.
	verdict cca_dctcp_ss_shows_alpha "ss: $ss_out" \
		eval 'echo "$ss_out" | grep -q "cca_dctcp.*dctcp:(ce_state:[01],alpha:[0-9]*,"'

	# Same throughput within 10 %.
	verdict cca_dctcp_throughput_matches "cca_dctcp $bps vs dctcp $ref_bps bit/s" \
		python3 -c "import sys; sys.exit(abs($bps - $ref_bps) > 0.10 * $ref_bps)"
	# No more retransmissions than in-tree, beyond a small margin: 10 segments
	# plus a quarter of in-tree's count (single runs under TCG vary).
	margin=$((10 + ref_retrans / 4))
	verdict cca_dctcp_retransmits "cca_dctcp $retrans vs dctcp $ref_retrans (+$margin)" \
		[ "$retrans" -le $((ref_retrans + margin)) ]
}

# Without ECN from the server, cca_dctcp stays the CCA but acts as Reno, and
# its packets are not ECT: the bottleneck then has nothing to mark.
test_dctcp_reno_fallback() {
	dctcp_run cca_dctcp cubic 0 || return 1
	echo "$ss_out" | grep -q cca_dctcp-reno && ! echo "$ss_out" | grep -qw ecn ||
		fail dctcp_reno_fallback "not on cca_dctcp without ECN: $ss_out" || return 1
	echo "$ss_out" | grep -q 'dctcp:fallback_mode' ||
		fail dctcp_reno_fallback "ss does not show fallback: $ss_out" || return 1
	[ "$ce" -eq 0 ] || fail dctcp_reno_fallback "$ce CE marks without ECN" || return 1
	# (tc prints ce_mark only when it is not zero)
	! echo "$qdisc" | grep -q 'ce_mark [1-9]' && echo "$qdisc" | grep -q 'ecn_mark 0' ||
		fail dctcp_reno_fallback "bottleneck marked packets: $qdisc" || return 1
	[ "$bps" -gt 10000000 ] || fail dctcp_reno_fallback "only $bps bit/s"
}
