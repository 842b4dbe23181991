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
# The guests see the host's root, but /tmp, /var/tmp and /dev/shm are
# their own: kernels and modules cached there would not be found.
case "$CCAAS_CACHE/" in
/tmp/* | /var/tmp/* | /dev/shm/*)
	echo "CCAAS_CACHE=$CCAAS_CACHE: the VMs cannot see it (their /tmp, /var/tmp and /dev/shm are their own); choose another directory" >&2
	exit 1
	;;
esac

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

# ccaas_debian_mirror: the Debian archive this machine's apt sources use (the
# first URI of a suite that is not a -security one), read at run time so no
# host name is written into the project.
ccaas_debian_mirror() {
	local f uri
	uri=$(
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] || continue
			awk '$1 == "deb" { u = ($2 ~ /^\[/) ? $3 : $2; s = ($2 ~ /^\[/) ? $4 : $3
				if (s !~ /-security/ && u ~ /^https?:/) print u }' "$f"
		done
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			# deb822 stanzas: Types, URIs and Suites, blank-line separated
			awk 'function flush() { if (t ~ /(^| )deb( |$)/ && s !~ /-security/ && u != "") print u
					t = u = s = "" }
				/^[[:space:]]*$/ { flush(); next }
				tolower($1) == "types:" { t = substr($0, index($0, ":") + 1) }
				tolower($1) == "uris:" { u = $2 }
				tolower($1) == "suites:" { s = substr($0, index($0, ":") + 1) }
				END { flush() }' "$f"
		done | grep -E '^https?://' | head -n 1
	)
	[ -n "$uri" ] || return 1
	echo "${uri%/}"
}

# ccaas_kline_var KVER PREFIX: the value of PREFIX_<n>_<m> (versions.conf)
# for the pinned kernel KVER, e.g. KSUITE for its Debian suite; empty if
# that line has none
ccaas_kline_var() {
	local short v
	short=$(ccaas_short_kver "$1")
	[[ "$short" =~ ^[0-9]+\.[0-9]+$ ]] || return 0
	v="$2_${short//./_}"
	echo "${!v:-}"
}

# ccaas_apt_opts SUITE...: apt-get/apt-cache options for a private apt
# configuration under $CCAAS_CACHE/apt that reads SUITE... (main) from the
# machine's Debian mirror; its lists are updated when older than a day.
# The host's own apt sources and state are left alone.
ccaas_apt_opts() {
	local mirror dir s opts
	mirror=$(ccaas_debian_mirror) || ccaas_die "no Debian mirror in the apt sources"
	dir="$CCAAS_CACHE/apt/$(echo "$*" | tr ' ' '+')"
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"
	for s in "$@"; do
		echo "deb $mirror $s main"
	done >"$dir/sources.list.new"
	if ! cmp -s "$dir/sources.list.new" "$dir/sources.list"; then
		mv "$dir/sources.list.new" "$dir/sources.list"
		rm -f "$dir/lists/"*_Packages "$dir/.updated"
	else
		rm -f "$dir/sources.list.new"
	fi
	# apt drops privileges to _apt for downloads
	chmod -R a+rwX "$dir"
	opts="-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=/nonexistent"
	opts="$opts -o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir -o Dir::State::status=/dev/null"
	opts="$opts -o APT::Architecture=amd64 -o APT::Architectures::=amd64"
	if [ -z "$(find "$dir/.updated" -mmin -1440 2>/dev/null)" ]; then
		# shellcheck disable=SC2086 # the options are words
		apt-get $opts update -q >&2 || ccaas_die "apt-get update ($*) failed"
		touch "$dir/.updated"
	fi
	echo "$opts"
}
