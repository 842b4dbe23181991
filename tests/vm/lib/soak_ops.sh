# shellcheck shell=bash
# Control-plane workers of the race soak (tests/vm/95-soak.sh), sourced by
# it after tests/vm/lib.sh. Each worker runs in the background until
# SOAK_DEADLINE (epoch seconds) or its own count bound, whichever comes
# first, and then writes its counts to $SOAK_DIR/NAME.stats ("key value"
# lines). Every ccactl call is logged to $SOAK_DIR/NAME.log with the guest's
# uptime (the clock of the kernel log), its arguments and exit status, so a
# kernel report can be matched to the operations running at the time.
#
# Exit statuses of ccactl: 0 done, 2 refused by the kernel (counted by
# message in NAME.refused: a rollback to a generation no longer kept, say),
# anything else is unexpected (1 is a usage error, i.e. a bug of the soak;
# >128 a crash) and listed in NAME.bad. A call that hangs keeps its worker
# from stopping, which 95-soak.sh reports. The workers fork as little as
# they can: on one emulated CPU every exec counts.
#
# Uses: CCACTL, CCAAS_KO_DIR, SOAK_DIR, SOAK_DEADLINE, and RANDOM, which
# each worker seeds from SOAK_SEED and its own name.

SOAK_CCAS=(cca_dctcp cca_cubic cca_xregion cca_dcndelay cubic reno dctcp)
# relative weights of SOAK_CCAS in generated rules
SOAK_CCA_WEIGHTS=(18 18 10 8 16 12 8)
# CCA modules the cca worker drains and unloads
SOAK_CYCLE_MODULES=(tcp_cca_dcndelay tcp_cca_xregion)
# the namespaces of the ephemeral-namespace worker that exist now
SOAK_EPH_LIST=${SOAK_DIR:-/tmp}/eph.list

declare -A soak_n

# soak_seed NAME: seed RANDOM from SOAK_SEED and NAME
soak_seed() {
	RANDOM=$((SOAK_SEED + $(cksum <<<"$1" | cut -d' ' -f1) % 100000))
}

# soak_going: the deadline has not passed
soak_going() {
	[ "$EPOCHSECONDS" -lt "$SOAK_DEADLINE" ]
}

# soak_sleep SECONDS: sleep without a process (lib.sh's sleep)
soak_sleep() {
	sleep "$1"
}

# soak_pause MAX_MS: sleep a random 0..MAX_MS milliseconds
soak_pause() {
	local ms=$((RANDOM % ($1 + 1)))
	soak_sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}

# soak_pick WORD...: one of the words, in REPLY (no subshell: the
# generators below run thousands of times on one emulated CPU)
soak_pick() {
	local a=("$@")
	REPLY=${a[RANDOM % ${#a[@]}]}
}

# soak_chance PCT: true PCT per cent of the time
soak_chance() {
	[ $((RANDOM % 100)) -lt "$1" ]
}

# soak_count KEY [N]: add N (1) to counter KEY
soak_count() {
	soak_n[$1]=$((${soak_n[$1]:-0} + ${2:-1}))
}

# soak_stats NAME: write the counters to $SOAK_DIR/NAME.stats
soak_stats() {
	local k
	for k in "${!soak_n[@]}"; do
		echo "$k ${soak_n[$k]}"
	done | sort >"$SOAK_DIR/$1.stats"
}

# soak_log NAME LINE...: a line of NAME's log, stamped with the uptime
soak_log() {
	local up name=$1
	shift
	read -r up _ </proc/uptime
	echo "[$up] $*" >>"$SOAK_DIR/$name.log"
}

# soak_ccactl NAME NS ARGS...: ccactl -n NS ARGS (NS "" = none), logged and
# counted; its output is left in SOAK_OUT; returns its exit status
soak_ccactl() {
	local name=$1 n=$2 rc err=$SOAK_DIR/$1.err line=""
	shift 2
	# logged before too: a call that never returns is the last one
	soak_log "$name" "${n:-init}: ccactl $* ..."
	SOAK_OUT=$("$CCACTL" ${n:+-n "$n"} "$@" 2>"$err")
	rc=$?
	[ ! -s "$err" ] || read -r line <"$err"
	soak_log "$name" "${n:-init}: ccactl $* -> $rc $line"
	soak_count ops
	case $rc in
	0) soak_count ok ;;
	2)
		[ -z "$n" ] || [ -e "/var/run/netns/$n" ] || { soak_count ns_gone; return 2; }
		soak_count refused
		# the kernel's reason, numbers taken out
		echo "${line//[0-9]/N}" >>"$SOAK_DIR/$name.refused"
		;;
	*)
		if [ -n "$n" ] && [ ! -e "/var/run/netns/$n" ]; then
			# an ephemeral namespace deleted meanwhile
			soak_count ns_gone
		else
			soak_count bad
			echo "${n:-init}: ccactl $* -> $rc: $line" >>"$SOAK_DIR/$name.bad"
		fi
		;;
	esac
	return $rc
}

