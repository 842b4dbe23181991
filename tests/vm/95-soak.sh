# Race soak: connection churn between namespaces while the control plane,
# module unloads and namespace deletions run against it, all at once.
#
# Hosts sa (10.0.0.1, fd00::1) and sb (10.0.0.2, fd00::2) each run a server
# (lib/soak_conns.py: port 5101 IPv4, 5102 IPv6-only, 5103 dual-stack) and
# a client of the other's: short connections (connect, send, maybe read,
# close or abort), held ones, some sending in bulk, some pinned with
# TCP_CONGESTION. sa asks for ECN on every connection (tcp_ecn=1), sb only
# accepts it. Meanwhile, in the background (lib/soak_ops.sh):
#   - policy set/apply/rollback/del with migration (some forced, some
#     no_migrate) and migrate, in sa and in sb;
#   - scope load of changing tables (and add, del, flush), in sa and sb;
#   - log add/del all, and by filter, in every namespace;
#   - cca drain of cca_dcndelay or cca_xregion in every namespace, then
#     rmmod of its module (refused while a policy or a socket holds it:
#     retried and counted), then modprobe or insmod;
#   - the servers close and reopen their listeners, some while children
#     wait unaccepted in the accept queue; and a listener in sb that never
#     accepts has its queue filled from sa (up to 120 children) and is killed
#     while migrate, drain or a log walk runs in sb;
#   - namespaces seN with a policy, scope table and log selection of their
#     own, and connections (over loopback, and to sb over a veth), created
#     and deleted under the churn;
#   - dumps: sock show, policy history, scope show, ss -tie (which reads
#     every socket's CCA info without the socket lock).
# Every worker stops by itself, at the deadline or at its count bound. Then,
# with the held connections still open:
#   soak_migrate_idempotent   a second migrate moves nothing
#   soak_sockets_on_rule      every connection is on its rule's CCA (or its
#                             fallback ops), pinned, without a rule, or
#                             refused by the sticky-ECN rule, as the
#                             kernel's own counts say
#   soak_force_idempotent     after migrate force, a second one moves and
#                             refuses nothing, and all are on their rule's
#   soak_listeners_on_rule    every listener is on the CCA a listener opened
#                             now gets, as the soak left them and after one
#                             more change of that CCA
#   soak_knobs_restored       after "default cca cca_cubic min_rto 5ms" and
#                             then "default cca cca_cubic", every unpinned
#                             connection is on it with the kernel's min RTO
#   soak_modules_unload       with everything stopped, drained and the
#                             namespaces gone, every ccaas module unloads
#   soak_slab_caches          no extension slab cache of a CCA is left
#   soak_kernel_log           no WARNING, BUG, Oops, KASAN, UBSAN, lockdep,
#                             RCU or kmemleak report since the soak began
# and a summary: seconds, connections, commits, loads, cycles, namespaces.
#
# SOAK_SECONDS (default 60, at most the file's limit less SOAK_RESERVE)
# and SOAK_SEED (default: the time) come from the environment or from
# build/soak.env, which `make soak SOAK_SECONDS=600 SOAK_SEED=N` writes.
# Nothing is asserted on rates: the counts are reported, the verdicts are
# about the end state and the kernel log. While the soak runs, a kernel
# that can (PREEMPT_DYNAMIC) is switched to full preemption, so that one
# vCPU interleaves the workers inside the kernel too.
# Artifacts: $RESULTS/soak/ (each worker's log of its operations, stamped
# with the uptime of the kernel log, its counts and refusals).

# Not in `make check` (its time budget): `make soak` runs it (600 s of soak
# by default), `make check-full` with 60 s (about 3.5 minutes on the
# sanitizer kernel, whose limit is three times the one below, room for a
# busy host). `make soak` raises the limit to fit SOAK_SECONDS.
# vm-debug: only
# vm-full: yes
# vm-timeout: 240

