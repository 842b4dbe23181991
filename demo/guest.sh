#!/bin/bash
# The ccaas demo, narrated: runs inside the VM that scripts/demo.sh boots.
#
# One host talks to peers at four distances (same rack, same DC, same
# region, another region), each behind a router with a netem delay.  The
# host's scope table says where each peer is; its policy gives each kind of
# peer a CCA, the production pairing: the delay-based cca_dcndelay inside
# the region, the ECN-based cca_xregion across regions.  Live connections
# follow a policy change, which parks the cross-region ones on the
# transitional cca_cubic with their ECN, and a rollback; two services of
# the host, in two cgroups, get two CCAs to the same peer; one connection
# is traced round trip by round trip with ccalog.
#
# Environment (set by scripts/demo.sh): CCAAS_ROOT (the repository),
# CCAAS_KO_DIR (modules built for this kernel), CCACTL (the ccactl binary).
# Exits non-zero at the first step that fails, so it doubles as a smoke test.
set -eEuo pipefail

: "${CCAAS_ROOT:?}" "${CCAAS_KO_DIR:?}" "${CCACTL:?}"
# It loads modules and deletes every network namespace: only in the demo VM.
if [ "$(hostname)" != ccaas-vm ]; then
	echo "$0: runs inside the VM that scripts/demo.sh (make demo) boots" >&2
	exit 1
fi
cd "$CCAAS_ROOT"
# shellcheck source-path=SCRIPTDIR/.. source=tests/vm/lib.sh
. tests/vm/lib.sh # ns, netns_add, veth_link, wait_port, load_ccaas, netns_cleanup

CONNS=tests/vm/lib/conns.py
PORT=5001
HOST_IP=10.0.0.1 HOST_GW=10.0.0.254
PEERS="rack dc region xregion"
declare -A ADDR=([rack]=10.1.1.2 [dc]=10.1.2.2 [region]=10.2.1.2 [xregion]=10.9.1.2)
declare -A DELAY=([rack]=0.05ms [dc]=0.2ms [region]=2ms [xregion]=30ms)
MONITOR_LOG=/tmp/monitor.log
DEMO_CG=/sys/fs/cgroup/demo.slice SVC_PORT=5003
step=0 step_title="start"

# ---- presentation ------------------------------------------------------------

# ccactl ARGS: the tool, so that commands read as a person would type them
ccactl() { "$CCACTL" "$@"; }

# step TITLE: a numbered heading, after a blank line
step() {
	step=$((step + 1)) step_title=$*
	printf '\n== %d. %s\n' "$step" "$*"
}

# say LINE...: narration, one line per argument
say() { printf '   %s\n' "$@"; }

# run CMD [ARGS...]: show the command, then its output indented
run() {
	printf '   $ %s\n' "$*"
	"$@" 2>&1 | sed 's/^/       /'
}

# show_file FILE: a config file without its comments and blank lines
show_file() {
	printf '   %s:\n' "$1"
	sed 's/[[:space:]]*#.*//; /^$/d; s/^/       /' "$1"
}

# show_ss: the host's connections as `ss -tin` sees them, one line per peer
# with only the fields that matter here
show_ss() {
	local map="" p
	for p in $PEERS; do map="$map ${ADDR[$p]}=$p"; done
	printf '   $ ip netns exec host ss -tino   (trimmed to peer, CCA, ECN, RTT, RTO, cwnd)\n'
	printf '       %-8s %-11s %-15s %-4s %8s %8s %5s\n' PEER ADDRESS CCA ECN RTT_MS RTO_MS CWND
	ns host ss -tinoH state established "( dport = :$PORT )" | awk -v map="$map" -v order="$PEERS" '
		BEGIN { n = split(map, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], a, "="); name[a[1]] = a[2] } }
		/^[0-9]/ { peer = $4; sub(/:[0-9]+$/, "", peer); next }
		{
			cca = "?"; ecn = "no"; rtt = rto = cwnd = "-"
			for (i = 1; i <= NF; i++) {
				if ($i == "ecn") ecn = "yes"
				else if ($i ~ /^rtt:/) { split(substr($i, 5), r, "/"); rtt = r[1] }
				else if ($i ~ /^rto:/) rto = substr($i, 5)
				else if ($i ~ /^cwnd:/) cwnd = substr($i, 6)
				else if (cca == "?" && $i !~ /[:(]/ && $i !~ /^(ts|sack|ecnseen|fastopen|app_limited)$/) cca = $i
			}
			line[name[peer]] = sprintf("       %-8s %-11s %-15s %-4s %8s %8s %5s", name[peer], peer, cca, ecn, rtt, rto, cwnd)
		}
		END { n = split(order, o, " "); for (i = 1; i <= n; i++) if (o[i] in line) print line[o[i]] }'
}

