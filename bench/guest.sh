#!/bin/bash
# Guest side of bench/run.sh: runs inside scripts/vm-run.sh.
#
# Usage: guest.sh PART
#   lookup    scope table vs FIB lookups at 1k, 10k and 100k prefixes
#   selector  connect/close loops with and without the selector's work
#   migrate   ccactl migrate over 1 000, 10 000 and 100 000 connections
#   perack    instructions per emulated ACK of in-tree and ccaas CCAs
#   ccalog    the per-ACK cost of the CCAs' ccalog calls
#   transient the throughput dip of a bulk flow migrated mid-transfer
#   scale     the selector at 10, 100, 1 000 rules; memory per prefix and
#             per policy generation, against the FIB
#   xregion-rpc      RPC latency and checkpoint times across a WAN bottleneck
#                    on cubic, bbr and cca_xregion (bench/guest-rpc.sh)
#   dcndelay-region  RPC fan-in beside bulk flows inside a region on cubic,
#                    dctcp, cca_dctcp and cca_dcndelay (bench/guest-rpc.sh)
#
# Environment (set by run.sh): CCAAS_ROOT, CCAAS_KO_DIR, CCACTL, BENCH_KO
# (ccaas_bench.ko), BENCH_TOOL (conntool), BENCH_DATA (gen_data.py output),
# RESULTS; optional BENCH_ROUNDS, BENCH_CONNECTS, BENCH_REPEATS,
# BENCH_MIG_SIZES; for transient BENCH_TRANSIENT (transient.c's binary) and
# optional BENCH_TR_GROUPS, BENCH_TR_RATE, BENCH_TR_REPS, BENCH_TR_GAP; for
# xregion-rpc and dcndelay-region BENCH_RPC (rpc.c's binary) and the
# optional settings that bench/guest-rpc.sh lists.
#
# Every figure is one line "BENCH <part> key=value ..." on stdout and in
# $RESULTS/bench.txt; bench/report.py makes the tables.
set -eu

# shellcheck source-path=SCRIPTDIR/..
# shellcheck source=tests/vm/lib.sh
. "$CCAAS_ROOT/tests/vm/lib.sh"

DBG=/sys/kernel/debug/ccaas_bench
ROUNDS=${BENCH_ROUNDS:-15}
CONNECTS=${BENCH_CONNECTS:-3000}
REPEATS=${BENCH_REPEATS:-5}
# migrate: the numbers of established connections, each a run of its own
MIG_SIZES=${BENCH_MIG_SIZES:-1000 10000 100000}
MIG_MAX=$(echo "$MIG_SIZES" | tr ' ' '\n' | sort -n | tail -n 1)
MIG_PORT_CONNS=20000
SERVER=$PAIR_B_IP

# emit PART KEY=VALUE...: one result line
emit() {
	echo "BENCH $*" | tee -a "$RESULTS/bench.txt"
}

now_ns() { date +%s%N; }

# ms_since T0: milliseconds since now_ns printed T0
ms_since() { echo $((($(now_ns) - $1) / 1000000)); }

# in_netns NS CMD...: CMD in NS's network namespace only (unlike
# `ip netns exec`, the mounts stay, debugfs included)
in_netns() {
	local n=$1
	shift
	nsenter --net="/run/netns/$n" "$@"
}

# ---- scope vs FIB ------------------------------------------------------------

part_lookup() {
	local size n t0 load_ms route_ms routes table line
	load_ccaas
	insmod "$BENCH_KO"
	for size in 1000 10000 100000; do
		n=t$size
		netns_add "$n"
		t0=$(now_ns)
		table=$("$CCACTL" -s -n "$n" scope load "$BENCH_DATA/scope-$size.txt")
		load_ms=$(ms_since "$t0")
		t0=$(now_ns)
		ip -n "$n" -force -batch "$BENCH_DATA/routes-$size.txt"
		route_ms=$(ms_since "$t0")
		routes=$(ip -n "$n" route show | wc -l)
		emit lookup size="$size" setup=1 scope_load_ms="$load_ms" \
			route_batch_ms="$route_ms" routes="$routes" \
			scope_entries="${table%% entries*}"
		cat "$BENCH_DATA/addrs-$size.bin" >"$DBG/addrs"
		in_netns "$n" sh -c "echo $ROUNDS >$DBG/lookup"
		while read -r line; do
			emit lookup size="$size" "$line"
		done <"$DBG/lookup"
		ip netns del "$n"
	done
}

