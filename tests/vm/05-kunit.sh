# The KUnit suites of kunit/, run in the sanitizer kernel, so KASAN,
# lockdep, UBSAN and kmemleak watch them too. ccaas_kunit.ko is built
# against that kernel (it has KUnit; Debian's do not) and loaded after the
# core, every CCA and the in-tree dctcp (the differential suite's peer):
# KUnit runs the suites as the module loads. Each case reports as a test
# of its own, kunit.SUITE.CASE. CCAAS_KUNIT_FILTER (scripts/kunit.sh -t)
# narrows the run to a KUnit glob, "suite_glob" or "suite_glob.case_glob".
# vm-debug: only
# vm-timeout: 200

kunit_dir=/sys/kernel/debug/kunit

# test_kunit: every declared suite ran to the end of its plan, every case
# passed (the cases are reported one by one before this verdict)
test_kunit() {
	local filter=${CCAAS_KUNIT_FILTER:-} out rc=0 verdict name
	[ -f "$CCAAS_KO_DIR/ccaas_kunit.ko" ] ||
		fail kunit "no ccaas_kunit.ko in $CCAAS_KO_DIR (was the kernel built with KUnit?)" ||
		return 1
	modprobe tcp_dctcp || fail kunit "modprobe tcp_dctcp" || return 1
	load_ccaas tcp_cca_dctcp tcp_cca_cubic tcp_cca_dcndelay tcp_cca_xregion \
		tcp_cca_hpcc || fail kunit "loading the core and the CCAs" || return 1
	# (printf: a module parameter of type charp keeps echo's newline)
	if [ -n "$filter" ]; then
		printf '%s' "$filter" >/sys/module/kunit/parameters/filter_glob ||
			fail kunit "cannot set kunit.filter_glob" || return 1
	fi
	# ccaas_ext's allocation-failure case injects a failure (fail-nth): no
	# stack dump for it, which the driver would count as a kernel report
	echo 0 >/sys/kernel/debug/failslab/verbose 2>/dev/null
	# the policy suite's service rules match sockets of these cgroups
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	mkdir -p /sys/fs/cgroup/ccaas-kunit/svc/child /sys/fs/cgroup/ccaas-kunit/other
	insmod "$CCAAS_KO_DIR/ccaas_kunit.ko" || rc=1
	echo 2 >/sys/kernel/debug/failslab/verbose 2>/dev/null
	rmdir /sys/fs/cgroup/ccaas-kunit/svc/child /sys/fs/cgroup/ccaas-kunit/svc \
		/sys/fs/cgroup/ccaas-kunit/other /sys/fs/cgroup/ccaas-kunit
	[ "$rc" = 0 ] || fail kunit "insmod ccaas_kunit.ko" || return 1
	out=$(python3 "$CCAAS_ROOT/tests/vm/lib/kunit_results.py" "$kunit_dir" \
		"$CCAAS_ROOT/kunit" "${filter:-*}") || rc=1
	while read -r verdict name; do
		case "$verdict" in
		PASS) pass "$name" ;;
		FAIL) fail "$name" "$(echo "$out" | grep -A1 -xF "FAIL $name" | sed -n '2{/^  /s/^ *//p}')" ;;
		SKIP) echo "SKIP: $name" ;;
		esac
	done < <(echo "$out" | grep -E '^(PASS|FAIL|SKIP) ')
	[ "$rc" = 0 ] || {
		echo "--- the failed suites' KTAP:"
		for d in "$kunit_dir"/*/; do
			grep -q '^not ok' "$d/results" 2>/dev/null && sed 's/^/  /' "$d/results"
		done
	}
	# Unload: the suites' own allocations are checked by kmemleak after
	# the file, and every module reference they took must be back.
	# (tcp_dctcp too: the differential suite's in-tree flows hold it)
	for m in ccaas_kunit tcp_cca_hpcc tcp_cca_xregion tcp_cca_dcndelay \
		tcp_cca_cubic tcp_cca_dctcp ccaas_core tcp_dctcp; do
		rmmod_poll "$m" && continue
		echo "cannot unload $m: refcnt $(cat "/sys/module/$m/refcnt")," \
			"holders: $(ls "/sys/module/$m/holders" 2>/dev/null | tr '\n' ' ')"
		rc=1
	done
	return $rc
}