# soak_committed: the last policy command committed a generation ("generation
# N", "generation N (rollback to M)"; not "unchanged (generation N)")
soak_committed() {
	[[ "$SOAK_OUT" =~ ^generation\ [0-9]+( \(.*\))?$ ]]
}

# ---- generated rules, policy files and scope tables ------------------------

# soak_cca: a CCA name, by SOAK_CCA_WEIGHTS, in REPLY
soak_cca() {
	local total=0 w i r
	for w in "${SOAK_CCA_WEIGHTS[@]}"; do total=$((total + w)); done
	r=$((RANDOM % total))
	for i in "${!SOAK_CCAS[@]}"; do
		r=$((r - SOAK_CCA_WEIGHTS[i]))
		if [ "$r" -lt 0 ]; then
			REPLY=${SOAK_CCAS[i]}
			return
		fi
	done
}

# soak_match: a rule's match, in SOAK_MATCH
soak_match() {
	if soak_chance 25; then
		SOAK_MATCH=default
		return
	fi
	soak_pick rack dc region xregion
	SOAK_MATCH="locality $REPLY"
	! soak_chance 30 || SOAK_MATCH="$SOAK_MATCH region $((1 + RANDOM % 3))"
	! soak_chance 30 || SOAK_MATCH="$SOAK_MATCH dc $((1 + RANDOM % 4))"
	if soak_chance 15; then
		soak_pick 10.0.0.0/24 fd00::/64 10.1.0.0/16 127.0.0.0/8 10.9.0.0/16
		SOAK_MATCH="$SOAK_MATCH local $REPLY"
	fi
}

# soak_action: a rule's action, valid for the CCA's schema, in SOAK_ACTION.
# min_rto goes with any CCA; init_cwnd and tso_segs only with a ccaas one
# (cca_*): the core refuses them for others, which read no ccaas header
# (kmod/core/policy.c, ccaas_rule_knobs_check()).
soak_action() {
	local a cca
	soak_cca
	cca=$REPLY
	a="cca $cca"
	if soak_chance 30; then
		case $cca in
		cca_dctcp) a="$a param shift_g=$((RANDOM % 11))" ;;
		cca_cubic) a="$a param beta=$((512 + RANDOM % 461))" ;;
		cca_dcndelay) a="$a param target_rtt_us=$((10 + RANDOM % 9991))" ;;
		cca_xregion) a="$a param alpha_floor=$((RANDOM % 1025))" ;;
		esac
	fi
	if soak_chance 20; then
		soak_pick 1ms 2ms 5ms 20ms 200ms
		a="$a min_rto $REPLY"
	fi
	if [[ $cca == cca_* ]]; then
		! soak_chance 10 || a="$a init_cwnd $((2 + RANDOM % 60))"
		! soak_chance 10 || a="$a tso_segs $((1 + RANDOM % 8))"
	fi
	SOAK_ACTION=$a
}

