# cca_cubic and in-tree cubic on the same real path, one after the other:
# the real stack's twin of kunit/cca_diff_test.c's HyStart and timeout
# cases. Without ECN cca_cubic must be cubic.
#
#   twin_hystart_exit    both leave slow start by HyStart's delay test
#                        (TcpExtTCPHystartDelayDetect once a run), at the
#                        window TcpExtTCPHystartDelayCwnd and TCP_INFO's
#                        ssthresh give; each CCA's least exit of three runs
#                        (the run the host disturbed least) within a packet
#                        of the other's. Runs of one CCA differ by one (28
#                        and 29), and on a loaded host, for either CCA, now
#                        and then by a HyStart round or two (50, 82)
#   twin_timeout         at the timeout ssthresh = max(cwnd * 717 / 1024, 2)
#                        of the window the last ACKs left, for both
#   twin_ca_after        congestion avoidance after the timeout grows both
#                        windows alike over 2 s (within 25 %), in those runs:
#                        the first epoch after a timeout (no W_max: the
#                        Reno-friendly rule and the 1-in-20 floor), not the
#                        curve, which kunit/cca_diff_test.c compares exactly
#
# Path: client -- router -- server; the router delays data 20 ms towards
# the server, the server ACKs every packet (route quickack), and the
# client sends one MSS per packet (gso_max_segs 1), so that each ACK
# acknowledges one packet, in the same order on every run. The client sends
# ten small packets one at a time (its minimum RTT is the 20 ms path's even
# if the emulated CPU stalls a few; once a run on a loaded host took two
# stalled samples as the minimum and left slow start a round later), then the
# delay steps up to 80 ms and it sends in bulk: slow start passes
# hystart_low_window (16) in the first round at 80 ms, and once 8 RTT
# samples of a round are in, 60 ms above the minimum, HyStart ends it,
# whatever the emulated CPU's speed, as the margin (60 ms against HyStart's
# 4) is far above its delays. Both CCAs run with
# hystart_detect=2 (the delay test alone; an ACK train is what a busy
# emulated CPU could make or break). Then every packet is lost for 1.5 s
# (netem loss 100 %): a timeout, slow start back to ssthresh, congestion
# avoidance. Results: stdout and $RESULTS/twin.txt.
# make check runs it on the oldest line (make check-full on the newest
# too).
# Six runs of about 12 s; each one is cut off after 60 s.
# vm-timeout: 420
# vm-alone: yes
# vm-lines: oldest

TW_RESULTS=$RESULTS/twin.txt
TW_PY=$CCAAS_ROOT/tests/vm/lib/cubic_twin.py
TW_PORT=5301

load_ccaas tcp_cca_cubic && modprobe sch_netem || return 1

# twin_param FILE VALUE: write a module parameter, remembering the old value
tw_saved=()
twin_param() {
	tw_saved+=("$1=$(cat "$1")")
	echo "$2" >"$1"
}
twin_params_restore() {
	local p
	trap - RETURN
	for p in "${tw_saved[@]}"; do
		echo "${p#*=}" >"${p%%=*}"
	done
	tw_saved=()
}

