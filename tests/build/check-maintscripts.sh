#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What ccaas' maintainer scripts do to the units and the files ccaas
# makes, on install, upgrade, remove and purge: each script of the .deb
# (dpkg-deb -e) runs as dpkg would run it, in a private mount namespace
# whose /run says systemd runs (/run/systemd/system) and whose
# /var/lib/prometheus is empty, with deb-systemd-invoke,
# deb-systemd-helper and systemctl replaced by stubs that log their
# arguments. What an operator expects:
#   install   both units enabled, neither started (debian/rules says why)
#   upgrade   ccaas.service neither stopped nor started (the policy in
#             force stays, and the unit active); the timer restarted if
#             it runs
#   remove    the timer and ccaas.service stopped; the metrics textfile
#             gone (node_exporter would serve its last numbers)
#   purge     /run/ccaas gone, the units' enablement purged
#
# Usage: tests/build/check-maintscripts.sh CCAAS_DEB   (as root)
# Prints what is wrong; exit 1 if anything is.
set -eu
[ $# = 1 ] || { echo "usage: $0 CCAAS_DEB" >&2; exit 2; }
deb=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -e "$deb" "$tmp/ctl"
mkdir "$tmp/bin"
for c in deb-systemd-invoke deb-systemd-helper systemctl; do
	printf '#!/bin/sh\necho "%s $*" >>"$STUB_LOG"\n' "$c" >"$tmp/bin/$c"
	chmod +x "$tmp/bin/$c"
done

# shellcheck disable=SC2016 # expanded by the inner shell
rc=0
unshare -m --propagation private /bin/bash -c '
set -eu
ctl=$1 bin=$2 log=$2/../log
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/lib
mkdir -p /run/systemd/system /var/lib/prometheus/node-exporter
bad=0
# run SCRIPT ARG...: the script as dpkg runs it; the calls of the stubs in $log
run() {
	: >"$log"
	[ -e "$ctl/$1" ] || return 0
	env -i PATH="$bin:/usr/sbin:/usr/bin:/sbin:/bin" STUB_LOG="$log" \
		${DPKG_ROOT:+DPKG_ROOT="$DPKG_ROOT"} \
		/bin/sh "$ctl/$1" "${@:2}" || { echo "$*: exit $?"; bad=1; }
}
# calls PATTERN: the stub calls that match
calls() { grep -E "$1" "$log" || true; }
wrong() { echo "$*"; bad=1; }

run postinst configure
for u in ccaas.service ccaas-metrics.timer; do
	[ -n "$(calls "^deb-systemd-helper enable .*$u")" ] || wrong "install: $u not enabled"
done
[ -z "$(calls "^deb-systemd-invoke")" ] || wrong "install starts: $(calls "^deb-systemd-invoke")"

for s in "preinst upgrade 0.0.9" "prerm upgrade 0.1.1" "postinst configure 0.0.9"; do
	# shellcheck disable=SC2086
	run $s
	[ -z "$(calls "^deb-systemd-invoke .*ccaas\.service")" ] ||
		wrong "upgrade ($s) touches ccaas.service: $(calls "^deb-systemd-invoke")"
	case $s in
	postinst*)
		[ -n "$(calls "^deb-systemd-invoke (try-)?restart .*ccaas-metrics\.timer")" ] ||
			wrong "upgrade ($s) does not restart the timer: $(cat "$log")" ;;
	*)
		[ -z "$(calls "^deb-systemd-invoke")" ] || wrong "upgrade ($s): $(calls "^deb-systemd-invoke")" ;;
	esac
done

run prerm remove
for u in ccaas-metrics.timer ccaas.service; do
	[ -n "$(calls "^deb-systemd-invoke stop .*$u")" ] || wrong "remove does not stop $u: $(cat "$log")"
done

prom=/var/lib/prometheus/node-exporter/ccaas.prom
mkdir -p /run/ccaas
echo 1700000000 >/run/ccaas/last-apply
echo "ccaas_up 1" >$prom
echo "ccaas_up 1" >$prom.Ab12Cd
echo "node_other 1" >/var/lib/prometheus/node-exporter/other.prom
run postrm remove
[ ! -e $prom ] && [ ! -e $prom.Ab12Cd ] || wrong "remove leaves $(ls $prom*)"
[ -e /var/lib/prometheus/node-exporter/other.prom ] || wrong "remove took another textfile"
[ -e /run/ccaas/last-apply ] || wrong "remove took /run/ccaas (purge does)"

run postrm purge
[ ! -e /run/ccaas ] || wrong "purge leaves /run/ccaas: $(ls /run/ccaas)"
for u in ccaas.service ccaas-metrics.timer; do
	[ -n "$(calls "^deb-systemd-helper purge .*$u")" ] || wrong "purge keeps the enablement of $u"
done

# dpkg --root with chrootless scripts: the files of the root go, those of the host stay
mkdir -p /run/ccaas /run/root/run/ccaas /run/root/var/lib/prometheus/node-exporter
echo "ccaas_up 1" >$prom
echo "ccaas_up 1" >/run/root$prom
DPKG_ROOT=/run/root run postrm purge
[ -e $prom ] && [ -e /run/ccaas ] || wrong "purge under DPKG_ROOT took files of the host"
[ ! -e /run/root$prom ] && [ ! -e /run/root/run/ccaas ] ||
	wrong "purge under DPKG_ROOT left files of the root"
exit $bad
' check-maintscripts "$tmp/ctl" "$tmp/bin" || rc=1
exit $rc
