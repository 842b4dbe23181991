# The scope table through ccactl on the real module: add, show, lookup, del,
# flush and load, IPv6 and JSON; a load's dry run (checked by the kernel,
# printed as a diff); refusals (usage errors, kernel refusals, malformed
# netlink) that leave the table as it was; permissions; network
# namespaces; a load of 100 000 prefixes.
# vm-oldest-skip: scope_valgrind
# vm-lines: edges
# vm-timeout: 400

load_ccaas || return 1

GENL=$CCAAS_ROOT/tests/vm/lib/genl.py
PARAM=/sys/module/ccaas_core/parameters/scope_max_entries
E=/tmp/scope_err

# Attribute and command numbers (include/uapi/linux/ccaas.h).
A_ADDR=1 A_PREFIXLEN=2 A_LOCALITY=3 A_REGION=4 A_ENTRY=6 A_COUNT=7 A_DRY_RUN=10
CMD_ADD=2 CMD_DEL=3 CMD_GET=4 CMD_FLUSH=5 CMD_LOAD=6

# cc ARGS...: run ccactl; sets rc, out (stdout) and err (stderr)
cc() {
	out=$("$CCACTL" "$@" 2>"$E")
	rc=$?
	err=$(cat "$E")
}

# expect RC ERR ARGS...: ccactl ARGS exits RC with stderr ERR (exactly)
expect() {
	local want_rc=$1 want_err=$2
	shift 2
	cc "$@"
	[ "$rc" = "$want_rc" ] && [ "$err" = "$want_err" ] && return 0
	echo "ccactl $*: rc=$rc (want $want_rc), stderr: $err (want: $want_err)"
	return 1
}

# json_is EXPR: the JSON document on stdin satisfies the Python EXPR (on j)
json_is() {
	python3 -c 'import json, sys
j = json.load(sys.stdin)
ok = eval(sys.argv[1])
if not ok:
    print("JSON was:", j)
sys.exit(0 if ok else 1)' "$1"
}

# genl ATTR...: a raw CCAAS request through genl.py (see there)
genl() {
	python3 "$GENL" ccaas "$@"
}

# A known table to start from, and its text.
base_table() {
	"$CCACTL" scope flush &&
		"$CCACTL" scope add 10.0.0.0/8 locality region region 1 &&
		"$CCACTL" scope add 10.1.0.0/16 locality dc region 1 dc 7 &&
		"$CCACTL" scope add 10.1.2.0/24 locality rack region 1 dc 7 &&
		"$CCACTL" scope add 2001:db8::/32 locality xregion region 2 &&
		"$CCACTL" scope add 2001:db8:1::/48 locality dc region 2 dc 3
}
BASE_TEXT='PREFIX           LOCALITY  REGION  DC
10.0.0.0/8       region    1       0
10.1.0.0/16      dc        1       7
10.1.2.0/24      rack      1       7
2001:db8::/32    xregion   2       0
2001:db8:1::/48  dc        2       3'

# unchanged BEFORE: the table is still BEFORE (scope show output)
unchanged() {
	local now
	now=$("$CCACTL" scope show)
	[ "$now" = "$1" ] && return 0
	echo "table changed; now:"
	echo "$now"
	return 1
}

