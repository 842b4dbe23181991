# The ccaas generic netlink family as a client that is not ccactl sees it:
# strict header checks, the kernel's own YNL CLI driven by the YAML spec,
# who may change what (init_net, a user namespace's own netns, no caps), the
# monitor group, and no module autoload from inside a request.
# vm-lines: edges
# vm-timeout: 300

load_ccaas tcp_cca_dctcp || return 1

GENL=$CCAAS_ROOT/tests/vm/lib/genl.py
SPEC=$CCAAS_ROOT/include/uapi/linux/ccaas.yaml

# Command and attribute numbers (include/uapi/linux/ccaas.h).
CMD_CCA_GET=1 CMD_SCOPE_ADD=2 CMD_SCOPE_GET=4 CMD_POLICY_SET=7 CMD_CCA_DRAIN=14
A_SCOPE_ADDR=1 A_SCOPE_PREFIXLEN=2 A_SCOPE_LOCALITY=3
A_POLICY_RULE=6 A_RULE_CCA=6 A_MIGRATE_CCA=2 A_MIGRATE_TO=3

# raw NS ARGS...: genl.py's answer to a ccaas request (options, CMD, ATTRs)
raw() {
	local n=$1 opts=()
	shift
	while [ "${1:0:1}" = - ]; do
		if [ "$1" = -d ]; then
			opts+=(-d)
			shift
		else
			opts+=("$1" "$2")
			shift 2
		fi
	done
	ns "$n" python3 "$GENL" "${opts[@]}" ccaas "$@"
}

# answer_is WANT_ERRNO WANT_EXTACK ANSWER: genl.py's ANSWER has that errno
# and (unless WANT_EXTACK is empty) that extack message
answer_is() {
	echo "$3" | grep -qx "errno $1" || return 1
	[ -z "$2" ] || echo "$3" | grep -qxF "extack $2"
}

# A scope add of 10.9.0.0/16 (dc), as raw attributes.
SCOPE_ADD_ATTRS="$A_SCOPE_ADDR:hex:0a090000 $A_SCOPE_PREFIXLEN:u8:16 $A_SCOPE_LOCALITY:u8:2"

# A new family validates the genl header: a non-zero reserved field is
# refused, and changes nothing.
test_strict_reserved_header() {
	local r st=0 before
	netns_add nl_strict || return 1
	before=$("$CCACTL" -n nl_strict scope show)
	# shellcheck disable=SC2086 # one word per attribute
	r=$(raw nl_strict -r 1 $CMD_SCOPE_ADD $SCOPE_ADD_ATTRS)
	answer_is 22 'genlmsghdr.reserved field is not 0' "$r" ||
		{ echo "scope add with reserved=1: $r"; st=1; }
	r=$(raw nl_strict -r 0x100 -d $CMD_CCA_GET)
	answer_is 22 'genlmsghdr.reserved field is not 0' "$r" ||
		{ echo "cca dump with reserved=0x100: $r"; st=1; }
	[ "$("$CCACTL" -n nl_strict scope show)" = "$before" ] ||
		{ echo "table changed: $("$CCACTL" -n nl_strict scope show)"; st=1; }
	# the same request with the field zero is fine
	# shellcheck disable=SC2086
	r=$(raw nl_strict $CMD_SCOPE_ADD $SCOPE_ADD_ATTRS)
	answer_is 0 '' "$r" || { echo "well-formed scope add: $r"; st=1; }
	[ $st = 0 ] || fail strict_reserved_header "the family accepts reserved header bytes"
}