SOAK_CONNS=$CCAAS_ROOT/tests/vm/lib/soak_conns.py
SOAK_CHECK=$CCAAS_ROOT/tests/vm/lib/soak_check.py
SOAK_DIR=$RESULTS/soak
SOAK_RESERVE=150
# what the clients and servers keep open for the checks (they are stopped
# before the unload)
SOAK_HOLD=600
SOAK_PORTS="5101 5102 5103"
# the kernel log reports that fail the soak (kmemleak's are checked in its
# own file, where they can be told apart from other code's)
SOAK_REPORTS='WARNING:|BUG:|Oops|KASAN|UBSAN|KFENCE|possible circular|possible recursive|inconsistent lock state|suspicious RCU|sleeping function called from invalid context|general protection|refcount_t:|list_add corruption|list_del corruption|soft lockup|hard LOCKUP|blocked for more than|rcu: INFO|self-detected stall|Call Trace'

# shellcheck disable=SC1091 # in the repository
[ ! -f "$CCAAS_ROOT/build/soak.env" ] || . "$CCAAS_ROOT/build/soak.env"
soak_max=$((${CCAAS_VM_FILE_LIMIT:-${CCAAS_VM_FILE_TIMEOUT:-300}} - SOAK_RESERVE))
SOAK_SECONDS=${SOAK_SECONDS:-60}
if [ "$SOAK_SECONDS" -gt "$soak_max" ]; then
	echo "soak: $SOAK_SECONDS s do not fit the file's limit; soaking $soak_max s"
	SOAK_SECONDS=$soak_max
fi
SOAK_SEED=${SOAK_SEED:-$(date +%s)}
# when the driver kills this file; the checks after the soak fit what is
# left, so that a slow machine gets a FAIL that says why, not a timeout
SOAK_FILE_END=$((EPOCHSECONDS + ${CCAAS_VM_FILE_LIMIT:-${CCAAS_VM_FILE_TIMEOUT:-300}}))
SOAK_MODULES=$(for ko in "$CCAAS_KO_DIR"/tcp_cca_*.ko; do basename "$ko" .ko; done)

# shellcheck source-path=SCRIPTDIR
. "$CCAAS_ROOT/tests/vm/lib/soak_ops.sh"

# soak_unload_all SECONDS: rmmod every ccaas module, retrying for up to
# SECONDS (namespaces that are going away still hold their policies);
# succeeds once none is loaded
soak_unload_all() {
	local end=$((EPOCHSECONDS + $1)) m
	while :; do
		for m in $SOAK_MODULES; do
			! soak_module_loaded "$m" || rmmod "$m" 2>/dev/null
		done
		! soak_module_loaded ccaas_core || rmmod ccaas_core 2>/dev/null
		soak_module_loaded ccaas_core || return 0
		[ "$EPOCHSECONDS" -lt "$end" ] || return 1
		sleep 1
	done
}

# soak_within SECONDS [RESERVE]: SECONDS, or less if the file's limit is
# nearer than that plus RESERVE (default 30) seconds
soak_within() {
	local left=$((SOAK_FILE_END - EPOCHSECONDS - ${2:-30}))
	echo $((left < $1 ? (left > 0 ? left : 1) : $1))
}

# soak_refcnts: "module refcount" of every ccaas module still loaded
soak_refcnts() {
	local m
	for m in $SOAK_MODULES ccaas_core; do
		[ ! -e "/sys/module/$m/refcnt" ] || echo "$m $(cat "/sys/module/$m/refcnt")"
	done | tr '\n' ' '
}

# soak_cca_table FILE: `ccactl -j cca show` of every registered CCA, as
# one JSON array
soak_cca_table() {
	local c sep=""
	{
		echo "["
		for c in $("$CCACTL" cca list | awk 'NR > 1 { print $1 }'); do
			echo "$sep"
			"$CCACTL" -j cca show "$c"
			sep=,
		done
		echo "]"
	} >"$1"
}

# soak_kmemleak FILE: scan for leaks (where the kernel has kmemleak) and
# keep the reports in FILE; leaves no FILE otherwise
soak_kmemleak() {
	local k=/sys/kernel/debug/kmemleak
	[ -w $k ] || return 0
	echo scan >$k && cp $k "$1"
}

# soak_preempt [MODE]: the kernel's preemption mode, or switch to MODE
soak_preempt() {
	local f=/sys/kernel/debug/sched/preempt
	[ -w $f ] || return 1
	if [ -n "${1:-}" ]; then
		echo "$1" >$f
	else
		sed -nE 's/.*\((.*)\).*/\1/p' $f
	fi
}