# ---- selector ------------------------------------------------------------------

# busy_ns: time the CPU spent running tasks (not idle) since boot
busy_ns() { awk '/^cpu0 /{ print $8 }' /proc/schedstat; }

# sel_run CONFIG RUN: a short warm-up loop, then a timed loop of CONNECTS
# connects from a to b. busy_ns (scheduler run time over the timed loop and
# its process start) shows whether the guest idled during the loop.
sel_run() {
	local out b0
	in_netns a "$BENCH_TOOL" loop "$SERVER" 7000 $((CONNECTS / 5)) >/dev/null
	b0=$(busy_ns)
	out=$(in_netns a "$BENCH_TOOL" loop "$SERVER" 7000 "$CONNECTS")
	emit selector config="$1" run="$2" connects="${out% *}" ns="${out#* }" \
		busy_ns=$(($(busy_ns) - b0))
}

# sel_direct CONFIG RUN: the selector's own work at connect, measured by
# the bench module calling the tracepoint's probes on a socket of a
sel_direct() {
	local line
	in_netns a sh -c "echo '$SERVER $ROUNDS' >$DBG/select"
	while read -r line; do
		emit select config="$1" run="$2" "$line"
	done <"$DBG/select"
}

# sel_check: a held connection shows that the selector chose its CCA
sel_check() {
	rm -f /tmp/sel_ready
	# nsenter itself in the background (not in_netns: $! would be a subshell)
	nsenter --net=/run/netns/a "$BENCH_TOOL" hold "$SERVER" 7001 1 /tmp/sel_ready &
	for _ in $(seq 50); do [ -e /tmp/sel_ready ] && break; sleep 0.1; done
	echo "selector check ($1):"
	"$CCACTL" -n a sock show | sed 's/^/  /'
	kill $!
	wait $! 2>/dev/null || true
}

# Configurations are interleaved (each round goes through all of them), so
# that a drift of the guest's state affects them alike.
part_selector() {
	local r
	netns_pair a b
	in_netns b "$BENCH_TOOL" server "$SERVER" 7000 rst &
	in_netns b "$BENCH_TOOL" server "$SERVER" 7001 hold &
	wait_port b 7000 && wait_port b 7001

	for r in $(seq "$REPEATS"); do
		sel_run none "$r"		# ccaas_core not loaded: no probe
		load_ccaas
		insmod "$BENCH_KO"
		sel_run probe "$r"		# probe on, no policy anywhere
		sel_direct probe "$r"
		"$CCACTL" -n a scope add 10.0.0.0/24 locality dc
		"$CCACTL" -n a policy set locality dc cca cubic >/dev/null
		[ "$r" != 1 ] || sel_check rule_1
		sel_run rule_1 "$r"		# a's rule matches, 1-prefix table
		sel_direct rule_1 "$r"
		"$CCACTL" -n a scope load "$BENCH_DATA/scope-sel.txt"
		[ "$("$CCACTL" -n a -j scope show "$SERVER" |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["locality"])')" = dc ]
		[ "$r" != 1 ] || sel_check rule_100k
		sel_run rule_100k "$r"		# the same rule, 100 000 prefixes
		sel_direct rule_100k "$r"
		"$CCACTL" -n a policy set default cca cubic >/dev/null
		"$CCACTL" -n a scope flush
		sel_run default_rule "$r"	# no scope match: the default rule
		sel_direct default_rule "$r"
		rmmod ccaas_bench
		rmmod ccaas_core		# a's state goes with it
	done
}

# ---- migration -------------------------------------------------------------------

