# shellcheck shell=bash
# Smoke tests of the VM platform itself: right kernel, in-tree modules load,
# namespaces carry TCP, netem delay shows in srtt, a ce_threshold bottleneck
# marks CE for DCTCP.  No project module is needed.
# vm-timeout: 150
# vm-alone: yes

test_smoke_kernel() {
	[ "$(uname -r)" = "$KVER" ] || fail smoke_kernel "running $(uname -r), expected $KVER"
}

test_smoke_modprobe() {
	local m
	for m in tcp_dctcp sch_netem; do
		modprobe "$m" || return 1
		grep -q "^$m " /proc/modules || fail smoke_modprobe "$m not in /proc/modules" || return 1
	done
}

test_smoke_netns() {
	local bps retr
	netns_cleanup
	netns_pair a b || return 1
	read -r bps retr < <(iperf_tcp a b "$PAIR_B_IP" 2)
	echo "throughput ${bps:-?} bit/s, retransmits ${retr:-?}"
	[ "${bps:-0}" -gt 0 ] || fail smoke_netns "no TCP throughput between namespaces"
}

# With 10 ms of netem delay on one direction, the minimum RTT of both iperf3
# connections (control, data at full rate) must be >= 10 ms and under 50 ms.
# The minimum, not srtt: at full rate srtt carries the queue the emulated
# CPU builds, which grows with the host's load (59 ms once beside a busy
# guest and two more VMs), while the minimum is the path's.  The transfer runs until the
# samples are taken, not for a fixed time: each `ip netns exec` can take a
# quarter of a second under TCG (more on 7.x, more on a busy host).
test_smoke_netem_rtt() {
	local rtts r client
	netns_cleanup
	netns_pair a b || return 1
	tc -n a qdisc add dev eth0 root netem delay 10ms || return 1
	iperf_server b || return 1
	# not through ns(): ip netns exec execs iperf3, so $! is its pid
	ip netns exec a iperf3 -c "$PAIR_B_IP" -t 60 >/dev/null 2>&1 &
	client=$!
	for _ in $(seq 100); do
		[ "$(tcp_rtts_ms a dport = :5201 | wc -l)" -ge 2 ] && break
		sleep 0.1
	done
	sleep 1 # a few RTT samples at full rate
	rtts=$(ns a ss -Htin state established dport = :5201 | sed -nE 's/.* minrtt:([0-9.]+).*/\1/p')
	kill "$client" 2>/dev/null
	wait "$client"
	echo "minrtt (ms): ${rtts//$'\n'/ }"
	[ -n "$rtts" ] || fail smoke_netem_rtt "no established connection seen" || return 1
	for r in $rtts; do
		awk -v r="$r" 'BEGIN { exit !(r >= 10 && r < 50) }' ||
			fail smoke_netem_rtt "minrtt $r ms not in [10, 50) ms" || return 1
	done
}

# Client -> router -> server; the router's egress to the server is a 50 Mbit/s
# bottleneck with fq_codel marking CE above 1 ms of sojourn time.  Both ends
# use dctcp (the listener must be an ECN CCA for the server to accept ECN from
# an ECT SYN: DESIGN.md §5).  Outside the initial namespace a default CCA must
# be in tcp_allowed_congestion_control (a global list), else EPERM.
test_smoke_ecn_ce() {
	local snap ce bps retr n allowed
	modprobe tcp_dctcp || return 1
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed dctcp" || return 1
	netns_cleanup
	netns_topo3 c r s || return 1
	for n in c s; do
		ns "$n" sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_congestion_control=dctcp || return 1
	done
	tc -n r qdisc add dev eth1 root handle 1: htb default 1 &&
		tc -n r class add dev eth1 parent 1: classid 1:1 htb rate 50mbit quantum 1514 &&
		tc -n r qdisc add dev eth1 parent 1:1 fq_codel ce_threshold 1ms || return 1
	snap=$(mktemp)
	nstat_snapshot c "$snap"
	read -r bps retr < <(iperf_tcp c s "$SERVER_IP" 2)
	ce=$(nstat_delta c "$snap" TcpExtTCPDeliveredCE)
	echo "throughput ${bps:-?} bit/s, retransmits ${retr:-?}, TCPDeliveredCE +$ce"
	tc -n r -s qdisc show dev eth1 | grep -E 'ce_mark|fq_codel' | head -n 4
	[ "$ce" -gt 0 ] || fail smoke_ecn_ce "no CE-marked deliveries at the sender"
}