soak_prepare() {
	local f
	# A fresh start: the modules loaded by this file only.
	soak_unload_all 30 ||
		echo "note: ccaas was loaded and would not unload before the soak: $(soak_refcnts)"
	# shellcheck disable=SC2086 # module names
	load_ccaas $SOAK_MODULES && modprobe tcp_dctcp && ccaas_autoload || return 1
	dmesg | wc -l >"$SOAK_DIR/dmesg.base"
	soak_kmemleak "$SOAK_DIR/kmemleak.base"
	if soak_preempt >"$SOAK_DIR/preempt.old" && soak_preempt full; then
		echo "preemption: full during the soak (was $(cat "$SOAK_DIR/preempt.old"))"
	else
		echo "preemption: unchanged, the kernel cannot switch"
	fi
	# ccalog's tracepoints live while connections are logged
	echo 1 >/sys/kernel/tracing/events/ccalog/enable || return 1
	netns_pair sa sb || return 1
	ns sa sysctl -qw net.ipv4.tcp_ecn=1 || return 1
	soak_seed prepare
	f=$SOAK_DIR/prepare.tmp
	for n in sa sb; do
		soak_policy_file "$f" && soak_ccactl prepare "$n" policy apply "$f" || return 1
	done
	soak_scope_file "$f" 10.0.0.2/32 fd00::2/128 && soak_ccactl prepare sa scope load "$f" &&
		soak_scope_file "$f" 10.0.0.1/32 fd00::1/128 10.1.0.0/16 fd01::/32 &&
		soak_ccactl prepare sb scope load "$f"
}

# soak_worker NAME CMD...: CMD in the background, its pid in $SOAK_DIR/workers
soak_worker() {
	local name=$1
	shift
	"$@" &
	echo "$! $name" >>"$SOAK_DIR/workers"
}

# soak_alive PIDFILE: the "pid name" lines of PIDFILE still running
soak_alive() {
	local pid name
	while read -r pid name; do
		! kill -0 "$pid" 2>/dev/null || echo "$pid $name"
	done <"$1"
}

# soak_ran NAME...: true if the churn ran; else FAIL each NAME (a check of
# the end state would pass on no connections at all)
soak_ran() {
	local t
	[ ! -e "$SOAK_DIR/started" ] || return 0
	for t in "$@"; do
		fail "$t" "nothing to check: the soak did not run (soak_run failed in its setup)"
	done
	return 1
}