test_scope_empty() {
	"$CCACTL" scope flush || return 1
	cc scope show
	[ "$rc" = 0 ] && [ -z "$out" ] || { echo "show: rc=$rc out=$out"; return 1; }
	[ "$("$CCACTL" -j scope show)" = "[]" ] || return 1
	cc scope show 10.1.2.3
	[ "$out" = 'address   10.1.2.3
prefix    -
locality  unknown
region    -
dc        -' ]
}

test_scope_add_show_sorted() {
	base_table || return 1
	cc scope show
	[ "$out" = "$BASE_TEXT" ] || { echo "got:"; echo "$out"; return 1; }
	# the default command of the object is show
	[ "$("$CCACTL" scope)" = "$BASE_TEXT" ]
}

test_scope_lookup() {
	local st=0
	base_table || return 1
	cc scope show 10.1.2.3
	[ "$out" = 'address   10.1.2.3
prefix    10.1.2.0/24
locality  rack
region    1
dc        7' ] || { echo "10.1.2.3: $out"; st=1; }
	"$CCACTL" scope show 10.1.3.1 | grep -qx 'prefix    10.1.0.0/16' || st=1
	"$CCACTL" scope show 10.200.0.1 | grep -qx 'locality  region' || st=1
	"$CCACTL" scope show 11.0.0.1 | grep -qx 'locality  unknown' || st=1
	"$CCACTL" scope show 2001:db8:1::99 | grep -qx 'prefix    2001:db8:1::/48' || st=1
	"$CCACTL" scope show 2001:db8:2::1 | grep -qx 'prefix    2001:db8::/32' || st=1
	"$CCACTL" scope show 2001:db9::1 | grep -qx 'locality  unknown' || st=1
	# a v4-mapped address is looked up in the IPv4 table
	cc scope show ::ffff:10.1.2.3
	echo "$out" | grep -qx 'prefix    10.1.2.0/24' || { echo "mapped: $out"; st=1; }
	return $st
}

test_scope_lookup_json() {
	base_table || return 1
	"$CCACTL" -j scope show 10.1.2.3 | json_is 'j == {"address": "10.1.2.3",
		"prefix": "10.1.2.0/24", "locality": "rack", "region": 1, "dc": 7}' &&
		"$CCACTL" -j scope show 192.0.2.1 |
		json_is 'j == {"address": "192.0.2.1", "locality": "unknown"}'
}

test_scope_show_json() {
	base_table || return 1
	"$CCACTL" -j scope show | json_is 'j == [
		{"prefix": "10.0.0.0/8", "locality": "region", "region": 1, "dc": 0},
		{"prefix": "10.1.0.0/16", "locality": "dc", "region": 1, "dc": 7},
		{"prefix": "10.1.2.0/24", "locality": "rack", "region": 1, "dc": 7},
		{"prefix": "2001:db8::/32", "locality": "xregion", "region": 2, "dc": 0},
		{"prefix": "2001:db8:1::/48", "locality": "dc", "region": 2, "dc": 3}]' &&
		"$CCACTL" -j -s scope show | json_is '(j["count"] == 5 and
		j["max_entries"] == 100000 and j["memory"] > 0 and len(j["entries"]) == 5)' &&
		"$CCACTL" -s scope show | tail -n 1 | grep -qE '^5 entries \(limit 100000\), [0-9]+ bytes$'
}

# Adding an existing prefix replaces its entry.
test_scope_replace() {
	base_table || return 1
	"$CCACTL" scope add 10.1.0.0/16 locality region region 4 dc 5 || return 1
	[ "$("$CCACTL" scope show | grep -c .)" = 6 ] &&
		"$CCACTL" scope show | grep -qx '10.1.0.0/16      region    4       5' &&
		"$CCACTL" scope show 10.1.9.9 | grep -qx 'region    4'
}

test_scope_del() {
	local before
	base_table || return 1
	# deleting the covering prefix leaves the more specific ones
	"$CCACTL" scope del 10.0.0.0/8 || return 1
	"$CCACTL" scope show 10.1.2.3 | grep -qx 'prefix    10.1.2.0/24' || return 1
	"$CCACTL" scope show 10.2.0.1 | grep -qx 'locality  unknown' || return 1
	"$CCACTL" scope del 2001:db8:1::/48 || return 1
	"$CCACTL" scope show 2001:db8:1::1 | grep -qx 'prefix    2001:db8::/32' || return 1
	before=$("$CCACTL" scope show)
	expect 2 'Error: no such prefix in the scope table' scope del 10.1.0.0/17 &&
		expect 2 'Error: no such prefix in the scope table' scope del 10.0.0.0/8 &&
		unchanged "$before"
}

test_scope_flush() {
	base_table || return 1
	"$CCACTL" scope flush || return 1
	[ -z "$("$CCACTL" scope show)" ] &&
		"$CCACTL" scope show 10.1.2.3 | grep -qx 'locality  unknown'
}

test_scope_ipv6_host_and_default() {
	"$CCACTL" scope flush &&
		"$CCACTL" scope add ::/0 locality xregion &&
		"$CCACTL" scope add fd00::1 locality rack dc 9 &&
		"$CCACTL" scope add 0.0.0.0/0 locality region || return 1
	"$CCACTL" scope show | grep -qx 'fd00::1/128  rack      0       9' &&
		"$CCACTL" scope show fd00::1 | grep -qx 'prefix    fd00::1/128' &&
		"$CCACTL" scope show fd00::2 | grep -qx 'prefix    ::/0' &&
		"$CCACTL" scope show 1.2.3.4 | grep -qx 'prefix    0.0.0.0/0'
}

