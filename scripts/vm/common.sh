# shellcheck shell=bash source-path=SCRIPTDIR/..
# Shared helpers for the VM scripts (sourced, not executed).
#
# Kernel names: the pinned kernels live in scripts/versions.conf as
# KVER_<major>_<minor>=<full release>.  Everywhere a KVER is accepted, the
# short name "<major>.<minor>" (e.g. 6.12) may be given instead, and
# "debug" for the sanitizer kernel (KVER_DEBUG, scripts/debug-kernel.sh).

CCAAS_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$CCAAS_SCRIPTS/versions.conf"

CCAAS_CACHE=${CCAAS_CACHE:-/var/cache/ccaas}

# ccaas_kver_vars: names of the KVER_* variables in versions.conf, in file order
ccaas_kver_vars() {
	sed -n 's/^\(KVER_[0-9_]*\)=.*/\1/p' "$CCAAS_SCRIPTS/versions.conf"
}

# ccaas_all_kvers: full release names of all pinned kernels
ccaas_all_kvers() {
	local v
	for v in $(ccaas_kver_vars); do
		echo "${!v}"
	done
}

# ccaas_resolve_kver NAME: print the full release for a short name (6.12) or
# a full release; anything else is passed through unchanged (lets you try an
# unpinned kernel).
ccaas_resolve_kver() {
	local v="KVER_${1//./_}"
	if [ "$1" = debug ]; then
		echo "$KVER_DEBUG"
	elif [[ "$1" =~ ^[0-9]+\.[0-9]+$ ]] && [ -n "${!v:-}" ]; then
		echo "${!v}"
	else
		echo "$1"
	fi
}

# ccaas_short_kver KVER: the short name of a pinned kernel (6.12), else KVER
ccaas_short_kver() {
	local v
	if [ "$1" = "$KVER_DEBUG" ]; then
		echo debug
		return
	fi
	for v in $(ccaas_kver_vars); do
		if [ "${!v}" = "$1" ]; then
			v=${v#KVER_}
			echo "${v//_/.}"
			return
		fi
	done
	echo "$1"
}

# ccaas_die MSG...: print to stderr with the calling script's name and exit 1
ccaas_die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}