# Only the nlmsg_flags the genl core gives a meaning to are accepted.
test_strict_nlmsg_flags() {
	local r st=0 f before
	netns_add nl_flags || return 1
	before=$("$CCACTL" -n nl_flags scope show)
	# NLM_F_EXCL, NLM_F_CREATE, NLM_F_APPEND: meaningless for this family
	for f in 0x200 0x400 0x800; do
		# shellcheck disable=SC2086
		r=$(raw nl_flags -f $f $CMD_SCOPE_ADD $SCOPE_ADD_ATTRS)
		answer_is 22 'ambiguous or reserved bits set in nlmsg_flags' "$r" ||
			{ echo "scope add with flags $f: $r"; st=1; }
	done
	[ "$("$CCACTL" -n nl_flags scope show)" = "$before" ] ||
		{ echo "table changed: $("$CCACTL" -n nl_flags scope show)"; st=1; }
	# NLM_F_ECHO is one of them, and so are dumps with an ACK
	r=$(raw nl_flags -f 0x8 $CMD_SCOPE_GET $A_SCOPE_ADDR:hex:0a090001)
	answer_is 0 '' "$r" || { echo "scope get with NLM_F_ECHO: $r"; st=1; }
	r=$(raw nl_flags -f 0x4 -d $CMD_CCA_GET)
	answer_is 0 '' "$r" || { echo "cca dump with NLM_F_ACK: $r"; st=1; }
	[ $st = 0 ] || fail strict_nlmsg_flags "reserved nlmsg_flags bits accepted"
}

# ---- the kernel's YNL CLI (tools/net/ynl), driven by include/uapi/linux/ccaas.yaml