# mig_pass SIZE ROUND KIND TARGET: one timed `ccactl migrate`
mig_pass() {
	local t0 ms out
	t0=$(now_ns)
	out=$("$CCACTL" -n a -j migrate)
	ms=$(ms_since "$t0")
	emit migrate size="$1" round="$2" pass="$3" target="$4" ccactl_ms="$ms" \
		"kernel_$(tail -n 1 "$DBG/migrate")" \
		reply="$(echo "$out" | tr -d ' \n')"
}

# mig_size N: N established connections from a to b, on MIG_PORT_CONNS per
# server port (one client address: a port range per destination port; the
# kernel gives connect() the even half of the range first, 25 500 ports
# here; past them each connect scans further for a free port),
# then three rounds of a move and an idempotent pass; round 3 also times
# each socket's visit (a second kretprobe, which the per-socket figure of
# rounds 1 and 2 does not carry)
mig_size() {
	local n=$1 r target t0 ports p left c pids=""
	netns_cleanup
	netns_pair a b
	ns a sysctl -qw net.ipv4.ip_local_port_range="10000 60999"
	"$CCACTL" -n a scope add "$SERVER/32" locality dc
	"$CCACTL" -n a policy set default cca cubic >/dev/null
	ports=$(((n + MIG_PORT_CONNS - 1) / MIG_PORT_CONNS))
	for p in $(seq 0 $((ports - 1))); do
		in_netns b "$BENCH_TOOL" server "$SERVER" $((7002 + p)) hold &
		wait_port b $((7002 + p))
	done
	t0=$(now_ns)
	left=$n
	rm -f /tmp/mig_ready.*
	for p in $(seq 0 $((ports - 1))); do
		c=$((left < MIG_PORT_CONNS ? left : MIG_PORT_CONNS))
		left=$((left - c))
		in_netns a "$BENCH_TOOL" hold "$SERVER" $((7002 + p)) "$c" "/tmp/mig_ready.$p" &
		pids="$pids $!"
	done
	for p in $(seq 0 $((ports - 1))); do
		while [ ! -e "/tmp/mig_ready.$p" ]; do
			# shellcheck disable=SC2086 # one word per pid
			kill -0 $pids || { echo "conntool hold failed" >&2; return 1; }
			if [ "$(ms_since "$t0")" -gt 300000 ]; then
				echo "$n connections not open after 300 s:" \
					"$(ns a ss -Htn state established | wc -l) established," \
					"$(ns a ss -Htn state syn-sent | wc -l) in SYN-SENT" >&2
				grep -E 'MemFree|Slab' /proc/meminfo >&2
				dmesg | tail -n 5 >&2
				return 1
			fi
			sleep 0.5
		done
	done
	c=$(ns a ss -Htn state established | wc -l)
	emit migrate setup=1 size="$n" connections="$c" open_ms="$(ms_since "$t0")"
	for r in 1 2 3; do
		target=cca_dctcp
		[ $((r % 2)) = 1 ] || target=cubic
		if [ "$r" = 3 ]; then echo 2; else echo 1; fi >"$DBG/migrate"
		"$CCACTL" -n a policy set locality dc cca "$target" no_migrate >/dev/null
		mig_pass "$n" "$r" move "$target"
		mig_pass "$n" "$r" again "$target"
		echo "$n sockets, after round $r: $(ns a ss -tinH state established |
			grep -oE ' (cubic|cca_dctcp[-a-z]*) ' | sort | uniq -c | tr '\n' ' ')"
	done
	echo 0 >"$DBG/migrate"
}

part_migrate() {
	local n
	load_ccaas tcp_cca_dctcp
	insmod "$BENCH_KO"
	ulimit -n $((MIG_MAX + 1000))
	for n in $MIG_SIZES; do
		mig_size "$n" || return 1
	done
}

# ---- scale: the selector against the policy's size; memory -----------------

