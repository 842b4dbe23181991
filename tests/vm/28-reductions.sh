# Every reduction each ccaas CCA reacts to, driven on the real stack and
# checked for the window cut its KUnit cases check (kunit/cca_*_test.c):
#   ce        CE marks, ECN negotiated: ECE -> tcp_enter_cwr() -> ssthresh()
#   local     the sender's own qdisc refuses a packet (NET_XMIT_DROP, no
#             CE anywhere): tcp_enter_cwr() from the send path
#   recovery  a few packets lost on the path, SACK: tcp_enter_recovery()
#   rto       everything lost until the retransmission timer fires:
#             tcp_enter_loss(), ssthresh(), cwnd 1
# one verdict per CCA and reduction, reduction_<cca>_<kind>, with the
# figures: cwnd before, ssthresh (or cca_hpcc's window) after, expected.
#
# Path: five senders rd_<cca>, one per CCA (a ccactl policy in each
# namespace picks it), each on its own veth to the router rd_r, whose link
# srv leads to the receiver rd_s (one sink port per CCA; its listeners on
# cca_dctcp, since a listener accepts the ECT SYN of a DCTCP-style sender
# only if its own CCA needs ECN). Each sender's eth0 is a 6 Mbit/s HTB
# with a pfifo leaf, one MSS per packet (gso_max_segs 1), so the flows do
# not share a bottleneck and the rate is the sender's own, far below what
# TCG sustains for five flows with tracing; netem on rd_s's egress delays
# the ACKs 40 ms. The senders ask for ECN (tcp_ecn=1: cca_cubic and
# cca_hpcc do not ask themselves), keep no metrics, and do not decay an
# unused window (tcp_slow_start_after_idle=0: tcp_cwnd_application_limited()
# would change cwnd and ssthresh between ACKs, outside any CCA).
#
# One transfer per CCA, all five at once, through phases that each last
# until an event every sender reports (its status file, written by the
# sender itself: TCP_INFO, TCP_CC_INFO's alpha, its namespace's TcpExt
# counters), never a fixed time, so that a slow guest (TCG, a busy host)
# only makes them longer; each wait is capped at RD_MAX s, which only a
# broken run reaches (a message then, and the verdicts say what is
# missing): clean until every sender has 300 packets acked; ce (the
# router's clsact on srv rewrites every ECT packet to CE) until each has
# 20 CE deliveries more and, for cca_dctcp and cca_dcndelay, alpha at
# 3/4 at least; clean, for each sender until it is Open with everything
# sent before the phase began acked (no ECE of the marks left), and then
# at once its own local phase (a marker for its flow alone, so that its
# alpha has not decayed much and the DCTCP-style cut on local congestion
# shows, whatever the others' queues take to drain: its shaper down to
# 2 Mbit/s with a one-packet pfifo, which every flow overflows, whatever
# TCP Small Queues lets through) until it was seen in CWR 3 times; clean
# until each has drained likewise; recovery (netem on srv drops 2 %)
# until each entered Recovery 3 times more (TCPSackRecovery); clean
# likewise; rto (netem drops everything) until every sender reports the
# Loss state; clean until every sender is Open again. Markers in the
# trace (trace_marker) delimit the phases, so a reduction belongs to the
# phase it happened in whatever the host's load did to the phases'
# lengths; the verdicts compare values the kernel recorded, never a rate
# or a time. Each phase must show at least one reduction of its kind for
# every CCA, and every reduction of that kind in it is checked; for
# cca_dctcp and cca_dcndelay one of them at least must be a cut by its
# rule (alpha above 0 where the rule is alpha's), or the phase could not
# tell a cut from none.
#
# Recorded with trace-cmd: tcp:tcp_probe (each ACK, before it is
# processed: cwnd, ssthresh, snd_una), tcp:tcp_cong_state_set (each
# state change, after the stack's ssthresh() call), ccalog:ccalog_rtt
# (each round's alpha and cca_hpcc's W_ref and stage; `ccactl log add
# all`). tests/vm/lib/reductions.py reads it; its top comment says
# which probe gives cwnd at each kind of reduction. The one tolerance is
# for reductions from a timer, the retransmission timeout and RACK's
# reorder timer (tcp_rack_reo_timeout(), the one caller of
# tcp_enter_recovery() besides an ACK's tcp_fastretrans_alert(), which
# enters Recovery between ACKs): the timer fires after the last ACK's own
# growth, which no probe records, so cwnd then lies between the last
# probe's and that plus the packets the ACK acknowledged. The trace does
# not tell RACK's timer from an ACK (a kprobe on tcp_rack_reo_timeout()
# did, until a run's guest took a spurious single-step trap under TCG,
# WARNING in exc_debug_kernel(), and panicked), so a Recovery entry that
# does not match the ACK's cut is judged as the timer's. cca_hpcc's window is W, kept in
# 1/1024 packet while cwnd shows its integer part, so its cuts are
# checked against W's range [cwnd, cwnd + 1); W at a timer's cut is what
# the last ACK left, which cca_hpcc may move either way (it follows U on
# every ACK), so it is read back from the stack's ssthresh() call on the
# same cwnd (cca_hpcc's answers max(cwnd*717/1024, 2): one or two cwnds).
#
# Rules (kmod/cca/*.c):
#   cca_dctcp     ce, local: cwnd*(1 - alpha/2) (ccaas_alpha_cut());
#                 recovery, rto: max(cwnd/2, 2). shift_g 8 (alpha's gain
#                 1/256 a round, the rule's parameter), so that alpha,
#                 near 1 after the ce phase, is still well above 0 when
#                 the local phase begins: with the default 1/16 it had
#                 decayed to about 0 over the clean phase's 100 rounds and
#                 more, and a local reduction then cuts nothing, which
#                 cannot tell the alpha rule from no cut
#   cca_dcndelay  ce, local: cwnd*(1 - alpha/2); recovery, rto:
#                 cwnd*819/1024. shift_g 8 too (its module parameter, set
#                 for the file and put back; not above 8: an alpha below
#                 2^shift_g drops to 0 at the next round, as in-tree
#                 dctcp's). Its local phase keeps the 6 Mbit/s rate, so
#                 that its cwnd there is large enough for an alpha cut to
#                 cut (cwnd * alpha >= 2048). Its delay control may step cwnd
#                 down in in_ack_event() before the same ACK's ssthresh()
#                 (its target is floored at 1.25 x the least RTT, and the
#                 shaper's queue stands above that): decrease_pct 1 bounds
#                 that step to 1 % of cwnd, and the ce verdict accepts the
#                 cut of any cwnd in that 1 %
#   cca_xregion   ce: a DEC to cwnd*(1 - alpha/3) (ce_thresh 1000 B/s, so
#                 that any marked sample signals), or, while a DEC is
#                 under way or its samples are stale, only the stack's
#                 ssthresh(): cwnd*717/1024; the phase's first mark must
#                 start a DEC. local, recovery, rto: cwnd*717/1024 (a
#                 recovery whose ACK also ends the round of the DEC before
#                 cuts from that DEC's target, which cwnd is set to first)
#   cca_hpcc      ce: no cut (cwnd after the ECE above what 0.7 W leaves);
#                 local: W*717/1024 at the next ACK (its cwnd); recovery:
#                 W_ref = W*717/1024, logged at the first round end after
#                 the entry: in Recovery the cut itself, after it (stage
#                 1: hp_window()'s additive step) the cut plus W_AI, one
#                 packet; rto: W_ref = W/2. bw 5 Mbit/s, under
#                 the shaper's payload rate, so that its own pacing (W/T)
#                 sets its rate; base_rtt 200 ms, so that its utilisation
#                 is that rate's and not this path's RTT, which under TCG
#                 carries the emulated CPU's delays: a decrease from a
#                 delay spike on the ACK of an ECE could not be told from
#                 a cut. Its window is then far above the path's BDP and
#                 grows while the shaper holds its rate under eta * B
#                 (the local phase): the cuts are checked all the same
#   cca_cubic     ce: cwnd*max(1 - alpha/2, 0.7), none if it already cut
#                 in this round (a ccalog_rtt marks each round's end);
#                 local, recovery, rto: cwnd*717/1024
#   every rto: cwnd 1 after it
# Results: stdout and $RESULTS/reductions.txt, the trace and its report
# in $RESULTS/reductions/.
#
# `make check` runs it on the spare line (6.12, where its phases were
# calibrated; on 6.1 cca_dcndelay's local phase once had no reduction
# that tells its rule from the loss response), in the first lane (which
# has room since 2026-12-06) after the build suite; `make check-full` on
# every line. Its verdicts compare values the kernel recorded, so the
# load only lengthens the phases (each capped at RD_MAX s;
# $RD_DIR/progress.log says when each began).
# vm-timeout: 420
# vm-lines: spare
# vm-lane: 1

