# ccaas_core and the CCA registry: load, netlink listing, refusals, unload.
# The tests run in order and share the loaded modules.
# vm-debug: yes
# vm-timeout: 120

ko=$CCAAS_KO_DIR

# Loading the core registers the genetlink family; the registry starts empty.
test_core_load_family() {
	local out
	insmod "$ko/ccaas_core.ko" || return 1
	out=$("$CCACTL" cca list) || fail core_load_family "cca list: $out" || return 1
	echo "$out" | grep -q cca_ && fail core_load_family "not empty: $out"
	return 0
}

# A CCA module registers with both the TCP stack and the core.
test_cca_register_listed() {
	insmod "$ko/tcp_cca_dctcp.ko" || return 1
	grep -qw cca_dctcp /proc/sys/net/ipv4/tcp_available_congestion_control ||
		fail cca_register_listed "not available to TCP" || return 1
	"$CCACTL" cca list | grep -q 'cca_dctcp.*1\.0\.0' ||
		fail cca_register_listed "$("$CCACTL" cca list 2>&1)"
}

# JSON listing carries version, features and owning module.
test_cca_list_json() {
	"$CCACTL" -j cca list | python3 -c '
import json, sys
ccas = {c["name"]: c for c in json.load(sys.stdin)}
c = ccas["cca_dctcp"]
assert c["version"] == "1.0.0", c
assert set(c["features"]) == {"needs_ecn", "ecn_ok", "nonecn_ok"}, c
assert c["module"] == "tcp_cca_dctcp", c
assert c["flags"] & 2, c   # TCP_CONG_NEEDS_ECN
'
}

test_cca_show_one() {
	"$CCACTL" cca show cca_dctcp | grep -q cca_dctcp
}

# The kernel's refusal reaches the user as its extack text, exit code 2.
test_cca_show_unknown_extack() {
	local err rc
	err=$("$CCACTL" cca show no_such_cca 2>&1)
	rc=$?
	[ $rc -eq 2 ] && echo "$err" | grep -q '^Error: CCA not registered with ccaas' ||
		fail cca_show_unknown_extack "rc=$rc: $err"
}

# Over-long names are refused as a usage error before reaching the kernel.
test_cca_show_name_too_long() {
	local err rc
	err=$("$CCACTL" cca show abcdefghijklmnopqrstuvwxyz 2>&1)
	rc=$?
	[ $rc -eq 1 ] && echo "$err" | grep -q 'invalid CCA name' ||
		fail cca_show_name_too_long "rc=$rc: $err"
}

# The family answers in every network namespace.
test_family_in_other_netns() {
	netns_add core_ns1 || return 1
	"$CCACTL" -n core_ns1 cca list | grep -q cca_dctcp
}

# Module parameters are bounded: a bad write fails and keeps the old value.
test_param_bounds() {
	local p=/sys/module/tcp_cca_dctcp/parameters st=0
	{ echo 11 > $p/shift_g; } 2>/dev/null && st=1
	[ "$(cat $p/shift_g)" = 4 ] || st=1
	{ echo 1025 > $p/alpha_on_init; } 2>/dev/null && st=1
	echo 5 > $p/shift_g && [ "$(cat $p/shift_g)" = 5 ] || st=1
	echo 4 > $p/shift_g
	[ $st = 0 ] || fail param_bounds "shift_g=$(cat $p/shift_g) alpha_on_init=$(cat $p/alpha_on_init)"
}

# The core cannot go while a CCA is registered.
test_core_unload_refused_with_cca() {
	! rmmod ccaas_core 2>/dev/null && "$CCACTL" cca list | grep -q cca_dctcp
}

# A CCA in use by a socket cannot be unloaded; once the socket is gone it can.
test_cca_unload_refused_in_use() {
	local holder st=0
	rm -f /tmp/core_sock_ready
	python3 -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cca_dctcp")
s.bind(("127.0.0.1", 0)); s.listen()
open("/tmp/core_sock_ready", "w").close()
time.sleep(30)
' &
	holder=$!
	for _ in $(seq 100); do [ -e /tmp/core_sock_ready ] && break; sleep 0.1; done
	rmmod tcp_cca_dctcp 2>/dev/null && st=1
	kill $holder
	wait $holder 2>/dev/null
	[ $st = 0 ] || fail cca_unload_refused_in_use "unloaded while a socket used it" || return 1
	rmmod tcp_cca_dctcp || fail cca_unload_refused_in_use "no unload after the socket closed"
}

# With the CCA gone the core unloads, and ccactl says the module is missing.
test_core_unload_clean() {
	local err rc
	rmmod ccaas_core || return 1
	err=$("$CCACTL" cca list 2>&1)
	rc=$?
	[ $rc -eq 2 ] && echo "$err" | grep -q 'is the ccaas_core module loaded' ||
		fail core_unload_clean "rc=$rc: $err"
}

# Reloaded, nothing holds a reference but the CCA's use of the core.
test_refcounts_balanced() {
	load_ccaas tcp_cca_dctcp || return 1
	[ "$(cat /sys/module/tcp_cca_dctcp/refcnt)" = 0 ] &&
		[ "$(cat /sys/module/ccaas_core/refcnt)" = 1 ] ||
		fail refcounts_balanced "dctcp=$(cat /sys/module/tcp_cca_dctcp/refcnt) core=$(cat /sys/module/ccaas_core/refcnt)"
}