# rules_file N WHERE: a policy of N rules: N - 1 for `locality dc region 1
# dc D` and the default rule. WHERE=last: D = 2..N, none of them the
# server's (region 1, dc 1), so the match is the default rule, the last in
# precedence order, after all the others; WHERE=first: D = 1..N-1, and the
# server's rule is the first. WHERE=local: all N - 1 for the server's DC,
# each with a local prefix 172.16.A.B/32 that the socket's (unbound) local
# address is not in: one group of the index whose rules are all tried
# before the default rule matches, the index's worst case.
#
# Service rules (which every lookup walks before the index): WHERE=cgfirst:
# N - 1 rules `cgroup ccaas-bench-svc/cD`, the writer in c1, whose rule is
# the first; WHERE=cglast: the same rules, the writer in a cgroup none of
# them names, so the default rule matches after all of them;
# WHERE=portlast: N - 1 rules `port P` for ports the socket's (9) is not;
# WHERE=onesvc: the `last` policy with one of its rules turned into a
# service rule the socket does not match (what one service rule adds).
rules_file() {
	case $2 in
	local) seq 0 $(($1 - 2)) | awk '{ printf "locality dc region 1 dc 1 local 172.16.%d.%d/32 cca cubic\n", $1 / 256, $1 % 256 }' ;;
	first) seq 1 $(($1 - 1)) | awk '{ print "locality dc region 1 dc " $1 " cca cubic" }' ;;
	last) seq 2 "$1" | awk '{ print "locality dc region 1 dc " $1 " cca cubic" }' ;;
	onesvc) seq 3 "$1" | awk '{ print "locality dc region 1 dc " $1 " cca cubic" }'
		echo "cgroup ccaas-bench-svc/c1 locality dc region 1 dc 2 cca cubic" ;;
	cgfirst | cglast) seq 1 $(($1 - 1)) | awk '{ print "cgroup ccaas-bench-svc/c" $1 " cca cubic" }' ;;
	portlast) seq 10 $(($1 + 8)) | awk '{ print "port " $1 " cca cubic" }' ;;
	esac
	echo "default cca cubic"
}

# svc_cgroups N: cgroups ccaas-bench-svc/c1 .. cN and ccaas-bench-svc/none
svc_cgroups() {
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	seq 1 "$1" | sed "s|^|/sys/fs/cgroup/ccaas-bench-svc/c|" | xargs mkdir -p
	mkdir -p /sys/fs/cgroup/ccaas-bench-svc/none
}

# sel_direct_in CGROUP CONFIG RUN: sel_direct from a shell in CGROUP (below
# ccaas-bench-svc): the bench's socket is made there
sel_direct_in() {
	(
		echo "$BASHPID" >"/sys/fs/cgroup/ccaas-bench-svc/$1/cgroup.procs"
		sel_direct "$2" "$3"
	)
}

# memcg_kernel: kernel memory charged to the bench cgroup (memory.stat
# "kernel")
memcg_kernel() {
	memcg_stat "$MEMCG" kernel
}

# memcg_settle: wait until the bench cgroup's kernel memory stops moving
# (within 16 KiB over one flush period): a deleted netns is freed later, by
# a workqueue, and its memory leaves the cgroup then
memcg_settle() {
	local a b i
	b=$(memcg_kernel)
	for i in $(seq 12); do
		a=$b
		b=$(memcg_kernel)
		[ $((a - b)) -gt 16384 ] || [ $((b - a)) -gt 16384 ] || return 0
	done
	echo "memcg: kernel memory still moving after $i periods ($a -> $b)" >&2
	return 1
}

# charged CMD...: run CMD in the bench cgroup (GFP_KERNEL_ACCOUNT memory that
# its syscalls allocate is charged there), its output to /tmp/charged.out;
# prints the bytes it left charged
charged() {
	local k0
	k0=$(memcg_kernel)
	# (set -e does not reach into $(...): a failed CMD must fail here)
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$MEMCG" "$@" >/tmp/charged.out ||
		return 1
	echo $(($(memcg_kernel) - k0))
}

MEMCG=/sys/fs/cgroup/ccaas-bench

