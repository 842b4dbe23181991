# The policy store through ccactl on the real module: set, show, history,
# rollback, apply (and its dry run), refusals that leave the policy as it
# was, privileges, per-namespace policies, and module references.
# Each test works in namespaces of its own (pol_*).
# vm-lines: edges
# vm-timeout: 240

load_ccaas tcp_cca_dctcp || return 1
modprobe tcp_dctcp || return 1
# rollback loads CCA modules again by name, as setsockopt would
ccaas_autoload || return 1
HIST=/sys/module/ccaas_core/parameters/policy_history

# pol NS ARGS...: ccactl in namespace NS
pol() {
	local n=$1
	shift
	"$CCACTL" -n "$n" "$@"
}

# rules NS: the rules in force, without the generation comment
rules() {
	pol "$1" policy show | grep -v '^#'
}

# json_is EXPR: the JSON document on stdin satisfies the Python EXPR (on j)
json_is() {
	python3 -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$1"
}

# expect NAME WANT_RC ERR_TEXT CMD...: CMD exits WANT_RC and its standard
# error contains ERR_TEXT; nothing is printed on standard output
expect() {
	local name=$1 want=$2 text=$3 out rc
	shift 3
	out=$("$@" 2>/tmp/pol_err)
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$text" /tmp/pol_err || [ -n "$out" ]; then
		fail "$name" "'$*': rc=$rc (want $want), stdout '$out', stderr: $(cat /tmp/pol_err)"
		return 1
	fi
}

# A new namespace starts at generation 0, the empty policy.
test_policy_starts_empty() {
	netns_add pol_e || return 1
	pol pol_e policy show | grep -qx '# generation 0 (empty), .* UTC, 0 rules' &&
		[ -z "$(rules pol_e)" ] &&
		pol pol_e -j policy history |
		json_is 'len(j) == 1 and j[0]["generation"] == 0 and j[0]["origin"] == "empty" and j[0]["current"]'
}

test_policy_set_show() {
	local want
	netns_add pol_s || return 1
	[ "$(pol pol_s policy set default cca cubic)" = "generation 1" ] &&
		[ "$(pol pol_s policy set locality dc cca cca_dctcp param shift_g=5 min_rto 1ms init_cwnd 20)" = "generation 2" ] &&
		[ "$(pol pol_s policy set locality xregion region 3 cca cca_dctcp tso_segs 4 no_migrate)" = "generation 3" ] &&
		[ "$(pol pol_s policy set locality dc dc 7 local 10.1.0.0/16 cca reno min_rto 1.5ms)" = "generation 4" ] &&
		[ "$(pol pol_s policy set locality rack local fd00:1::/32 cca cubic)" = "generation 5" ] ||
		fail policy_set_show "a set failed" || return 1
	# most specific first; times in their shortest exact unit
	want='locality dc dc 7 local 10.1.0.0/16 cca reno min_rto 1500us
locality xregion region 3 cca cca_dctcp tso_segs 4
locality rack local fd00:1::/32 cca cubic
locality dc cca cca_dctcp param shift_g=5 min_rto 1ms init_cwnd 20
default cca cubic'
	[ "$(rules pol_s)" = "$want" ] || fail policy_set_show "show: $(rules pol_s)" || return 1
	pol pol_s policy show | head -n 1 | grep -qx '# generation 5 (set), .* UTC, 5 rules' ||
		fail policy_set_show "header: $(pol pol_s policy show | head -n 1)" || return 1
	pol pol_s -j policy show | json_is '
j["generation"] == 5 and j["origin"] == "set" and j["nrules"] == 5 and
j["rules"][3] == {"default": False, "locality": "dc", "cca": "cca_dctcp",
                  "params": {"shift_g": 5}, "min_rto_us": 1000, "init_cwnd": 20} and
j["rules"][0]["local"] == "10.1.0.0/16" and j["rules"][0]["dc"] == 7 and
j["rules"][4] == {"default": True, "cca": "cubic"}' ||
		fail policy_set_show "json: $(pol pol_s -j policy show)"
}