# expect PEER=CCA[/ecn|/noecn]...: check through `ccactl -j sock show` that
# the host's connection to each PEER is on CCA (and has ECN or not)
expect() {
	local args=() a p
	for a in "$@"; do
		p=${a%%=*}
		args+=("${ADDR[$p]}=${a#*=}=$p")
	done
	ccactl -n host -j sock show | python3 -c '
import json, sys
port = int(sys.argv[1])
got = {s["daddr"]: s for s in json.load(sys.stdin) if s["dport"] == port}
bad = []
for arg in sys.argv[2:]:
    addr, want, peer = arg.split("=")
    cca, _, ecn = want.partition("/")
    s = got.get(addr)
    if s is None:
        bad.append(peer + ": no connection")
    elif s["cca"] != cca or (ecn and s.get("ecn") != (ecn == "ecn")):
        bad.append("%s: on %s (ECN %s), expected %s" % (peer, s["cca"], s.get("ecn"), want))
if bad:
    print("   CHECK FAILED: " + "; ".join(bad))
    sys.exit(1)
print("   check: every connection is where it should be")
' "$PORT" "${args[@]}"
}

# ---- failure and cleanup -----------------------------------------------------

# cleanup: stop the demo's processes, then abort the sockets they leave
# behind (ss -K): an orphan still closing to a peer whose namespace is gone
# would retransmit its FIN for a minute, holding its CCA module, before
# netns_cleanup deletes the namespaces
cleanup() {
	local n i
	for n in $(ip netns list | cut -d' ' -f1); do
		ip netns pids "$n" | xargs -r kill -9 2>/dev/null
	done
	for i in $(seq 50); do
		[ -z "$(for n in $(ip netns list | cut -d' ' -f1); do
			ip netns pids "$n"; done)" ] && break
		sleep 0.1
	done
	for n in $(ip netns list | cut -d' ' -f1); do
		ip netns exec "$n" ss -K -ta >/dev/null 2>&1 || true
	done
	netns_cleanup # deletes every namespace
	[ ! -d "$DEMO_CG" ] || find "$DEMO_CG" -depth -type d -exec rmdir {} + 2>/dev/null || true
}

on_error() {
	[ "$BASHPID" = $$ ] || return 0 # a pipeline's subshell: the shell reports
	trap - ERR
	printf '\nDEMO FAILED in step %d, "%s" (%s line %s)\n' "$step" "$step_title" \
		"$(basename "$0")" "$1"
	cleanup
}
trap 'on_error $LINENO' ERR

# ---- the scenario ------------------------------------------------------------

printf 'ccaas demo on Linux %s (qemu, no KVM)\n' "$(uname -r)"

step "Load ccaas"
say "ccaas_core is the service; each tcp_cca_* module adds one CCA built on it:" \
	"cca_dcndelay (delay-based, inside a region), cca_xregion (ECN-based, across" \
	"regions), cca_cubic (the transitional Cubic, which holds ECN and non-ECN" \
	"connections alike) and cca_dctcp (the peers' listeners)."
load_ccaas tcp_cca_dcndelay tcp_cca_xregion tcp_cca_cubic tcp_cca_dctcp
modprobe -a sch_netem
run ccactl cca list
say "CCAs this kernel has: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"

step "Build a small network in namespaces"
say "A host, a router, and one peer at each distance: same rack, same data" \
	"center, another DC of the same region, another region.  netem delays both" \
	"directions; ping shows the shortest round trip it measured:"
