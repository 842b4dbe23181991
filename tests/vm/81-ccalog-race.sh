# shellcheck shell=bash
# The ccalog selection's walks, and the STATS_GET walk, against connections
# closing and their CCA's module going away: LOG_GET, STATS_GET, `log add
# all` and `log del all` back to back
# while rounds of connections on cca_dctcp close, are drained and the module
# unloads. Apart from 80-ccalog so that it runs on the sanitizer kernel,
# which reports a use of freed CCA ops that a stock kernel may not notice.
# make check runs it on the sanitizer kernel alone (make check-full on
# every line; without the sanitizer kernel, on the newest); 80-ccalog
# covers the oldest.
# vm-debug: yes
# vm-lines: sanitizer
# vm-timeout: 180

load_ccaas tcp_cca_dctcp

# The selection's walks read each socket's CCA ops, holding a reference on
# the socket but not on the CCA's module. A connection that closes drops
# its module reference; `cca drain` and rmmod may then free the ops while
# a walk still holds the socket. Here the walks run back to back: LOG_GET
# (which any user may send; its count locks no socket) from an
# unprivileged process, `log add all` / `log del all` from a privileged
# one, over 300 idle connections that keep them long; meanwhile each round
# opens 200 connections on cca_dctcp to a server that closes them at once,
# closes them, drains the CCA and unloads its module (up to 20 rounds, as
# many as 45 s allow). Full preemption (PREEMPT_DYNAMIC) lets a walk be
# interrupted anywhere. A read of freed ops may fault; the debug kernel's
# sanitizers report it. The module must unload every round and no request
# may fail.
test_ccalog_walks_race_unload() {
	local pre=/sys/kernel/debug/sched/preempt old stop=/tmp/lg_race_stop
	local conns=$CCAAS_ROOT/tests/vm/lib/conns.py loop
	local get add r rc=0 why="" unloaded=0 backlog start hog allowed
	# one walker runs as nobody
	loop=$(any_user "$CCAAS_ROOT/tests/vm/lib/genl_loop.py" \
		"$CCAAS_ROOT/tests/vm/lib/genl.py") || return 1
	netns_cleanup
	netns_add lg_u || return 1
	ns lg_u python3 "$conns" server 127.0.0.1 5301 >/dev/null 2>&1 &
	ns lg_u python3 -c 'import socket
ls = socket.create_server(("127.0.0.1", 5302), backlog=1024)
while True:
    ls.accept()[0].close()' >/dev/null 2>&1 &
	wait_port lg_u 5301 && wait_port lg_u 5302 || return 1
	rm -f /tmp/lg_pad "$stop"
	ns lg_u python3 "$conns" client 127.0.0.1 5301 300 /tmp/lg_pad --cc cubic --hold 600 \
		>/dev/null 2>&1 &
	for r in $(seq 300); do [ -e /tmp/lg_pad ] && break; sleep 0.1; done
	[ -e /tmp/lg_pad ] || { fail ccalog_walks_race_unload "padding connections not open"; return 1; }
	old=$(sed -nE 's/.*\(([a-z]+)\).*/\1/p' "$pre" 2>/dev/null)
	[ -z "$old" ] || echo full >"$pre" || return 1
	# With the CPU busy, loopback packets wait for ksoftirqd; a full
	# backlog would drop some, and a dropped SYN or FIN stalls a round for
	# a minute of retransmissions.
	backlog=$(sysctl -n net.core.netdev_max_backlog)
	# an unloaded CCA leaves the allowed list: put it back afterwards
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	sysctl -qw net.core.netdev_max_backlog=20000
	# LOG_GET = 20, STATS_GET = 21 (a dump); LOG_ADD = 18, LOG_DEL = 19
	# with CCAAS_A_LOG_ALL = 2
	# The walkers run niced: the rounds get the CPU first, and a walk they
	# preempt waits longer.
	ns lg_u nice -n 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all python3 "$loop" "$stop" 20 21/d >/tmp/lg_get.out 2>&1 &
	get=$!
	ns lg_u nice -n 10 python3 "$loop" "$stop" 18:2 19:2 >/tmp/lg_add.out 2>&1 &
	add=$!
	# At most 20 rounds, none begun after 45 s: a slow host does fewer.
	start=$SECONDS
	for r in $(seq 20); do
		[ $((SECONDS - start)) -lt 45 ] || break
		load_ccaas tcp_cca_dctcp || { why="insmod failed in round $r"; break; }
		rm -f /tmp/lg_churn
		ns lg_u timeout 120 python3 "$conns" client 127.0.0.1 5302 200 /tmp/lg_churn \
			--cc cca_dctcp --hold 0 >/dev/null 2>&1 ||
			{ why="round $r: cca_dctcp connections failed"; break; }
		# A busy task beside the drain and the unload keeps a preempted
		# walk waiting while the module goes.
		python3 -c 'while True: pass' &
		hog=$!
		"$CCACTL" -n lg_u cca drain cca_dctcp to reno >/dev/null ||
			{ kill $hog; why="round $r: drain failed"; break; }
		# closing connections may wait for a retransmitted FIN
		for _ in $(seq 300); do
			rmmod tcp_cca_dctcp 2>/dev/null && break
			sleep 0.1
		done
		kill $hog
		grep -q '^tcp_cca_dctcp ' /proc/modules &&
			{ why="round $r: tcp_cca_dctcp still in use: $(ns lg_u ss -taniH | grep -B1 cca_dctcp)"; break; }
		unloaded=$((unloaded + 1))
	done
	touch "$stop"
	wait $get || rc=1
	wait $add || rc=1
	[ -z "$old" ] || echo "$old" >"$pre"
	sysctl -qw net.core.netdev_max_backlog="$backlog"
	load_ccaas tcp_cca_dctcp
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed"
	echo "unloaded $unloaded times; LOG_GET: $(head -n 1 /tmp/lg_get.out); add/del all: $(head -n 1 /tmp/lg_add.out)"
	# every walker must have walked (genl_loop.py: "requests N errors E")
	grep -q '^requests [1-9]' /tmp/lg_get.out && grep -q '^requests [1-9]' /tmp/lg_add.out ||
		why=${why:-"a walker sent no request"}
	[ -z "$why" ] && [ $rc = 0 ] && [ $unloaded -gt 0 ] ||
		fail ccalog_walks_race_unload "${why:-a request failed}: $(cat /tmp/lg_get.out /tmp/lg_add.out)"
}
