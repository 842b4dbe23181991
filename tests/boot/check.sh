#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The boot test's checks, run by ccaas-boottest.service in a VM that
# booted systemd with ccaas installed and enabled (tests/boot/run.sh).
# Prints PASS: NAME or FAIL: NAME, then the reason.
set -u

# each result with the uptime it was reached at (in output.log only)
uptime_s() { cut -d' ' -f1 /proc/uptime; }
pass() { echo "PASS: $1"; echo "at $(uptime_s) s"; }
fail() { echo "FAIL: $1"; shift; echo "  $*"; echo "at $(uptime_s) s"; }

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
	[ -x /usr/sbin/ccaas-service ] && [ -x /usr/sbin/ccactl ] && [ -x /usr/sbin/ccaas-metrics ] &&
	systemd-analyze verify /lib/systemd/system/ccaas.service \
		/lib/systemd/system/ccaas-metrics.service /lib/systemd/system/ccaas-metrics.timer >/tmp/verify 2>&1; then
	pass $t
else
	fail $t "man: $(man -w ccactl ccaas-service 2>&1); verify: $(cat /tmp/verify)"
fi

# Only ccaas-service loads ccaas_core: the kernel's autoload of the genl
# family (any ccactl call of any user, when the core is not loaded)
# resolves to no module.
t=boot_core_not_autoloaded
# (while the modules' own names resolve: modprobe could find a ccaas module)
if ! modprobe --show-depends net-pf-16-proto-16-family-ccaas >/tmp/alias 2>&1 &&
	modprobe --show-depends tcp_cca_dctcp 2>&1 | grep -q 'ccaas_core\.ko'; then
	pass $t
else
	fail $t "the family's alias loads: $(cat /tmp/alias); tcp_cca_dctcp: $(modprobe --show-depends tcp_cca_dctcp 2>&1)"
fi

# ---- failing loud: the outcome in the metrics, the unit's failures ----
# (on one line of the run: tests/boot/run.sh)
[ "${CCAAS_BOOT_FAILURES:-}" = 1 ] || exit 0

t_loud=$(uptime_s)

prom=/var/lib/prometheus/node-exporter/ccaas.prom
# metric NAME [FILE]: the first sample of NAME in FILE (or ccaas-metrics' output)
metric() {
	if [ -n "${2:-}" ]; then cat "$2"; else ccaas-metrics; fi |
		awk -v m="$1" '$1 == m || index($1, m "{") == 1 { print $2; exit }'
}
# up_reason: ccaas_up and the failure's reason, from one ccaas-metrics
up_reason() {
	ccaas-metrics | awk '$1 == "ccaas_up" { u = $2 }
		/^ccaas_failure_info\{reason="/ { split($1, a, "\""); r = a[2] }
		END { print u, r }'
}
# restart_fails: ccaas.service restarted, failed
restart_fails() { ! systemctl restart ccaas.service 2>/dev/null && [ "$(systemctl is-active ccaas.service)" = failed ]; }

# The refused reload above (a CCA without a module) left ccaas_up 0,
# reason module; the next reload that succeeds sets it back to 1.
t=boot_metrics_up_after_reload
before=$(up_reason)
if [ "$before" = "0 module" ] && systemctl reload ccaas.service &&
	[ "$(up_reason)" = "1 " ]; then
	pass $t
else
	fail $t "before the reload: $before; after: $(ccaas-metrics | grep -v '^#' | head -5)"
fi

# Without node_exporter's textfile directory the timer does not start
# (its condition), rather than fail every minute.
t=boot_metrics_timer_needs_textfile_dir
mount -t tmpfs tmpfs /var/lib/prometheus
systemctl start ccaas-metrics.timer
state=$(systemctl is-active ccaas-metrics.timer)
cond=$(systemctl show -P ConditionResult ccaas-metrics.timer)
systemctl stop ccaas-metrics.timer
umount /var/lib/prometheus
if [ "$state" = inactive ] && [ "$cond" = no ]; then
	pass $t
else
	fail $t "ccaas-metrics.timer $state, condition $cond"
fi

# The timer's first run writes the textfile, whole, readable by
# node_exporter, in a text promtool accepts; the policy's digest is that
# of its rules as the kernel reports them, and rules are labelled by
# their match only.
t=boot_metrics_timer
rm -f $prom
systemctl start ccaas-metrics.timer
for _ in $(seq 100); do [ -s $prom ] && break; sleep 0.1; done
digest=$(ccactl policy show | grep -v '^#' | sha256sum | cut -d' ' -f1)
if [ "$(metric ccaas_up $prom)" = 1 ] && grep -q "^ccaas_policy_info{digest=\"sha256:$digest\"} 1$" $prom &&
	grep -q '^ccaas_rule_sockets{match="locality rack",cca="cca_cubic",state="on_cca"} ' $prom &&
	! grep -q 'rule="' $prom && [ -n "$(metric ccaas_last_apply_timestamp_seconds $prom)" ] &&
	[ "$(stat -c %a $prom)" = 644 ] && [ -z "$(find ${prom%/*} -name 'ccaas.prom.*')" ] &&
	promtool check metrics <$prom >/tmp/promtool 2>&1 &&
	[ "$(systemctl show -P Result ccaas-metrics.service)" = success ]; then
	pass $t
else
	fail $t "$(systemctl status ccaas-metrics.service 2>&1 | tail -3); $(cat /tmp/promtool); $(head -20 $prom 2>&1)"
fi