test_soak_run() {
	local n t0 alive left s stop
	t0=$EPOCHSECONDS
	mkdir -p "$SOAK_DIR" || return 1
	: >"$SOAK_DIR/workers"
	: >"$SOAK_DIR/churn"
	# the seed first: a setup that fails can be repeated with it
	echo "soak: $SOAK_SECONDS s, seed $SOAK_SEED"
	if ! soak_prepare; then
		fail soak_run "setup failed (seed $SOAK_SEED); last ccactl call:
$(tail -n 1 "$SOAK_DIR/prepare.log" 2>/dev/null)"
		return 1
	fi
	SOAK_DEADLINE=$((EPOCHSECONDS + SOAK_SECONDS))
	echo "soak: setup took $((EPOCHSECONDS - t0)) s"
	: >"$SOAK_DIR/started"
	# Not through ns(): $! must be the process itself.
	for n in sa sb; do
		ip netns exec "$n" python3 "$SOAK_CONNS" server \
			4:5101,6:5102,d:5103 "$SOAK_DIR/server-$n.json" --seed "$SOAK_SEED" \
			--until "$SOAK_DEADLINE" --hold $SOAK_HOLD &
		echo "$! server-$n" >>"$SOAK_DIR/churn"
	done
	for p in $SOAK_PORTS; do
		wait_port sa "$p" && wait_port sb "$p" || fail soak_run "no servers" || return 1
	done
	ip netns exec sa python3 "$SOAK_CONNS" client \
		"$PAIR_B_IP:5101,[$PAIR_B_IP6]:5102,$PAIR_B_IP:5103,[$PAIR_B_IP6]:5103" \
		"$SOAK_DIR/client-sa.json" --seed $((SOAK_SEED + 1)) \
		--until "$SOAK_DEADLINE" --hold $SOAK_HOLD --max $((SOAK_SECONDS * 200)) \
		--long 8 --bulk 2 --cc reno,cubic,cca_dctcp,cca_dcndelay &
	echo "$! client-sa" >>"$SOAK_DIR/churn"
	ip netns exec sb python3 "$SOAK_CONNS" client \
		"$PAIR_A_IP:5101,[$PAIR_A_IP6]:5102,$PAIR_A_IP:5103,[$PAIR_A_IP6]:5103" \
		"$SOAK_DIR/client-sb.json" --seed $((SOAK_SEED + 2)) \
		--until "$SOAK_DEADLINE" --hold $SOAK_HOLD --max $((SOAK_SECONDS * 200)) \
		--long 6 --bulk 1 --cc cca_xregion,reno &
	echo "$! client-sb" >>"$SOAK_DIR/churn"

	s=$SOAK_SECONDS
	soak_worker policy-sa soak_policy_worker sa $((s * 10))
	soak_worker policy-sb soak_policy_worker sb $((s * 10))
	soak_worker scope-sa soak_scope_worker sa $((s * 5)) \
		10.0.0.2/32 fd00::2/128 10.0.0.0/24 fd00::/64
	soak_worker scope-sb soak_scope_worker sb $((s * 5)) \
		10.0.0.1/32 fd00::1/128 10.0.0.0/24 fd00::/64 10.1.0.0/16 fd01::/32
	soak_worker log soak_log_worker $((s * 10))
	soak_worker reader soak_reader_worker $((s * 10))
	soak_worker cca soak_cca_worker "$s"
	soak_worker netns soak_netns_worker $((s / 4 + 1))
	soak_worker queue soak_queue_worker $((s / 2))

	# Every worker stops by itself: its last operation may start just
	# before the deadline (an ephemeral namespace lives up to 10 s).
	# Progress every 10 s, for the record: who runs, what listens.
	stop=$((EPOCHSECONDS + $(soak_within $((SOAK_DEADLINE + 90 - EPOCHSECONDS)) 120)))
	while [ "$EPOCHSECONDS" -lt $stop ]; do
		alive=$(soak_alive "$SOAK_DIR/workers")
		[ -n "$alive" ] || break
		if [ $(((EPOCHSECONDS - t0) % 10)) = 0 ]; then
			{
				echo "--- $((EPOCHSECONDS - SOAK_DEADLINE)) s to the deadline; workers: $(echo "$alive" | cut -d' ' -f2 | tr '\n' ' ')"
				ps -o pid,ni,stat,time,args -p "$(pgrep -d, -f 'python3|ccactl|rmmod|insmod|modprobe')"
				for n in sa sb; do echo "$n: $(ns "$n" ss -Htan | awk '{ print $1 }' | sort | uniq -c | tr -s ' \n' ' ')"; done
			} >>"$SOAK_DIR/progress.txt" 2>&1
		fi
		sleep 1
	done
	left=$(soak_alive "$SOAK_DIR/workers")
	if [ -n "$left" ]; then
		# shellcheck disable=SC2046 # pids
		kill -9 $(echo "$left" | cut -d' ' -f1) 2>/dev/null
		fail soak_run "workers still running $((EPOCHSECONDS - SOAK_DEADLINE)) s after the deadline: $(echo "$left" | cut -d' ' -f2 | tr '\n' ' ')"
		return 1
	fi
	# The clients' churn is over when their counts say what they hold.
	for n in sa sb; do
		for _ in $(seq 60); do
			grep -q '"held"' "$SOAK_DIR/client-$n.json" 2>/dev/null && break
			sleep 1
		done
	done
	echo "soak: workers stopped $((EPOCHSECONDS - SOAK_DEADLINE)) s after the deadline"
	if [ -n "$(soak_alive "$SOAK_DIR/churn")" ] &&
		[ "$(wc -l <"$SOAK_DIR/churn")" = "$(soak_alive "$SOAK_DIR/churn" | wc -l)" ]; then
		pass soak_run
	else
		fail soak_run "servers or clients ended early: alive: $(soak_alive "$SOAK_DIR/churn" | tr '\n' ' ')"
	fi
	soak_summary
	if [ -n "$(cat "$SOAK_DIR"/*.bad 2>/dev/null)" ]; then
		fail soak_ops_clean "unexpected results: $(cat "$SOAK_DIR"/*.bad | head -n 20)"
	else
		pass soak_ops_clean
	fi
}