# The spec laid out as in a kernel tree (Documentation/netlink/specs/), so
# the CLI picks the schema by the spec's protocol as it does for the
# kernel's own specs, and checks the spec against it.
YNL_SPECS=/tmp/nl_ynl_tree/specs
mkdir -p "$YNL_SPECS" && cp "$SPEC" "$YNL_SPECS/" &&
	ln -sf "${CCAAS_YNL:-/nonexistent}"/Documentation/netlink/*.yaml "$YNL_SPECS/.."

# ynl NS ARGS...: the YNL CLI against the ccaas family in NS, JSON output
ynl() {
	local n=$1
	shift
	[ -f "${CCAAS_YNL:-}/tools/net/ynl/cli.py" ] || {
		echo "no YNL CLI: CCAAS_YNL='${CCAAS_YNL:-}' (scripts/ynl-prepare.sh)"
		return 1
	}
	ns "$n" python3 "$CCAAS_YNL/tools/net/ynl/cli.py" \
		--spec "$YNL_SPECS/ccaas.yaml" --output-json "$@"
}

# json_is EXPR: the JSON document on stdin satisfies the Python EXPR (on j)
json_is() {
	python3 -c 'import json, sys
j = json.loads(sys.stdin.read().splitlines()[0])
ok = eval("(" + sys.argv[1] + ")")
if not ok:
    print("JSON was:", j)
sys.exit(0 if ok else 1)' "$1"
}

# The spec's permission flags are the kernel's: every state-changing
# operation uns-admin-perm (GENL_UNS_ADMIN_PERM), the reads none, as
# CTRL_CMD_GETFAMILY reports the live family.
test_spec_op_flags() {
	local out rc
	out=$(python3 "$CCAAS_ROOT/tests/vm/lib/spec_flags.py" \
		"$CCAAS_ROOT/include/uapi/linux/ccaas.yaml" 2>&1)
	rc=$?
	verdict spec_op_flags "$out" \
		pytrue "$rc == 0 and $(echo "$out" | grep -c ' spec 0x10 kernel 0x10$') >= 10"
}

# A do: one registered CCA, decoded by the spec alone.
test_ynl_do_cca_get() {
	local out
	out=$(ynl "" --do cca-get --json '{"name": "cca_dctcp"}' 2>&1) ||
		fail ynl_do_cca_get "$out" || return 1
	echo "$out" | json_is 'j["name"] == "cca_dctcp" and j["module"] == "tcp_cca_dctcp"
		and j["version"] == 0x10000 and "needs-ecn" in j["features"]
		and all("name" in p and "default" in p for p in j["param"])' ||
		fail ynl_do_cca_get "$out"
}

# A do that changes state, seen by ccactl; then the dump of the table.
test_ynl_do_and_dump_scope() {
	local out
	netns_add nl_ynl || return 1
	out=$(ynl nl_ynl --do scope-add --json \
		'{"addr": "0a090000", "prefixlen": 16, "locality": "dc", "region": 3, "dc": 4}' 2>&1) ||
		fail ynl_do_and_dump_scope "scope-add: $out" || return 1
	"$CCACTL" -n nl_ynl scope show | grep -qE '^10\.9\.0\.0/16 +dc +3 +4$' ||
		fail ynl_do_and_dump_scope "ccactl: $("$CCACTL" -n nl_ynl scope show 2>&1)" || return 1
	out=$(ynl nl_ynl --dump scope-get 2>&1) ||
		fail ynl_do_and_dump_scope "scope-get dump: $out" || return 1
	echo "$out" | json_is 'j[0]["count"] == 1 and j[0]["max-entries"] > 0
		and j[1] == {"addr": "0a090000", "prefixlen": 16, "locality": "dc", "region": 3, "dc": 4}' ||
		fail ynl_do_and_dump_scope "scope-get dump: $out"
}

# A refused request: YNL shows the errno and the kernel's extack text, and
# nothing changed.
test_ynl_rejected_extack() {
	local out rc before
	netns_add nl_ynl_rej || return 1
	before=$("$CCACTL" -n nl_ynl_rej scope show)
	out=$(ynl nl_ynl_rej --do scope-add --json \
		'{"addr": "0a090000", "prefixlen": 33, "locality": "dc"}' 2>&1)
	rc=$?
	[ $rc != 0 ] && echo "$out" | grep -q 'Netlink error: Invalid argument' &&
		echo "$out" | grep -qF "'msg': 'scope prefix length is longer than the address'" ||
		fail ynl_rejected_extack "rc=$rc: $out" || return 1
	[ "$("$CCACTL" -n nl_ynl_rej scope show)" = "$before" ] ||
		fail ynl_rejected_extack "table changed: $("$CCACTL" -n nl_ynl_rej scope show)"
}

# Listen: YNL's library subscribed to the monitor group decodes the policy
# commit that ccactl makes. (Not the CLI: YNL 6.12's do loop trips over a
# notification that arrives before its reply on the same socket.)
test_ynl_monitor() {
	local out pid
	netns_add nl_ynl_mon || return 1
	rm -f /tmp/nl_ynl_ready
	ns nl_ynl_mon python3 - "$CCAAS_YNL" "$YNL_SPECS/ccaas.yaml" >/tmp/nl_ynl_mon 2>&1 <<'PY' &
import json, sys, time
sys.path.insert(0, sys.argv[1] + "/tools/net/ynl")
from lib import YnlFamily
ynl = YnlFamily(sys.argv[2])
ynl.ntf_subscribe("monitor")
open("/tmp/nl_ynl_ready", "w").close()
for _ in range(600):
    ynl.check_ntf()
    if ynl.async_msg_queue:
        break
    time.sleep(0.1)
print(json.dumps(ynl.async_msg_queue))
PY
	pid=$!
	for _ in $(seq 300); do [ -e /tmp/nl_ynl_ready ] && break; sleep 0.1; done
	"$CCACTL" -n nl_ynl_mon policy set default cca reno >/dev/null ||
		fail ynl_monitor "policy set failed" || return 1
	wait $pid
	out=$(cat /tmp/nl_ynl_mon)
	echo "$out" | tail -n 1 | json_is 'any(m["name"] == "policy-ntf" and m["msg"]["generation"] == 1
		and m["msg"]["origin"] == "set" and m["msg"]["nrules"] == 1 for m in j)' ||
		fail ynl_monitor "$out"
}

# ---- no module autoload from inside a request

# genl runs every handler under its cb_lock (read), which a module's
# genl_register_family() takes for writing. A handler that waits for
# modprobe (a CCA name resolved by setsockopt(TCP_CONGESTION), which
# autoloads tcp_<name>) while modprobe loads such a module never returns,
# and every genl user of the host queues behind the waiting writer. Here
# tcp_nl_genl is an install rule that loads fou, which registers "fou".
NOT_LOADED="unknown congestion control: none loaded by that name (ccaas loads no module for a request)"
test_no_autoload_in_request() {
	local r rc st=0 before
	if grep -q '^fou ' /proc/modules; then rmmod fou || return 1; fi
	mkdir -p /run/modprobe.d
	echo "install tcp_nl_genl /sbin/modprobe fou" >/run/modprobe.d/nl-genl.conf
	netns_add nl_mod || return 1
	before=$("$CCACTL" -n nl_mod policy show)
	for req in "$CMD_POLICY_SET $A_POLICY_RULE:nest:$A_RULE_CCA:str:nl_genl" \
		"$CMD_CCA_DRAIN $A_MIGRATE_CCA:str:nl_genl" \
		"$CMD_CCA_DRAIN $A_MIGRATE_CCA:str:reno $A_MIGRATE_TO:str:nl_genl"; do
		if grep -q '^fou ' /proc/modules; then rmmod fou || return 1; fi
		# shellcheck disable=SC2086 # one word per attribute
		r=$(ns nl_mod timeout 30 python3 "$GENL" ccaas $req)
		rc=$?
		if [ $rc = 124 ]; then
			echo "'$req' hung: the handler waited for modprobe under the genl lock"
			st=1
			# killed, it lets go of the lock and modprobe ends
			for _ in $(seq 300); do grep -q '^fou ' /proc/modules && break; sleep 0.1; done
			continue
		fi
		answer_is 2 "$NOT_LOADED" "$r" ||
			{ echo "'$req': $r"; st=1; }
		grep -q '^fou ' /proc/modules && { echo "'$req' loaded fou"; st=1; }
	done
	# the policy is as it was
	[ "$("$CCACTL" -n nl_mod policy show)" = "$before" ] || { echo "policy changed"; st=1; }
	# ccactl loads a CCA module itself, outside any lock, as an application would
	if grep -q '^fou ' /proc/modules; then rmmod fou || return 1; fi
	r=$(timeout 30 "$CCACTL" -n nl_mod policy set default cca nl_genl 2>&1)
	rc=$?
	[ $rc = 2 ] && grep -q '^fou ' /proc/modules ||
		{ echo "ccactl policy set: rc=$rc: $r"; st=1; }
	rm -f /run/modprobe.d/nl-genl.conf
	rmmod fou 2>/dev/null
	[ $st = 0 ] || fail no_autoload_in_request "a request loads modules under the genl lock"
}

# ---- who may change what

# A copy of ccactl any user may run (the tree may not be readable to all).
NL_CCACTL=/tmp/nl_ccactl
install -m 0755 "$CCACTL" $NL_CCACTL || return 1
# NOBODY CMD...: CMD as an unprivileged user (uid 65534, no capabilities)
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
	--bounding-set=-all --)

# A user without capabilities reads, and is refused every change (EPERM).
test_perm_no_caps_refused() {
	local out rc st=0 before cmd
	before=$("$CCACTL" policy show)
	for cmd in "policy set default cca reno" "scope add 10.77.0.0/16 locality dc" \
		"scope flush" "migrate" "cca drain cca_dctcp to reno" "log add all"; do
		# shellcheck disable=SC2086 # one word per argument
		out=$("${NOBODY[@]}" $NL_CCACTL $cmd 2>&1)
		rc=$?
		[ $rc = 2 ] && [ "$out" = "Error: Operation not permitted" ] ||
			{ echo "'$cmd' as nobody: rc=$rc: $out"; st=1; }
	done
	for cmd in "policy show" "cca list" "sock show" "scope show"; do
		# shellcheck disable=SC2086
		"${NOBODY[@]}" $NL_CCACTL $cmd >/dev/null || { echo "'$cmd' refused"; st=1; }
	done
	[ "$("$CCACTL" policy show)" = "$before" ] || { echo "init_net policy changed"; st=1; }
	[ $st = 0 ] || fail perm_no_caps_refused "an unprivileged user changed state"
}

# The owner of a network namespace (CAP_NET_ADMIN in the user namespace
# that owns it: a container's root) configures that namespace, restricted
# CCAs included, and only that one: an unprivileged user's unshare -U -r -n.
test_perm_netns_owner() {
	local out rc st=0 before
	[ ! -e /proc/sys/kernel/unprivileged_userns_clone ] ||
		echo 1 >/proc/sys/kernel/unprivileged_userns_clone
	before=$("$CCACTL" policy show)
	# shellcheck disable=SC2016 # expanded by the inner shell
	out=$("${NOBODY[@]}" unshare -U -r -n sh -c '
		"$1" policy set default cca reno >/dev/null &&
		"$1" policy set locality dc cca cca_dctcp >/dev/null &&
		"$1" scope add 10.77.0.0/16 locality dc >/dev/null &&
		"$1" migrate >/dev/null && "$1" log add all >/dev/null &&
		"$1" policy show && "$1" scope show 10.77.1.1' sh $NL_CCACTL 2>&1)
	rc=$?
	[ $rc = 0 ] && echo "$out" | grep -qx 'default cca reno' &&
		echo "$out" | grep -qx 'locality dc cca cca_dctcp' &&
		echo "$out" | grep -qx 'prefix    10.77.0.0/16' ||
		{ echo "in its own netns: rc=$rc: $out"; st=1; }
	# the same kind of user namespace, in the initial network namespace
	out=$("${NOBODY[@]}" unshare -U -r $NL_CCACTL policy set default cca reno 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$out" = "Error: Operation not permitted" ] ||
		{ echo "in init_net: rc=$rc: $out"; st=1; }
	[ "$("$CCACTL" policy show)" = "$before" ] || { echo "init_net policy changed"; st=1; }
	[ $st = 0 ] || fail perm_netns_owner "a namespace owner's rights"
}

# lines_match FILE PATTERN N: wait (bounded) until FILE has N lines matching
lines_match() {
	local i
	for i in $(seq 300); do
		[ "$(grep -c -- "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# The monitor group needs no capability, and a listener sees the events of
# its own namespace only: A's commits are policy sets, B's policy applies.
test_perm_monitor_own_netns() {
	local pa pb st=0 i cca
	netns_add nl_mon_a && netns_add nl_mon_b || return 1
	printf 'default cca reno\n' >/tmp/nl_mon_reno
	printf 'default cca cubic\n' >/tmp/nl_mon_cubic
	: >/tmp/nl_mon_a
	: >/tmp/nl_mon_b
	ns nl_mon_a "${NOBODY[@]}" $NL_CCACTL monitor >>/tmp/nl_mon_a 2>&1 &
	pa=$!
	ns nl_mon_b "${NOBODY[@]}" $NL_CCACTL monitor >>/tmp/nl_mon_b 2>&1 &
	pb=$!
	# commit until each listener has joined and seen one of its own
	for i in $(seq 60); do
		"$CCACTL" -n nl_mon_a policy set locality dc region "$i" cca reno no_migrate >/dev/null
		cca=cubic
		[ $((i % 2)) = 0 ] && cca=reno
		"$CCACTL" -n nl_mon_b policy apply /tmp/nl_mon_$cca no_migrate >/dev/null
		[ -s /tmp/nl_mon_a ] && [ -s /tmp/nl_mon_b ] && break
		sleep 0.5
	done
	# both listen now: one more commit in A, then a marker in B
	"$CCACTL" -n nl_mon_a policy set locality rack cca reno no_migrate >/dev/null
	"$CCACTL" -n nl_mon_b policy set default cca dctcp no_migrate >/dev/null
	lines_match /tmp/nl_mon_b ' set 1 rules$' 1 || st=1
	kill $pa $pb
	wait $pa $pb 2>/dev/null
	# A: only sets; B: only applies, then its one set (the marker)
	grep -vq '^policy generation [0-9]* set [0-9]* rules$' /tmp/nl_mon_a && st=1
	[ -s /tmp/nl_mon_a ] || st=1
	sed '$d' /tmp/nl_mon_b | grep -vq '^policy generation [0-9]* apply 1 rules$' && st=1
	[ $st = 0 ] || fail perm_monitor_own_netns \
		"A's listener: $(cat /tmp/nl_mon_a)" "B's listener: $(cat /tmp/nl_mon_b)"
}

# Everything a request keeps is charged to the caller's memory cgroup: a
# history of 16 generations of 1024 rules is 16 x ~90-140 KiB.
#
# Measured on the cgroup's slab + vmalloc (memory.stat), which is where
# every kmalloc()/kvmalloc() of the core is counted (a large kmalloc() as
# slab), not on memory.current: on 7.3, memory.current and memory.stat
# "kernel" keep 10-30 KiB per 1024-rule apply (a dry run too) after
# everything is freed, outside slab, vmalloc, percpu, stacks and page
# tables, with this tree as with the one before the policy index, and not
# on 6.12. A trace of the page allocator (kmem:mm_page_alloc/free) over
# five such applies finds every page they allocated with __GFP_ACCOUNT
# freed again, but the tracing processes' page tables: the counter stays
# up, not the pages. slab + vmalloc return to a few KiB.
test_perm_memcg_charged() {
	local cg=/sys/fs/cgroup/nl_cg f=/tmp/nl_rules before after i cca now
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup || return 1
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p $cg && netns_add nl_mem || return 1
	echo 16 >/sys/module/ccaas_core/parameters/policy_history || return 1
	for i in $(seq 0 1023); do
		echo "locality dc region $((i / 32 + 1)) dc $((i % 32 + 1)) cca reno"
	done >$f.reno
	sed 's/cca reno/cca cubic/' $f.reno >$f.cubic
	# in_cg CMD...: CMD in the cgroup (a shell that joins it, then execs)
	in_cg() {
		# shellcheck disable=SC2016 # expanded by the inner shell
		sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh $cg "$@"
	}
	in_cg "$CCACTL" -n nl_mem policy apply $f.reno no_migrate >/dev/null || return 1
	before=$(memcg_stat $cg slab vmalloc)
	for i in $(seq 16); do
		cca=cubic
		[ $((i % 2)) = 0 ] && cca=reno
		in_cg "$CCACTL" -n nl_mem policy apply $f.$cca no_migrate >/dev/null || return 1
	done
	after=$(memcg_stat $cg slab vmalloc)
	echo "slab + vmalloc: $before -> $after ($(grep -E '^(kernel|slab|vmalloc) ' $cg/memory.stat | tr '\n' ' '))"
	# 15 more generations kept (16 in all); at least 10 of them counted
	[ $((after - before)) -ge $((10 * 1024 * 88)) ] ||
		fail perm_memcg_charged "16 generations grew the caller's cgroup by $((after - before)) bytes" ||
		return 1
	# and uncharged when the namespace goes (its exit runs from a
	# workqueue, its current generation a grace period later), all 17:
	# under 64 KiB left (1.7-3 KiB seen), less than one generation
	ip netns delete nl_mem
	for i in $(seq 12); do
		now=$(memcg_stat $cg slab vmalloc)
		if [ "$now" -le 65536 ]; then
			echo "slab + vmalloc after the netns went: $now"
			return 0
		fi
	done
	fail perm_memcg_charged "slab + vmalloc $now bytes left (before the 16: $before) after the netns went" \
		"$(cat $cg/memory.stat)"
}