RD_DIR=$RESULTS/reductions
RD_RESULTS=$RESULTS/reductions.txt
RD_PY=$CCAAS_ROOT/tests/vm/lib/reductions.py
RD_CCAS="cca_dctcp cca_dcndelay cca_xregion cca_hpcc cca_cubic"
RD_RATE=6mbit
RD_LOCAL_RATE=2mbit
RD_HPCC_BW=5
RD_DELAY=40ms
RD_LIMIT=10000
RD_MAX=30
TRACEFS=/sys/kernel/tracing
RD_DCN_G_PARAM=/sys/module/tcp_cca_dcndelay/parameters/shift_g

load_ccaas tcp_cca_dctcp tcp_cca_dcndelay tcp_cca_xregion tcp_cca_hpcc tcp_cca_cubic &&
	modprobe sch_htb && modprobe sch_netem && modprobe cls_u32 &&
	modprobe act_pedit && modprobe act_csum || return 1

say() {
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$@" | tee -a "$RD_RESULTS"
}

# rd_port CCA: its sink port; rd_params CCA: its policy parameters
rd_port() {
	local i=0 c
	for c in $RD_CCAS; do
		i=$((i + 1))
		[ "$c" = "$1" ] && echo $((5280 + i)) && return
	done
}
rd_params() {
	case $1 in
	cca_dctcp) echo "param shift_g=8" ;;
	cca_dcndelay) echo "param target_rtt_us=10000 param decrease_pct=1" ;;
	cca_xregion) echo "param ce_thresh=1000" ;;
	cca_hpcc) echo "param bw=$RD_HPCC_BW param base_rtt=200000" ;;
	esac
}