# soak_policy_file FILE [COPY]: 1-6 rules with distinct matches, in FILE
# (and COPY)
soak_policy_file() {
	local i seen=" " out=""
	for ((i = RANDOM % 6; i >= 0; i--)); do
		soak_match
		[[ "$seen" != *" $SOAK_MATCH,"* ]] || continue
		seen="$seen $SOAK_MATCH,"
		soak_action
		out+="$SOAK_MATCH $SOAK_ACTION"$'\n'
	done
	printf '%s' "$out" >"$1"
	[ -z "${2:-}" ] || printf '%s' "$out" >"$2"
}

# soak_scope_file FILE PREFIX...: each PREFIX (sometimes left out: unknown
# scope) with a random locality and ids, then up to 200 other prefixes
soak_scope_file() {
	local f=$1 p i base out=""
	shift
	for p in "$@"; do
		soak_chance 10 && continue
		soak_pick rack dc region xregion
		out+="$p $REPLY region $((RANDOM % 4)) dc $((RANDOM % 5))"$'\n'
	done
	base=$((RANDOM % 50))
	for ((i = RANDOM % 200; i >= 0; i--)); do
		if soak_chance 70; then
			p="172.$((16 + base / 10)).$i.$(((base % 10) * 16))/28"
		else
			p="2001:db8:$base:$i::/64"
		fi
		soak_pick rack dc region xregion
		out+="$p $REPLY region $((1 + RANDOM % 3))"$'\n'
	done
	printf '%s' "$out" >"$f"
}

# ---- workers ---------------------------------------------------------------

# soak_policy_worker NS MAX: policy set/apply/rollback/del and migrate in NS
soak_policy_worker() {
	local n=$1 max=$2 name=policy-$1 gen=0 file opt i r policy
	soak_seed "$name"
	file=$SOAK_DIR/$name.policy
	for ((i = 0; i < max; i++)); do
		soak_going || break
		opt=()
		! soak_chance 15 || opt+=(force)
		! soak_chance 15 || opt+=(no_migrate)
		r=$((RANDOM % 100)) policy=1
		if [ $r -lt 30 ]; then
			soak_match
			soak_action
			# shellcheck disable=SC2086 # a rule is words
			soak_ccactl "$name" "$n" policy set $SOAK_MATCH $SOAK_ACTION "${opt[@]}"
		elif [ $r -lt 45 ]; then
			soak_policy_file "$file" "$file.$((i % 4))"
			soak_ccactl "$name" "$n" policy apply "$file" "${opt[@]}"
		elif [ $r -lt 55 ] && [ -f "$file.$((r % 4))" ]; then
			# an earlier file again: often "unchanged"
			soak_ccactl "$name" "$n" policy apply "$file.$((r % 4))" "${opt[@]}"
		elif [ $r -lt 68 ]; then
			r=$((gen - RANDOM % 20))
			soak_ccactl "$name" "$n" policy rollback $((r < 0 ? 0 : r)) "${opt[@]}"
			soak_committed && soak_count rollbacks
		elif [ $r -lt 75 ]; then
			soak_match
			# shellcheck disable=SC2086 # a match is words
			soak_ccactl "$name" "$n" policy del $SOAK_MATCH "${opt[@]}"
		else
			policy=0 opt=()
			! soak_chance 25 || opt=(force)
			soak_ccactl "$name" "$n" migrate "${opt[@]}" && soak_count migrates
		fi
		if [ $policy = 1 ] && soak_committed; then
			soak_count commits
			gen=${SOAK_OUT#generation }
			gen=${gen%% *}
		fi
		soak_pause 100
	done
	soak_stats "$name"
}

# soak_scope_worker NS MAX PREFIX...: scope load of changing tables (and
# now and then add, del, flush) in NS
soak_scope_worker() {
	local n=$1 max=$2 name=scope-$1 file i
	shift 2
	soak_seed "$name"
	file=$SOAK_DIR/$name.scope
	for ((i = 0; i < max; i++)); do
		soak_going || break
		case $((RANDOM % 10)) in
		0)
			soak_pick "$@"
			local p=$REPLY
			soak_pick rack dc region xregion
			soak_ccactl "$name" "$n" scope add "$p" locality "$REPLY"
			;;
		1)
			soak_pick "$@"
			soak_ccactl "$name" "$n" scope del "$REPLY"
			;;
		2) soak_ccactl "$name" "$n" scope flush ;;
		*)
			soak_scope_file "$file" "$@"
			soak_ccactl "$name" "$n" scope load "$file" && soak_count scope_loads
			;;
		esac
		soak_pause 200
	done
	soak_stats "$name"
}

