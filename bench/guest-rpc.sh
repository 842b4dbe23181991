# shellcheck shell=bash
# Guest side of the bench parts `xregion-rpc` and `dcndelay-region`
# (bench/README.md, sections 9 and 10): application load (bench/rpc.c) on
# emulated paths, one run per CCA, the CCAs interleaved, repeated. Sourced
# by bench/guest.sh, which has sourced tests/vm/lib.sh and defines emit.
#
# Each run builds the path afresh (counters at zero, no cached metrics),
# starts the bulk senders, then the RPC client, and records:
#   $RESULTS/<part>/<case>-<cca>-<rep>.rpc     the RPCs (rpc.c's "R"/"U")
#   $RESULTS/<part>/<case>-<cca>-<rep>.bulkN   each bulk flow's objects and
#                                              TCP_INFO samples
#   $RESULTS/<part>/<case>-<cca>-<rep>.probe   unloaded RPCs before the load
#   $RESULTS/<part>/<case>-<cca>-<rep>.qlen    bottleneck backlog samples
#   $RESULTS/<part>/<case>-<cca>-<rep>.qdisc   tc -s of the qdiscs at the end
# and one line "BENCH <part> case= cca= rep= rate_mbit= ..." of counters
# (rate_mbit: the bottleneck's rate, RPC_RATE_MBIT); bench/rpc.py
# makes the tables and CDFs from these on the host.
#
# Environment (run.sh): BENCH_RPC (rpc.c's binary); optional BENCH_RPC_REPS
# (3), and the XR_* and DR_* overrides named below.

RPC_REPS=${BENCH_RPC_REPS:-3}
RPC_PORT=5400
# seconds of bulk transfer before the RPCs and the counters start: the
# flows' start (slow start, cca_xregion's initial window of 100 packets) is
# not the steady state the paper's figures describe; its retransmissions
# are reported apart (retrans_all)
RPC_WARM=${BENCH_RPC_WARM:-3}

# ---- xregion-rpc: parameters --------------------------------------------------

# Two regions joined by a WAN bottleneck of XR_RATE with XR_RTT of round trip.
XR_CCAS=${BENCH_XR_CCAS:-cubic bbr cca_xregion}
XR_RATE=${BENCH_XR_RATE:-20}	# Mbit/s: low enough that the vCPU is not the bottleneck
XR_RTT=${BENCH_XR_RTT:-40}	# ms, netem on the return path
XR_SECS=${BENCH_XR_SECS:-25}	# seconds of RPCs per run
XR_BULK=${BENCH_XR_BULK:-4}	# bulk flows (one checkpoint writer each)
XR_OBJ=${BENCH_XR_OBJ:-2000000}	# bytes per object
XR_RPC_RATE=${BENCH_XR_RPC_RATE:-20}	# RPCs per second (Poisson)
XR_CONNS=16			# the RPC pool's persistent connections
XR_REQ=4000			# request bytes (they cross the bottleneck)
# cca_xregion's rule: its congestion threshold C (ce_thresh, CE-marked bytes
# per second; default 125 000 = 1 Mbit/s, 1 % of a 100 Mbit/s flow) scaled
# to this path, where a bulk flow's share is about 5 Mbit/s: 6 250 B/s is
# 1 % of 5 Mbit/s. With the default, a 5 Mbit/s flow yields only when 20 %
# of its packets are marked, which RED here reaches only above max_th: the
# queue then stands at max_th (bench/README.md, section 9). Empty: the
# module's default.
XR_XREGION_RULE=${BENCH_XR_XREGION_RULE-param ce_thresh=6250}
XR_RESP=4000			# answer bytes (they come back over the netem)

# ---- dcndelay-region: parameters ------------------------------------------------