# A reload after a scope.conf edit moves the connections already open:
# the loopback goes from rack (cca_cubic) to dc (cca_dctcp, a rule the
# reload test above added; its fallback ops, cca_dctcp-reno, as the
# connections have no ECN), although the policy commits nothing.
t=boot_reload_scope_migrates
gen=$(generation)
echo "127.0.0.0/8 locality dc" >/etc/ccaas/scope.conf
on5400() {
	ccactl -j sock show | python3 -c '
import json, sys
print(" ".join(sorted({s["cca"] for s in json.load(sys.stdin) if 5400 in (s["sport"], s["dport"])})))'
}
if systemctl reload ccaas.service && [ "$(generation)" = "$gen" ] &&
	[ "$(on5400)" = cca_dctcp-reno ] && journal | grep -q 'the scope table changed: migrating'; then
	pass $t
else
	fail $t "generation $(generation) (was $gen), on: $(on5400): $(journal | tail -5)"
fi

# ccaas-service check has the kernel dry-run scope.conf: a change is
# shown, a refused file fails, and neither touches the table.
t=boot_check_scope
table=$(ccactl scope show)
cp /etc/ccaas/scope.conf /tmp/scope.good
echo "10.0.0.0/8 locality region region 1" >>/etc/ccaas/scope.conf
out=$(ccaas-service check 2>&1)
echo "10.1.2.3/16 locality rack" >>/etc/ccaas/scope.conf
bad=$(ccaas-service check 2>&1) && bad="exit 0: $bad"
cp /tmp/scope.good /etc/ccaas/scope.conf
if echo "$out" | grep -q '^+ 10.0.0.0/8 .*region' && echo "$bad" | grep -q 'scope.conf refused' &&
	[ "$(ccactl scope show)" = "$table" ]; then
	pass $t
else
	fail $t "check: $out; with a bad line: $bad; table: $(ccactl scope show)"
fi

# A CCA whose module is missing (DKMS failed for this kernel, say): the
# kernel refuses the whole policy, so the start fails naming the module,
# the policy in force stays, and the metrics say ccaas_up 0.
t=boot_start_missing_module
cp /etc/ccaas/policy.conf /tmp/policy.good
gen=$(generation)
echo "locality region cca cca_gone" >>/etc/ccaas/policy.conf
if restart_fails && journal | grep -q 'CCA cca_gone: module tcp_cca_gone not found' &&
	[ "$(generation)" = "$gen" ] && systemctl start ccaas-metrics.service &&
	[ "$(metric ccaas_up $prom)" = 0 ] && grep -qx 'ccaas_failure_info{reason="module"} 1' $prom; then
	pass $t
else
	fail $t "$(systemctl is-active ccaas.service), generation $(generation) (was $gen), metrics: $(grep -v '^#' $prom | head -3): $(journal | tail -5)"
fi

# A file ccactl cannot read: the same, reason policy.
t=boot_start_bad_file
cp /tmp/policy.good /etc/ccaas/policy.conf
echo "locality rack cca" >>/etc/ccaas/policy.conf
if restart_fails && journal | grep -q 'policy.conf:4: ' &&
	[ "$(generation)" = "$gen" ] && [ "$(up_reason)" = "0 policy" ]; then
	pass $t
else
	fail $t "$(systemctl is-active ccaas.service), generation $(generation) (was $gen), metrics: $(up_reason): $(journal | tail -5)"
fi
cp /tmp/policy.good /etc/ccaas/policy.conf

# With no policy in force (a boot; here a new network namespace, whose
# generation is 0), a refused policy.conf gives way to fallback.conf;
# the start still fails.
t=boot_start_fallback
mkdir -p /tmp/fb
echo "default cca cca_gone" >/tmp/fb/policy.conf
echo "default cca cubic" >/tmp/fb/fallback.conf
ip netns add fb
if ! ip netns exec fb env CCAAS_CONF_DIR=/tmp/fb CCAAS_RUN_DIR=/tmp/fb/run ccaas-service start >/tmp/fb/out 2>&1 &&
	grep -q 'applied /tmp/fb/fallback.conf in its place' /tmp/fb/out &&
	[ "$(ccactl -n fb policy show | grep -v '^#')" = "default cca cubic" ] &&
	grep -q '^module ' /tmp/fb/run/failed; then
	pass $t
else
	fail $t "$(cat /tmp/fb/out); policy: $(ccactl -n fb policy show)"
fi
ip netns del fb

# A start that hangs (here a ccactl that does not answer) is stopped at
# its TimeoutStartSec instead of holding the boot, and counts as failed
# (reason incomplete). The unit's own minute is too long for the test: a
# transient unit runs the same start with 1 s, apart from ccaas.service.
t=boot_start_timeout
printf '#!/bin/sh\nexec sleep 60\n' >/tmp/hang && chmod +x /tmp/hang
systemd-run -q --wait -u ccaas-hang -p Type=oneshot -p TimeoutStartSec=1s \
	-E CCACTL=/tmp/hang -E CCAAS_RUN_DIR=/run/ccaas-hang /usr/sbin/ccaas-service start 2>/dev/null
result=$(systemctl show -P Result ccaas-hang.service)
timeout=$(systemctl show -P TimeoutStartUSec ccaas.service)
stop=$(systemctl show -P TimeoutStopUSec ccaas.service)
systemctl reset-failed ccaas-hang.service 2>/dev/null
if [ "$timeout" = 1min ] && [ "$stop" = 10s ] && [ "$result" = timeout ] &&
	[ "$(CCAAS_RUN_DIR=/run/ccaas-hang up_reason)" = "0 incomplete" ]; then
	pass $t
else
	fail $t "ccaas.service TimeoutStartSec $timeout, TimeoutStopSec $stop; a hung start: result $result, $(CCAAS_RUN_DIR=/run/ccaas-hang up_reason)"
fi

echo "the failing-loud checks took $(echo "$(uptime_s) $t_loud" | awk '{ print $1 - $2 }') s"