test_scope_load() {
	local f=/tmp/scope_load.txt
	base_table || return 1
	cat >"$f" <<-'EOF'
	# data centers of region 1
	192.168.0.0/16   region  region 1
	192.168.1.0/24   dc      region 1 dc 1    # dc 1
	  192.168.1.0/26 rack    dc 1 region 1

	fd00::/8         xregion
	fd00:1::/32      locality dc region 1 dc 2
	EOF
	"$CCACTL" scope load "$f" || return 1
	cc scope show
	[ "$out" = 'PREFIX          LOCALITY  REGION  DC
192.168.0.0/16  region    1       0
192.168.1.0/24  dc        1       1
192.168.1.0/26  rack      1       1
fd00::/8        xregion   0       0
fd00:1::/32     dc        1       2' ] || { echo "after load:"; echo "$out"; return 1; }
	# from standard input; -s reports the new table's size
	cc -s scope load - <"$f"
	[ "$rc" = 0 ] && echo "$out" | grep -qE '^5 entries \(limit 100000\), [0-9]+ bytes$' ||
		{ echo "stdin: rc=$rc out=$out err=$err"; return 1; }
	# an empty file empties the table
	: >"$f"
	"$CCACTL" scope load "$f" && [ -z "$("$CCACTL" scope show)" ]
}

# dry_file FILE: a load file differing from base_table's by one changed
# entry (10.1.0.0/16's dc), one removed (10.1.2.0/24), two added
dry_file() {
	cat >"$1" <<-'EOF'
	10.0.0.0/8       region region 1
	10.1.0.0/16      dc region 1 dc 8
	2001:db8::/32    xregion region 2
	2001:db8:1::/48  dc dc 3 region 2
	192.168.0.0/16   locality region region 1
	fd00::1          rack
	EOF
}
DRY_DIFF='~ 10.1.0.0/16 locality dc region 1 dc 8
- 10.1.2.0/24 locality rack region 1 dc 7
+ 192.168.0.0/16 locality region region 1 dc 0
+ fd00::1/128 locality rack region 0 dc 0
dry run: 2 added, 1 removed, 1 changed, 3 unchanged, 6 entries'

# A dry run prints what a load would change, in scope show's order, and
# leaves the table exactly as it was; each spelling of the word, stdin too.
test_scope_load_dry_run() {
	local f=/tmp/scope_dry.txt before st=0 w
	base_table || return 1
	before=$("$CCACTL" -j -s scope show)
	dry_file "$f"
	for w in dry_run dry-run --dry-run; do
		cc scope load "$f" $w
		[ "$rc" = 0 ] && [ -z "$err" ] && [ "$out" = "$DRY_DIFF" ] ||
			{ echo "$w: rc=$rc err=$err out:"; echo "$out"; st=1; }
	done
	cc scope load - dry_run <"$f"
	[ "$rc" = 0 ] && [ "$out" = "$DRY_DIFF" ] || { echo "stdin: rc=$rc $err $out"; st=1; }
	# the table (and its size) byte for byte as before
	[ "$("$CCACTL" -j -s scope show)" = "$before" ] || { echo "table changed"; st=1; }
	"$CCACTL" scope show 10.1.2.3 | grep -qx 'prefix    10.1.2.0/24' || st=1
	# -s adds the size the new table would have
	cc -s scope load "$f" dry_run
	[ "$(echo "$out" | sed -n 5p)" = "${DRY_DIFF##*$'\n'}" ] &&
		echo "$out" | sed -n 6p | grep -qE '^6 entries \(limit 100000\), [0-9]+ bytes$' ||
		{ echo "-s: $out"; st=1; }
	# what the dry run accepted, a load takes: then nothing is left to change
	"$CCACTL" scope load "$f" || st=1
	cc scope load "$f" dry_run
	[ "$out" = 'dry run: 0 added, 0 removed, 0 changed, 6 unchanged, 6 entries' ] ||
		{ echo "after the load: $out"; st=1; }
	return $st
}

# -j: one object, entries as scope show -j prints them.
test_scope_load_dry_run_json() {
	local f=/tmp/scope_dry.txt before
	base_table || return 1
	before=$("$CCACTL" -j scope show)
	dry_file "$f"
	"$CCACTL" -j scope load "$f" dry_run | json_is 'j == {"dry_run": True,
		"added": [
			{"prefix": "192.168.0.0/16", "locality": "region", "region": 1, "dc": 0},
			{"prefix": "fd00::1/128", "locality": "rack", "region": 0, "dc": 0}],
		"removed": [
			{"prefix": "10.1.2.0/24", "locality": "rack", "region": 1, "dc": 7}],
		"changed": [
			{"prefix": "10.1.0.0/16", "locality": "dc", "region": 1, "dc": 8}],
		"unchanged": 3, "count": 6}' || return 1
	"$CCACTL" -j -s scope load "$f" dry_run |
		json_is 'j["max_entries"] == 100000 and j["memory"] > 0 and j["count"] == 6' || return 1
	# an empty file: everything would go
	: >"$f"
	"$CCACTL" -j scope load "$f" dry_run | json_is '(j["added"] == [] and
		j["changed"] == [] and len(j["removed"]) == 5 and j["unchanged"] == 0 and
		j["count"] == 0)' || return 1
	[ "$("$CCACTL" -j scope show)" = "$before" ]
}

# The table in force, given back: no difference.
test_scope_load_dry_run_same() {
	local f=/tmp/scope_same.txt
	base_table || return 1
	"$CCACTL" -j scope show | python3 -c 'import json, sys
for e in json.load(sys.stdin):
    print("%(prefix)s %(locality)s region %(region)d dc %(dc)d" % e)' >"$f"
	cc scope load "$f" dry_run
	[ "$rc" = 0 ] && [ "$out" = 'dry run: 0 added, 0 removed, 0 changed, 5 unchanged, 5 entries' ] ||
		{ echo "rc=$rc err=$err out=$out"; return 1; }
	"$CCACTL" -j scope load "$f" dry_run | json_is 'j == {"dry_run": True, "added": [],
		"removed": [], "changed": [], "unchanged": 5, "count": 5}'
}

