# Fleet rollout with Ansible (the collection ccaas.fleet, deploy/ansible/):
# six hosts in three regions and a seventh, r4a, alone in region 4 with no
# traffic, each a network namespace with its own ccaas state, its own
# configuration directory (ccaas_conf_dir, /etc/ccaas on a real host) and
# its own sshd. The controller is Debian's ansible-core on the host
# (lib/ansible-controller.sh), as a fleet's controller is not one of its
# hosts: it reaches each host's sshd over ssh through the guest's sshd
# (ssh -W). Every host of regions 1 to 3 holds a connection to every other
# one and writes on it all along.
#
# site gives every host the fleet's scope and base policy (cca_dcndelay
# inside a region, the transitional cca_cubic across); rollout, in check
# mode, shows the kernel's dry-run diff and commits nothing; it then rolls
# region pair 1,2 out to cca_xregion, canaries (r1a, r2a) first, then r1b
# and r2b one at a time, each gated on ccaas_stats, and records the pair
# beside the inventory; a second run (later, one whose gate fails) changes
# nothing. r1a then "reboots":
# its policy and scope emptied, ccaas-service start on its configuration
# directory brings the pair's rules back. site then keeps the pair, and
# gives region 2's hosts a rule for one service (a cgroup) through the
# inventory's group variables, which applies to them alone. Pair
# 1,4 has no traffic: its canaries fail the gate for too few connections.
# Pair 3,2's canary r3a fails its gate (applications there pinned a
# connection to each region 2 host to in-tree cubic): the canaries go
# back, region 3's first (the pair's order, not the inventory's), and r3b
# and r2b are never touched. A re-run of the live pair 1,2 whose gate
# fails keeps it everywhere; r1b unreachable stops a rollout of pair 1,3
# after the canaries, which go back, the report naming it. Last, pair 1,2
# is rolled back by hand. The procedures are the subject, not the
# kernel: one Debian line.
# vm-lines: spare
# vm-ansible: yes
# vm-timeout: 1800

FL=$RESULTS/ansible	# shared with the controller (lib/ansible-controller.sh)
FLR=/tmp/fleet		# sshd's own files, in the guest
FL_HOSTS="r1a r1b r2a r2b r3a r3b"	# the hosts with traffic
FL_ALL="$FL_HOSTS r4a"			# and the one without
FL_PORT=5001
FL_SVC=$FL/service-rule			# region 2's service rule, once given
FL_SVC_CG=/sys/fs/cgroup/ccaas-fleet
FL_SVC_RULE="cgroup ccaas-fleet/rpc.service locality region cca cca_xregion"
TRAFFIC=$CCAAS_ROOT/tests/vm/lib/fleet_traffic.py
CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py

load_ccaas tcp_cca_dcndelay tcp_cca_xregion tcp_cca_cubic

# fl_ip HOST: r2b -> 10.77.2.2
fl_ip() {
	local n=1
	[ "${1:2:1}" = a ] || n=2
	echo "10.77.${1:1:1}.$n"
}

# fl_sshd NAME ADDR [NS]: an sshd on ADDR (in NS) taking the controller's key
fl_sshd() {
	local h=$1
	cat >"$FL/sshd-$h.conf" <<EOC
ListenAddress $2
HostKey $FLR/host_key
AuthorizedKeysFile $FL/id.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $FLR/sshd-$h.pid
EOC
	# the host's own ~/.bashrc is no part of the fleet: each sshd gets
	# an empty one, in a mount namespace of its own
	# shellcheck disable=SC2016 # expanded by that sh
	ns "${3:-}" unshare -m sh -c 'mount --bind "$1" /root/.bashrc 2>/dev/null; exec /usr/sbin/sshd -f "$2" -E "$3"' \
		sshd "$FLR/empty" "$FL/sshd-$h.conf" "$FL/sshd-$h.log"
}

fl_inventory() {
	local r h
	cat <<EOC
all:
  vars:
    ccaas_ccactl: $CCACTL
    ccaas_conf_dir: "$FLR/etc-{{ inventory_hostname }}"
    ccaas_regions: {1: [10.77.1.0/24], 2: [10.77.2.0/24], 3: [10.77.3.0/24], 4: [10.77.4.0/24]}
    ccaas_base_policy:
      - locality region cca ${FL_REGION_CCA:-cca_dcndelay}
      - locality xregion cca cca_cubic
    ccaas_rollout_cca: cca_xregion
    ccaas_live_pairs: []
    ccaas_gate_wait: 3
  children:
    ccaas:
      children:
EOC
	for r in 1 2 3 4; do
		echo "        region_$r:"
		# $FL_SVC: one more base rule, for region 2's hosts only, once
		# fleet_site_keeps_pair has put it in the inventory
		if [ "$r" = 2 ] && [ -e "$FL_SVC" ]; then
			echo "          vars:"
			echo "            ccaas_base_policy:"
			echo "              - locality region cca ${FL_REGION_CCA:-cca_dcndelay}"
			echo "              - locality xregion cca cca_cubic"
			echo "              - $(cat "$FL_SVC")"
		fi
		echo "          hosts:"
		for h in $FL_ALL; do
			[ "${h:1:1}" = $r ] || continue
			echo "            $h: {ansible_host: $(fl_ip "$h"), ccaas_region: $r}"
		done
	done
}

