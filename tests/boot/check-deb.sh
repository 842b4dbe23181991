#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages in a booted system (tests/boot/run.sh): the VM booted
# systemd over an overlay of the host's root without ccaas; this installs
# ccaas and ccaas-dkms with `apt install ./…` (offline: the host root has
# their dependencies, dkms and the running kernel's headers among them),
# checks that DKMS built the modules for the running kernel, that the
# units are enabled but not started (debian/rules says why), that
# ccaas.service starts and applies tests/boot/etc-ccaas, that an upgrade
# leaves it active and restarts the timer, that `apt remove` stops both
# and takes the metrics textfile, and that `apt purge` leaves nothing.
# Usage: check-deb.sh CCAAS_DEB CCAAS_DKMS_DEB
# Prints PASS: NAME or FAIL: NAME, then the reason.
set -u

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; shift; echo "  $*"; }

kver=$(uname -r)
# The guest's root is the host's, here a container's, whose policy-rc.d
# forbids maintainer scripts to start or stop anything (deb-systemd-invoke
# obeys it); a booted host has none. The guest writes an overlay.
rm -f /usr/sbin/policy-rc.d
mods="ccaas_core tcp_cca_dctcp tcp_cca_dcndelay tcp_cca_cubic tcp_cca_xregion tcp_cca_hpcc"
# where a package, DKMS or the unit's enablement could leave something
snapshot() {
	find /etc /lib/systemd/system /usr/sbin /usr/src /usr/share/man/man8 \
		/usr/share/bash-completion/completions /usr/share/doc /var/lib/dkms \
		/var/lib/systemd/deb-systemd-helper-enabled "/lib/modules/$kver" \
		/run/ccaas /var/lib/prometheus/node-exporter 2>/dev/null |
		grep -Ev '^/var/lib/dkms/mok\.(key|pub)$|^/etc/ld\.so\.cache$' | sort
}
snapshot >/tmp/before

# man-db's trigger would index every manual page of the host under TCG
rm -f /var/lib/man-db/auto-update
export DEBIAN_FRONTEND=noninteractive
# offline: apt sees no archive, only the local files and what is installed
# (dependencies missing here fail rather than download)
offline=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=/nonexistent)
t=deb_install
t0=$(date +%s)
if apt-get install -y -q "${offline[@]}" "$@" >"$RESULTS/apt-install.log" 2>&1; then
	echo "apt install, DKMS build for $kver included: $(($(date +%s) - t0)) s"
	missing=""
	for m in $mods; do
		f=$(modinfo -k "$kver" -n "$m" 2>/dev/null)
		case "$f" in
		"/lib/modules/$kver/updates/dkms/$m.ko"*) ;;
		*) missing="$missing $m($f)" ;;
		esac
	done
	if [ -z "$missing" ] && dkms status ccaas | grep -q ", $kver, .*: installed"; then
		pass $t
	else
		fail $t "not from DKMS:$missing; dkms status: $(dkms status ccaas)"
	fi
else
	fail $t "$(tail -15 "$RESULTS/apt-install.log")"
fi

t=deb_unit_enabled_not_started
if [ "$(systemctl is-enabled ccaas.service ccaas-metrics.timer)" = "enabled
enabled" ] && ! systemctl -q is-active ccaas.service && ! systemctl -q is-active ccaas-metrics.timer; then
	pass $t
else
	fail $t "ccaas.service $(systemctl is-enabled ccaas.service), $(systemctl is-active ccaas.service); timer $(systemctl is-enabled ccaas-metrics.timer), $(systemctl is-active ccaas-metrics.timer)"
fi

t=deb_unit_starts
cp tests/boot/etc-ccaas/* /etc/ccaas/
if systemctl start ccaas.service &&
	[ "$(ccactl policy show | grep -v '^#')" = "locality rack cca cca_cubic" ] &&
	ccactl scope show | grep -q '^127.0.0.0/8 .*rack' &&
	[ -d /sys/module/tcp_cca_dctcp ]; then
	pass $t
else
	fail $t "$(systemctl status ccaas.service 2>&1 | tail -5); policy: $(ccactl policy show 2>&1)"
fi

# An upgrade (the same version again: dpkg runs an upgrade's scripts)
# leaves ccaas.service active, not restarted, and the policy as it was;
# the timer, running, is restarted.
t=deb_upgrade_keeps_unit
prom=/var/lib/prometheus/node-exporter/ccaas.prom
mono() { systemctl show -P ActiveEnterTimestampMonotonic "$1"; }
gen() { ccactl policy show | sed -n '1s/^# generation \([0-9]*\).*/\1/p'; }
systemctl start ccaas-metrics.timer
for _ in $(seq 100); do [ -s $prom ] && break; sleep 0.1; done
since=$(mono ccaas.service) timer_since=$(mono ccaas-metrics.timer) gen=$(gen)
if apt-get install -y -q --reinstall "${offline[@]}" "$1" >"$RESULTS/apt-reinstall.log" 2>&1 &&
	[ "$(systemctl is-active ccaas.service)" = active ] && [ "$(mono ccaas.service)" = "$since" ] &&
	[ -n "$gen" ] && [ "$(gen)" = "$gen" ] &&
	[ "$(systemctl is-active ccaas-metrics.timer)" = active ] &&
	[ "$(mono ccaas-metrics.timer)" != "$timer_since" ]; then
	pass $t
else
	fail $t "ccaas.service $(systemctl is-active ccaas.service) since $(mono ccaas.service) (was $since), generation $(gen) (was $gen), timer $(systemctl is-active ccaas-metrics.timer) since $(mono ccaas-metrics.timer) (was $timer_since): $(tail -5 "$RESULTS/apt-reinstall.log")"
fi

# Remove stops both units (ccaas.service has no ExecStop: the modules stay
# loaded) and takes the metrics textfile; /etc/ccaas stays.
t=deb_remove_stops_units
had=$([ -s $prom ] && echo yes)
if apt-get remove -y -q "${offline[@]}" ccaas >"$RESULTS/apt-remove.log" 2>&1 &&
	! systemctl -q is-active ccaas.service && ! systemctl -q is-active ccaas-metrics.timer &&
	[ "$had" = yes ] && [ ! -e $prom ] && [ -d /sys/module/ccaas_core ] &&
	[ -e /etc/ccaas/policy.conf ]; then
	pass $t
else
	fail $t "ccaas.service $(systemctl is-active ccaas.service), timer $(systemctl is-active ccaas-metrics.timer), textfile before ${had:-none}, after: $(ls $prom 2>&1); $(tail -5 "$RESULTS/apt-remove.log")"
fi

# The modules stay loaded (removing a CCA under live connections is
# ccaas-service's business, not the package's); their files go.
t=deb_purge_leaves_nothing
t0=$(date +%s)
if apt-get purge -y -q "${offline[@]}" ccaas ccaas-dkms >"$RESULTS/apt-purge.log" 2>&1; then
	echo "apt purge: $(($(date +%s) - t0)) s"
	snapshot >/tmp/after
	left=$(diff /tmp/before /tmp/after)
	known=$(dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'ccaas*' 2>/dev/null | grep -v '^un ')
	if [ -z "$left" ] && [ -z "$known" ] && ! dkms status ccaas | grep -q .; then
		pass $t
	else
		fail $t "changed: $left; dpkg: $known; dkms: $(dkms status ccaas)"
	fi
else
	fail $t "$(tail -15 "$RESULTS/apt-purge.log")"
fi