# soak_some_namespace: one of the namespaces the workers act on now (sa, sb
# and the ephemeral ones), in REPLY
soak_some_namespace() {
	local eph=()
	[ ! -s "$SOAK_EPH_LIST" ] || mapfile -t eph <"$SOAK_EPH_LIST"
	soak_pick sa sb "${eph[@]}"
}

# soak_log_worker MAX: log add/del all (and by filter) in every namespace
soak_log_worker() {
	local max=$1 name=log n i
	soak_seed "$name"
	for ((i = 0; i < max; i++)); do
		soak_going || break
		soak_some_namespace
		n=$REPLY
		case $((RANDOM % 10)) in
		[0-3]) soak_ccactl "$name" "$n" log add all && soak_count log_add ;;
		[4-7]) soak_ccactl "$name" "$n" log del all && soak_count log_del ;;
		8)
			soak_pick 5101 5102 5103 6101 6102 6103
			soak_ccactl "$name" "$n" log add dport "$REPLY" && soak_count log_add
			;;
		9) soak_ccactl "$name" "$n" log show ;;
		esac
		soak_pause 150
	done
	soak_stats "$name"
}

# soak_reader_worker MAX: dumps while everything changes (ccactl and the
# kernel's own inet_diag, which reads each socket's CCA info unlocked)
soak_reader_worker() {
	local max=$1 name=reader n i
	soak_seed "$name"
	for ((i = 0; i < max; i++)); do
		soak_going || break
		soak_some_namespace
		n=$REPLY
		case $((RANDOM % 8)) in
		0) soak_ccactl "$name" "$n" -s sock show ;;
		1) soak_ccactl "$name" "$n" -j sock show ;;
		2) soak_ccactl "$name" "$n" policy history ;;
		3) soak_ccactl "$name" "$n" -s scope show ;;
		4) soak_ccactl "$name" "$n" cca list ;;
		5) soak_ccactl "$name" "$n" policy show ;;
		*)
			ip netns exec "$n" ss -tanie >/dev/null 2>&1
			soak_count ss
			;;
		esac
		soak_pause 150
	done
	soak_stats "$name"
}

# soak_module_loaded MODULE
soak_module_loaded() {
	local line
	while read -r line; do
		[[ "$line" != "$1 "* ]] || return 0
	done </proc/modules
	return 1
}