# What the kernel refuses in a load it refuses in a dry run, with the same
# extack message, and nothing changes; a core that does not know the flag
# refuses it rather than load.
test_scope_load_dry_run_refusals() {
	local f=/tmp/scope_dry_bad.txt before st=0 r
	base_table || return 1
	before=$("$CCACTL" -j -s scope show)
	printf '10.9.0.0/16 dc\n10.8.0.1/16 dc\n' >"$f"
	expect 2 'Error: scope address has bits set beyond the prefix length' \
		scope load "$f" dry_run && [ -z "$out" ] || st=1
	printf '10.9.0.0/16 dc\n2001:db8::1/64 dc\n' >"$f"
	expect 2 'Error: scope address has bits set beyond the prefix length' \
		scope load "$f" --dry-run || st=1
	# a prefix twice: ccactl names the lines before sending anything
	printf '10.9.0.0/16 dc\n10.8.0.0/16 dc\n10.9.0.0/16 rack\n' >"$f"
	expect 1 "ccactl: $f:3: prefix 10.9.0.0/16 given twice (also on line 1)" \
		scope load "$f" dry_run || st=1
	# the size limit
	echo 5 >$PARAM || return 1
	printf '1.0.0.0/8 dc\n2.0.0.0/8 dc\n3.0.0.0/8 dc\n4.0.0.0/8 dc\n5.0.0.0/8 dc\n6.0.0.0/8 dc\n' >"$f"
	expect 2 'Error: scope table full: more entries than the module parameter scope_max_entries' \
		scope load "$f" dry_run || st=1
	sed -i '$d' "$f"
	cc scope load "$f" dry_run
	[ "$rc" = 0 ] && [ "${out##*$'\n'}" = 'dry run: 5 added, 5 removed, 0 changed, 0 unchanged, 5 entries' ] ||
		{ echo "at the limit: rc=$rc $err $out"; st=1; }
	echo 100000 >$PARAM
	# what only raw netlink sends, each with the flag
	check_dry() {
		local want_errno=$1 want_msg=$2
		shift 2
		r=$(genl $CMD_LOAD "$@" $A_DRY_RUN:hex:)
		echo "$r" | grep -qx "errno $want_errno" && echo "$r" | grep -qx "extack $want_msg" ||
			{ echo "genl dry run $*: $r (want errno $want_errno, '$want_msg')"; st=1; }
	}
	check_dry 17 'prefix given twice in one scope load' \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2 \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:3
	check_dry 22 'unknown scope locality (rack, dc, region or xregion)' \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:0
	check_dry 22 'unknown scope locality (rack, dc, region or xregion)' \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:5
	check_dry 22 'scope prefix length is longer than the address' \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:33+$A_LOCALITY:u8:2
	check_dry 22 'missing scope locality (CCAAS_A_SCOPE_LOCALITY)' \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8
	check_dry 34 'Attribute failed policy validation' \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2 \
		$A_DRY_RUN:u8:1
	# accepted: answered with the new table's size, nothing replaced
	r=$(genl $CMD_LOAD $A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2 \
		$A_DRY_RUN:hex:)
	echo "$r" | grep -qx 'errno 0' && echo "$r" | grep -qx 'replies 1' ||
		{ echo "valid dry run: $r"; st=1; }
	# A core older than the flag knows attribute types up to MEMORY (9)
	# and validates strictly: type 10 is unknown to it and refused. The
	# same rule, one type further, on this core: refused, nothing loaded.
	r=$(genl $CMD_LOAD $A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2 \
		$((A_DRY_RUN + 1)):hex:)
	echo "$r" | grep -qx 'errno 22' && echo "$r" | grep -qx 'extack Unknown attribute type' ||
		{ echo "unknown flag: $r"; st=1; }
	# nor does another command take the flag: no add behind a "dry run"
	r=$(genl $CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:8 $A_LOCALITY:u8:2 $A_DRY_RUN:hex:)
	echo "$r" | grep -qx 'errno 22' && echo "$r" | grep -qx 'extack Unsupported attribute' ||
		{ echo "add with the flag: $r"; st=1; }
	[ "$("$CCACTL" -j -s scope show)" = "$before" ] || { echo "table changed"; st=1; }
	return $st
}