# fl_play NAME PLAYBOOK ARGS...: have the controller run a playbook; its
# output in $FL/NAME.out, its wall time in $FL/NAME.time; its exit status
fl_play() {
	local name=$1 rc
	shift
	printf '%s\n' "$@" >"$FL/$name.req.new" && mv "$FL/$name.req.new" "$FL/$name.req"
	for _ in $(seq 2250); do [ -e "$FL/$name.rc" ] && break; sleep 0.2; done
	rc=$(cat "$FL/$name.rc" 2>/dev/null) || { echo "no answer from the controller"; return 125; }
	sed 's/^/    /' "$FL/$name.out" |
		grep -E '^    (PLAY|TASK|changed|fatal|failed|[-+~] |ok: \[r.*\] => \{|.*"msg")|: ok=' || true
	echo "    $*: exit $rc, $(cat "$FL/$name.time") ms"
	return "$rc"
}

# fl_rules HOST: the rules of HOST's policy in force, one per line
fl_rules() {
	"$CCACTL" -n "$1" policy show | grep -v '^#'
}

# fl_history HOSTS...: "host:time" of each host's last policy commit (its
# history's last entry), which any apply that commits moves
fl_history() {
	local h
	for h in "$@"; do
		echo "$h:$("$CCACTL" -n "$h" -j policy history | python3 -c 'import json, sys; print(json.load(sys.stdin)[-1]["time_ns"])')"
	done
}

# fl_changed NAME: the sum of changed= over the recap of run NAME
fl_changed() {
	sed -n 's/.* changed=\([0-9]*\) .*/\1/p' "$FL/$1.out" | awk '{ s += $1 } END { print s + 0 }'
}

# fl_generations: "host:generation" of every host (one python3 for all:
# each start costs the emulated CPU, beside the fleet's traffic)
fl_generations() {
	local h
	for h in $FL_HOSTS; do
		"$CCACTL" -n "$h" -j policy show >"$FL/gen-$h.json" || return 1
	done
	# shellcheck disable=SC2086 # one word per host
	python3 -c '
import json, sys
d = sys.argv[1]
print(" ".join("%s:%s" % (h, json.load(open("%s/gen-%s.json" % (d, h)))["generation"])
               for h in sys.argv[2:]))' "$FL" $FL_HOSTS
}

# fl_check_ccas XREGION_PAIRS: every connection of the fleet's traffic is
# where the policy puts it: inside a region on cca_dcndelay, between the
# regions of a pair in XREGION_PAIRS (e.g. "1,2 2,3") on cca_xregion (or
# its no-ECN fallback, for connections made before without ECN),
# between other regions on cca_cubic, and pinned ones on their own CCA.
# Prints what is not, and the counts.
fl_check_ccas() {
	local h
	for h in $FL_HOSTS; do
		"$CCACTL" -n "$h" -j sock show >"$FL/socks-$h.json" || return 1
	done
	# shellcheck disable=SC2086 # one word per host
	python3 -c '
import json, sys
d, pairs, port, hosts = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4:]
pairs = [set(map(int, p.split(","))) for p in pairs]
ok = True
for host in hosts:
    me = int(host[1])
    bad = n = 0
    for s in json.load(open("%s/socks-%s.json" % (d, host))):
        if port not in (s["sport"], s["dport"]):
            continue
        n += 1
        peer = int(s["daddr"].split(".")[2])
        if s.get("pinned"):
            want = ("cubic",)
        elif peer == me:
            want = ("cca_dcndelay",)
        elif {me, peer} in pairs:
            want = ("cca_xregion", "cca_xregion-ne")
        else:
            want = ("cca_cubic",)
        if s["cca"] not in want:
            bad += 1
            print("%s: %s:%d -> %s:%d on %s, not %s" % (host, s["saddr"], s["sport"],
                  s["daddr"], s["dport"], s["cca"], " or ".join(want)))
    print("%s: %d connections, %d misplaced" % (host, n, bad))
    ok = ok and not bad and n >= 10
sys.exit(0 if ok else 1)
' "$FL" "$1" $FL_PORT $FL_HOSTS
}

