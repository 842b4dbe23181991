# Fault injection: every slab and page allocation that a netlink request
# of the core reaches is failed in turn (/proc/thread-self/fail-nth, see
# tests/vm/lib/faults.py). A refused request leaves every dump as it was;
# an accepted one shows. Afterwards nothing leaked (the driver's kmemleak
# scan) and every module unloads, so no module reference was lost.
#
# Needs FAILSLAB and FAIL_PAGE_ALLOC: the sanitizer kernel only.
# vm-debug: only
# vm-timeout: 900

FAULTS=$CCAAS_ROOT/tests/vm/lib/faults.py
UAPI=$CCAAS_ROOT/include/uapi/linux/ccaas.h
CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
FI_PORT=5007

load_ccaas tcp_cca_dctcp tcp_cca_cubic

# fi_enable: fail-nth reaches GFP_KERNEL allocations too, quietly (a stack
# trace per injected fault would bury the real reports)
fi_enable() {
	local d
	for d in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
		[ -d $d ] || return 1
		echo N >$d/ignore-gfp-wait && echo 0 >$d/verbose || return 1
	done
	echo 0 >/sys/kernel/debug/fail_page_alloc/min-order
}

# fi_reports: kernel reports since boot other than the page allocator's
# own "page allocation failure" messages, which the faults cause
fi_reports() {
	dmesg | awk '/page allocation failure|warn_alloc:/ { skip = 1; next }
		/^\[ *[0-9.]+\] (Mem-Info|Node|active_anon|Hardware name)/ { next }
		skip && /^\[ *[0-9.]+\]  / { next }
		{ skip = 0; print }' |
		grep -aE 'BUG:|WARNING:|UBSAN:|KASAN|KFENCE|circular locking|suspicious RCU|inconsistent lock' |
		head -n 10
}

# fi_run NS SCENARIO...: faults.py in NS; its lines to the log
fi_run() {
	local n=$1 out rc
	shift
	out=$(ns "$n" python3 "$FAULTS" "$UAPI" "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/  faults: /'
	echo "$out" | sed -n 's/^faults //p' >>/tmp/fi_total
	return $rc
}

test_faults_netlink_requests() {
	local t=faults_netlink_requests
	fi_enable || { fail $t "no fault injection in this kernel"; return 1; }
	: >/tmp/fi_total
	netns_add f || return 1
	# empty policy and scope: each scenario's undo restores exactly that
	fi_run f policy_set policy_apply policy_rollback scope_add scope_load log_add ||
		fail $t "an invariant broke (above)" || return 1
	pass $t
}

test_faults_socket_moves() {
	local t=faults_socket_moves
	netns_pair a b || return 1
	ns b python3 "$CONNS" server :: $FI_PORT >/dev/null 2>&1 &
	wait_port b $FI_PORT || return 1
	"$CCACTL" -n a policy set default cca cca_dctcp >/dev/null || return 1
	rm -f /tmp/fi_ready
	ns a python3 "$CONNS" client "$PAIR_B_IP" $FI_PORT 20 /tmp/fi_ready >/dev/null 2>&1 &
	for _ in $(seq 300); do [ -e /tmp/fi_ready ] && break; sleep 0.1; done
	[ -e /tmp/fi_ready ] || fail $t "connections not established" || return 1
	"$CCACTL" -n a policy set default cca cca_cubic no_migrate >/dev/null || return 1
	fi_run a migrate drain || fail $t "an invariant broke (above)" || return 1
	pass $t
}

test_faults_leave_modules_unloadable() {
	local t=faults_leave_modules_unloadable r m
	netns_cleanup
	# namespaces go away asynchronously; their sockets hold module refs
	for m in tcp_cca_cubic tcp_cca_dctcp ccaas_core; do
		for _ in $(seq 100); do
			rmmod $m 2>/dev/null && break
			sleep 0.2
		done
		! grep -q "^$m " /proc/modules ||
			fail $t "$m does not unload: refcount $(cat /sys/module/$m/refcnt)" || return 1
	done
	r=$(fi_reports)
	[ -z "$r" ] || fail $t "kernel reports during fault injection: $r" || return 1
	echo "  faults injected in all: $(awk '{ n += $1 } END { print n + 0 }' /tmp/fi_total)"
	pass $t
}