# rd_path: the router, the receiver and one sender per CCA (see the top)
rd_path() {
	local i=0 cca n
	netns_cleanup
	netns_add rd_r && netns_add rd_s && veth_link rd_r srv rd_s eth0 &&
		ip -n rd_r addr add 10.28.0.2/24 dev srv &&
		ip -n rd_s addr add 10.28.0.1/24 dev eth0 &&
		ip -n rd_s route add default via 10.28.0.2 &&
		ns rd_r sysctl -qw net.ipv4.ip_forward=1 &&
		tc -n rd_s qdisc add dev eth0 root netem delay $RD_DELAY limit $RD_LIMIT &&
		tc -n rd_r qdisc add dev srv root handle 1: netem limit $RD_LIMIT &&
		tc -n rd_r qdisc add dev srv clsact &&
		"$CCACTL" -n rd_s policy set default cca cca_dctcp >/dev/null || return 1
	for cca in $RD_CCAS; do
		i=$((i + 1))
		n=rd_${cca#cca_}
		netns_add "$n" && veth_link "$n" eth0 rd_r "c$i" &&
			ip -n "$n" addr add "10.28.$i.1/24" dev eth0 &&
			ip -n rd_r addr add "10.28.$i.2/24" dev "c$i" &&
			ip -n "$n" route add default via "10.28.$i.2" &&
			ip -n "$n" link set dev eth0 gso_max_segs 1 &&
			tc -n "$n" qdisc add dev eth0 root handle 1: htb default 1 &&
			tc -n "$n" class add dev eth0 parent 1: classid 1:1 htb rate $RD_RATE &&
			tc -n "$n" qdisc add dev eth0 parent 1:1 handle 10: pfifo limit 1000 &&
			ns "$n" sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_no_metrics_save=1 \
				net.ipv4.tcp_slow_start_after_idle=0 || return 1
		# shellcheck disable=SC2046 # the parameters are words
		"$CCACTL" -n "$n" policy set default cca "$cca" $(rd_params "$cca") >/dev/null &&
			"$CCACTL" -n "$n" log add all >/dev/null || return 1
	done
}

# rd_mark NAME: a phase begins, in the trace and in $RD_DIR/progress.log
# (the guest's uptime: where a run that reached the file's limit stopped)
rd_mark() {
	echo "rd_phase $1" >"$TRACEFS/trace_marker"
	echo "$(cut -d' ' -f1 /proc/uptime) $1" >>"$RD_DIR/progress.log"
}

# rd_local on|off [CCA]: the sender's (or every sender's) shaper down
# to RD_LOCAL_RATE with a one-packet pfifo (each flow then overflows it:
# local congestion), or back to RD_RATE and 1000 packets; one tc per
# namespace. cca_dcndelay's rate stays RD_RATE: its delay control sizes
# cwnd to the rate, and at RD_LOCAL_RATE that is 4-5 packets, which an
# alpha cut leaves whole (see the rules above)
rd_local() {
	local c rate limit
	for c in ${2:-$RD_CCAS}; do
		rate=$RD_RATE limit=1000
		[ "$1" = on ] && limit=1
		[ "$1" = on ] && [ "${c#cca_}" != dcndelay ] && rate=$RD_LOCAL_RATE
		tc -n "rd_${c#cca_}" -b - <<-EOF
			class change dev eth0 parent 1: classid 1:1 htb rate $rate
			qdisc change dev eth0 parent 1:1 handle 10: pfifo limit $limit
		EOF
	done
}

# rd_status: each sender's status line (reductions.py send: ca_state,
# delivered_ce, total_retrans, bytes_acked, bytes sent, Recovery entries,
# polls in CWR, alpha, the poll's wall clock) into ST_STATE[short], ST_CE,
# ST_ACKED, ST_SENT, ST_REC, ST_CWR, ST_ALPHA, ST_TIME (builtins only: no
# process per poll); a sender not yet connected shows state -1 and time 0
declare -A ST_STATE ST_CE ST_ACKED ST_SENT ST_REC ST_CWR ST_ALPHA ST_TIME BASE
rd_status() {
	local cca c s ce ac se rec cwr al t
	for cca in $RD_CCAS; do
		c=${cca#cca_} s=-1 ce=0 ac=0 se=0 rec=0 cwr=0 al=0 t=0
		[ -e "$RD_DIR/status-$cca" ] &&
			read -r s ce _ ac se rec cwr al t _ 2>/dev/null <"$RD_DIR/status-$cca"
		ST_STATE[$c]=$s ST_CE[$c]=$ce ST_ACKED[$c]=$ac ST_SENT[$c]=$se
		ST_REC[$c]=$rec ST_CWR[$c]=$cwr ST_ALPHA[$c]=$al ST_TIME[$c]=$t
	done
}

# rd_wait MAX COND [ARRAY]: BASE[short] from ST_ARRAY (if given, at the
# call), then poll every 0.1 s until COND (a function called with each
# sender's short CCA name) holds for every sender, at most MAX s; 1 if
# it never did. Events, not times: the guest may run at any pace, MAX
# only bounds a broken run.
rd_wait() {
	local end cca ok
	end=$((${EPOCHREALTIME/./} + ${1}000000))
	rd_status
	if [ -n "$3" ]; then
		local -n rd_src=ST_$3
		for cca in $RD_CCAS; do BASE[${cca#cca_}]=${rd_src[${cca#cca_}]}; done
	fi
	RD_T0=${EPOCHREALTIME/./}
	DRAIN=() LOCAL=()
	while :; do
		rd_status
		ok=1
		for cca in $RD_CCAS; do
			"$2" "${cca#cca_}" || ok=0
		done
		[ $ok = 1 ] && return 0
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# conditions on one sender, against BASE (its figure at the phase's start)
RD_GOING=$((300 * 1448))
rd_going() { [ "${ST_ACKED[$1]}" -ge "$RD_GOING" ]; }
# 20 CE deliveries more, and for cca_dctcp and cca_dcndelay alpha at 3/4
# at least: their cut on local congestion is alpha's, which must still
# show after the short clean phase between (cca_dcndelay's cwnd there is
# a few packets: a cut needs cwnd*alpha >= 2048)
rd_more_ce() {
	[ "${ST_CE[$1]}" -ge $((BASE[$1] + 20)) ] || return 1
	case $1 in dctcp | dcndelay) [ "${ST_ALPHA[$1]}" -ge 768 ] ;; esac
}
rd_more_cwr() { [ "${ST_CWR[$1]}" -ge $((BASE[$1] + 3)) ]; }
rd_more_rec() { [ "${ST_REC[$1]}" -ge $((BASE[$1] + 3)) ]; }
rd_in_loss() { [ "${ST_STATE[$1]}" = 4 ]; }
rd_open() { [ "${ST_STATE[$1]}" = 0 ]; }
# rd_drained: Open, and everything sent before the phase began acked
# (DRAIN[short]: what the first poll taken after the start had sent), so
# that no ECE, drop or loss of the phase before reaches this one's end
declare -A DRAIN
rd_drained() {
	if [ -z "${DRAIN[$1]}" ]; then
		[ "${ST_TIME[$1]}" -gt "$RD_T0" ] || return 1
		DRAIN[$1]=${ST_SENT[$1]}
	fi
	[ "${ST_STATE[$1]}" = 0 ] && [ "${ST_ACKED[$1]}" -ge "${DRAIN[$1]}" ]
}
# rd_drained_local: the clean phase after ce and the local phase, per
# sender: once it has drained (rd_drained), its own local phase begins
# (a marker for its flow alone, its shaper down), at once, so that its
# alpha has decayed little; then until it was seen in CWR 3 times. A
# sender whose queue drains slowly (cca_hpcc's window) holds no other.
declare -A LOCAL
rd_drained_local() {
	if [ -z "${LOCAL[$1]}" ]; then
		rd_drained "$1" || return 1
		rd_mark "local $1"
		rd_local on "$1"
		LOCAL[$1]=1 BASE[$1]=${ST_CWR[$1]}
		return 1
	fi
	rd_more_cwr "$1"
}

test_reductions() {
	local cca pairs="" rec sink pids="" i g
	rm -rf "$RD_DIR" && mkdir -p "$RD_DIR"
	# cca_dcndelay's alpha gain is a module parameter, not a rule's; it
	# is put back when the test returns, and if the file is killed (its
	# time limit: TERM, and bash runs the EXIT trap then only if TERM is
	# trapped), since the guest's later files keep the module loaded
	g=$(cat "$RD_DCN_G_PARAM") && echo 8 >"$RD_DCN_G_PARAM" ||
		{ fail reductions "cannot set $RD_DCN_G_PARAM"; return 1; }
	# shellcheck disable=SC2064 # the value now
	trap "echo $g >$RD_DCN_G_PARAM" EXIT
	trap 'exit 143' TERM
	# shellcheck disable=SC2064 # the value now
	trap "echo $g >$RD_DCN_G_PARAM; trap - RETURN" RETURN
	rd_mark setup
	rd_path || { fail reductions "path setup failed"; return 1; }
	for cca in $RD_CCAS; do
		pairs+=" $(rd_port "$cca")=$cca"
	done
	local filter='dport >= 5281 && dport <= 5285'
	trace-cmd record -q -b 8192 -e tcp:tcp_probe -f "$filter" \
		-e tcp:tcp_cong_state_set -f "$filter" -e ccalog:ccalog_rtt -f "$filter" \
		-o "$RD_DIR/trace.dat" python3 "$RD_PY" wait "$RD_DIR/stop" 400 \
		>"$RD_DIR/record.log" 2>&1 &
	rec=$!
	for i in $(seq 100); do
		read -r i <"$TRACEFS/events/tcp/tcp_probe/enable" && [ "$i" = 1 ] && break
		sleep 0.1
	done
	rd_mark recording
	# shellcheck disable=SC2046 # the ports are words
	ns rd_s python3 "$RD_PY" sink $(for cca in $RD_CCAS; do rd_port "$cca"; done) &
	sink=$!
	wait_port rd_s 5285 || { fail reductions "no sink"; touch "$RD_DIR/stop"; return 1; }
	rd_mark clean0
	for cca in $RD_CCAS; do
		ns "rd_${cca#cca_}" python3 "$RD_PY" send 10.28.0.1 "$(rd_port "$cca")" \
			"$RD_DIR/status-$cca" "$RD_DIR/stop" &
		pids+=" $!"
	done
	rd_wait $RD_MAX rd_going || echo "clean0: not every sender is under way"
	rd_mark ce
	tc -n rd_r -b - <<-EOF
		filter add dev srv egress protocol ip pref 10 u32 match ip tos 0x01 0x01 action pedit ex munge ip tos set 0x03 pipe action csum ip
		filter add dev srv egress protocol ip pref 11 u32 match ip tos 0x02 0x02 action pedit ex munge ip tos set 0x03 pipe action csum ip
	EOF
	rd_wait $RD_MAX rd_more_ce CE || echo "ce: not every sender saw 20 CE deliveries (and alpha 768 for cca_dctcp and cca_dcndelay)"
	rd_mark clean1
	tc -n rd_r filter del dev srv egress
	rd_wait $((2 * RD_MAX)) rd_drained_local ||
		echo "clean1, local: not every sender drained and was seen in CWR 3 times"
	rd_mark clean2
	rd_local off
	rd_wait $RD_MAX rd_drained || echo "clean2: not every sender drained"
	rd_mark recovery
	tc -n rd_r qdisc change dev srv root handle 1: netem loss 2% limit $RD_LIMIT
	rd_wait $RD_MAX rd_more_rec REC || echo "recovery: not every sender entered Recovery 3 times"
	rd_mark clean3
	tc -n rd_r qdisc change dev srv root handle 1: netem limit $RD_LIMIT
	rd_wait $RD_MAX rd_drained || echo "clean3: not every sender drained"
	rd_mark rto
	tc -n rd_r qdisc change dev srv root handle 1: netem loss 100% limit $RD_LIMIT
	rd_wait $RD_MAX rd_in_loss || echo "rto: not every sender reached the Loss state"
	rd_mark clean4
	tc -n rd_r qdisc change dev srv root handle 1: netem limit $RD_LIMIT
	rd_wait $RD_MAX rd_open || echo "rto: not every sender is Open again"
	rd_mark end
	touch "$RD_DIR/stop"
	# shellcheck disable=SC2086 # a list of pids
	wait $pids
	rd_mark senders-done
	# trace-cmd stops with its command and then writes trace.dat; a
	# minute bounds that (SIGINT: it stops and writes what it has)
	for i in $(seq 600); do
		kill -0 "$rec" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$rec" 2>/dev/null
	wait "$rec"
	rd_mark trace-written
	kill "$sink" 2>/dev/null
	trace-cmd report -i "$RD_DIR/trace.dat" >"$RD_DIR/report.txt" 2>/dev/null
	say 'reductions: %s probes, %s state changes, %s ccalog_rtt events in the trace\n' \
		"$(grep -c ' tcp_probe:' "$RD_DIR/report.txt")" \
		"$(grep -c ' tcp_cong_state_set:' "$RD_DIR/report.txt")" \
		"$(grep -c ' ccalog_rtt:' "$RD_DIR/report.txt")"
	pass reductions
	# shellcheck disable=SC2086 # PORT=CCA words
	python3 "$RD_PY" check "$RD_DIR/report.txt" $pairs >"$RD_DIR/verdicts.txt" ||
		{ fail reductions_check "the trace could not be read"; return 1; }
	local name res text
	while IFS=$'\t' read -r name res text; do
		say '  %s: %s\n' "$name" "$text"
		if [ "$res" = OK ]; then pass "$name"; else fail "$name" "$text"; fi
	done <"$RD_DIR/verdicts.txt"
}