# soak_quiet: wait (up to 60 s) until the ephemeral namespaces are gone and
# sa and sb have nothing in an accept queue or a handshake
soak_quiet() {
	local n busy
	for _ in $(seq 60); do
		busy=$(ip netns list | grep -c '^se')
		for n in sa sb; do
			busy=$((busy + $(ns "$n" ss -Htln | awk '$2 > 0' | wc -l) +
				$(ns "$n" ss -Htn state syn-recv state syn-sent | wc -l)))
		done
		[ "$busy" -gt 0 ] || return 0
		sleep 1
	done
	echo "soak: not quiet after 60 s: $(ip netns list | tr '\n' ' ')"
	return 1
}

# soak_verdict NAME RC OUT WHY: PASS NAME if RC is 0, else FAIL with WHY and
# the problems the checker listed in file OUT
soak_verdict() {
	if [ "$2" = 0 ]; then
		pass "$1"
	else
		fail "$1" "$4
$(grep '^  ' "$3" | head -n 12)"
	fi
}

# soak_check MODE NS ARGS...: lib/soak_check.py MODE NS ARGS, its report
# printed and appended to $SOAK_DIR/check.out
soak_check() {
	python3 "$SOAK_CHECK" "$@" | tee -a "$SOAK_DIR/check.out"
	return "${PIPESTATUS[0]}"
}

test_soak_sockets_on_rule() {
	local n m1 m2 rc=0 idem=0 cmp=$SOAK_DIR/ccas.json out=$SOAK_DIR/check.out
	soak_ran soak_migrate_idempotent soak_sockets_on_rule || return 1
	soak_quiet
	soak_cca_table "$cmp"
	: >"$out"
	for n in sa sb; do
		m1=$("$CCACTL" -n "$n" -j migrate) || fail soak_sockets_on_rule "migrate in $n failed" || return 1
		m2=$("$CCACTL" -n "$n" -j migrate) || fail soak_sockets_on_rule "migrate in $n failed" || return 1
		echo "$n: first migrate after the soak: $m1"
		echo "$m2" >"$SOAK_DIR/migrate2-$n.json"
		"$CCACTL" -n "$n" -j sock show >"$SOAK_DIR/socks-$n.json" || return 1
		soak_check sockets "$n" "$SOAK_DIR/migrate2-$n.json" "$SOAK_DIR/socks-$n.json" "$cmp" ||
			rc=1
		[[ "$m2" == *'"migrated":0,'* ]] || idem=1
	done
	soak_verdict soak_migrate_idempotent $idem "$out" "a second migrate moved connections"
	soak_verdict soak_sockets_on_rule $rc "$out" \
		"connections off their rule's CCA, or the kernel's counts disagree with sock show"
}

test_soak_force_idempotent() {
	local n f1 rc=0 out=$SOAK_DIR/check.out
	soak_ran soak_force_idempotent || return 1
	: >"$out"
	for n in sa sb; do
		f1=$("$CCACTL" -n "$n" -j migrate force) || return 1
		echo "$n: migrate force: $f1"
		"$CCACTL" -n "$n" -j migrate force >"$SOAK_DIR/force2-$n.json" || return 1
		"$CCACTL" -n "$n" -j sock show >"$SOAK_DIR/socks-forced-$n.json" || return 1
		soak_check forced "$n" "$SOAK_DIR/force2-$n.json" \
			"$SOAK_DIR/socks-forced-$n.json" "$SOAK_DIR/ccas.json" || rc=1
	done
	soak_verdict soak_force_idempotent $rc "$out" \
		"a second migrate force changed connections, or some are off their rule's CCA"
}

# soak_listener_ccas NS: "address:port cca" of NS's listeners
soak_listener_ccas() {
	ns "$1" ss -Htlni | awk '/^LISTEN/ { a = $4; next } a { print a, $1; a = "" }'
}