# Lines ccactl cannot parse: exit 1 with FILE:LINE, nothing sent.
test_scope_load_file_errors() {
	local f=/tmp/scope_bad.txt before st=0
	base_table || return 1
	before=$("$CCACTL" scope show)
	printf '10.9.0.0/16 dc\n10.9.0.0/33 dc\n' >"$f"
	expect 1 "ccactl: $f:2: invalid prefix \"10.9.0.0/33\" (a.b.c.d/len or x::/len)" \
		scope load "$f" || st=1
	printf '10.9.0.0/16 dc\n\n# x\n10.8.0.0/16 nearby\n' >"$f"
	expect 1 "ccactl: $f:4: unknown locality \"nearby\" (rack, dc, region or xregion)" \
		scope load "$f" || st=1
	printf '10.9.0.0/16 dc region x\n' >"$f"
	expect 1 "ccactl: $f:1: region needs a number from 0 to 4294967295, got \"x\"" \
		scope load "$f" || st=1
	printf '10.9.0.0/16 dc\n10.8.0.0/16 dc\n10.9.0.0/16 rack\n' >"$f"
	expect 1 "ccactl: $f:3: prefix 10.9.0.0/16 given twice (also on line 1)" \
		scope load "$f" || st=1
	expect 1 'ccactl: scope load: cannot open "/nonexistent": No such file or directory' \
		scope load /nonexistent || st=1
	unchanged "$before" || st=1
	return $st
}

# Malformed prefixes and arguments are usage errors caught by ccactl.
test_scope_usage_errors() {
	local before st=0 p
	base_table || return 1
	before=$("$CCACTL" scope show)
	for p in 10.0.0.0/33 10.0.0/8 10.0.0.0/ 10.0.0.0/-1 10.0.0.0/8x fd00::/129 \
		fd00:::/8 banana ""; do
		cc scope add "$p" locality dc
		[ "$rc" = 1 ] && [[ "$err" == *"invalid prefix"* ]] ||
			{ echo "prefix '$p': rc=$rc err=$err"; st=1; }
	done
	expect 1 'ccactl: scope add: missing locality (rack, dc, region or xregion)' \
		scope add 10.9.0.0/16 || st=1
	expect 1 'ccactl: scope add: unknown locality "near" (rack, dc, region or xregion)' \
		scope add 10.9.0.0/16 locality near || st=1
	expect 1 'ccactl: scope add: region needs a number from 0 to 4294967295, got "4294967296"' \
		scope add 10.9.0.0/16 locality dc region 4294967296 || st=1
	expect 1 'ccactl: scope show: invalid address "10.0.0.0/8"' scope show 10.0.0.0/8 || st=1
	expect 1 'ccactl: scope del: unexpected argument "x"' scope del 10.0.0.0/8 x || st=1
	unchanged "$before" || st=1
	return $st
}

# What only the kernel can judge: refused with its extack message, exit 2.
test_scope_kernel_refusals() {
	local before st=0 f=/tmp/scope_hostbits.txt
	base_table || return 1
	before=$("$CCACTL" scope show)
	expect 2 'Error: scope address has bits set beyond the prefix length' \
		scope add 10.0.0.1/8 locality dc || st=1
	expect 2 'Error: scope address has bits set beyond the prefix length' \
		scope add 2001:db8::1/64 locality dc || st=1
	expect 2 'Error: IPv4-mapped IPv6 prefix: give it as an IPv4 prefix' \
		scope add ::ffff:10.0.0.0/104 locality dc || st=1
	# one bad entry anywhere in a load: nothing replaced
	printf '10.9.0.0/16 dc\n10.8.0.1/16 dc\n' >"$f"
	expect 2 'Error: scope address has bits set beyond the prefix length' \
		scope load "$f" || st=1
	unchanged "$before" || st=1
	return $st
}

# The size limit: refused with ENOSPC and the old table kept.
test_scope_size_limit() {
	local before st=0 f=/tmp/scope_four.txt
	base_table || return 1
	echo 5 >$PARAM || return 1
	before=$("$CCACTL" scope show)
	expect 2 'Error: scope table full (module parameter scope_max_entries)' \
		scope add 172.16.0.0/12 locality dc || st=1
	# replacing an entry at the limit is fine
	"$CCACTL" scope add 10.0.0.0/8 locality region region 1 || st=1
	printf '1.0.0.0/8 dc\n2.0.0.0/8 dc\n3.0.0.0/8 dc\n4.0.0.0/8 dc\n5.0.0.0/8 dc\n6.0.0.0/8 dc\n' >"$f"
	expect 2 'Error: scope table full: more entries than the module parameter scope_max_entries' \
		scope load "$f" || st=1
	unchanged "$before" || st=1
	"$CCACTL" -j -s scope show | json_is 'j["max_entries"] == 5' || st=1
	# the parameter is bounded
	{ echo 1000001 >$PARAM; } 2>/dev/null && st=1
	[ "$(cat $PARAM)" = 5 ] || st=1
	echo 100000 >$PARAM
	return $st
}