netns_add host
netns_add router
veth_link host eth0 router to-host
ip -n host addr add "$HOST_IP/24" dev eth0
ip -n router addr add "$HOST_GW/24" dev to-host
ip -n host route add default via "$HOST_GW"
ns router sysctl -qw net.ipv4.ip_forward=1
for p in $PEERS; do
	gw=${ADDR[$p]%.*}.1
	netns_add "$p"
	veth_link router "to-$p" "$p" eth0
	ip -n router addr add "$gw/24" dev "to-$p"
	ip -n "$p" addr add "${ADDR[$p]}/24" dev eth0
	ip -n "$p" route add default via "$gw"
	tc -n router qdisc add dev "to-$p" root netem delay "${DELAY[$p]}"
	tc -n "$p" qdisc add dev eth0 root netem delay "${DELAY[$p]}"
done
# The links are there: one ping to each peer also fills the ARP caches, so
# the connections' first round trips measure the path alone.
lead="host $HOST_IP -- router "
branch="-+-"
for p in $PEERS; do
	rtt=$(ns host busybox ping -c 3 -i 0.2 -q "${ADDR[$p]}" | sed -nE 's|.* = ([0-9.]+)/.*|\1|p')
	printf '       %s%s %-8s %-9s %6s each way, ping %s ms\n' \
		"$lead" "$branch" "$p" "${ADDR[$p]}" "${DELAY[$p]}" "${rtt:-?}"
	lead=${lead//?/ } branch=" +-"
done
say "(Without KVM, qemu adds a millisecond or more to every round trip.)"

step "Tell the host where its peers are: the scope table"
say "Prefixes map to a locality (rack, dc, region, xregion) with region and DC ids;" \
	"the longest matching prefix wins."
show_file demo/scope.conf
run ccactl -n host scope load demo/scope.conf
run ccactl -n host scope show
say "A lookup: 10.1.1.2 is in the DC's /16, but its rack's /24 is longer."
run ccactl -n host scope show 10.1.1.2
say "An address no prefix covers has the locality 'unknown' (the default rule's)."
run ccactl -n host scope show 192.0.2.1

step "Policy v1: which CCA each kind of peer gets"
show_file demo/policy-v1.conf
say "A dry run first: the kernel checks every rule, commits nothing, shows the diff."
run ccactl -n host policy apply demo/policy-v1.conf dry_run
say "Now for real.  Each commit is a new generation of the policy."
out=$(ccactl -n host policy apply demo/policy-v1.conf)
printf '   $ ccactl -n host policy apply demo/policy-v1.conf\n       %s\n' "$out"
v1_gen=$(echo "$out" | sed -n 's/^generation \([0-9]*\).*/\1/p')
[ -n "$v1_gen" ]
run ccactl -n host policy show

step "Open a connection to every peer"
say "Each peer runs a server.  The peers' own ccaas policy puts their listeners" \
	"on cca_dctcp, so they accept ECN when a client asks for it (set before" \
	"they listen).  The host's CCA is chosen by its policy before the SYN leaves."
for p in $PEERS; do
	ccactl -n "$p" policy set default cca cca_dctcp >/dev/null
	ns "$p" python3 "$CONNS" server 0.0.0.0 "$PORT" >/dev/null 2>&1 &
	wait_port "$p" "$PORT"
done
# one at a time: on one slow vCPU, parallel starts would skew the RTTs
for p in $PEERS; do
	rm -f "/tmp/ready-$p"
	ns host python3 "$CONNS" client "${ADDR[$p]}" "$PORT" 1 "/tmp/ready-$p" --hold 3600 \
		>/dev/null 2>&1 &
	for _ in $(seq 100); do [ -e "/tmp/ready-$p" ] && break; sleep 0.1; done
	[ -e "/tmp/ready-$p" ] || { echo "   no connection to $p"; false; }
done
run ccactl -n host sock show
show_ss
say "Every connection asked for ECN (both CCAs need it) and got it: cca_dcndelay" \
	"steers by delay and takes ECN marks as a backstop, cca_xregion steers by them." \
	"The policy's min_rto keeps the region's RTOs far below Linux's 200 ms floor." \
	"(The kernel counts it in timer ticks, 4 ms at 250 Hz: so 1ms reads as 4ms.)" \
	"The RTTs are one handshake each on a busy emulated CPU: rough figures."
expect rack=cca_dcndelay/ecn dc=cca_dcndelay/ecn region=cca_dcndelay/ecn xregion=cca_xregion/ecn

step "Policy v2, applied to live connections"
say "ccactl monitor prints the service's events; it runs in the background."
ccactl -n host monitor >"$MONITOR_LOG" 2>&1 &
monitor_pid=$!
sleep 0.5
show_file demo/policy-v2.conf
run ccactl -n host policy apply demo/policy-v2.conf dry_run
run ccactl -n host policy apply demo/policy-v2.conf
say "The open connections were migrated to the new CCAs at once, without" \
	"reconnecting.  What the monitor saw:"
sleep 0.5
sed 's/^/       /' "$MONITOR_LOG"
run ccactl -n host sock show
show_ss
say "xregion moved to the transitional cca_cubic and kept its ECN: cca_cubic holds" \
	"what a handshake negotiated, ECN or not, so a CCA can be taken out of service" \
	"without touching a connection's ECN.  Sticky ECN: the region connection" \
	"negotiated ECN at its handshake, and that cannot be undone.  In-tree cubic" \
	"does not declare it can take an ECN connection, so ccaas refused to move it:" \
	"'1 refused (ECN)' above, and sock show lists it on cca_dcndelay while its" \
	"POLICY says cubic.  New region connections get cubic; 'force' would move" \
	"this one anyway."
expect rack=cca_dcndelay dc=cca_dcndelay region=cca_dcndelay/ecn xregion=cca_cubic/ecn
grep -q '^migrate generation .*, 1 migrated, 2 unchanged, 1 refused (ECN)' "$MONITOR_LOG"

step "History and rollback"
say "Every generation is kept; rollback commits an old one again, as a new one."
run ccactl -n host policy history
seen=$(wc -l <"$MONITOR_LOG")
run ccactl -n host policy rollback "$v1_gen"
sleep 0.5
say "The monitor again:"
tail -n +$((seen + 1)) "$MONITOR_LOG" | sed 's/^/       /'
kill "$monitor_pid"
wait "$monitor_pid" || true
run ccactl -n host sock show
say "Every connection is back on its v1 CCA (the region one never left), the" \
	"cross-region one on cca_xregion with the ECN it negotiated at the start."
expect rack=cca_dcndelay dc=cca_dcndelay region=cca_dcndelay/ecn xregion=cca_xregion/ecn

step "Policy per service: an RPC service and a bulk replicator on one host"
say "Two services of the host talk to the same peer in the region.  The RPC" \
	"service wants short queues (cca_dcndelay, what the region's rule gives);" \
	"the replicator moves bulk data and may take the transitional cca_cubic." \
	"Each runs in a cgroup of its own, as systemd runs services; a rule with" \
	"\`cgroup PATH\` matches the sockets of that cgroup and of those below it."
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
mkdir -p "$DEMO_CG/rpc.service" "$DEMO_CG/replicator.service"
run ccactl -n host policy set cgroup demo.slice/replicator.service locality region \
	cca cca_cubic
# svc_client SERVICE PORT: one held connection to the region peer, made by a
# process of SERVICE's cgroup
svc_client() {
	rm -f "/tmp/ready-$1"
	# shellcheck disable=SC2016 # expanded by the inner shell
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$DEMO_CG/$1" \
		ip netns exec host python3 "$CONNS" client "${ADDR[region]}" "$2" 1 \
		"/tmp/ready-$1" --hold 3600 >/dev/null 2>&1 &
	for _ in $(seq 100); do [ -e "/tmp/ready-$1" ] && break; sleep 0.1; done
	[ -e "/tmp/ready-$1" ] || { echo "   no connection from $1"; false; }
}
ns region python3 "$CONNS" server 0.0.0.0 "$SVC_PORT" >/dev/null 2>&1 &
wait_port region "$SVC_PORT"
svc_client rpc.service "$SVC_PORT"
svc_client replicator.service "$SVC_PORT"
run ccactl -n host sock show cgroup demo.slice
printf '   $ ip netns exec host ss -tinpH dport = :%s   (trimmed to service, pid, CCA, ECN)\n' "$SVC_PORT"
for svc in rpc.service replicator.service; do
	pid=$(head -n 1 "$DEMO_CG/$svc/cgroup.procs")
	ns host ss -tinpH state established "( dport = :$SVC_PORT )" | grep -A1 "pid=$pid," |
		tail -n 1 | awk -v svc="$svc" -v pid="$pid" '{
		cca = "?"; ecn = "no"
		for (i = 1; i <= NF; i++) {
			if ($i == "ecn") ecn = "yes"
			else if (cca == "?" && $i !~ /[:(]/ && $i !~ /^(ts|sack|ecnseen|fastopen|app_limited)$/) cca = $i
		}
		printf "       %-20s pid %-6s %-15s ECN %s\n", svc, pid, cca, ecn
	}'
done
say "One host, one peer, two CCAs, chosen by service before each SYN left:" \
	"each connection asked for ECN as its own CCA does."
ccactl -n host -j sock show cgroup demo.slice | python3 -c '
import json, sys
got = {s["cgroup"]: s for s in json.load(sys.stdin) if s["dport"] == int(sys.argv[1])}
want = {"demo.slice/rpc.service": ("cca_dcndelay", "locality region"),
        "demo.slice/replicator.service": ("cca_cubic",
                                          "cgroup demo.slice/replicator.service locality region")}
for cg, (cca, rule) in want.items():
    s = got.get(cg)
    if not s or s["cca"] != cca or s.get("rule_match") != rule:
        print("   CHECK FAILED: %s: %s" % (cg, s))
        sys.exit(1)
print("   check: each service is on its own CCA, by its own rule")
' "$SVC_PORT"
run ccactl -n host policy del cgroup demo.slice/replicator.service locality region
ns region pkill -f "server 0.0.0.0 $SVC_PORT" || true
for s in rpc.service replicator.service; do
	pkill -f "/tmp/ready-$s" || true
done

step "Watch a connection round by round: ccalog"
say "ccalog reports a selected connection's CCA state once per round trip, through" \
	"tracepoints trace-cmd records; unselected connections cost one test per round." \
	"A 2-second transfer to the dc peer, selected by a filter ccactl resolves to its" \
	"socket cookie:"
ns dc python3 tests/vm/lib/paced.py sink 0.0.0.0 5002 >/dev/null 2>&1 &
wait_port dc 5002
rm -f /tmp/lg-ready /tmp/lg-go
ns host python3 tests/vm/lib/paced.py send "${ADDR[dc]}" 5002 4e6 2 /tmp/lg-ready /tmp/lg-go &
sender=$!
for _ in $(seq 100); do [ -e /tmp/lg-ready ] && break; sleep 0.1; done
run ccactl -n host log add dport 5002
run ccactl -n host log show
printf '   $ ccactl -n host log record duration 4 file /tmp/ccalog.dat\n'
ccactl -n host log record duration 4 file /tmp/ccalog.dat 2>&1 | sed 's/^/       /' &
recorder=$!
sleep 1.5
touch /tmp/lg-go
wait "$sender"
wait "$recorder"
say "Three rounds of it (trace-cmd report, a few of the fields):"
trace-cmd report -i /tmp/ccalog.dat 2>/dev/null | grep ' ccalog_rtt: ' | sed -n '10,12p' |
	sed -E 's/.* ccalog_rtt: +//; s/ (src|delivery_rate|delivered|ca_state|is_tx_start|is_ssthresh_invoked|cca_state|target_us)=[^ ]*//g; s/^/       /'
run tools/ccalog-plot --list /tmp/ccalog.dat
run tools/ccalog-plot -o /tmp/ccalog.png /tmp/ccalog.dat
say "(The image stays in the VM; on a host, open it.)"
run ccactl -n host log del all

step "Clean up"
cleanup
# namespaces go away asynchronously; their policies and their closing
# sockets hold the modules until then
for m in tcp_cca_dcndelay tcp_cca_xregion tcp_cca_cubic tcp_cca_dctcp; do
	rmmod_poll "$m" 60 || true
done
rmmod ccaas_core
if grep -qE '^(tcp_cca_[a-z]+|ccaas_core) ' /proc/modules; then
	say "a ccaas module is still loaded"
	false
fi
say "Processes stopped, namespaces deleted, ccaas modules unloaded."

trap - ERR
printf '\nDemo OK: 4 peers scoped, cca_dcndelay inside the region and cca_xregion across, the cross-region connection parked on cca_cubic with its ECN and back by rollback, 1 sticky-ECN refusal, two services on two CCAs to one peer, one connection traced per round trip.\n'