part_scale() {
	local n where gen k0 bytes
	load_ccaas
	insmod "$BENCH_KO"
	# the selector at connect, called directly (sel_direct), by policy size
	netns_pair a b
	"$CCACTL" -n a scope add "$SERVER/32" locality dc region 1 dc 1
	svc_cgroups 1000
	for n in 10 100 1000; do
		for where in first last local onesvc cgfirst cglast portlast; do
			rules_file "$n" "$where" >/tmp/rules.conf
			"$CCACTL" -n a policy apply /tmp/rules.conf >/dev/null
			[ "$("$CCACTL" -n a -j policy show | python3 -c \
				'import json,sys; print(len(json.load(sys.stdin)["rules"]))')" = "$n" ]
			case $where in
			cgfirst) sel_direct_in c1 "rules_${n}_$where" 1 ;;
			*) sel_direct_in none "rules_${n}_$where" 1 ;;
			esac
		done
	done
	ip netns del a
	ip netns del b
	find /sys/fs/cgroup/ccaas-bench-svc -depth -type d -exec rmdir {} +

	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$MEMCG"
	grep -q '^kernel ' "$MEMCG/memory.stat" ||
		{ echo "memory.stat has no 'kernel' line" >&2; return 1; }
	memcg_settle
	# memory per prefix: the scope table (its own count, and the memcg's)
	# against the FIB with the same prefixes, one fresh netns each
	for n in 10000 100000; do
		netns_add "s$n"
		netns_add "f$n"
		bytes=$(charged "$CCACTL" -s -n "s$n" scope load "$BENCH_DATA/scope-$n.txt") ||
			return 1
		emit memory what=scope prefixes="$n" charged="$bytes" \
			table_bytes="$(sed -nE 's/.*, ([0-9]+) bytes.*/\1/p' /tmp/charged.out)"
		bytes=$(charged ip -n "f$n" -force -batch "$BENCH_DATA/routes-$n.txt") ||
			return 1
		emit memory what=fib prefixes="$n" charged="$bytes" \
			routes="$(ip -n "f$n" route show | wc -l)"
		ip netns del "s$n"
		ip netns del "f$n"
		memcg_settle
	done
	# memory per generation: 8 commits of an N-rule policy (the default
	# history keeps 16), alternating two CCAs so that each is a new one
	for n in 100 1000; do
		netns_add "g$n"
		k0=$(memcg_kernel)
		for gen in 1 2 3 4 5 6 7 8; do
			rules_file "$n" first | { if [ $((gen % 2)) = 1 ]; then cat; else sed 's/cubic$/reno/'; fi; } >/tmp/rules.conf
			sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$MEMCG" \
				"$CCACTL" -n "g$n" policy apply /tmp/rules.conf >/dev/null
		done
		bytes=$(($(memcg_kernel) - k0))
		emit memory what=generation rules="$n" generations=8 charged="$bytes" \
			history="$("$CCACTL" -n "g$n" policy history | grep -c '^ *[0-9]')"
		ip netns del "g$n"
		memcg_settle
	done
}

# ---- per-ACK cost of CCAs ---------------------------------------------------------

PERACK_CCAS="reno dctcp cubic bbr cca_dctcp cca_cubic cca_dcndelay cca_xregion cca_hpcc"

part_perack() {
	local line
	load_ccaas tcp_cca_dctcp tcp_cca_cubic tcp_cca_dcndelay tcp_cca_xregion tcp_cca_hpcc
	modprobe tcp_dctcp 2>/dev/null || true	# else setsockopt loads them
	modprobe tcp_bbr 2>/dev/null || true
	insmod "$BENCH_KO"
	netns_add p
	ip netns exec p sysctl -qw net.ipv4.tcp_ecn=1
	# shellcheck disable=SC2086 # a list of names
	in_netns p python3 "$CCAAS_ROOT/bench/perack.py" "$DBG/perack" \
		"$ROUNDS" $PERACK_CCAS >/tmp/perack.txt
	while read -r line; do
		emit perack "$line"
	done </tmp/perack.txt
}