# Requests ccactl would never send, through raw netlink.
test_scope_malformed_netlink() {
	local before st=0 r
	base_table || return 1
	before=$("$CCACTL" scope show)
	# check_genl WANT_ERRNO WANT_EXTACK ARGS...: genl.py's answer
	check_genl() {
		local want_errno=$1 want_msg=$2
		shift 2
		r=$(genl "$@")
		if ! echo "$r" | grep -qx "errno $want_errno" ||
			! echo "$r" | grep -qx "extack $want_msg"; then
			echo "genl $*: $r (want errno $want_errno, '$want_msg')"
			st=1
		fi
	}
	check_genl 22 'scope address must be 4 (IPv4) or 16 (IPv6) bytes' \
		$CMD_ADD $A_ADDR:hex:0a0000 $A_PREFIXLEN:u8:8 $A_LOCALITY:u8:2
	check_genl 22 'scope address must be 4 (IPv4) or 16 (IPv6) bytes' \
		$CMD_GET $A_ADDR:hex:0a000000000000
	check_genl 22 'scope prefix length is longer than the address' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:33 $A_LOCALITY:u8:2
	check_genl 22 'unknown scope locality (rack, dc, region or xregion)' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:8 $A_LOCALITY:u8:5
	check_genl 22 'unknown scope locality (rack, dc, region or xregion)' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:8 $A_LOCALITY:u8:0
	check_genl 22 'missing scope prefix length (CCAAS_A_SCOPE_PREFIXLEN)' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_LOCALITY:u8:2
	check_genl 22 'missing scope locality (CCAAS_A_SCOPE_LOCALITY)' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:8
	check_genl 22 'missing scope address (CCAAS_A_SCOPE_ADDR)' $CMD_DEL $A_PREFIXLEN:u8:8
	check_genl 22 'missing address to look up (CCAAS_A_SCOPE_ADDR)' $CMD_GET
	echo "$r" | grep -qx "miss_type $A_ADDR" || { echo "no miss_type: $r"; st=1; }
	# wrong attribute lengths and types, caught by the policies
	check_genl 22 'invalid attribute length' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u32:8 $A_LOCALITY:u8:2
	check_genl 22 'invalid attribute length' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:8 $A_LOCALITY:u8:2 $A_REGION:u8:1
	check_genl 22 'Unsupported attribute' $CMD_FLUSH $A_COUNT:u32:1
	check_genl 22 'Unsupported attribute' \
		$CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:8 $A_LOCALITY:u8:2 $A_COUNT:u32:1
	# a truncated attribute: its header claims 8 bytes, 6 follow
	r=$(genl $CMD_ADD $A_ADDR:hex:0a000000 $A_PREFIXLEN:u8:8 raw:08000300020a)
	echo "$r" | grep -qx 'errno 22' && echo "$r" | grep -q '^extack .' ||
		{ echo "truncated: $r"; st=1; }
	# loads: nests without NLA_F_NESTED, a bad entry, a prefix twice
	check_genl 22 'NLA_F_NESTED is missing' \
		$CMD_LOAD $A_ENTRY:nestraw:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2
	check_genl 22 'missing scope locality (CCAAS_A_SCOPE_LOCALITY)' \
		$CMD_LOAD $A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2 \
		$A_ENTRY:nest:$A_ADDR:hex:0b000000+$A_PREFIXLEN:u8:8
	check_genl 22 'scope address has bits set beyond the prefix length' \
		$CMD_LOAD $A_ENTRY:nest:$A_ADDR:hex:0a000001+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2
	check_genl 17 'prefix given twice in one scope load' \
		$CMD_LOAD $A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2 \
		$A_ENTRY:nest:$A_ADDR:hex:0b000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2 \
		$A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:3
	check_genl 22 'Unsupported attribute' \
		$CMD_LOAD $A_ENTRY:nest:$A_ADDR:hex:0a000000+$A_PREFIXLEN:u8:8+$A_LOCALITY:u8:2+$A_ENTRY:nest:
	unchanged "$before" || st=1
	return $st
}

