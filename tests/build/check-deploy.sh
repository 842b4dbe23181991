#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The deploy scripts on the host, which has no ccaas_core: shellcheck, and
# what a start does when ccaas_core cannot load (a modprobe that finds
# nothing stands in for the real one, so that a host with ccaas installed
# loads nothing): exit 1, the journal's message, and ccaas-metrics saying
# ccaas_up 0 with reason core, in a text promtool accepts. And the Ansible
# collection: ansible-doc, the playbooks' syntax, ansible-test sanity
# (tests/build/ansible-sanity.sh).
# Usage: tests/build/check-deploy.sh   (from the top of the tree)
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

shellcheck -S warning deploy/ccaas-service deploy/ccaas-metrics
tests/build/ansible-sanity.sh

if [ -d /sys/module/ccaas_core ]; then
	echo "ccaas_core is loaded here: the missing-core case not checked"
	exit 0
fi
mkdir -p "$tmp/bin" "$tmp/etc"
# shellcheck disable=SC2016 # $1 is the stub's
printf '#!/bin/sh\necho "$1" >>"%s/modprobe.calls"\necho "modprobe: FATAL: Module $1 not found" >&2\nexit 1\n' "$tmp" >"$tmp/bin/modprobe"
chmod +x "$tmp/bin/modprobe"
echo "default cca cubic" >"$tmp/etc/policy.conf"
touch -d @1000000000 "$tmp/etc/policy.conf" "$tmp/etc"
export CCAAS_CONF_DIR=$tmp/etc CCAAS_RUN_DIR=$tmp/run CCACTL=${CCACTL:-tools/ccactl/ccactl}

if PATH=$tmp/bin:$PATH deploy/ccaas-service start >"$tmp/out" 2>&1; then
	echo "start succeeded without ccaas_core"; cat "$tmp/out"; exit 1
fi
grep -q 'cannot load ccaas_core for kernel' "$tmp/out" ||
	{ echo "no message naming ccaas_core:"; cat "$tmp/out"; exit 1; }
deploy/ccaas-metrics >"$tmp/prom"
promtool check metrics <"$tmp/prom"
if ! grep -qx 'ccaas_up 0' "$tmp/prom" ||
	! grep -qx 'ccaas_failure_info{reason="core"} 1' "$tmp/prom"; then
	echo "metrics:"; cat "$tmp/prom"; exit 1
fi
# The metrics: rules by their match only (ccactl drops the position),
# and the configuration's time is its status change: a file copied in
# with an old modification time (cp -p, rsync -t) still counts as new.
t=$(awk '$1 == "ccaas_config_timestamp_seconds" { print $2 }' "$tmp/prom")
[ -n "$t" ] && [ "$t" -gt 1000000000 ] ||
	{ echo "ccaas_config_timestamp_seconds $t: the modification time, set back"; exit 1; }
! grep -q 'rule="' "$tmp/prom" || { echo "a rule label:"; cat "$tmp/prom"; exit 1; }
# ... of the files ccaas.service applies, not the directory's: an editor's
# swap file or dpkg's .dpkg-dist beside them is no change to apply
sleep 1.1
touch "$tmp/etc/.policy.conf.swp" "$tmp/etc/policy.conf.dpkg-dist"
t2=$(deploy/ccaas-metrics | awk '$1 == "ccaas_config_timestamp_seconds" { print $2 }')
[ "$t2" = "$t" ] ||
	{ echo "ccaas_config_timestamp_seconds moved from $t to $t2 without a change to a file"; exit 1; }
rm -f "$tmp/etc/.policy.conf.swp" "$tmp/etc/policy.conf.dpkg-dist"
# -o: the file whole, readable by node_exporter, nothing left beside it
mkdir "$tmp/textfile"
deploy/ccaas-metrics -o "$tmp/textfile/ccaas.prom"
if [ "$(stat -c %a "$tmp/textfile/ccaas.prom")" != 644 ] ||
	[ "$(ls "$tmp/textfile")" != ccaas.prom ] || ! cmp -s "$tmp/prom" "$tmp/textfile/ccaas.prom"; then
	echo "ccaas-metrics -o: $(ls -l "$tmp/textfile")"; exit 1
fi

# under_lock VERB MESSAGE: ccaas-service VERB while another holds the
# lock: it waits, then fails with MESSAGE (a grep pattern), having
# loaded nothing
under_lock() {
	local holder
	: >"$tmp/modprobe.calls"
	flock "$tmp/run/lock" sleep 5 &
	holder=$!
	for _ in $(seq 50); do flock -n "$tmp/run/lock" true || break; sleep 0.1; done
	if CCAAS_LOCK_WAIT=1 PATH=$tmp/bin:$PATH deploy/ccaas-service "$1" >"$tmp/out" 2>&1; then
		echo "$1 succeeded while the lock was held"; cat "$tmp/out"; exit 1
	fi
	kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null || true
	grep -q "$2" "$tmp/out" && [ ! -s "$tmp/modprobe.calls" ] ||
		{ echo "$1 under the lock: $(cat "$tmp/out"); modprobe: $(cat "$tmp/modprobe.calls")"; exit 1; }
}

# While another ccaas-service holds the lock (an upgrade-core between
# unloading the old modules and loading the new), a start waits, then
# fails saying so, having loaded nothing.
under_lock start "has held $tmp/run/lock for 1 s; nothing done"
# root's alone: a user who could open it could hold every start and reload
[ "$(stat -c %a "$tmp/run/lock")" = 600 ] ||
	{ echo "the lock file is mode $(stat -c %a "$tmp/run/lock")"; exit 1; }
# check loads modules too (the CCAs its policy names): it waits as well
under_lock check "check: another ccaas-service .* nothing done"