# soak_listeners_vs_new NS: compare NS's listeners with one opened now on
# port 5199; "NS ADDR on CCA (want CCA);" for each that differs, in SOAK_BAD;
# the new one's CCA in SOAK_WANT
soak_listeners_vs_new() {
	local n=$1 probe line f=$SOAK_DIR/listeners-$1.txt
	ip netns exec "$n" python3 -c 'import socket, time
s = socket.socket()
s.bind(("0.0.0.0", 5199))
s.listen()
time.sleep(60)' &
	probe=$!
	wait_port "$n" 5199 || return 1
	soak_listener_ccas "$n" >"$f"
	kill $probe
	wait $probe 2>/dev/null
	SOAK_WANT=$(awk '$1 ~ /:5199$/ { print $2 }' "$f")
	echo "$n: a new listener gets $SOAK_WANT; the soak's listeners:" \
		"$(grep -v ':5199 ' "$f" | tr '\n' ';')"
	while read -r line; do
		case $line in
		*:5199\ * | *" $SOAK_WANT") ;;
		*) SOAK_BAD+=" $n ${line% *} on ${line##* } (want $SOAK_WANT);" ;;
		esac
	done <"$f"
}

# A listener's CCA decides which ECN requests its children accept. A
# listener opened now gets the CCA the policy gives listeners; one opened
# before the last change must have been moved there (issue 9, defect 6:
# listeners are not walked by migration yet). First as the soak left
# them; then after one more change that surely moves the listeners' CCA.
test_soak_listeners_on_rule() {
	local n asis="" f=$SOAK_DIR/listeners.policy to
	local -A want
	soak_ran soak_listeners_on_rule || return 1
	SOAK_BAD=""
	for n in sa sb; do
		soak_listeners_vs_new "$n" || return 1
		want[$n]=$SOAK_WANT
	done
	asis=$SOAK_BAD SOAK_BAD=""
	for n in sa sb; do
		to=cca_dctcp
		[ "${want[$n]}" != cca_dctcp ] || to=cca_xregion
		echo "default cca $to" >"$f"
		echo "$n: policy apply \"default cca $to\", then migrate: $("$CCACTL" -n "$n" policy apply "$f" && "$CCACTL" -n "$n" migrate)"
		soak_listeners_vs_new "$n" || return 1
	done
	if [ -z "$asis$SOAK_BAD" ]; then
		pass soak_listeners_on_rule
	else
		fail soak_listeners_on_rule "listeners not on the CCA a listener opened now gets (issue 9, defect 6: listeners are not migrated)
as the soak left them:${asis:- all right}
after one more policy change and migrate:${SOAK_BAD:- all right}"
	fi
}

# Last, one rule without knobs for everything: every connection moves to
# it, and keeps no knob of an earlier rule (issue 9, defect 8: min_rto is
# never restored). Whatever the soak's last rules were, the one before it
# sets min_rto 5ms.
test_soak_knobs_restored() {
	local n rc=0 f=$SOAK_DIR/plain.policy rto out=$SOAK_DIR/check.out
	soak_ran soak_knobs_restored || return 1
	: >"$out"
	for n in sa sb; do
		echo "default cca cca_cubic min_rto 5ms" >"$f"
		"$CCACTL" -n "$n" policy apply "$f" force >/dev/null || return 1
		echo "default cca cca_cubic" >"$f"
		"$CCACTL" -n "$n" policy apply "$f" force >/dev/null &&
			"$CCACTL" -n "$n" migrate force >/dev/null &&
			"$CCACTL" -n "$n" -j sock show >"$SOAK_DIR/socks-plain-$n.json" || return 1
		rto=$(ns "$n" sysctl -n net.ipv4.tcp_rto_min_us 2>/dev/null || echo 200000)
		soak_check plain "$n" "$SOAK_DIR/socks-plain-$n.json" cca_cubic "$rto" || rc=1
	done
	soak_verdict soak_knobs_restored $rc "$out" \
		"connections not on the one rule's CCA, or with an earlier rule's min_rto (issue 9, defect 8)"
}