# soak_cca_worker MAX: drain a CCA in every namespace, then rmmod its
# module (refused while a policy names it or a socket still uses it:
# retried, counted), then load it again by modprobe or insmod
soak_cca_worker() {
	local max=$1 name=cca m cca n i out opt eph
	soak_seed "$name"
	for ((i = 0; i < max; i++)); do
		soak_going || break
		soak_pick "${SOAK_CYCLE_MODULES[@]}"
		m=$REPLY cca=cca_${REPLY#tcp_cca_}
		eph=()
		[ ! -s "$SOAK_EPH_LIST" ] || mapfile -t eph <"$SOAK_EPH_LIST"
		for n in sa sb "${eph[@]}"; do
			soak_going || break
			opt=()
			if soak_chance 50; then
				soak_pick reno cubic cca_cubic cca_dctcp
				opt+=(to "$REPLY")
			fi
			! soak_chance 50 || opt+=(force)
			soak_ccactl "$name" "$n" cca drain "$cca" "${opt[@]}" && soak_count drains
		done
		for _ in 1 2 3 4 5; do
			out=$(rmmod "$m" 2>&1)
			soak_log "$name" "rmmod $m -> $? $out"
			if ! soak_module_loaded "$m"; then
				soak_count rmmod_ok
				break
			fi
			case $out in
			*"in use"*) soak_count rmmod_busy ;;
			*) soak_count rmmod_other ;;
			esac
			soak_pause 300
		done
		if ! soak_module_loaded "$m"; then
			soak_pause 800
			if soak_chance 50; then
				out=$(modprobe "$m" 2>&1)
				soak_log "$name" "modprobe $m -> $? $out"
			else
				out=$(insmod "$CCAAS_KO_DIR/$m.ko" 2>&1)
				soak_log "$name" "insmod $m -> $? $out"
			fi
			if [[ "$out" == *"File exists"* ]]; then
				# a policy, setsockopt or drain loaded it meanwhile
				soak_count autoloaded
			elif soak_module_loaded "$m"; then
				soak_count loads
			else
				soak_count load_failed
				echo "load $m: $out" >>"$SOAK_DIR/$name.bad"
			fi
		fi
		soak_pause 1000
	done
	# leave every module loaded
	for m in "${SOAK_CYCLE_MODULES[@]}"; do
		soak_module_loaded "$m" || insmod "$CCAAS_KO_DIR/$m.ko" 2>/dev/null
	done
	soak_stats "$name"
}

# soak_eph_up N: namespace seN with ccaas state of its own and, for an odd
# N, a veth to sb (seN 10.1.N.1/24 fd01:N::1/64, sb 10.1.N.2 fd01:N::2);
# the churn targets in SOAK_TARGETS
soak_eph_up() {
	local i=$1 n=se$1 f=$SOAK_DIR/eph.tmp
	netns_add "$n" || return 1
	SOAK_TARGETS="127.0.0.1:6101,[::1]:6102,127.0.0.1:6103,[::1]:6103"
	if [ $((i % 2)) = 1 ]; then
		ip link add eth0 netns "$n" type veth peer name "e$i" netns sb &&
			ip -n "$n" link set eth0 up && ip -n sb link set "e$i" up &&
			addr_add "$n" eth0 "10.1.$i.1/24" "fd01:$i::1/64" &&
			addr_add sb "e$i" "10.1.$i.2/24" "fd01:$i::2/64" || return 1
		SOAK_TARGETS+=",10.1.$i.2:5101,[fd01:$i::2]:5102,[fd01:$i::2]:5103"
	fi
	ip netns exec "$n" sysctl -qw net.ipv4.tcp_ecn=$((RANDOM % 3))
	soak_policy_file "$f"
	soak_ccactl netns "$n" policy apply "$f"
	soak_scope_file "$f" 127.0.0.0/8 ::1/128 10.1.0.0/16 fd01::/32
	soak_ccactl netns "$n" scope load "$f"
	! soak_chance 50 || soak_ccactl netns "$n" log add all
}