# A dump that spans several reads while the table changes: it goes on after
# the last entry it sent, flags NLM_F_DUMP_INTR, and sends every entry that
# was there throughout exactly once.
test_scope_dump_during_change() {
	local f=/tmp/scope_2k.txt
	python3 -c '
for i in range(2000):
    print("10.%d.%d.0/24 dc" % (i >> 8, i & 255))' >"$f"
	"$CCACTL" scope load "$f" || return 1
	python3 - "$CCAAS_ROOT/tests/vm/lib" <<-'EOF'
	import socket, struct, sys
	sys.path.insert(0, sys.argv[1])
	import genl

	CMD_ADD, CMD_DEL, CMD_GET = 2, 3, 4
	A_ADDR, A_PREFIXLEN, A_LOCALITY = 1, 2, 3
	NLM_F_DUMP_INTR = 0x10

	def prefix(i):
	    return socket.inet_aton("10.%d.%d.0" % (i >> 8, i & 255))

	def entry(i):
	    return genl.attr(A_ADDR, prefix(i)) + genl.attr(A_PREFIXLEN, b"\x18")

	reader, writer = genl.Genl("ccaas"), genl.Genl("ccaas")
	reader.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
	reader.seq += 1
	body = struct.pack("=BBH", CMD_GET, 1, 0)
	reader.sock.send(struct.pack("=IHHII", 16 + len(body), reader.id,
	                             genl.NLM_F_REQUEST | genl.NLM_F_DUMP,
	                             reader.seq, 0) + body)
	seen, intr, parts, changed, done = [], False, 0, False, False
	while not done:
	    buf = reader.sock.recv(65536)	# one part (at most 32 KiB) per read
	    parts += 1
	    while len(buf) >= 16:
	        mlen, mtype, mflags, seq, _ = struct.unpack_from("=IHHII", buf)
	        msg, buf = buf[16:mlen], buf[genl.align(mlen):]
	        if mtype == genl.NLMSG_DONE:
	            done = True
	            break
	        assert mtype != genl.NLMSG_ERROR, "dump failed"
	        intr |= bool(mflags & NLM_F_DUMP_INTR)
	        attrs = genl.parse_attrs(msg[4:])
	        if A_ADDR in attrs:
	            seen.append(attrs[A_ADDR])
	    if not changed and len(seen) > 100:
	        # behind the dump: delete an entry it sent and one it has not;
	        # ahead of it: add one
	        for cmd, payload in ((CMD_DEL, entry(10)), (CMD_DEL, entry(1500)),
	                             (CMD_ADD, entry(2001) + genl.attr(A_LOCALITY, b"\x01"))):
	            err, msg, _ = writer.request(cmd, payload)
	            assert err == 0, (cmd, err, msg)
	        changed = True
	assert changed and parts > 2, ("too few parts", parts)
	assert intr, "no NLM_F_DUMP_INTR after the change"
	assert len(seen) == len(set(seen)), "an entry was sent twice"
	kept = set(prefix(i) for i in range(2000) if i not in (10, 1500))
	missing = kept - set(seen)
	assert not missing, "%d entries lost" % len(missing)
	assert prefix(2001) in seen and prefix(1500) not in seen
	print("dump: %d entries in %d reads, interrupted: %s" % (len(seen), parts, intr))
	EOF
	local rc=$?
	"$CCACTL" scope flush
	return $rc
}

# ccactl's dump while another writer replaces the table again and again:
# every table it prints is one that was in force (never parts of two, which
# the kernel flags NLM_F_DUMP_INTR), or it says it could not get one.
test_scope_show_while_loading() {
	local a=/tmp/scope_a.txt b=/tmp/scope_b.txt i out rc whole=0 gave_up=0 st=0 loader
	python3 -c '
for i in range(2000):
    print("10.%d.%d.0/24 dc" % (i >> 8, i & 255))' >"$a"
	sed 's/ dc$/ rack/' "$a" >"$b"
	"$CCACTL" scope load "$a" || return 1
	( for i in $(seq 400); do "$CCACTL" scope load "$b"; "$CCACTL" scope load "$a"; done ) &
	loader=$!
	for i in $(seq 12); do
		kill -0 "$loader" 2>/dev/null || break
		out=$("$CCACTL" -j scope show 2>"$E")
		rc=$?
		if [ "$rc" = 2 ] && grep -q 'changed during each of 3 dumps' "$E"; then
			gave_up=$((gave_up + 1))
			continue
		fi
		if [ "$rc" != 0 ] || ! echo "$out" | python3 -c '
import json, sys
e = json.load(sys.stdin)
locs = set(x["locality"] for x in e)
sys.exit(0 if len(e) == 2000 and len(locs) == 1 else 1)'; then
			echo "scope show (exit $rc) printed a table never in force:" \
				"$(echo "$out" | python3 -c 'import json,sys,collections; print(collections.Counter(x["locality"] for x in json.load(sys.stdin)))' 2>&1)" \
				"$(cat "$E")"
			st=1
			break
		fi
		whole=$((whole + 1))
	done
	kill "$loader" 2>/dev/null
	wait "$loader" 2>/dev/null
	echo "during reloads: $whole whole tables, $gave_up dumps given up"
	"$CCACTL" scope flush
	[ "$whole" -gt 0 ] || { echo "no dump completed"; st=1; }
	return $st
}