# twin_run CCA: one connection; sets tw_out (cubic_twin.py's line),
# tw_detect and tw_cwnd (the namespace's HyStart delay exits and their
# windows)
twin_run() {
	local snap
	netns_cleanup
	netns_topo3 tw_c tw_r tw_s || return 1
	ip -n tw_c link set eth0 gso_max_segs 1 &&
		ip -n tw_s route change default via "$ROUTER_S_IP" dev eth0 quickack 1 &&
		tc -n tw_r qdisc add dev eth1 root netem delay 20ms limit 100000 || return 1
	ns tw_s python3 "$TW_PY" sink $TW_PORT &
	wait_port tw_s $TW_PORT || return 1
	snap=$(mktemp)
	nstat_snapshot tw_c "$snap"
	tw_out=$(ns tw_c timeout 60 python3 "$TW_PY" run "$SERVER_IP" $TW_PORT "$1" \
		"tc -n tw_r qdisc change dev eth1 root netem delay 80ms limit 100000" \
		"tc -n tw_r qdisc change dev eth1 root netem delay 80ms loss 100% limit 100000" \
		"sleep 1.5; tc -n tw_r qdisc change dev eth1 root netem delay 80ms limit 100000") ||
		{ rm -f "$snap"; echo "$1: $tw_out"; return 1; }
	tw_detect=$(nstat_delta tw_c "$snap" TcpExtTCPHystartDelayDetect)
	tw_cwnd=$(nstat_delta tw_c "$snap" TcpExtTCPHystartDelayCwnd)
	rm -f "$snap"
	printf '%-9s %s delay_exits=%s delay_exit_cwnd=%s\n' "$1" "$tw_out" \
		"$tw_detect" "$tw_cwnd" | tee -a "$TW_RESULTS"
}

# tw_get KEY: KEY's value in tw_out
tw_get() {
	echo "$tw_out" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

test_twin() {
	local cca i ok=1 exit_a="" exit_b="" grow_a="" grow_b="" rto_ok=1 rto_why="" g
	# the parameters go back however the function ends (later files of
	# this boot, 73-hostcn's calibrated cubic included, need them)
	trap twin_params_restore RETURN
	if ! twin_param /sys/module/tcp_cubic/parameters/hystart_detect 2 ||
		! twin_param /sys/module/tcp_cca_cubic/parameters/hystart_detect 2; then
		fail twin "cannot set hystart_detect"
		return 1
	fi
	for i in 1 2 3; do
		for cca in cubic cca_cubic; do
			twin_run $cca || { ok=0; break 2; }
			# one delay exit, at the window TCP_INFO saw as ssthresh
			if [ "$tw_detect" != 1 ] || [ "$tw_cwnd" != "$(tw_get exit_ssthresh)" ]; then
				ok=0
				fail twin_hystart_exit "$cca run $i: $tw_detect delay exits at $tw_cwnd, ssthresh $(tw_get exit_ssthresh)"
			fi
			g="($(tw_get exit_ssthresh), $((1000 * $(tw_get ca_2s) / $(tw_get ca_start))))"
			if [ $cca = cubic ]; then
				exit_a="$exit_a $(tw_get exit_ssthresh)" grow_a="$grow_a,$g"
			else
				exit_b="$exit_b $(tw_get exit_ssthresh)" grow_b="$grow_b,$g"
			fi
			# Cubic's cut of the window before the timeout
			local want=$(($(tw_get hole_cwnd) * 717 / 1024))
			[ $want -ge 2 ] || want=2
			if [ "$(tw_get rto_ssthresh)" != $want ]; then
				rto_ok=0
				rto_why="$rto_why $cca run $i: ssthresh $(tw_get rto_ssthresh) after cwnd $(tw_get hole_cwnd), want $want;"
			fi
		done
	done
	[ $ok = 1 ] || { fail twin "a run failed"; return 1; }
	pass twin
	echo "slow start ended at:$exit_a (cubic),$exit_b (cca_cubic); (exit, growth after the timeout x1000): cubic $grow_a, cca_cubic $grow_b" |
		tee -a "$TW_RESULTS"
	# each CCA's least exit: the run the host disturbed least
	verdict twin_hystart_exit "cubic at$exit_a, cca_cubic at$exit_b" \
		pytrue "abs(min([${grow_a#,}])[0] - min([${grow_b#,}])[0]) <= 1"
	verdict twin_timeout "$rto_why" [ $rto_ok = 1 ]
	# the growth of those two runs
	verdict twin_ca_after "(exit, growth x1000): cubic $grow_a, cca_cubic $grow_b" \
		pytrue "abs(min([${grow_a#,}])[1] - min([${grow_b#,}])[1]) <= 0.25 * max(min([${grow_a#,}])[1], min([${grow_b#,}])[1])"
}