# fl_teardown: what the fleet left in the initial namespace, for the files
# after this one (netns_cleanup takes the hosts)
fl_teardown() {
	[ ! -e "$FLR/sshd-guest.pid" ] || kill "$(cat "$FLR/sshd-guest.pid")" 2>/dev/null
	ip link del fbr 2>/dev/null
	local nic
	nic=$(fl_nic)
	[ -z "$nic" ] || { ip addr flush dev "$nic"; ip link set "$nic" down; }
	return 0
}

# fl_nic: the guest's virtio NIC (vm-run.sh -N), once its driver is loaded
fl_nic() {
	local u
	u=$(grep -l '^DRIVER=virtio_net' /sys/class/net/*/device/uevent 2>/dev/null | head -n 1)
	[ -z "$u" ] || basename "$(dirname "$(dirname "$u")")"
}

# The fleet: a bridge in the initial namespace (the controller, 10.77.0.254),
# a veth to each host; sshd and the traffic in each host.
test_fleet_setup() {
	local h peers p _ nic
	rm -rf "$FLR" && mkdir -p "$FL" "$FLR" /run/sshd && : >"$FLR/empty" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$FLR/host_key" || return 1
	for _ in $(seq 100); do [ -e "$FL/id.pub" ] && break; sleep 0.1; done
	[ -e "$FL/id.pub" ] || { fail fleet_setup "no key from the controller"; return 1; }
	# the controller's way in: the NIC of vm-run.sh -N, the guest's sshd
	modprobe virtio_net || return 1
	for _ in $(seq 50); do
		nic=$(fl_nic)
		[ -n "$nic" ] && break
		sleep 0.1
	done
	if ! ip addr add 10.0.2.15/24 dev "$nic" || ! ip link set "$nic" up ||
		! fl_sshd guest 10.0.2.15 ""; then
		fail fleet_setup "no sshd for the controller"
		return 1
	fi
	ip link add fbr type bridge && ip addr add 10.77.0.254/16 dev fbr &&
		ip link set fbr up || return 1
	for h in $FL_ALL; do
		netns_add "$h" &&
			ip link add "v$h" type veth peer name eth0 netns "$h" &&
			ip link set "v$h" master fbr up &&
			ip -n "$h" addr add "$(fl_ip "$h")/16" dev eth0 &&
			ip -n "$h" link set eth0 up || return 1
		fl_sshd "$h" "$(fl_ip "$h")" "$h" || { fail fleet_setup "sshd in $h did not start"; return 1; }
	done
	fl_inventory >"$FL/inventory.yml"
	fl_play site site -e ccaas_rollout_batch=4 ||
		{ fail fleet_setup "site failed: $(tail -n 20 "$FL/site.out")"; return 1; }
	# two tasks (scope, policy) and the migration after a new scope table
	# changed on each of the seven hosts
	[ "$(fl_changed site)" = 21 ] || { fail fleet_setup "site changed $(fl_changed site), not 21"; return 1; }
	# and both are kept where ccaas-service reads them
	grep -qx 'locality xregion cca cca_cubic' "$FLR/etc-r1a/policy.conf" &&
		grep -qx '10.77.2.0/24 locality xregion region 2 dc 0' "$FLR/etc-r1a/scope.conf" ||
		{ fail fleet_setup "r1a's configuration: $(cat "$FLR"/etc-r1a/*)"; return 1; }
	for h in $FL_HOSTS; do
		peers=""
		for p in $FL_HOSTS; do
			[ "$p" = "$h" ] || peers="$peers $(fl_ip "$p")"
		done
		# shellcheck disable=SC2086 # one word per peer
		set -- $peers
		# region 3's applications pin a connection to each region 2 host
		if [ "${h:1:1}" = 3 ]; then
			set -- "$@" --pin "$(fl_ip r2a):cubic" --pin "$(fl_ip r2b):cubic"
		fi
		ip netns exec "$h" python3 "$TRAFFIC" "$(fl_ip "$h")" $FL_PORT "$FL/ready-$h" "$@" \
			>"$FL/traffic-$h.log" 2>&1 &
		echo $! >"$FL/traffic-$h.pid"
	done
	for h in $FL_HOSTS; do
		for _ in $(seq 300); do [ -e "$FL/ready-$h" ] && break; sleep 0.1; done
		[ -e "$FL/ready-$h" ] || { fail fleet_setup "no traffic from $h: $(cat "$FL/traffic-$h.log")"; return 1; }
	done
	fl_check_ccas "" || { fail fleet_setup "connections not on the base policy's CCAs"; return 1; }
	pass fleet_setup
}

# Check mode is the kernel's dry run: the diff of each host of the pair,
# and no commit anywhere.
test_fleet_check_mode() {
	local before
	before=$(fl_generations) || { fail fleet_check_mode "no policy from a host"; return 1; }
	fl_play check rollout -e ccaas_pair=1,2 --check --diff ||
		{ fail fleet_check_mode "exit status: $(tail -n 20 "$FL/check.out")"; return 1; }
	if ! grep -q '^+ locality xregion region 2 cca cca_xregion' "$FL/check.out" ||
		! grep -q '^+ locality xregion region 1 cca cca_xregion' "$FL/check.out"; then
		fail fleet_check_mode "no diff in: $(cat "$FL/check.out")"
		return 1
	fi
	[ "$(fl_generations)" = "$before" ] ||
		{ fail fleet_check_mode "generations moved: $before -> $(fl_generations)"; return 1; }
	! grep -q cca_xregion "$FLR/etc-r1a/policy.conf" && [ ! -e "$FL/group_vars" ] ||
		{ fail fleet_check_mode "check mode wrote a file"; return 1; }
	pass fleet_check_mode
}

# Pair 1,2: its connections move to cca_xregion, a new one between the
# two regions starts there with ECN, and no other connection moves. The
# canaries first, then the other two hosts one at a time (serial 25%),
# and the pair recorded beside the inventory.
test_fleet_rollout_pair() {
	local out _
	fl_play rollout12 rollout -e ccaas_pair=1,2 ||
		{ fail fleet_rollout_pair "rollout failed: $(tail -n 30 "$FL/rollout12.out")"; return 1; }
	# four hosts, and the record (its directory, its file)
	[ "$(fl_changed rollout12)" = 6 ] || { fail fleet_rollout_pair "changed $(fl_changed rollout12), not 6"; return 1; }
	# the playbook as Ansible reads it: no key given twice
	! grep -q 'duplicate dict key' "$FL/rollout12.out" ||
		{ fail fleet_rollout_pair "$(grep -A2 'duplicate dict key' "$FL/rollout12.out")"; return 1; }
	# the canaries' play, then one batch per host
	[ "$(grep -c '^PLAY \[Roll out the pair to its other hosts' "$FL/rollout12.out")" = 2 ] ||
		{ fail fleet_rollout_pair "not two batches after the canaries"; return 1; }
	grep -qx 'ccaas_live_pairs: \["1,2"\]' "$FL/group_vars/all/ccaas_live_pairs.yml" ||
		{ fail fleet_rollout_pair "the pair is not recorded: $(cat "$FL/group_vars/all/ccaas_live_pairs.yml")"; return 1; }
	grep -qx 'locality xregion region 1 cca cca_xregion' "$FLR/etc-r2b/policy.conf" ||
		{ fail fleet_rollout_pair "r2b's policy.conf: $(cat "$FLR/etc-r2b/policy.conf")"; return 1; }
	fl_check_ccas "1,2" || { fail fleet_rollout_pair "connections misplaced after the rollout"; return 1; }
	ip netns exec r1a python3 "$CONNS" client "$(fl_ip r2a)" $FL_PORT 1 "$FL/new-ready" &
	for _ in $(seq 100); do [ -e "$FL/new-ready" ] && break; sleep 0.1; done
	out=$("$CCACTL" -n r1a -j sock show dport $FL_PORT | python3 -c '
import json, sys
s = [s for s in json.load(sys.stdin) if s["daddr"] == sys.argv[1]]
print(" ".join("%s/%s" % (x["cca"], x.get("ecn")) for x in s))' "$(fl_ip r2a)")
	echo "r1a -> r2a: $out"
	echo "$out" | grep -q 'cca_xregion/True' ||
		{ fail fleet_rollout_pair "a new connection r1a -> r2a is not on cca_xregion with ECN: $out"; return 1; }
	echo "rollout of pair 1,2: $(cat "$FL/rollout12.time") ms (a gate wait of 3 s included)"
	pass fleet_rollout_pair
}

# A reboot of r1a: its scope table and policy emptied (as a new boot has
# them), then ccaas-service start on its configuration directory, in its
# namespace, as the unit runs it: the pair's rules are in force again,
# and its connections back on them.
test_fleet_reboot_keeps_rollout() {
	local t=fleet_reboot_keeps_rollout rules scope
	rules=$(fl_rules r1a) && scope=$("$CCACTL" -n r1a scope show) ||
		{ fail $t "no policy or scope from r1a"; return 1; }
	echo "$rules" | grep -qx 'locality xregion region 2 cca cca_xregion' ||
		{ fail $t "the rollout is not in force on r1a: $rules"; return 1; }
	echo "" | "$CCACTL" -n r1a policy apply - no_migrate >/dev/null &&
		"$CCACTL" -n r1a scope flush || { fail $t "cannot empty r1a"; return 1; }
	[ -z "$(fl_rules r1a)" ] || { fail $t "r1a's policy not emptied"; return 1; }
	ip netns exec r1a env CCAAS_CONF_DIR="$FLR/etc-r1a" CCAAS_RUN_DIR="$FLR/run-r1a" \
		CCACTL="$CCACTL" bash "$CCAAS_ROOT/deploy/ccaas-service" start >"$FL/start-r1a.log" 2>&1 ||
		{ fail $t "ccaas-service start: $(cat "$FL/start-r1a.log")"; return 1; }
	[ "$(fl_rules r1a)" = "$rules" ] ||
		{ fail $t "after the start r1a has: $(fl_rules r1a), not: $rules"; return 1; }
	[ "$("$CCACTL" -n r1a scope show)" = "$scope" ] ||
		{ fail $t "after the start r1a's scope: $("$CCACTL" -n r1a scope show)"; return 1; }
	fl_check_ccas "1,2" || { fail $t "connections misplaced after the start"; return 1; }
	pass $t
}

# The next routine site run keeps pair 1,2 (recorded beside the
# inventory). Its inventory now gives region 2's hosts one more base rule,
# for a service (fleet_service_rule checks it): their Policy tasks change
# and nothing else does; no generation moves outside region 2. Its gate is
# waived (the service has no connection yet).
test_fleet_site_keeps_pair() {
	local t=fleet_site_keeps_pair before now
	before=$(fl_generations) || { fail $t "no policy from a host"; return 1; }
	echo "$FL_SVC_RULE" >"$FL_SVC" && fl_inventory >"$FL/inventory.yml" || return 1
	fl_play site2 site -e ccaas_rollout_batch=4 -e ccaas_gate_min_sockets=0 ||
		{ fail $t "site failed: $(tail -n 30 "$FL/site2.out")"; return 1; }
	[ "$(fl_changed site2)" = 2 ] || { fail $t "site changed $(fl_changed site2), not 2"; return 1; }
	now=$(fl_generations) || { fail $t "no policy from a host"; return 1; }
	[ "$(echo "$now" | tr ' ' '\n' | grep -v '^r2')" = "$(echo "$before" | tr ' ' '\n' | grep -v '^r2')" ] ||
		{ fail $t "generations moved outside region 2: $before -> $now"; return 1; }
	fl_rules r2b | grep -qx 'locality xregion region 1 cca cca_xregion' ||
		{ fail $t "r2b lost the pair: $(fl_rules r2b)"; return 1; }
	echo "site, one service rule for region 2: $(cat "$FL/site2.time") ms"
	pass $t
}

# The rule site gave region 2's hosts for one service (a cgroup): in force
# there only and kept in their policy.conf; its cgroup, made after the
# commit, is bound to it (policy show names its id), and a connection of
# that service made inside the region gets the service's CCA while the
# region's own traffic keeps its.
test_fleet_service_rule() {
	local t=fleet_service_rule h out id cg=$FL_SVC_CG
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	mkdir -p $cg/rpc.service && id=$(stat -c %i $cg/rpc.service) ||
		{ fail $t "cannot make $cg/rpc.service"; return 1; }
	for h in r2a r2b; do
		fl_rules $h | grep -qx "$FL_SVC_RULE  # cgroup id $id" ||
			{ fail $t "$h: no service rule: $(fl_rules $h)"; return 1; }
		grep -qx "$FL_SVC_RULE" "$FLR/etc-$h/policy.conf" ||
			{ fail $t "$h: not in its policy.conf"; return 1; }
	done
	for h in r1a r1b r3a r3b; do
		! fl_rules $h | grep -q cgroup ||
			{ fail $t "$h, not of region 2, has it: $(fl_rules $h)"; return 1; }
	done
	ns r2b python3 "$CONNS" server :: 5031 >/dev/null 2>&1 &
	wait_port r2b 5031 || { fail $t "no server"; return 1; }
	rm -f /tmp/fl_svc_ready
	# shellcheck disable=SC2016 # expanded by the inner shell
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh $cg/rpc.service \
		ip netns exec r2a python3 "$CONNS" client "$(fl_ip r2b)" 5031 1 \
		/tmp/fl_svc_ready --hold 300 >/dev/null 2>&1 &
	local client=$!
	for _ in $(seq 100); do [ -e /tmp/fl_svc_ready ] && break; sleep 0.1; done
	out=$("$CCACTL" -n r2a -j sock show cgroup ccaas-fleet/rpc.service)
	echo "$out" | python3 -c '
import json, sys
s = [c for c in json.load(sys.stdin) if c["dport"] == 5031]
assert len(s) == 1 and s[0]["cca"].startswith("cca_xregion"), s
assert s[0]["rule_match"] == "cgroup ccaas-fleet/rpc.service locality region", s
' || { fail $t "the service's connection: $out"; return 1; }
	fl_check_ccas "1,2" || { fail $t "the region's traffic moved"; return 1; }
	kill "$client" 2>/dev/null
	wait "$client" 2>/dev/null
	ip netns pids r2b | xargs -r ps -o pid=,args= -p | awk '/server :: 5031/ { print $1 }' |
		xargs -r kill 2>/dev/null
	for _ in $(seq 50); do rmdir $cg/rpc.service $cg 2>/dev/null && break; sleep 0.1; done
	pass $t
}

# A change of the base policy (inside a region: cca_cubic for
# cca_dcndelay) goes out as a rollout does: the canaries (the first host
# of each region) first, gated on the changed rule after one wait. With a
# threshold of connections no canary meets, every canary fails its gate
# and goes back to the rules it had, in the kernel and in its policy.conf
# (a start would apply them unchanged: the file holds them in the
# kernel's words); no other host is touched, and the run fails.
test_fleet_site_gates_base_change() {
	local t=fleet_site_gates_base_change h rules="" hist
	for h in r1a r2a r3a r4a; do
		rules="$rules$h: $(fl_rules $h | tr '\n' ';') "
	done
	hist=$(fl_history r1b r2b r3b) || { fail $t "no policy history"; return 1; }
	FL_REGION_CCA=cca_cubic fl_inventory >"$FL/inventory.yml"
	fl_play siteb site -e ccaas_rollout_batch=4 -e ccaas_gate_min_sockets=1000
	local rc=$?
	fl_inventory >"$FL/inventory.yml"
	[ $rc != 0 ] || { fail $t "the run passed"; return 1; }
	grep -q 'gate failed: [0-9]* connections matched locality region (< 1000)' "$FL/siteb.out" ||
		{ fail $t "no gate failure on the changed rule: $(tail -n 40 "$FL/siteb.out")"; return 1; }
	grep -q 'Pausing for 3 seconds' "$FL/siteb.out" ||
		{ fail $t "no wait before the gate"; return 1; }
	local now="" out
	for h in r1a r2a r3a r4a; do
		now="$now$h: $(fl_rules $h | tr '\n' ';') "
		out=$("$CCACTL" -n $h policy apply "$FLR/etc-$h/policy.conf" dry_run 2>&1)
		echo "$out" | grep -q '^no changes' ||
			{ fail $t "$h: its policy.conf is not the rules in force: $out"; return 1; }
		# the rules as the kernel took them, without policy show's
		# comments (r2a's service rule: "# cgroup id N")
		! grep -v '^#' "$FLR/etc-$h/policy.conf" | grep -q '#' ||
			{ fail $t "$h: comments in its rules: $(cat "$FLR/etc-$h/policy.conf")"; return 1; }
	done
	[ "$now" = "$rules" ] || { fail $t "canaries not back: $rules -> $now"; return 1; }
	[ "$(fl_history r1b r2b r3b)" = "$hist" ] ||
		{ fail $t "a host after the canaries was touched: $hist -> $(fl_history r1b r2b r3b)"; return 1; }
	fl_check_ccas "1,2" || { fail $t "connections misplaced after the failed change"; return 1; }
	echo "site, a base change failing on the canaries: $(cat "$FL/siteb.time") ms"
	pass $t
}

# Pair 1,4: r4a has no connection at all, so its canary, and r1a, whose
# rule for region 4 matches nothing either, fail the gate for too few
# connections; both go back, r1b is never touched, the record keeps 1,2
# only.
test_fleet_gate_needs_traffic() {
	local t=fleet_gate_needs_traffic rules hist
	rules=$(fl_rules r1a) && hist=$(fl_history r1b) || { fail $t "no policy from r1a, r1b"; return 1; }
	fl_play rollout14 rollout -e ccaas_pair=1,4 && { fail $t "the run passed"; return 1; }
	grep -q 'gate failed: 0 connections matched locality xregion region 1 (< 1)' "$FL/rollout14.out" &&
		grep -q 'gate failed: 0 connections matched locality xregion region 4 (< 1)' "$FL/rollout14.out" ||
		{ fail $t "no gate failure for too few connections: $(cat "$FL/rollout14.out")"; return 1; }
	[ "$(fl_rules r1a)" = "$rules" ] || { fail $t "r1a not back: $(fl_rules r1a)"; return 1; }
	[ "$(fl_history r1b)" = "$hist" ] || { fail $t "r1b was touched: $hist -> $(fl_history r1b)"; return 1; }
	grep -qx 'ccaas_live_pairs: \["1,2"\]' "$FL/group_vars/all/ccaas_live_pairs.yml" ||
		{ fail $t "the record changed: $(cat "$FL/group_vars/all/ccaas_live_pairs.yml")"; return 1; }
	pass $t
}

# A re-run of pair 1,2, already recorded, whose gate fails (a threshold
# of connections no host meets): the run fails saying so; every host of
# both regions keeps the pair, as the record has it (nothing to undo, no
# generation moves), and the record keeps it. The run is also the
# rollout's second one (fleet_rollout_idempotent, next).
test_fleet_rerun_live_pair_fails() {
	local t=fleet_rerun_live_pair_fails before
	before=$(fl_generations) || { fail $t "no policy from a host"; return 1; }
	echo "$before" >"$FL/rerun12.before"
	fl_play rerun12 rollout -e ccaas_pair=1,2 -e ccaas_gate_min_sockets=1000 &&
		{ fail $t "the run passed"; return 1; }
	grep -q 'gate failed: [0-9]* connections matched locality xregion region 2 (< 1000)' "$FL/rerun12.out" ||
		{ fail $t "no gate failure: $(cat "$FL/rerun12.out")"; return 1; }
	grep -q 'the gate failed on pair 1,2: pair 1,2 is recorded as rolled out, so every host keeps it (nothing undone)' "$FL/rerun12.out" ||
		{ fail $t "the run did not say the pair stays"; return 1; }
	[ "$(fl_generations)" = "$before" ] ||
		{ fail $t "generations moved: $before -> $(fl_generations)"; return 1; }
	grep -qx 'ccaas_live_pairs: \["1,2"\]' "$FL/group_vars/all/ccaas_live_pairs.yml" ||
		{ fail $t "the record changed: $(cat "$FL/group_vars/all/ccaas_live_pairs.yml")"; return 1; }
	fl_check_ccas "1,2" || { fail $t "connections misplaced after the failed re-run"; return 1; }
	echo "failed re-run of pair 1,2: $(cat "$FL/rerun12.time") ms"
	pass $t
}

# The rollout's second run (the re-run above) changes nothing: no task of
# any host reports a change, no generation moves.
test_fleet_rollout_idempotent() {
	local t=fleet_rollout_idempotent before now
	[ -e "$FL/rerun12.rc" ] && before=$(cat "$FL/rerun12.before") ||
		{ fail $t "no re-run of pair 1,2"; return 1; }
	now=$(fl_generations) || { fail $t "no policy from a host"; return 1; }
	[ "$(fl_changed rerun12)" = 0 ] && [ "$now" = "$before" ] ||
		fail $t "changed $(fl_changed rerun12), not 0; generations $before -> $now"
}

# Pair 1,3 one host at a time, r1b unreachable (its sshd and sessions
# gone): the canaries pass; r1b's batch, all unreachable, does not end
# the run: no later batch starts (r3b untouched), the canaries go back,
# the report names r1b unreachable, not a failed gate, and the run fails
# as a failed task does (2, not Ansible's 4 for unreachable hosts).
test_fleet_unreachable_host() {
	local t=fleet_unreachable_host rules hist p rc
	rules=$(fl_rules r1a; fl_rules r3a) && hist=$(fl_history r1b r3b) ||
		{ fail $t "no policy from r1a, r3a, r1b, r3b"; return 1; }
	for p in $(ip netns pids r1b); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" != sshd ] || kill "$p"
	done
	fl_play rollout13 rollout -e ccaas_pair=1,3 -e ccaas_rollout_batch=1
	rc=$?
	fl_sshd r1b "$(fl_ip r1b)" r1b || { fail $t "sshd in r1b did not start again"; return 1; }
	[ "$rc" = 2 ] || { fail $t "exit $rc, not 2"; return 1; }
	grep -q 'the rollout of pair 1,3 stopped; unreachable: r1b: every host it touched is back on the rules without it (r1a, r3a); untouched: r3b' "$FL/rollout13.out" ||
		{ fail $t "the run did not end on the canaries' rollback: $(tail -n 40 "$FL/rollout13.out")"; return 1; }
	! grep -q '"msg": "gate failed\|the gate failed on' "$FL/rollout13.out" ||
		{ fail $t "reported as a gate failure"; return 1; }
	[ "$(fl_rules r1a; fl_rules r3a)" = "$rules" ] || { fail $t "the canaries are not back"; return 1; }
	[ "$(fl_history r1b r3b)" = "$hist" ] ||
		{ fail $t "r1b or r3b was touched: $hist -> $(fl_history r1b r3b)"; return 1; }
	grep -qx 'ccaas_live_pairs: \["1,2"\]' "$FL/group_vars/all/ccaas_live_pairs.yml" ||
		{ fail $t "the record changed: $(cat "$FL/group_vars/all/ccaas_live_pairs.yml")"; return 1; }
	echo "rollout of pair 1,3 stopped by an unreachable host: $(cat "$FL/rollout13.time") ms"
	pass $t
}

# Pair 3,2's canary r3a fails its gate (pinned connections): the run
# fails, saying why; r3a goes back, then r2a; r3b and r2b are never
# touched; pair 1,2 stays; no connection was lost.
test_fleet_gate_rolls_back_pair() {
	local t=fleet_gate_rolls_back_pair r1_before rc h order hist
	r1_before=$("$CCACTL" -n r1a -j policy show; "$CCACTL" -n r1b -j policy show)
	hist=$(fl_history r3b r2b) || { fail $t "no policy history from r3b, r2b"; return 1; }
	# pair 1,2 comes from the record, not from the command line
	fl_play rollout32 rollout -e ccaas_pair=3,2
	rc=$?
	[ $rc != 0 ] || { fail $t "the run passed"; return 1; }
	grep -q 'gate failed: 4 of 6 connections on cca_xregion' "$FL/rollout32.out" ||
		{ fail $t "no gate failure reported: $(cat "$FL/rollout32.out")"; return 1; }
	grep -q 'the gate failed on pair 3,2: every host it touched is back on the rules without it (r3a, r2a); untouched: r3b, r2b' "$FL/rollout32.out" ||
		{ fail $t "the run did not end on the canaries' rollback"; return 1; }
	[ "$(fl_history r3b r2b)" = "$hist" ] ||
		{ fail $t "r3b or r2b was touched: $hist -> $(fl_history r3b r2b)"; return 1; }
	fl_check_ccas "1,2" || { fail $t "connections misplaced after the rollback"; return 1; }
	[ "$("$CCACTL" -n r1a -j policy show; "$CCACTL" -n r1b -j policy show)" = "$r1_before" ] ||
		{ fail $t "region 1's policy changed"; return 1; }
	# one region at a time, in the pair's order (against the inventory's):
	# r3a's last commit before r2a's
	for h in r2a r3a; do
		"$CCACTL" -n "$h" -j policy history >"$FL/history-$h.json" ||
			{ fail $t "no policy history from $h"; return 1; }
	done
	order=$(python3 -c '
import json, sys
d = sys.argv[1]
last = {h: json.load(open("%s/history-%s.json" % (d, h)))[-1]["time_ns"] for h in sys.argv[2:]}
print(" ".join(sorted(last, key=last.get)) + " ")' "$FL" r2a r3a)
	case "$order" in
	"r3a r2a ") ;;
	*) fail $t "rollback order $order"; return 1 ;;
	esac
	for h in $FL_HOSTS; do
		kill -0 "$(cat "$FL/traffic-$h.pid")" 2>/dev/null ||
			{ fail $t "traffic of $h ended: $(cat "$FL/traffic-$h.log")"; return 1; }
	done
	echo "rollout and rollback of pair 3,2: $(cat "$FL/rollout32.time") ms (a gate wait of 3 s included)"
	pass $t
}

# Pair 1,2 rolled back by hand (ccaas_action=rollback): every host of both
# regions goes back to the base policy's rules, its connections with
# them, and the record no longer has the pair. The last test: it takes
# the fleet down.
test_fleet_rollback_live_pair() {
	local t=fleet_rollback_live_pair h
	trap fl_teardown EXIT
	fl_play rollback12 rollout -e ccaas_pair=1,2 -e ccaas_action=rollback ||
		{ fail $t "rollback failed: $(tail -n 30 "$FL/rollback12.out")"; return 1; }
	grep -qx 'ccaas_live_pairs: \[\]' "$FL/group_vars/all/ccaas_live_pairs.yml" ||
		{ fail $t "the record keeps it: $(cat "$FL/group_vars/all/ccaas_live_pairs.yml")"; return 1; }
	# (region 2's service rule, also on cca_xregion, stays)
	for h in r1a r1b r2a r2b; do
		! fl_rules "$h" | grep -q '^locality xregion region [0-9]* cca cca_xregion' ||
			{ fail $t "$h keeps the pair: $(fl_rules "$h")"; return 1; }
		! grep -q '^locality xregion region [0-9]* cca cca_xregion' "$FLR/etc-$h/policy.conf" ||
			{ fail $t "$h's policy.conf keeps the pair"; return 1; }
	done
	fl_check_ccas "" || { fail $t "connections misplaced after the rollback"; return 1; }
	echo "rollback of pair 1,2: $(cat "$FL/rollback12.time") ms"
	pass $t
}