DR_CCAS=${BENCH_DR_CCAS:-cubic dctcp cca_dctcp cca_dcndelay}
DR_CASES=${BENCH_DR_CASES:-marked unmarked}
DR_RATE=${BENCH_DR_RATE:-20}	# Mbit/s at the bottleneck
# netem on the return path, us. 0: none, the emulated stack alone gives a
# base RTT of 0.2-0.4 ms, the least TCG allows; but at 20 Mbit/s that is a
# bandwidth-delay product of under one packet, where every CCA sits at its
# 2-packet floor and nothing tells them apart. 10 ms: the region's path
# slowed down in time (a real region's 100-200 us at 10-25 Gbit/s carries
# 80-600 packets; 10 ms at 20 Mbit/s, 17, as tests/vm/73-hostcn.sh chose),
# so that four bulk flows at their floor need no queue and the CCAs'
# control of the queue shows. cca_dcndelay's target RTT is then the path's
# min RTT + 1/4 (its floor), not the region's 125 us.
DR_DELAY_US=${BENCH_DR_DELAY_US:-10000}
DR_SECS=${BENCH_DR_SECS:-10}	# 15 s took the VM past its 900 s limit (24 runs of about 37 s)
DR_BULK=${BENCH_DR_BULK:-4}
DR_OBJ=${BENCH_DR_OBJ:-1000000}
DR_RPC_RATE=${BENCH_DR_RPC_RATE:-10}	# fan-in rounds per second
DR_CONNS=32			# up to 4 fan-in rounds at once
DR_FANIN=8			# each round: 8 requests at once to one server
DR_REQ=2000			# bytes each: 8 x 2 = 16 packets into the ToR at once
DR_RESP=200
DR_BUF=32			# ToR buffer, packets
DR_K=8				# ToR marking threshold, packets (marked case)
DR_HOST_PFIFO=24		# host limiter's queue, packets (unmarked case): 73-hostcn's 12 would drop every fan-in round

# ---- helpers ----------------------------------------------------------------------

# cpu_idle_total: "idle total" jiffies of /proc/stat's cpu line
cpu_idle_total() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat
}

# qlen_sampler NS DEV FILE: the backlog of DEV's root qdisc (HTB sums its
# leaves) every QLEN_MS, as "t_ms backlog_bytes backlog_pkts" lines in
# FILE, until qlen_stop. One tc process reads the requests from a pipe
# (`tc -batch -`) and a loop of shell builtins writes them: a process per
# sample would cost the single vCPU tens of ms each under TCG. The times
# are the sample's index times the period (the loop does not drift much:
# its wait is a builtin read's timeout).
QLEN_MS=100 QLEN_S=0.1 QLEN_STOP=/tmp/rpc.qlen.stop
qlen_sampler() {
	local ns=$1 dev=$2 file=$3
	# when the loop ends it closes the pipe: tc flushes and exits
	while [ ! -e $QLEN_STOP ]; do
		echo "qdisc show dev $dev"
		sleep $QLEN_S
	done | tc -n "$ns" -s -batch - |
		awk -v p="$QLEN_MS" '/^qdisc/ { root = / root / }
			root && /backlog/ { sub("b$", "", $2); sub("p$", "", $3); print n++ * p, $2, $3; root = 0 }' >"$file"
}

# tc_counters NS DEV: "drops marks" summed over DEV's leaf qdiscs (RED's
# "marked", every qdisc's "dropped"; the HTB root repeats its leaves'
# drops, so only non-HTB lines count)
tc_counters() {
	tc -n "$1" -s qdisc show dev "$2" | awk '
		/^qdisc/ { leaf = ($2 != "htb") }
		leaf && /Sent/ { for (i = 1; i < NF; i++) if ($i == "(dropped") { v = $(i + 1); sub(",", "", v); d += v } }
		leaf && /marked/ { for (i = 1; i < NF; i++) if ($i == "marked") m += $(i + 1) }
		END { print d + 0, m + 0 }'
}

# qlen_stop PID: end qlen_sampler PID (its loop sees the file, tc and awk
# the end of their input)
qlen_stop() {
	touch $QLEN_STOP
	wait "$1" || true
}

# rpc_probe NS FILE: about 20 RPCs of 64 bytes each way at 10/s over four
# connections, nothing else running (rarely two at once): the path's base
# RTT plus the application's turnaround, as the tool measures it
rpc_probe() {
	in_netns "$1" "$BENCH_RPC" rpc "$SERVER_IP" $RPC_PORT 2 10 4 1 64 64 "$2" 7 >/dev/null
}