# ---- ccalog: the cost of its calls -------------------------------------------------

# Each ccaas CCA with its ccalog calls, the connection not selected
# ("off"), against the same source built without them (cca_dctcp0, ...:
# "nocalls"); then selected with the tracepoint disabled ("selected") and
# enabled ("traced", events written to the ring buffer).
CCALOG_CCAS="cca_dctcp cca_cubic cca_dcndelay cca_xregion"

part_ccalog() {
	local line cca
	# shellcheck disable=SC2046 # a list of names
	load_ccaas $(for cca in $CCALOG_CCAS; do echo "tcp_$cca"; done)
	insmod "$BENCH_KO"
	for cca in $CCALOG_CCAS; do
		insmod "$(dirname "$BENCH_KO")/tcp_${cca}0.ko" || return 1
	done
	netns_add p
	ip netns exec p sysctl -qw net.ipv4.tcp_ecn=1
	ccalog_perack() { # TAG CCA...
		local tag=$1
		shift
		in_netns p python3 "$CCAAS_ROOT/bench/perack.py" --tag "$tag" \
			"$DBG/perack" "$ROUNDS" "$@"
	}
	{
		# shellcheck disable=SC2046,SC2086
		ccalog_perack nocalls $(for cca in $CCALOG_CCAS; do echo "${cca}0"; done) &&
			ccalog_perack off $CCALOG_CCAS &&
			"$CCACTL" -n p log add all >/dev/null &&
			ccalog_perack selected $CCALOG_CCAS &&
			echo 1 >/sys/kernel/tracing/events/ccalog/ccalog_rtt/enable &&
			ccalog_perack traced $CCALOG_CCAS
	} >/tmp/ccalog.txt
	echo 0 >/sys/kernel/tracing/events/ccalog/ccalog_rtt/enable
	while read -r line; do
		emit ccalog "$line"
	done </tmp/ccalog.txt
}

# ---- transient: the dip of a bulk flow at a migration -------------------------

# Pairs of CCAs, by group LOCALITY:RTT_MS:CE_MS:A:B; each group one flow from
# tr_c to tr_s through the router tr_r, moved A -> B -> A ... mid-transfer.
# The demo and the fleet playbook move cross-region connections between
# cca_xregion and the transitional cca_cubic (policy v2 and its rollback;
# a pair's rollout and rollback), and `ccaas-service upgrade-cca` parks a
# region's connections on cca_cubic and brings them back.
TR_GROUPS=${BENCH_TR_GROUPS:-xregion:40:5:cca_xregion:cca_cubic region:10:2:cca_dcndelay:cca_cubic}
TR_RATE=${BENCH_TR_RATE:-50}	# Mbit/s at the bottleneck
TR_REPS=${BENCH_TR_REPS:-3}	# moves each way per group
TR_GAP=${BENCH_TR_GAP:-3}	# seconds between moves
TR_WARM=4			# seconds of transfer before the first event
TR_PORT=5300

# tr_event KIND FROM TO: one `ccactl migrate` (after the policy names TO),
# its CLOCK_REALTIME before and after appended to /tmp/tr.events
tr_event() {
	local t0 out
	"$CCACTL" -n tr_c policy set locality "$TR_LOC" cca "$3" no_migrate >/dev/null
	t0=$(now_ns)
	out=$("$CCACTL" -n tr_c -j migrate)
	echo "$1 $2 $3 $t0 $(now_ns)" >>/tmp/tr.events
	echo "transient: $1 $2 -> $3: $(echo "$out" | tr -d ' \n')"
}