test_soak_modules_unload() {
	local pid name c refs caches="" ext t
	# Stop the churn: the clients and servers exit on SIGTERM.
	while read -r pid name; do
		kill -TERM "$pid" 2>/dev/null
	done <"$SOAK_DIR/churn"
	for _ in $(seq 20); do
		[ -n "$(soak_alive "$SOAK_DIR/churn")" ] || break
		sleep 1
	done
	soak_alive "$SOAK_DIR/churn" | while read -r pid name; do
		echo "soak: $name did not exit on SIGTERM"
	done
	echo 0 >/sys/kernel/tracing/events/ccalog/enable
	# What each CCA has as extension state, before it goes.
	for c in $("$CCACTL" cca list | awk 'NR > 1 { print $1 }'); do
		ext=$("$CCACTL" -j cca show "$c" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("ext_size", 0))')
		caches="$caches $c"
		echo "$c: ext_size $ext, slab cache $([ -e "/sys/kernel/slab/$c" ] && echo present || echo none)"
	done
	echo "$caches" >"$SOAK_DIR/cca-names"
	for n in sa sb; do
		for c in $caches; do
			"$CCACTL" -n "$n" cca drain "$c" to reno force >/dev/null
		done
	done
	refs=$(soak_refcnts)
	echo "refcounts before the namespaces go: $refs"
	# while the modules' frames still have names
	soak_kmemleak "$SOAK_DIR/kmemleak.loaded"
	# every process left in a namespace, then the namespaces
	netns_cleanup
	t=$(soak_within 120 15)
	if soak_unload_all "$t"; then
		pass soak_modules_unload
	else
		fail soak_modules_unload "still loaded $t s after the namespaces were deleted: $(soak_refcnts)
(before: $refs)"
	fi
	for c in $caches; do
		[ ! -e "/sys/kernel/slab/$c" ] && ! grep -q "^$c " /proc/slabinfo ||
			caches="$caches LEFT:$c"
	done
	if [[ "$caches" != *LEFT:* ]]; then
		pass soak_slab_caches
	else
		fail soak_slab_caches "slab caches left after unload: $caches"
	fi
	grep -E '^(TCP|TCPv6|request_sock_TCP|tw_sock_TCP) ' /proc/slabinfo |
		awk '{ printf "slab %s: %d active objects\n", $1, $2 }'
}

test_soak_kernel_log() {
	local base log reports leaks
	[ ! -s "$SOAK_DIR/preempt.old" ] || soak_preempt "$(cat "$SOAK_DIR/preempt.old")"
	base=$(cat "$SOAK_DIR/dmesg.base")
	log=$SOAK_DIR/dmesg.txt
	dmesg | tail -n +$((base + 1)) >"$log"
	reports=$(grep -E "$SOAK_REPORTS" "$log")
	soak_kmemleak "$SOAK_DIR/kmemleak.end"
	if [ -f "$SOAK_DIR/kmemleak.end" ]; then
		if ! leaks=$(python3 "$SOAK_CHECK" kmemleak "$SOAK_DIR/kmemleak.base" \
			"$SOAK_DIR/kmemleak.loaded" "$SOAK_DIR/kmemleak.end"); then
			reports+="${reports:+$'\n'}$leaks"
		fi
		echo "$leaks" | head -n 1
	fi
	echo "kernel log: $(wc -l <"$log") lines since the soak began," \
		"$(grep -c 'ccaas: registered' "$log") CCA registrations;" \
		"reports: $(echo "$reports" | grep -c .)"
	[ -z "$reports" ] || echo "$reports" | head -n 60
	if [ -z "$reports" ]; then
		pass soak_kernel_log
	else
		fail soak_kernel_log "$(echo "$reports" | head -n 5)"
	fi
	[ ! -f "$SOAK_DIR/summary.txt" ] || cat "$SOAK_DIR/summary.txt"
}

# soak_summary: what the soak did, from the workers' counts, into
# $SOAK_DIR/summary.txt (one process: forks are slow on a busy host)
soak_summary() {
	python3 "$SOAK_CHECK" summary "$SOAK_DIR" "$SOAK_SEED" "$SOAK_SECONDS" |
		tee "$SOAK_DIR/summary.txt"
}
