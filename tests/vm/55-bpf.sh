# A BPF struct_ops CCA beside ccaas. Its ops->owner is BPF_MODULE_OWNER, a
# poisoned pointer no module may take a reference through, so ccaas can
# neither move a socket onto it nor off it: it is refused as a policy or
# drain target (with an extack message, old policy intact), a drain
# without `to` is refused while the namespace default is a BPF CCA, and
# sockets already on it are left alone and counted skipped_bpf. At the end
# the BPF CCA is unregistered and every ccaas module unloads.
#
# The CCA is tests/vm/lib/bpf_reno.bpf.c, built here with clang and
# registered with bpftool (a struct_ops map registered without a link
# stays registered after bpftool exits, until it is unregistered).
# Not on the sanitizer kernel: BPF struct_ops needs BTF, which it is built
# without (no debug info, to keep its build short). On the oldest and the
# newest Debian lines (make check-full: every line).
# vm-lines: edges
# vm-timeout: 240

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
BPF_SRC=$CCAAS_ROOT/tests/vm/lib/bpf_reno.bpf.c
BPF_OBJ=/tmp/bpf_reno.bpf.o
BPF_MAP=bpf_reno_ops
BPF_PORT=5003
BPF_N=5

load_ccaas tcp_cca_dctcp tcp_cca_cubic && modprobe tcp_dctcp || return 1

# bpf_registered: bpf_reno is a CCA the stack knows
bpf_registered() {
	grep -qw bpf_reno /proc/sys/net/ipv4/tcp_available_congestion_control
}

# The guest sees the host's root read-only: build into /tmp.
SECONDS=0
clang -O2 -g -target bpf -D__TARGET_ARCH_x86 \
	-idirafter "/usr/include/$(gcc -print-multiarch)" \
	-c "$BPF_SRC" -o "$BPF_OBJ" || return 1
echo "bpf_reno built in $SECONDS s"
bpftool struct_ops register "$BPF_OBJ" || return 1

# bpf_setup: fresh namespaces a and b, a server in b whose listener is on
# cca_dctcp (so it accepts ECN: a's cca_dctcp connections keep cca_dctcp,
# not its fallback), scope for b in a
bpf_setup() {
	netns_cleanup
	netns_pair a b || return 1
	"$CCACTL" -n b policy set default cca cca_dctcp >/dev/null || return 1
	"$CCACTL" -n a scope add 10.0.0.2/32 locality dc region 1 dc 7 || return 1
	ns b python3 "$CONNS" server :: $BPF_PORT >/dev/null 2>&1 &
	wait_port b $BPF_PORT
}

# bpf_open TAG [--cc NAME]: BPF_N held connections from a to b
bpf_open() {
	local ready=/tmp/bpf_ready_$1
	shift
	rm -f "$ready"
	ns a python3 "$CONNS" client "$PAIR_B_IP" $BPF_PORT $BPF_N "$ready" "$@" \
		>/dev/null 2>&1 &
	for _ in $(seq 100); do [ -e "$ready" ] && return 0; sleep 0.1; done
	return 1
}

# on_cca NAME: how many of a's connections to b are on CCA NAME
on_cca() {
	ns a ss -tinH state established "( dport = :$BPF_PORT )" | grep -c " $1 "
}

# refused NAME CMD...: CMD (ccactl) exits 2 with an `Error:` naming BPF
refused() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	echo "${*:2}: rc=$rc: $out"
	[ $rc = 2 ] && echo "$out" | grep -q '^Error: .*BPF' ||
		fail "$name" "'${*:2}': rc=$rc: $out"
}

# Registered, usable by an application, and still there after bpftool exits.
test_bpf_registered() {
	local ready=/tmp/bpf_ready_reg
	bpf_registered || fail bpf_registered "not in tcp_available_congestion_control" || return 1
	bpf_setup || return 1
	bpf_open reg --cc bpf_reno || return 1
	[ "$(on_cca bpf_reno)" = $BPF_N ] ||
		fail bpf_registered "$(ns a ss -tinH state established)"
}

test_bpf_policy_target_refused() {
	local f=/tmp/bpf_policy.txt before
	netns_add p || return 1
	"$CCACTL" -n p policy set default cca cca_cubic >/dev/null &&
		"$CCACTL" -n p policy set locality rack cca cca_dctcp >/dev/null || return 1
	before=$("$CCACTL" -n p policy show) || return 1
	refused bpf_policy_target_refused "$CCACTL" -n p policy set default cca bpf_reno || return 1
	refused bpf_policy_target_refused "$CCACTL" -n p policy set locality dc cca bpf_reno || return 1
	printf 'default cca cca_cubic\nlocality region cca bpf_reno\n' >$f
	refused bpf_policy_target_refused "$CCACTL" -n p policy apply $f || return 1
	refused bpf_policy_target_refused "$CCACTL" -n p policy apply $f dry_run || return 1
	[ "$("$CCACTL" -n p policy show)" = "$before" ] ||
		fail bpf_policy_target_refused "policy changed: $("$CCACTL" -n p policy show)"
}

test_bpf_drain_target_refused() {
	local out
	bpf_setup || return 1
	bpf_open to --cc cca_dctcp || return 1
	refused bpf_drain_target_refused "$CCACTL" -n a cca drain cca_dctcp to bpf_reno || return 1
	refused bpf_drain_target_refused "$CCACTL" -n a cca drain cca_dctcp to bpf_reno force || return 1
	# nor can a BPF CCA be drained
	refused bpf_drain_target_refused "$CCACTL" -n a cca drain bpf_reno to reno || return 1
	[ "$(on_cca cca_dctcp)" = $BPF_N ] ||
		fail bpf_drain_target_refused "moved: $(ns a ss -tinH state established)" || return 1
	# and the CCA still drains to a target that can take them
	out=$("$CCACTL" -n a -j cca drain cca_dctcp to reno force) || return 1
	[ "$(counts "$out" migrated)" = $BPF_N ] && [ "$(on_cca reno)" = $BPF_N ] ||
		fail bpf_drain_target_refused "drain to reno: $out"
}

