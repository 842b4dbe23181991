#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The boot test's checks, run by ccaas-boottest.service in a VM that
# booted systemd with ccaas installed and enabled (tests/boot/run.sh).
# Prints PASS: NAME or FAIL: NAME, then the reason.
set -u

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; shift; echo "  $*"; }

# mono UNIT PROPERTY: a monotonic timestamp property, microseconds
mono() { systemctl show -P "$2" "$1"; }
generation() { ccactl -j policy show | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])'; }
journal() { journalctl --sync; journalctl -q -u ccaas.service -o cat --no-pager; }

echo "ccaas.service: $(systemctl is-active ccaas.service)"
journal

t=boot_unit_active
if [ "$(systemctl is-active ccaas.service)" = active ] &&
	[ "$(systemctl is-enabled ccaas.service)" = enabled ]; then
	pass $t
else
	fail $t "ccaas.service $(systemctl is-active ccaas.service), $(systemctl is-enabled ccaas.service): $(systemctl status ccaas.service 2>&1 | tail -5)"
fi

# ccaas was in force before sysinit.target and network-pre.target, so
# before any unit with default dependencies or ordered after the network's
# preparation (the test's early service) started.
t=boot_before_network
up=$(mono ccaas.service ActiveEnterTimestampMonotonic)
sysinit=$(mono sysinit.target ActiveEnterTimestampMonotonic)
pre=$(mono network-pre.target ActiveEnterTimestampMonotonic)
early=$(mono ccaas-boottest-early.service ExecMainStartTimestampMonotonic)
echo "monotonic us: ccaas active $up, sysinit.target $sysinit, network-pre.target $pre, early service started $early"
if [ "${up:-0}" -gt 0 ] && [ "$up" -le "$sysinit" ] && [ "$up" -le "$pre" ] &&
	[ "$up" -le "$early" ]; then
	pass $t
else
	fail $t "ccaas active at $up, sysinit.target at $sysinit, network-pre.target at $pre, the early service at $early"
fi

t=boot_connections_on_policy_cca
for _ in $(seq 100); do [ -e /run/ccaas-early.ready ] && break; sleep 0.1; done
on=$(ss -tinH state established '( dport = :5400 )' | grep -c ' cca_cubic ')
chosen=$(ccactl -j sock show dport 5400 | python3 -c '
import json, sys
print(" ".join(sorted({"%s/%s" % (s["policy_cca"], s["generation"]) for s in json.load(sys.stdin)})))')
# chosen by the selector as they opened (4 clients, 4 accepted), not
# moved there by the policy's migration after the fact
counts=$(ccactl -j stats | python3 -c '
import json, sys
c = json.load(sys.stdin)["counters"]
print(c["selected"], c["migrated"])')
if [ "$on" = 4 ] && [ "$chosen" = "cca_cubic/1" ] && [ "$counts" = "8 0" ]; then
	pass $t
else
	fail $t "$on of 4 on cca_cubic, chosen by $chosen, selected and migrated $counts: $(ss -tinH state established)"
fi

t=boot_config_applied
if ccactl scope show | grep -q '^127.0.0.0/8 .*rack' &&
	[ "$(ccactl policy show | grep -v '^#')" = "locality rack cca cca_cubic" ] &&
	[ -d /sys/module/tcp_cca_dctcp ]; then
	pass $t
else
	fail $t "scope: $(ccactl scope show); policy: $(ccactl policy show); modules: $(lsmod | grep cca)"
fi

t=boot_reload_diff
echo "locality dc cca cca_dctcp" >>/etc/ccaas/policy.conf
if systemctl reload ccaas.service && [ "$(generation)" = 2 ] &&
	journal | grep -qE '^\+ locality dc +cca cca_dctcp'; then
	pass $t
else
	fail $t "generation $(generation): $(journal | tail -5)"
fi

t=boot_reload_idempotent
if systemctl reload ccaas.service && [ "$(generation)" = 2 ] &&
	[ "$(journal | grep -c 'no changes (generation 2)')" = 1 ] &&
	journal | grep -q 'unchanged (generation 2)'; then
	pass $t
else
	fail $t "generation $(generation): $(journal | tail -5)"
fi

t=boot_reload_refused_keeps_policy
cp /etc/ccaas/policy.conf /tmp/policy.good
errors=$(journal | grep -c '^Error: ')
echo "locality region cca no_such_cca" >>/etc/ccaas/policy.conf
if ! systemctl reload ccaas.service 2>/dev/null && [ "$(generation)" = 2 ] &&
	[ "$(journal | grep -c '^Error: ')" = $((errors + 1)) ] &&
	[ "$(ccactl policy show | grep -vc '^#')" = 2 ] &&
	[ "$(systemctl is-active ccaas.service)" = active ]; then
	pass $t
else
	fail $t "generation $(generation), $(systemctl is-active ccaas.service): $(journal | tail -5)"
fi
cp /tmp/policy.good /etc/ccaas/policy.conf

t=boot_installed
if man -w ccactl >/dev/null 2>&1 && man -w ccaas-service >/dev/null 2>&1 &&
	[ -x /usr/sbin/ccaas-service ] && [ -x /usr/sbin/ccactl ] &&
	systemd-analyze verify /lib/systemd/system/ccaas.service >/tmp/verify 2>&1; then
	pass $t
else
	fail $t "man: $(man -w ccactl ccaas-service 2>&1); verify: $(cat /tmp/verify)"
fi