# The same rule again commits nothing; a changed one replaces it.
test_policy_set_idempotent() {
	netns_add pol_i || return 1
	pol pol_i policy set default cca cubic >/dev/null &&
		[ "$(pol pol_i policy set default cca cubic)" = "unchanged (generation 1)" ] &&
		[ "$(pol pol_i policy set default cca reno)" = "generation 2" ] &&
		[ "$(rules pol_i)" = "default cca reno" ] &&
		pol pol_i -j policy set default cca reno | json_is 'j["generation"] == 2 and j["unchanged"]'
}

test_policy_del() {
	netns_add pol_d || return 1
	pol pol_d policy set default cca cubic >/dev/null &&
		pol pol_d policy set locality dc region 2 cca reno >/dev/null &&
		[ "$(pol pol_d policy del locality dc region 2)" = "generation 3" ] &&
		[ "$(rules pol_d)" = "default cca cubic" ] &&
		expect policy_del 2 "Error: no rule with that match" pol pol_d policy del locality dc region 2 &&
		expect policy_del 1 "takes its match only" pol pol_d policy del default cca cubic
}

test_policy_history_rollback() {
	local gen1
	netns_add pol_h || return 1
	pol pol_h policy set default cca cubic >/dev/null &&
		pol pol_h policy set locality dc cca cca_dctcp param shift_g=6 >/dev/null &&
		pol pol_h policy set default cca reno >/dev/null || return 1
	gen1=$(pol pol_h policy show generation 1 | grep -v '^#')
	[ "$gen1" = "default cca cubic" ] || fail policy_history_rollback "generation 1: $gen1" || return 1
	pol pol_h policy history | awk 'NR == 1 && $1 == "GENERATION" && $2 == "ORIGIN" { h = 1 }
		NR > 1 { g = g $1 ":" $2 " " } END { exit !(h && g == "0:empty 1:set 2:set 3:set ") }' ||
		fail policy_history_rollback "history: $(pol pol_h policy history)" || return 1

	[ "$(pol pol_h policy rollback 1)" = "generation 4 (rollback to 1)" ] &&
		[ "$(rules pol_h)" = "$gen1" ] ||
		fail policy_history_rollback "rollback 1: $(rules pol_h)" || return 1
	# back to 3: the cca_dctcp rule and its parameter come back
	pol pol_h policy rollback 3 no_migrate >/dev/null &&
		[ "$(rules pol_h)" = 'locality dc cca cca_dctcp param shift_g=6
default cca reno' ] || fail policy_history_rollback "rollback 3: $(rules pol_h)" || return 1
	pol pol_h -j policy history | json_is '
[g["generation"] for g in j] == [0, 1, 2, 3, 4, 5] and
j[4]["origin"] == "rollback" and j[4]["from"] == 1 and j[5]["from"] == 3 and
j[5]["current"] and not j[4]["current"] and all("time_ns" in g for g in j)' ||
		fail policy_history_rollback "json: $(pol pol_h -j policy history)"
}

test_policy_apply_dry_run() {
	local f=/tmp/pol_apply.txt out
	netns_add pol_a || return 1
	cat >$f <<-'EOF'
	# the whole policy
	default cca cubic   # for unknown scope

	locality dc cca cca_dctcp param shift_g=4 min_rto 2500us
	locality region region 2 cca dctcp
	EOF
	out=$(pol pol_a policy apply $f dry_run)
	[ "$out" = '+ default cca cubic
+ locality dc cca cca_dctcp param shift_g=4 min_rto 2500us
+ locality region region 2 cca dctcp' ] || fail policy_apply_dry_run "first dry run: $out" || return 1
	pol pol_a policy show | grep -q '^# generation 0 ' || fail policy_apply_dry_run "dry run committed" || return 1

	[ "$(pol pol_a policy apply $f)" = "generation 1" ] &&
		[ "$(pol pol_a policy apply $f)" = "unchanged (generation 1)" ] &&
		[ "$(pol pol_a policy apply $f dry_run)" = "no changes (generation 1)" ] ||
		fail policy_apply_dry_run "apply twice: $(pol pol_a policy history)" || return 1

	cat >$f <<-'EOF'
	locality rack cca cubic
	locality dc cca cca_dctcp min_rto 2500us param shift_g=6
	default cca cubic
	EOF
	out=$(pol pol_a policy apply $f dry_run)
	[ "$out" = '- locality region region 2 cca dctcp
~ locality dc cca cca_dctcp param shift_g=6 min_rto 2500us
+ locality rack cca cubic' ] || fail policy_apply_dry_run "diff: $out" || return 1
	pol pol_a -j policy apply $f dry_run | json_is '
j["generation"] == 2 and not j["unchanged"] and
[c["op"] for c in j["changes"]] == ["-", "~", "+"]' ||
		fail policy_apply_dry_run "json: $(pol pol_a -j policy apply $f dry_run)" || return 1
	[ "$(pol pol_a policy apply $f)" = "generation 2" ] &&
		pol pol_a -j policy history | json_is 'len(j) == 3 and j[2]["origin"] == "apply"' ||
		return 1
	# "policy show" prints a policy file: applied back, nothing changes
	[ "$(pol pol_a policy show | pol pol_a policy apply -)" = "unchanged (generation 2)" ] ||
		fail policy_apply_dry_run "show | apply -: $(pol pol_a policy show | pol pol_a policy apply - 2>&1)"
}

# Every refusal explains itself, and the policy in force stays as it was.
test_policy_bad_input_refused() {
	local before f=/tmp/pol_bad.txt st=0
	netns_add pol_b || return 1
	pol pol_b policy set default cca cubic >/dev/null &&
		pol pol_b policy set locality dc cca cca_dctcp param shift_g=4 >/dev/null || return 1
	before=$(pol pol_b policy show)

	expect policy_bad_input_refused 2 "Error: unknown congestion control" \
		pol pol_b policy set default cca no_such_cca || st=1
	expect policy_bad_input_refused 2 "Error: parameter value out of the CCA's range" \
		pol pol_b policy set locality dc cca cca_dctcp param shift_g=11 || st=1
	expect policy_bad_input_refused 2 "Error: CCA has no parameter of that name" \
		pol pol_b policy set locality dc cca cca_dctcp param nosuch=1 || st=1
	expect policy_bad_input_refused 2 "Error: CCA has no parameters" \
		pol pol_b policy set locality dc cca cubic param shift_g=1 || st=1
	expect policy_bad_input_refused 2 "Error: min_rto out of range [1000..200000] us" \
		pol pol_b policy set default cca cubic min_rto 100us || st=1
	expect policy_bad_input_refused 2 "Error: init_cwnd out of range [2..1000] packets" \
		pol pol_b policy set default cca cubic init_cwnd 1 || st=1
	expect policy_bad_input_refused 2 "Error: tso_segs out of range [1..255] segments" \
		pol pol_b policy set default cca cubic tso_segs 256 || st=1
	expect policy_bad_input_refused 2 "Error: region ids start at 1" \
		pol pol_b policy set locality dc region 0 cca cubic || st=1
	expect policy_bad_input_refused 2 "Error: no such generation: it was never committed" \
		pol pol_b policy rollback 99 || st=1
	# refused before the kernel is asked
	expect policy_bad_input_refused 1 'min_rto: "1" is not a time' \
		pol pol_b policy set default cca cubic min_rto 1 || st=1
	expect policy_bad_input_refused 1 "region needs a locality" \
		pol pol_b policy set default region 1 cca cubic || st=1
	expect policy_bad_input_refused 1 "has bits set past the prefix length (did you mean 10.1.0.0/16?)" \
		pol pol_b policy set locality dc local 10.1.2.3/16 cca cubic || st=1

	# a malformed file line: FILE:LINE, exit 1
	printf 'default cca cubic\n\nlocality moon cca cubic\n' >$f
	expect policy_bad_input_refused 1 "$f:3: unknown locality \"moon\"" \
		pol pol_b policy apply $f || st=1
	printf 'locality dc cca reno\ndefault cca cubic\nlocality dc cca cubic\n' >$f
	expect policy_bad_input_refused 1 "$f:3: duplicate match (also on line 1)" \
		pol pol_b policy apply $f || st=1
	printf 'default cca cubic force\n' >$f
	expect policy_bad_input_refused 1 "$f:1: force is an option of \"policy apply\"" \
		pol pol_b policy apply $f || st=1
	# a line the kernel refuses: its error, then FILE:LINE, exit 2
	printf 'default cca reno\nlocality dc cca cca_dctcp param shift_g=99\n' >$f
	expect policy_bad_input_refused 2 "$f:2: refused: locality dc cca cca_dctcp param shift_g=99" \
		pol pol_b policy apply $f dry_run || st=1
	grep -q "^Error: parameter value out of the CCA's range" /tmp/pol_err || st=1

	[ "$(pol pol_b policy show)" = "$before" ] ||
		fail policy_bad_input_refused "policy changed: $(pol pol_b policy show)" || return 1
	[ $st = 0 ]
}

# unpriv NS ARGS...: ccactl in NS as nobody, without capabilities (from a
# copy any user may run)
unpriv() {
	local n=$1
	shift
	install -m 0755 "$CCACTL" /tmp/pol_ccactl &&
		ns "$n" setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all /tmp/pol_ccactl "$@"
}

# Changes need CAP_NET_ADMIN; reading does not.
test_policy_unprivileged_refused() {
	local before
	netns_add pol_u || return 1
	pol pol_u policy set default cca cubic >/dev/null || return 1
	before=$(pol pol_u policy show)
	printf 'default cca reno\n' >/tmp/pol_unpriv.txt
	expect policy_unprivileged_refused 2 "Error: Operation not permitted" \
		unpriv pol_u policy set default cca reno &&
		expect policy_unprivileged_refused 2 "Error: Operation not permitted" \
			unpriv pol_u policy apply /tmp/pol_unpriv.txt dry_run &&
		expect policy_unprivileged_refused 2 "Error: Operation not permitted" \
			unpriv pol_u policy rollback 0 &&
		expect policy_unprivileged_refused 2 "Error: Operation not permitted" \
			unpriv pol_u policy del default || return 1
	[ "$(unpriv pol_u policy show)" = "$before" ] &&
		[ "$(pol pol_u policy show)" = "$before" ] ||
		fail policy_unprivileged_refused "show: $(unpriv pol_u policy show 2>&1)"
}

test_policy_per_netns() {
	netns_add pol_n1 && netns_add pol_n2 || return 1
	pol pol_n1 policy set default cca cubic >/dev/null &&
		pol pol_n2 policy set default cca cca_dctcp >/dev/null &&
		pol pol_n2 policy set locality rack cca reno >/dev/null &&
		[ "$(rules pol_n1)" = "default cca cubic" ] &&
		[ "$(rules pol_n2)" = 'locality rack cca reno
default cca cca_dctcp' ] &&
		pol pol_n1 policy show | grep -q '^# generation 1 ' &&
		pol pol_n2 policy show | grep -q '^# generation 2 '
}

# policy_history bounds the history; rollback beyond it is refused.
test_policy_history_trimmed() {
	local i st=0
	netns_add pol_t || return 1
	{ echo 1 >"$HIST"; } 2>/dev/null && st=1
	{ echo 65 >"$HIST"; } 2>/dev/null && st=1
	echo 4 >"$HIST" || st=1
	for i in 1 2 3 4 5 6; do
		pol pol_t policy set default cca cca_dctcp init_cwnd $((10 + i)) >/dev/null || st=1
	done
	pol pol_t -j policy history | json_is '[g["generation"] for g in j] == [3, 4, 5, 6]' || st=1
	expect policy_history_trimmed 2 "Error: generation no longer kept (see policy history)" \
		pol pol_t policy rollback 2 || st=1
	expect policy_history_trimmed 2 "Error: generation no longer kept" \
		pol pol_t policy show generation 1 || st=1
	[ "$(pol pol_t policy rollback 3)" = "generation 7 (rollback to 3)" ] || st=1
	echo 16 >"$HIST"
	[ "$(cat "$HIST")" = 16 ] && [ $st = 0 ] ||
		fail policy_history_trimmed "history: $(pol pol_t policy history)"
}

# Requests ccactl never sends (tests/vm/lib/genl.py): the per-command
# policies and the handlers refuse them, with a reason where the kernel
# gives one, and the policy stays as it was.
test_policy_malformed_attrs() {
	local before
	netns_add pol_g || return 1
	pol pol_g policy set default cca cubic >/dev/null || return 1
	before=$(pol pol_g policy show)
	ns pol_g python3 - "$CCAAS_ROOT/tests/vm/lib" <<-'EOF' || return 1
	import errno, struct, sys
	sys.path.insert(0, sys.argv[1])
	from genl import Genl, attr, nest

	SET, DEL, GET, HISTORY, ROLLBACK, APPLY = 7, 8, 9, 10, 11, 12
	def u8(t, v): return attr(t, struct.pack("=B", v))
	def u32(t, v): return attr(t, struct.pack("=I", v))
	def s(t, v): return attr(t, v.encode() + b"\0")
	def flag(t): return attr(t, b"")
	def rule(*a, nested=True): return nest(6, *a, flag=nested)
	cubic, dc = s(6, "cubic"), u8(1, 2)

	# name, command, payload, dump, errno, extack (None: any), missing attr
	cases = [
	    ("rule without NLA_F_NESTED", SET, rule(cubic, nested=False), 0,
	     errno.EINVAL, "NLA_F_NESTED is missing", None),
	    ("u16 knob", SET, rule(cubic, attr(8, struct.pack("=H", 5000))), 0,
	     errno.EINVAL, None, None),
	    ("locality out of range", SET, rule(u8(1, 9), cubic), 0,
	     errno.ERANGE, None, None),
	    ("unknown rule attribute", SET, rule(cubic, u32(15, 1)), 0,
	     errno.EINVAL, None, None),
	    ("cgroup id in a request", SET,
	     rule(cubic, attr(14, struct.pack("=Q", 1))), 0, errno.EINVAL,
	     "the cgroup id is the kernel's to say: give the path", None),
	    ("port range ending below its start", SET,
	     rule(cubic, attr(12, struct.pack("=H", 90)),
	          attr(13, struct.pack("=H", 80))), 0, errno.EINVAL,
	     "bad port range: the last port is below the first", None),
	    ("cgroup path of the root", SET, rule(cubic, s(11, "/")), 0,
	     errno.EINVAL, "bad cgroup path: cgroup names separated by single '/', from the root (which is not one)", None),
	    ("dry_run flag on set", SET, rule(cubic) + flag(7), 0,
	     errno.EINVAL, None, None),
	    ("cca without NUL", SET, rule(attr(6, b"cubic")), 0,
	     errno.EINVAL, None, None),
	    ("two rules in a set", SET, rule(cubic) + rule(dc, cubic), 0,
	     errno.EINVAL, "one rule at a time (policy apply takes many)", None),
	    ("set without a rule", SET, flag(8), 0,
	     errno.EINVAL, "a rule is required", 6),
	    ("param without value", SET,
	     rule(dc, s(6, "cca_dctcp"), nest(7, s(1, "shift_g"))), 0,
	     errno.EINVAL, "a parameter needs a name and a value", 2),
	    ("5-byte local address", SET,
	     rule(dc, attr(4, bytes(5)), u8(5, 8), cubic), 0,
	     errno.EINVAL, "bad local prefix: the address is 4 (IPv4) or 16 (IPv6) bytes", None),
	    ("del with a cca", DEL, rule(cubic), 0,
	     errno.EINVAL, "deleting a rule takes its match only", None),
	    ("too many rules", APPLY, rule(cubic) * 1025, 0,
	     errno.E2BIG, "too many rules (at most 1024)", None),
	    ("duplicate match in apply", APPLY,
	     rule(dc, cubic) + rule(cubic) + rule(dc, s(6, "reno")), 0,
	     errno.EINVAL, "duplicate match: an earlier rule has the same match", None),
	    ("rollback without generation", ROLLBACK, b"", 0,
	     errno.EINVAL, "which generation to roll back to?", 1),
	    ("attribute on history", HISTORY, u32(1, 0), 1,
	     errno.EINVAL, None, None),
	    ("get of an uncommitted generation", GET, u32(1, 99), 0,
	     errno.ENOENT, "no such generation: it was never committed", None),
	    ("dump of an uncommitted generation", GET, u32(1, 99), 1,
	     errno.ENOENT, "no such generation: it was never committed", None),
	]
	g, bad = Genl("ccaas"), 0
	for name, cmd, payload, dump, want, text, miss in cases:
	    err, msg, _ = g.request(cmd, payload, dump=bool(dump))
	    ok = err == want and (text is None or msg == text) and \
	         (miss is None or g.miss_type == miss)
	    print("%s: %s: errno %d extack %r miss %s" %
	          ("ok" if ok else "WRONG", name, err, msg, g.miss_type))
	    bad += not ok
	# a well-formed request still works: the header of the current generation
	err, msg, replies = g.request(GET, b"")
	bad += err != 0 or len(replies) != 1
	sys.exit(1 if bad else 0)
	EOF
	[ "$(pol pol_g policy show)" = "$before" ] ||
		fail policy_malformed_attrs "policy changed: $(pol pol_g policy show)"
}

# wait_refcnt MODULE N: wait (up to 10 s) until MODULE's refcount is N
wait_refcnt() {
	local i
	for i in $(seq 100); do
		[ "$(cat /sys/module/"$1"/refcnt 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# The current policy pins the modules of the CCAs it names. The history
# does not: a rollback loads the module again.
test_policy_pins_cca_module() {
	# only this test's namespace may name cca_dctcp now
	ip -all netns delete
	wait_refcnt tcp_cca_dctcp 0 || fail policy_pins_cca_module "refcnt $(cat /sys/module/tcp_cca_dctcp/refcnt) with no policy" || return 1
	netns_add pol_m || return 1
	pol pol_m policy set default cca cca_dctcp >/dev/null || return 1
	[ "$(cat /sys/module/tcp_cca_dctcp/refcnt)" = 1 ] || fail policy_pins_cca_module "refcnt $(cat /sys/module/tcp_cca_dctcp/refcnt)" || return 1
	rmmod tcp_cca_dctcp 2>/dev/null && fail policy_pins_cca_module "unloaded while the policy names it" && return 1
	grep -q '^tcp_cca_dctcp ' /proc/modules || return 1

	pol pol_m policy set default cca cubic >/dev/null || return 1
	wait_refcnt tcp_cca_dctcp 0 && rmmod tcp_cca_dctcp ||
		fail policy_pins_cca_module "not unloadable once the policy moved on" || return 1
	pol pol_m policy show generation 1 | grep -qx 'default cca cca_dctcp' || return 1

	# rollback resolves cca_dctcp again, which loads its module
	[ "$(pol pol_m policy rollback 1)" = "generation 3 (rollback to 1)" ] &&
		grep -q '^tcp_cca_dctcp ' /proc/modules &&
		[ "$(cat /sys/module/tcp_cca_dctcp/refcnt)" = 1 ] ||
		fail policy_pins_cca_module "rollback: $(rules pol_m 2>&1)" || return 1
	# a namespace that goes away takes its policy's references along
	ip netns delete pol_m
	wait_refcnt tcp_cca_dctcp 0 && rmmod tcp_cca_dctcp && load_ccaas tcp_cca_dctcp ||
		fail policy_pins_cca_module "refcnt $(cat /sys/module/tcp_cca_dctcp/refcnt) after netns delete"
}