# Changing the table needs CAP_NET_ADMIN; reading it does not.
test_scope_unprivileged() {
	local before st=0 nobody f=/tmp/scope_nobody.txt
	base_table || return 1
	before=$("$CCACTL" scope show)
	install -m 0755 "$CCACTL" /tmp/ccactl_nobody || return 1
	printf '10.9.0.0/16 dc\n' >"$f"
	chmod 0644 "$f"
	nobody() {
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			/tmp/ccactl_nobody "$@" 2>"$E")
		rc=$?
		err=$(cat "$E")
	}
	for cmd in "add 10.9.0.0/16 locality dc" "del 10.0.0.0/8" "flush" "load $f" \
		"load $f dry_run"; do
		# shellcheck disable=SC2086 # the words of the command
		nobody scope $cmd
		[ "$rc" = 2 ] && [ "$err" = "Error: Operation not permitted" ] ||
			{ echo "unprivileged $cmd: rc=$rc err=$err"; st=1; }
	done
	nobody scope show
	[ "$rc" = 0 ] && [ "$out" = "$before" ] || { echo "show: rc=$rc $err"; st=1; }
	nobody scope show 10.1.2.3
	echo "$out" | grep -qx 'locality  rack' || { echo "lookup: rc=$rc $err"; st=1; }
	unchanged "$before" || st=1
	return $st
}

# Each network namespace has a table of its own.
test_scope_netns() {
	base_table || return 1
	netns_add scope_a && netns_add scope_b || return 1
	[ -z "$("$CCACTL" -n scope_a scope show)" ] || return 1
	"$CCACTL" -n scope_a scope add 10.0.0.0/8 locality rack &&
		"$CCACTL" -n scope_b scope add 10.0.0.0/8 locality xregion region 3 || return 1
	"$CCACTL" -n scope_a scope show 10.1.1.1 | grep -qx 'locality  rack' &&
		"$CCACTL" -n scope_b scope show 10.1.1.1 | grep -qx 'locality  xregion' &&
		[ "$("$CCACTL" scope show)" = "$BASE_TEXT" ] || return 1
	"$CCACTL" -n scope_b scope flush &&
		[ -z "$("$CCACTL" -n scope_b scope show)" ] &&
		[ "$("$CCACTL" -n scope_a scope show | grep -c .)" = 2 ] || return 1
	# a namespace goes away with its table
	ip netns del scope_a && ip netns del scope_b
}

# 100 000 prefixes in one message: loaded, looked up, listed.
test_scope_load_100k() {
	local f=/tmp/scope_100k.txt t0 t1 n
	python3 -c '
for i in range(65536):
    print("10.%d.%d.0/24 dc region %d dc %d" % (i >> 8, i & 255, i >> 8, i & 255))
for i in range(34464):
    print("fd00:%x:%x::/48 rack region 7" % (i >> 8, i & 255))
' >"$f"
	t0=$(date +%s%N)
	cc -s scope load "$f"
	t1=$(date +%s%N)
	echo "load of 100000 prefixes: $(((t1 - t0) / 1000000)) ms; $out"
	[ "$rc" = 0 ] || { echo "load: rc=$rc $err"; return 1; }
	echo "$out" | grep -qE '^100000 entries \(limit 100000\)' || return 1
	"$CCACTL" scope show 10.200.17.5 | grep -qx 'prefix    10.200.17.0/24' &&
		"$CCACTL" scope show 10.200.17.5 | grep -qx 'dc        17' &&
		"$CCACTL" scope show fd00:86:9f::1 | grep -qx 'prefix    fd00:86:9f::/48' &&
		"$CCACTL" scope show fd00:86:a0::1 | grep -qx 'locality  unknown' || return 1
	t0=$(date +%s%N)
	n=$("$CCACTL" scope show | wc -l)
	t1=$(date +%s%N)
	echo "listing: $n lines in $(((t1 - t0) / 1000000)) ms"
	[ "$n" = 100001 ] || return 1
	# one more is over the limit
	expect 2 'Error: scope table full (module parameter scope_max_entries)' \
		scope add 192.0.2.0/24 locality dc || return 1
	"$CCACTL" scope flush
}

# ccactl's successful paths (a load's big message, dumps, lookups) under
# valgrind, in one batch to pay valgrind's start once: no memory errors, no
# leaks.
test_scope_valgrind() {
	local f=/tmp/scope_vg.txt b=/tmp/scope_vg.batch
	command -v valgrind >/dev/null || { echo "valgrind is not installed; skipped"; return 0; }
	python3 -c '
for i in range(300):
    print("10.%d.%d.0/24 dc region 1 dc %d" % (i >> 8, i & 255, i))
    print("fd00:%x::/32 rack" % i)' >"$f"
	cat >"$b" <<-EOF
	scope load $f -s
	scope load $f dry_run
	scope load $f dry_run -j -s
	scope show -s
	scope show -j -s
	scope show 10.0.5.1
	scope show fd00:7::1 -j
	scope add 10.0.0.0/8 locality region region 2
	scope del 10.0.0.0/8
	scope flush
	EOF
	valgrind -q --leak-check=full --errors-for-leak-kinds=all --error-exitcode=3 \
		"$CCACTL" -b "$b" >/dev/null 2>"$E" || { cat "$E"; return 1; }
}