# rpc_run PART CASE CCA REP SECS NBULK OBJ RATE CONNS FANIN REQ RESP
#   QNS QDEV: one run of the load from the client namespace rc to rs (the
#   path already built, the server listening); counters of QNS's QDEV (the
#   bottleneck) and the router's eth1
rpc_run() {
	local part=$1 case=$2 cca=$3 rep=$4 secs=$5 nbulk=$6 obj=$7 rate=$8
	local conns=$9 fanin=${10} req=${11} resp=${12} qns=${13} qdev=${14}
	local dir=$RESULTS/$part base pids="" i c0 c1 w0 w1 sampler out cpu0 cpu1 ccas
	local retrans sent ce rpc
	mkdir -p "$dir"
	base=$dir/$case-$cca-$rep
	rpc_probe rc "$base.probe"
	nstat_snapshot rc /tmp/rpc.nstat0
	for i in $(seq "$nbulk"); do
		# the bulk flows run RPC_WARM s before the RPCs and 1 s after
		nsenter --net=/run/netns/rc "$BENCH_RPC" bulk "$SERVER_IP" $RPC_PORT \
			$((secs + RPC_WARM + 1)) "$obj" "$base.bulk$i" 20000 >"/tmp/rpc.bulk$i.out" &
		pids="$pids $!"
	done
	sleep "$RPC_WARM"
	nstat_snapshot rc /tmp/rpc.nstat
	cpu0=$(cpu_idle_total)
	w0=$(tc_counters "$qns" "$qdev")
	w1=$(tc_counters rr eth1)
	rm -f $QLEN_STOP
	qlen_sampler "$qns" "$qdev" "$base.qlen" &
	sampler=$!
	nsenter --net=/run/netns/rc "$BENCH_RPC" rpc "$SERVER_IP" $RPC_PORT "$secs" "$rate" \
		"$conns" "$fanin" "$req" "$resp" "$base.rpc" "$rep" >/tmp/rpc.out &
	rpc=$!
	# halfway, every connection's state (cwnd, pacing rate, RTT, CCA):
	# the RPC pool's connections are app-limited, the bulk flows are not
	sleep $((secs / 2))
	ns rc ss -tinH state established "( dport = :$RPC_PORT )" >"$base.ss"
	wait "$rpc" || {
		echo "$part: $case $cca $rep: the RPC client failed: $(cat /tmp/rpc.out)" >&2
		qlen_stop "$sampler"
		return 1
	}
	out=$(cat /tmp/rpc.out)
	# the counters over the RPCs' window (the bulk flows' last second and
	# the RPCs' drain after it are in it, the warm-up is not)
	retrans=$(nstat_delta rc /tmp/rpc.nstat TcpRetransSegs)
	sent=$(nstat_delta rc /tmp/rpc.nstat TcpOutSegs)
	ce=$(nstat_delta rc /tmp/rpc.nstat TcpExtTCPDeliveredCE)
	c0=$(tc_counters "$qns" "$qdev")
	c1=$(tc_counters rr eth1)
	qlen_stop "$sampler"
	cpu1=$(cpu_idle_total)
	for i in $pids; do
		wait "$i" || { echo "$part: a bulk sender failed" >&2; return 1; }
	done
	ccas=$(cat /tmp/rpc.bulk*.out | sed -n 's/.* cca=//p' | sort -u | tr '\n' ',')
	echo "$part: $case $cca $rep: $out; bulk on ${ccas%,}"
	{
		tc -n rr -s qdisc show
		[ "$qns" = rr ] || tc -n "$qns" -s qdisc show dev "$qdev"
	} >"$base.qdisc"
	# shellcheck disable=SC2086 # the words of one summary line
	emit "$part" case="$case" cca="$cca" rep="$rep" ${out#rpc } \
		rate_mbit="$RPC_RATE_MBIT" bulk_ccas="${ccas%,}" retrans="$retrans" sent_segs="$sent" ce_acked="$ce" \
		retrans_all="$(nstat_delta rc /tmp/rpc.nstat0 TcpRetransSegs)" \
		drops=$((${c0% *} - ${w0% *})) marks=$((${c0#* } - ${w0#* })) \
		tor_drops=$((${c1% *} - ${w1% *})) tor_marks=$((${c1#* } - ${w1#* })) \
		cpu_busy_pct="$(echo "$cpu0 $cpu1" |
			awk '{ printf "%.1f", 100 * (1 - ($3 - $1) / ($4 - $2)) }')"
	# a bulk flow on another CCA than the policy's is a broken run
	case ",$ccas" in
	*",$cca,"*) ;;
	*) echo "$part: the bulk flows ran on '${ccas%,}', not $cca" >&2; return 1 ;;
	esac
}

# rpc_topo: client rc -- router rr -- server rs (tests/vm/lib.sh's
# netns_topo3), one segment per packet from both ends (the qdisc limits
# count packets: a 64 KB GSO packet would be 10 ms of a 50 Mbit/s link),
# no cached metrics between connections, the server listening with an
# ECN-capable listener (its policy's default on cca_dctcp: it accepts the
# ECN that the client's CCA asks for, as tr_group in guest.sh)
rpc_topo() {
	netns_cleanup
	netns_topo3 rc rr rs
	ip -n rc link set eth0 gso_max_segs 1
	ip -n rs link set eth0 gso_max_segs 1
	ns rc sysctl -qw net.ipv4.tcp_no_metrics_save=1
	ns rs sysctl -qw net.ipv4.tcp_no_metrics_save=1
	"$CCACTL" -n rs policy set default cca cca_dctcp >/dev/null
	in_netns rs "$BENCH_RPC" server "$SERVER_IP" $RPC_PORT &
	wait_port rs $RPC_PORT
}

# rpc_policy LOCALITY CCA [WORDS...]: the client's CCA for the server, by
# ccactl policy; WORDS (param NAME=VALUE ...) go into the rule
rpc_policy() {
	local loc=$1 cca=$2
	shift 2
	"$CCACTL" -n rc scope add "$SERVER_IP/32" locality "$loc" region 2
	"$CCACTL" -n rc policy set locality "$loc" cca "$cca" "$@" >/dev/null
}

# ---- xregion-rpc ----------------------------------------------------------------------

# xr_path: the WAN bottleneck on the router's eth1 (client -> server):
# HTB at XR_RATE, RED with ECN below it, and XR_RTT of netem on the way
# back. The buffer is one bandwidth-delay product (the rule of thumb for
# Internet routers, Villamizar and Song 1994; router vendors size WAN line
# cards at 50-100 ms of buffer): XR_RTT x XR_RATE. RED's thresholds follow
# Floyd's guidance (max_th = 3 x min_th, max_p 0.1): min_th 5 ms of
# queue, max_th 15 ms; RED averages with weight 2^-Wlog from `burst`, the
# least tc accepts. Above max_th RED marks every ECN-capable packet and drops
# the others; at the limit it drops.
xr_path() {
	local bps=$((XR_RATE * 125000)) limit min max burst
	limit=$((bps * XR_RTT / 1000))
	min=$((bps * 5 / 1000))
	max=$((min * 3))
	burst=$(((2 * min + max) / (3 * 1500) + 1))
	tc -n rr qdisc add dev eth1 root handle 1: htb default 1
	tc -n rr class add dev eth1 parent 1: classid 1:1 htb rate "${XR_RATE}mbit" quantum 1514
	tc -n rr qdisc add dev eth1 parent 1:1 handle 10: red limit "$limit" min "$min" \
		max "$max" avpkt 1500 burst "$burst" probability 0.1 bandwidth "${XR_RATE}mbit" ecn
	tc -n rr qdisc add dev eth0 root netem delay "${XR_RTT}ms" limit 100000
	echo "xregion-rpc: path ${XR_RATE} Mbit/s, ${XR_RTT} ms, RED limit $limit B" \
		"min $min max $max burst $burst"
}

part_xregion_rpc() {
	local rep cca
	load_ccaas tcp_cca_dctcp tcp_cca_xregion
	modprobe -a sch_htb sch_red sch_netem tcp_bbr
	echo "xregion-rpc: cca_xregion's rule: '$XR_XREGION_RULE'"
	RPC_RATE_MBIT=$XR_RATE
	for rep in $(seq "$RPC_REPS"); do
		for cca in $XR_CCAS; do
			rpc_topo
			xr_path
			if [ "$cca" = cca_xregion ]; then
				# shellcheck disable=SC2086 # words of the rule
				rpc_policy xregion "$cca" $XR_XREGION_RULE
			else
				rpc_policy xregion "$cca"
			fi
			rpc_run xregion-rpc wan "$cca" "$rep" "$XR_SECS" "$XR_BULK" "$XR_OBJ" \
				"$XR_RPC_RATE" "$XR_CONNS" 1 "$XR_REQ" "$XR_RESP" rr eth1
		done
	done
	netns_cleanup
}

# ---- dcndelay-region ------------------------------------------------------------------

# dr_path CASE: the region's path. The ToR is the router's eth1, a
# shallow buffer of DR_BUF packets. marked: the ToR is the bottleneck
# (HTB at DR_RATE), a RED queue with DCTCP's step marking (min_th = K,
# max_th = K + 2 packets, max_p 1: every ECN-capable packet above about K
# is marked, as a switch's ECN threshold does) and the smallest averaging
# window tc allows. unmarked: the senders' own egress is the bottleneck
# (HTB at DR_RATE with a DR_HOST_PFIFO-packet pfifo on the client's eth0,
# tests/vm/73-hostcn.sh's limiter: its tail drop returns NET_XMIT_DROP to
# TCP, which enters CWR; no packet is marked anywhere) and the ToR is a
# plain shallow FIFO at twice the rate. DR_DELAY_US of netem on the way
# back; the emulated stack adds the rest of the base RTT (the probe
# measures it).
dr_path() {
	local k=$((DR_K * 1514)) buf=$((DR_BUF * 1514))
	case $1 in
	marked)
		tc -n rr qdisc add dev eth1 root handle 1: htb default 1
		tc -n rr class add dev eth1 parent 1: classid 1:1 htb rate "${DR_RATE}mbit" quantum 1514
		tc -n rr qdisc add dev eth1 parent 1:1 handle 10: red limit "$buf" min "$k" \
			max $((k + 2 * 1514)) avpkt 1500 burst $(((3 * k + 2 * 1514) / 4500 + 1)) \
			probability 1.0 bandwidth "${DR_RATE}mbit" ecn
		DR_QNS=rr DR_QDEV=eth1
		;;
	unmarked)
		tc -n rc qdisc add dev eth0 root handle 1: htb default 1
		tc -n rc class add dev eth0 parent 1: classid 1:1 htb rate "${DR_RATE}mbit" quantum 1514
		tc -n rc qdisc add dev eth0 parent 1:1 handle 10: pfifo limit "$DR_HOST_PFIFO"
		tc -n rr qdisc add dev eth1 root handle 1: htb default 1
		tc -n rr class add dev eth1 parent 1: classid 1:1 htb rate "$((2 * DR_RATE))mbit" quantum 1514
		tc -n rr qdisc add dev eth1 parent 1:1 handle 10: pfifo limit "$DR_BUF"
		DR_QNS=rc DR_QDEV=eth0
		;;
	*) echo "dcndelay-region: unknown case $1" >&2; return 1 ;;
	esac
	[ "$DR_DELAY_US" = 0 ] ||
		tc -n rr qdisc add dev eth0 root netem delay "${DR_DELAY_US}us" limit 100000
}

part_dcndelay_region() {
	local case rep cca
	load_ccaas tcp_cca_dctcp tcp_cca_dcndelay
	modprobe -a sch_htb sch_red sch_netem tcp_dctcp
	RPC_RATE_MBIT=$DR_RATE
	# the cases' names carry the added delay: marked-10ms, unmarked-0ms
	if [ $((DR_DELAY_US % 1000)) = 0 ]; then
		DR_BASE=$((DR_DELAY_US / 1000))ms
	else
		DR_BASE=${DR_DELAY_US}us
	fi
	for case in $DR_CASES; do
		for rep in $(seq "$RPC_REPS"); do
			for cca in $DR_CCAS; do
				rpc_topo
				dr_path "$case"
				rpc_policy region "$cca"
				rpc_run dcndelay-region "$case-$DR_BASE" "$cca" "$rep" "$DR_SECS" "$DR_BULK" \
					"$DR_OBJ" "$DR_RPC_RATE" "$DR_CONNS" "$DR_FANIN" "$DR_REQ" \
					"$DR_RESP" "$DR_QNS" "$DR_QDEV"
			done
		done
	done
	netns_cleanup
}