# soak_netns_worker MAX: namespaces created, churned in (loopback, and to sb
# over a veth), changed, and deleted under the churn, one after the other
soak_netns_worker() {
	local max=$1 name=netns i n life pids t
	soak_seed "$name"
	: >"$SOAK_EPH_LIST"
	for ((i = 1; i <= max && i < 250; i++)); do
		soak_going || break
		n=se$i
		if ! soak_eph_up "$i"; then
			soak_count netns_setup_failed
			echo "setup of $n failed" >>"$SOAK_DIR/$name.bad"
			ip netns del "$n" 2>/dev/null
			continue
		fi
		soak_count netns_created
		soak_log "$name" "$n up, targets $SOAK_TARGETS"
		echo "$n" >>"$SOAK_EPH_LIST"
		life=$((3 + RANDOM % 8))
		# not through ns(): $! must be the process itself
		ip netns exec "$n" python3 "$SOAK_CONNS" server \
			4:6101,6:6102,d:6103 "$SOAK_DIR/eph-server-$i.json" \
			--seed $((SOAK_SEED + i)) --seconds 60 --hold 5 &
		pids=$!
		soak_sleep 0.3
		ip netns exec "$n" python3 "$SOAK_CONNS" client \
			"$SOAK_TARGETS" "$SOAK_DIR/eph-client-$i.json" \
			--seed $((SOAK_SEED + 1000 + i)) --seconds 60 --hold 5 \
			--long 4 --bulk 1 --cc reno,cca_dcndelay,cca_xregion --cc-prob 0.2 &
		pids="$pids $!"
		t=$((EPOCHSECONDS + life))
		while [ "$EPOCHSECONDS" -lt $t ] && soak_going; do
			soak_sleep 1
			case $((RANDOM % 4)) in
			0)
				soak_match
				soak_action
				# shellcheck disable=SC2086 # a rule is words
				soak_ccactl "$name" "$n" policy set $SOAK_MATCH $SOAK_ACTION
				;;
			1) soak_ccactl "$name" "$n" migrate force ;;
			*) ;;
			esac
		done
		# Deleted under churn: the processes killed first, or the name
		# removed first (the namespace then dies with its last process).
		sed -i "/^$n\$/d" "$SOAK_EPH_LIST"
		if soak_chance 50; then
			# shellcheck disable=SC2086 # two pids
			kill -9 $pids 2>/dev/null
			ip netns del "$n"
		else
			ip netns del "$n"
			soak_pick -9 -TERM
			# shellcheck disable=SC2086 # two pids
			kill "$REPLY" $pids 2>/dev/null
		fi
		soak_log "$name" "$n deleted"
		soak_count netns_deleted
		# shellcheck disable=SC2086 # two pids
		wait $pids 2>/dev/null
		soak_pause 1000
	done
	soak_stats "$name"
}

# soak_queue_worker MAX: a listener in sb that never accepts, its accept
# queue filled from sa (up to 120 children), killed while migrate, drain
# or a log walk run over those children, several times in a row: the race
# of issue 9, defect 2 (a migration that locks a child still in the queue
# meets inet_csk_listen_stop(), which WARNs)
soak_queue_worker() {
	local max=$1 name=queue i k spid cpid mpid ready=$SOAK_DIR/queue.ready
	soak_seed "$name"
	# ahead of the other workers (its processes inherit this): each round
	# takes many steps, the race is only in the last one
	renice -n -5 $BASHPID >/dev/null
	rm -f "$ready"
	ip netns exec sa python3 "$SOAK_CONNS" queue-client "$PAIR_B_IP:5104" 120 "$ready" \
		$((SOAK_DEADLINE - EPOCHSECONDS)) &
	cpid=$!
	for ((i = 0; i < max; i++)); do
		soak_going || break
		ip netns exec sb python3 "$SOAK_CONNS" queue-server 5104 300 &
		spid=$!
		for _ in $(seq 100); do
			if [ -e "$ready" ] || ! soak_going; then break; fi
			soak_sleep 0.1
		done
		(
			for k in 1 2 3 4 5 6; do
				soak_going || break
				case $((RANDOM % 5)) in
				0) soak_ccactl "$name" sb migrate force ;;
				1) soak_ccactl "$name" sb cca drain cca_dctcp to cubic force ;;
				2) soak_ccactl "$name" sb log add all ;;
				*) soak_ccactl "$name" sb migrate ;;
				esac
			done
		) &
		mpid=$!
		# during the first operations (each takes a second or so here; the
		# walk over the queue is part of it)
		soak_pause 1500
		if [ -e "$ready" ]; then
			soak_count filled
			soak_log "$name" "kill the listener, its queue filled"
		else
			soak_log "$name" "kill the listener, its queue not filled yet"
		fi
		kill -9 $spid
		wait $mpid $spid 2>/dev/null
		soak_count rounds
		# the client saw the reset before the next round
		for _ in $(seq 50); do
			[ -e "$ready" ] || break
			soak_sleep 0.1
		done
	done
	kill -9 $cpid 2>/dev/null
	wait $cpid 2>/dev/null
	soak_stats "$name"
}