# tr_group LOCALITY RTT_MS CE_MS A B
tr_group() {
	local rtt=$2 ce=$3 a=$4 b=$5 secs r sender line
	TR_LOC=$1
	netns_cleanup
	netns_topo3 tr_c tr_r tr_s
	# one segment per packet: a 64 KB GSO packet is 10 ms of a 50 Mbit/s link
	ip -n tr_c link set eth0 gso_max_segs 1
	ip -n tr_s link set eth0 gso_max_segs 1
	tc -n tr_r qdisc add dev eth1 root handle 1: htb default 1
	tc -n tr_r class add dev eth1 parent 1: classid 1:1 htb rate "${TR_RATE}mbit" quantum 1514
	tc -n tr_r qdisc add dev eth1 parent 1:1 handle 10: fq_codel ce_threshold "${ce}ms" ecn
	# the round trip's delay on the ACKs' way back
	tc -n tr_r qdisc add dev eth0 root netem delay "${rtt}ms" limit 100000
	# b's listener on an ECN CCA, so it accepts ECN (60-migrate.sh)
	"$CCACTL" -n tr_s policy set default cca cca_dctcp >/dev/null
	"$CCACTL" -n tr_c scope add "$SERVER_IP/32" locality "$TR_LOC" region 2
	"$CCACTL" -n tr_c policy set locality "$TR_LOC" cca "$a" >/dev/null
	in_netns tr_s "$BENCH_TRANSIENT" sink "$SERVER_IP" $TR_PORT &
	wait_port tr_s $TR_PORT
	secs=$((TR_WARM + TR_GAP * (2 * TR_REPS + 1) + 2))
	rm -f /tmp/tr.events /tmp/tr.samples
	in_netns tr_c "$BENCH_TRANSIENT" send "$SERVER_IP" $TR_PORT "$secs" 1000 \
		/tmp/tr.samples &
	sender=$!
	sleep "$TR_WARM"
	echo "transient: $TR_LOC $(ns tr_c ss -tinH state established "( dport = :$TR_PORT )" |
		tr -s ' \n' ' ')"
	tr_event noop "$a" "$a"	# the same CCA: what the command costs alone
	sleep "$TR_GAP"
	for r in $(seq "$TR_REPS"); do
		tr_event move "$a" "$b"
		sleep "$TR_GAP"
		tr_event move "$b" "$a"
		sleep "$TR_GAP"
	done
	wait "$sender"
	tc -n tr_r -s qdisc show dev eth1 | sed 's/^/transient: qdisc /'
	cp /tmp/tr.samples "$RESULTS/transient-$TR_LOC.samples"
	cp /tmp/tr.events "$RESULTS/transient-$TR_LOC.events"
	python3 "$CCAAS_ROOT/bench/transient.py" /tmp/tr.samples /tmp/tr.events >/tmp/tr.out
	while read -r line; do
		emit transient group="$TR_LOC" rate_mbit="$TR_RATE" path_rtt_ms="$rtt" \
			ce_ms="$ce" "$line"
	done </tmp/tr.out
}

part_transient() {
	local g
	load_ccaas tcp_cca_dctcp tcp_cca_cubic tcp_cca_dcndelay tcp_cca_xregion
	modprobe -a sch_htb sch_fq_codel sch_netem
	for g in $TR_GROUPS; do
		# shellcheck disable=SC2046 # the fields of one group
		tr_group $(echo "$g" | tr : ' ')
	done
	netns_cleanup
}

# The guest has no entropy source: until something blocks on /dev/random
# (which makes the kernel gather timer jitter), its CRNG is not ready, and
# every get_random_*() takes a slow path: ~50 000 more instructions per
# connect here. Real hosts are long past that; make the guest so too.
crng_ready() {
	head -c 1 /dev/random >/dev/null
	dmesg | grep -m1 'crng init done' || echo "crng: $(dmesg | grep -ci crng) messages"
}

case "${1:-}" in
lookup | selector | migrate | perack | ccalog | transient | scale)
	crng_ready
	"part_$1"
	;;
xregion-rpc | dcndelay-region)
	# shellcheck source=bench/guest-rpc.sh
	. "$CCAAS_ROOT/bench/guest-rpc.sh"
	crng_ready
	"part_${1//-/_}"
	;;
*)
	echo "usage: guest.sh lookup|selector|migrate|perack|ccalog|transient|scale|xregion-rpc|dcndelay-region" >&2
	exit 2
	;;
esac
emit "done" part="$1"
