# Upgrades that must not go on: another namespace's policy names the CCA,
# so its module stays in use; a connection's application chose the CCA,
# and a drain would leave it on cca_cubic for good. The subject is the
# procedure, not the kernel: on the newest line only, and not on the
# sanitizer kernel, since no module goes away here (68-upgrade.sh covers
# the unloads).
# vm-lines: newest
# vm-timeout: 120

UPG_LIB_ONLY=1
# shellcheck source=tests/vm/68-upgrade.sh
. "$CCAAS_ROOT/tests/vm/68-upgrade.sh"

# Another namespace whose policy names the CCA keeps its module loaded:
# the upgrade stops, says why, puts the policy back and leaves the module
# (and the connections, moved back to it) in place.
test_upgrade_cca_in_use_refused() {
	local t=upgrade_cca_in_use_refused before out rc
	upg_setup || return 1
	netns_add c && "$CCACTL" -n c policy set default cca cca_dctcp >/dev/null || return 1
	before=$(upg_config)
	out=$(ns a env CCAAS_CONF_DIR="$UPG_ETC" CCACTL="$CCACTL" CCAAS_UNLOAD_WAIT=2 \
		bash "$SERVICE" upgrade-cca cca_dctcp 2>&1)
	rc=$?
	echo "$out"
	# the failure is ccaas-metrics' too: ccaas_up 0, reason upgrade
	[ $rc = 1 ] && echo "$out" | grep -q 'tcp_cca_dctcp is still in use' &&
		[ "$(upg_config)" = "$before" ] && [ -d /sys/module/tcp_cca_dctcp ] &&
		[ "$(upg_on cca_dctcp)" = $UPG_N ] &&
		[ "$(cut -d' ' -f1 /run/ccaas/failed 2>/dev/null)" = upgrade ] ||
		fail $t "exit $rc, $(upg_on cca_dctcp) of $UPG_N back on cca_dctcp, policy $(upg_config), outcome $(cat /run/ccaas/failed 2>/dev/null)"
}

# A connection whose application chose cca_dctcp: upgrade-cca refuses
# before changing anything, unless told to go on with force.
test_upgrade_cca_pinned_needs_force() {
	local t=upgrade_cca_pinned_needs_force before out rc
	upg_setup || return 1
	rm -f /tmp/upg_pin
	ns a python3 "$CONNS" client "$PAIR_B_IP" $UPG_HELD 1 /tmp/upg_pin --cc cca_dctcp \
		--hold 900 >/dev/null 2>&1 &
	for _ in $(seq 300); do [ -e /tmp/upg_pin ] && break; sleep 0.1; done
	before=$(upg_config)
	out=$(ns a env CCAAS_CONF_DIR="$UPG_ETC" CCACTL="$CCACTL" \
		bash "$SERVICE" upgrade-cca cca_dctcp 2>&1)
	rc=$?
	echo "$out"
	[ $rc = 1 ] && echo "$out" | grep -q '^ccaas-service: 1 connections on cca_dctcp were put there by their application' &&
		[ "$(upg_config)" = "$before" ] && [ "$(upg_on cca_dctcp)" = $((UPG_N + 1)) ] ||
		fail $t "exit $rc, $(upg_on cca_dctcp) of $((UPG_N + 1)) on cca_dctcp, policy $(upg_config)" ||
		return 1
	out=$(ns a env CCAAS_CONF_DIR="$UPG_ETC" CCACTL="$CCACTL" \
		bash "$SERVICE" upgrade-cca cca_dctcp "$CCAAS_KO_DIR/tcp_cca_dctcp.ko" force 2>&1)
	rc=$?
	echo "$out"
	# the pinned one stays where the drain put it
	[ $rc = 0 ] && [ "$(upg_on cca_dctcp)" = $UPG_N ] && [ "$(upg_on cca_cubic)" = 1 ] ||
		fail $t "force: exit $rc, $(upg_on cca_dctcp) on cca_dctcp, $(upg_on cca_cubic) on cca_cubic"
}