# The namespace default is the drain's fallback target: a BPF CCA there
# refuses `cca drain X` (no `to`), asking for a target.
test_bpf_drain_default_refused() {
	local init_def out rc
	init_def=$(sysctl -n net.ipv4.tcp_congestion_control)
	bpf_setup || return 1
	bpf_open def --cc cca_dctcp || return 1
	ns a sysctl -qw net.ipv4.tcp_congestion_control=bpf_reno || return 1
	# per namespace on both kernels
	[ "$(sysctl -n net.ipv4.tcp_congestion_control)" = "$init_def" ] &&
		[ "$(ns b sysctl -n net.ipv4.tcp_congestion_control)" = "$init_def" ] ||
		fail bpf_drain_default_refused "sysctl not per namespace" || return 1
	out=$("$CCACTL" -n a cca drain cca_dctcp 2>&1)
	rc=$?
	echo "cca drain cca_dctcp: rc=$rc: $out"
	[ $rc = 2 ] && echo "$out" | grep -q "^Error: .*BPF.*'to'" ||
		fail bpf_drain_default_refused "rc=$rc: $out" || return 1
	[ "$(on_cca cca_dctcp)" = $BPF_N ] ||
		fail bpf_drain_default_refused "moved: $(ns a ss -tinH state established)" || return 1
	out=$("$CCACTL" -n a -j cca drain cca_dctcp to cca_cubic) || return 1
	[ "$(counts "$out" migrated)" = $BPF_N ] && [ "$(on_cca cca_cubic)" = $BPF_N ] ||
		fail bpf_drain_default_refused "drain to cca_cubic: $out"
}

# bpf_migrations N NAME: two migrations, forced or not, leave a's N
# connections on bpf_reno and count them skipped_bpf; sock show lists them
bpf_migrations() {
	local n=$1 name=$2 out pass
	[ "$(on_cca bpf_reno)" = "$n" ] ||
		fail "$name" "not all on bpf_reno: $(ns a ss -tinH state established)" || return 1
	for pass in "" force; do
		out=$("$CCACTL" -n a -j migrate $pass) || return 1
		[ "$(counts "$out" examined skipped_bpf migrated)" = "$n $n 0" ] &&
			[ "$(on_cca bpf_reno)" = "$n" ] ||
			fail "$name" "migrate $pass: $out" || return 1
	done
	out=$("$CCACTL" -n a -j sock show) || return 1
	echo "$out" | python3 -c 'import json, sys
j = json.load(sys.stdin)
bpf = [s for s in j if s["cca"] == "bpf_reno"]
sys.exit(0 if len(bpf) == int(sys.argv[1]) else 1)' "$n" ||
		fail "$name" "sock show: $out"
}

# Sockets the namespace default put on the BPF CCA: the selector cannot
# move them at connect (they keep it), nor can a migration.
test_bpf_default_sockets_skipped() {
	bpf_setup || return 1
	ns a sysctl -qw net.ipv4.tcp_congestion_control=bpf_reno || return 1
	"$CCACTL" -n a policy set default cca cca_cubic >/dev/null || return 1
	"$CCACTL" -n a policy set locality dc cca cca_dctcp no_migrate >/dev/null || return 1
	bpf_open ns || return 1
	bpf_migrations $BPF_N bpf_default_sockets_skipped
}

# A target these (non-ECN) sockets could not take anyway: still counted
# as BPF, not as refused by the sticky-ECN rule.
test_bpf_sockets_skipped_not_refused() {
	bpf_setup || return 1
	ns a sysctl -qw net.ipv4.tcp_congestion_control=bpf_reno || return 1
	"$CCACTL" -n a policy set locality dc cca dctcp >/dev/null || return 1
	bpf_open nr || return 1
	bpf_migrations $BPF_N bpf_sockets_skipped_not_refused
}

# Sockets whose application chose the BPF CCA: counted as BPF, not pinned.
test_bpf_app_sockets_skipped() {
	bpf_setup || return 1
	bpf_open app --cc bpf_reno || return 1
	"$CCACTL" -n a policy set default cca cca_cubic >/dev/null || return 1
	bpf_migrations $BPF_N bpf_app_sockets_skipped
}

# Unregister the BPF CCA; every ccaas module unloads.
test_bpf_unregister_unload() {
	local m i
	netns_cleanup
	bpftool struct_ops unregister name $BPF_MAP >/dev/null ||
		fail bpf_unregister_unload "bpftool unregister failed" || return 1
	! bpf_registered || fail bpf_unregister_unload "still registered" || return 1
	# Namespaces just deleted may still be going away: give them time.
	# Every CCA module loaded, by this file or an earlier one in the
	# guest (28-reductions leaves cca_hpcc's), then the core.
	for m in $(awk '/^tcp_cca_/ { print $1 }' /proc/modules) ccaas_core; do
		grep -q "^$m " /proc/modules || continue
		for i in $(seq 100); do
			rmmod $m 2>/dev/null && break
			sleep 0.2
		done
		! grep -q "^$m " /proc/modules ||
			fail bpf_unregister_unload "$m stays: $(grep "^$m " /proc/modules)" || return 1
	done
	load_ccaas
}
