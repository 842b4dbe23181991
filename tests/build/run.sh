#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build-level tests on the host: warning-free W=1 builds for each kernel,
# checkpatch --strict, the uapi header against its YAML spec, the spec against
# the kernel's netlink schema, DKMS builds, the Debian packages (make deb
# and lintian, their contents, an install and purge in the build root of
# the lines built in one), and the deployment files: the Prometheus
# rules' tests, the units' hardening, the scripts.
# Usage: tests/build/run.sh KVER...
set -u
cd "$(dirname "$0")/../.."
root=$PWD
. scripts/vm/common.sh
T=${T:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rooted KVER: true if KVER builds in a Debian root (KROOT_ in versions.conf)
rooted() { [ -n "$(ccaas_kline_var "$1" KROOT)" ]; }

want() { [ -z "$T" ] || [[ $1 == *$T* ]]; }
result() { # result NAME STATUS [detail-file]
	if [ "$2" -eq 0 ]; then
		echo "PASS: build/$1"
	else
		[ -n "${3:-}" ] && sed 's/^/    /' "$3" | tail -25
		echo "FAIL: build/$1"
	fi
}

# A fresh W=1 build per kernel, the test-only modules included: any
# compiler warning fails.
for kver in "$@"; do
	want "w1-$kver" || continue
	d=$tmp/w1-$kver
	mkdir -p "$d" && cp -a Kbuild kmod include kunit "$d"/
	if rooted "$kver"; then
		scripts/buildroot.sh -b "$d" "$kver" -- \
			make -C "/usr/src/linux-headers-$kver" M="$d" W=1 CCAAS_TEST_MODULES=m modules > "$d.log" 2>&1
	else
		make -C "/usr/src/linux-headers-$kver" M="$d" W=1 CCAAS_TEST_MODULES=m modules > "$d.log" 2>&1
	fi
	st=$?
	if grep -E 'warning:|error:' "$d.log" > "$d.warn"; then st=1; fi
	[ -s "$d.warn" ] || cp "$d.log" "$d.warn"
	result "w1-$kver" $st "$d.warn"
done

# checkpatch --strict on all kernel code, with the script of the pinned tree.
if want checkpatch; then
	cp_dir=$CCAAS_CACHE/checkpatch-$LINUX_SOURCE_VERSION
	if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
		mkdir -p "$cp_dir"
		tar -xJf "/usr/src/$LINUX_SOURCE_PKG.tar.xz" -C "$cp_dir" --strip-components=1 \
			--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' '*/.clang-format'
	fi
	files=$(git ls-files 'kmod/*.c' 'kmod/*.h' 'kunit/*.c' 'include/uapi/*.h' 2>/dev/null ||
		find kmod kunit include -name '*.[ch]')
	# shellcheck disable=SC2086
	"$cp_dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $files > "$tmp/checkpatch" 2>&1
	st=$?
	grep -qE '(ERROR|WARNING|CHECK):' "$tmp/checkpatch" && st=1
	result checkpatch $st "$tmp/checkpatch"
fi

# The uapi header says what the YAML spec says.
if want uapi-spec; then
	/usr/bin/python3 tests/build/check-uapi.py include/uapi/linux/ccaas.yaml \
		include/uapi/linux/ccaas.h > "$tmp/uapi" 2>&1
	result uapi-spec $? "$tmp/uapi"
fi

# The spec validates against the kernel's genetlink schema of its level and
# loads in the kernel's YNL library (both from the pinned linux-source).
if want uapi-schema; then
	if ynl=$(scripts/ynl-prepare.sh 2>"$tmp/schema"); then
		/usr/bin/python3 tests/build/check-spec.py include/uapi/linux/ccaas.yaml \
			"$ynl" > "$tmp/schema" 2>&1
		result uapi-schema $? "$tmp/schema"
	else
		result uapi-schema 1 "$tmp/schema"
	fi
fi

# The Prometheus alerting rules shipped in deploy/ pass their tests.
if want prometheus-rules; then
	(cd deploy/prometheus && promtool check rules ccaas.rules.yml &&
		promtool test rules ccaas.rules.test.yml) > "$tmp/rules" 2>&1
	result prometheus-rules $? "$tmp/rules"
fi

# The units keep their hardening: systemd-analyze's exposure (0 to 100,
# tenths of its score) at most 3.0 and 2.0; they are 2.5 and 1.6.
if want unit-security; then
	st=0
	for u in ccaas.service:30 ccaas-metrics.service:20; do
		systemd-analyze security --offline=yes --threshold="${u#*:}" \
			"deploy/systemd/${u%:*}" > "$tmp/security" 2>&1 ||
			{ st=1; break; }
	done
	result unit-security $st "$tmp/security"
fi

# ccaas-service and ccaas-metrics: shellcheck, and a start without
# ccaas_core (tests/build/check-deploy.sh)
if want deploy-scripts; then
	tests/build/check-deploy.sh > "$tmp/deploy" 2>&1
	result deploy-scripts $? "$tmp/deploy"
fi

# DKMS builds the modules for each kernel from a clean copy of the package:
# on the host, or for a line built in a Debian root, with that root's DKMS.
# dkms_build KVER [ROOT]: add, build, check the modules' vermagic, remove
dkms_build() {
	local kver=$1 r=${2:-} run=() src m f ko vm st=0 out=$tmp/dkms-$1
	[ -z "$r" ] || run=(scripts/buildroot.sh "$kver" --)
	src=$r/usr/src/ccaas-$ver
	"${run[@]}" dkms remove "ccaas/$ver" --all > /dev/null 2>&1
	rm -rf "$src" && mkdir -p "$src"
	cp -a Kbuild dkms.conf kmod include "$src"/
	if ! "${run[@]}" dkms add "ccaas/$ver" > "$out" 2>&1; then
		result "dkms-add-$kver" 1 "$out"
		return
	fi
	"${run[@]}" dkms build "ccaas/$ver" -k "$kver" >> "$out" 2>&1 || st=1
	for m in ccaas_core tcp_cca_dctcp tcp_cca_dcndelay tcp_cca_cubic tcp_cca_xregion tcp_cca_hpcc; do
		ko=""
		for f in "$r/var/lib/dkms/ccaas/$ver/$kver/x86_64/module/$m.ko"*; do
			[ -f "$f" ] && ko=$f && break
		done
		if [ -z "$ko" ]; then
			echo "missing $m.ko" >> "$out"; st=1; continue
		fi
		vm=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
		[ "$vm" = "$kver" ] || { echo "$m vermagic $vm" >> "$out"; st=1; }
	done
	result "dkms-$kver" $st "$out"
	"${run[@]}" dkms remove "ccaas/$ver" --all > /dev/null 2>&1
	rm -rf "$src"
}

if want dkms || [[ $T == dkms* ]]; then
	ver=$(cat VERSION)
	if ! grep -q "^PACKAGE_VERSION=\"$ver\"" dkms.conf; then
		echo "dkms.conf PACKAGE_VERSION differs from VERSION ($ver)" > "$tmp/dkms-version"
		result dkms-version 1 "$tmp/dkms-version"
	else
		result dkms-version 0
	fi
	host_dkms=""
	for kver in "$@"; do
		want "dkms-$kver" || want dkms || continue
		# a line built in a Debian root: the package test below builds
		# the same dkms.conf there, through apt (DKMS builds cost minutes
		# of make check)
		! rooted "$kver" || ! want "deb-root-$kver" || continue
		if rooted "$kver"; then
			dkms_build "$kver" "$(scripts/buildroot.sh "$kver" | sed -n 's/^ROOT=//p')"
			continue
		fi
		# of the lines built on this host (bookworm's), the first one
		# given (the oldest) unless named or in make check-full: DKMS
		# does the same there for each, and W=1 above builds them all
		if [ -n "$host_dkms" ] && [ "${CCAAS_VM_ALL_LINES:-0}" != 1 ] &&
			! { [ -n "$T" ] && want "dkms-$kver"; }; then
			continue
		fi
		dkms_build "$kver"
		host_dkms=$kver
	done
fi
# The Debian packages: `make deb` (dpkg-buildpackage, then lintian, whose
# errors and warnings fail it), what each .deb holds, and for each line
# built in a Debian root, an apt install there with DKMS building for the
# line's kernel, then a purge that leaves nothing (tests/build/deb-root.sh).
# The boot suite installs them in a booted system (tests/boot/run.sh).
if want deb-build || want deb-contents || want deb-root-; then
	ver=$(cat VERSION)
	arch=$(dpkg --print-architecture)
	t0=$(date +%s)
	scripts/deb.sh > "$tmp/deb" 2>&1
	st=$?
	echo "make deb: $(($(date +%s) - t0)) s" >> "$tmp/deb"
	result deb-build $st "$tmp/deb"
	tool=build/deb/ccaas_${ver}_$arch.deb dkms=build/deb/ccaas-dkms_${ver}_all.deb
	if want deb-contents && [ "$st" = 0 ]; then
		st=0
		: > "$tmp/deb-contents"
		# has DEB PATH...: each PATH is in DEB (dpkg-deb -c)
		has() {
			local deb=$1 p
			shift
			dpkg-deb -c "$deb" | awk '{ print substr($6, 2) }' > "$tmp/list"
			for p in "$@"; do
				grep -qxE "$p" "$tmp/list" || { echo "$(basename "$deb"): no $p" >> "$tmp/deb-contents"; st=1; }
			done
		}
		# the units where debhelper puts them: /lib on bookworm, /usr/lib
		# on trixie (merged /usr)
		u='(/usr)?/lib/systemd/system'
		has "$tool" /usr/sbin/ccactl /usr/sbin/ccaas-service /usr/sbin/ccaas-metrics \
			"$u/ccaas.service" "$u/ccaas-metrics.service" \
			"$u/ccaas-metrics.timer" /usr/share/ccaas/prometheus/ccaas.rules.yml \
			/usr/share/man/man8/ccactl.8.gz \
			/usr/share/man/man8/ccaas-service.8.gz /usr/share/bash-completion/completions/ccactl \
			/etc/ccaas/policy.conf /etc/ccaas/scope.conf /etc/ccaas/modules /usr/share/doc/ccaas/copyright
		src=/usr/src/ccaas-$ver
		has "$dkms" "$src/dkms.conf" "$src/Kbuild" "$src/kmod/core/main.c" "$src/kmod/cca/dctcp.c" \
			"$src/kmod/compat/probe.sh" "$src/include/uapi/linux/ccaas.h"
		# the module sources only: no objects, tests, tools
		if dpkg-deb -c "$dkms" | awk '{ print $6 }' | grep -E '\.(o|ko|cmd)$|/kunit/|/test/|/tools/' >> "$tmp/deb-contents"; then
			st=1
		fi
		for f in policy.conf scope.conf modules; do
			dpkg-deb -I "$tool" conffiles | grep -qx "/etc/ccaas/$f" ||
				{ echo "/etc/ccaas/$f is not a conffile" >> "$tmp/deb-contents"; st=1; }
		done
		dpkg-deb --fsys-tarfile "$dkms" | tar -xO "./${src#/}/dkms.conf" > "$tmp/dkms.conf"
		if ! grep -qx "PACKAGE_VERSION=\"$ver\"" "$tmp/dkms.conf" ||
			! grep -qx 'AUTOINSTALL="yes"' "$tmp/dkms.conf"; then
			echo "dkms.conf: no PACKAGE_VERSION=$ver or no AUTOINSTALL" >> "$tmp/deb-contents"
			st=1
		fi
		# ccactl links libmnl: shlibs found it
		dpkg-deb -f "$tool" Depends | grep -q 'libmnl0' ||
			{ echo "ccaas does not depend on libmnl0: $(dpkg-deb -f "$tool" Depends)" >> "$tmp/deb-contents"; st=1; }
		# relations: the partner at its source version (ccaas-dkms, arch
		# all, also takes a binNMU of ccaas: VERSION+b1)
		while read -r deb field want; do
			[ "$(dpkg-deb -f "$deb" "$field")" = "$want" ] ||
				{ echo "$(basename "$deb"): $field: $(dpkg-deb -f "$deb" "$field"), not $want" >> "$tmp/deb-contents"; st=1; }
		done <<-EOF
			$tool Recommends ccaas-dkms (= $ver)
			$dkms Recommends ccaas (>= $ver), ccaas (<< $ver.1~)
		EOF
		dpkg --compare-versions "$ver+b1" lt "$ver.1~" ||
			{ echo "a binNMU $ver+b1 of ccaas is outside ccaas-dkms's range" >> "$tmp/deb-contents"; st=1; }
		dpkg-deb -f "$tool" Suggests | grep -qw prometheus-node-exporter ||
			{ echo "ccaas does not suggest prometheus-node-exporter" >> "$tmp/deb-contents"; st=1; }
		# the maintainer scripts (tests/build/check-maintscripts.sh)
		tests/build/check-maintscripts.sh "$tool" >> "$tmp/deb-contents" 2>&1 || st=1
		result deb-contents $st "$tmp/deb-contents"
	fi
	for kver in "$@"; do
		rooted "$kver" || continue
		want "deb-root-$kver" || continue
		[ -e "$tool" ] || { echo "no .debs" > "$tmp/deb-root"; result "deb-root-$kver" 1 "$tmp/deb-root"; continue; }
		tests/build/deb-root.sh "$kver" "$tool" "$dkms" > "$tmp/deb-root" 2>&1
		st=$?
		grep -E '^install' "$tmp/deb-root" | sed "s/^/deb-root-$kver: /"
		result "deb-root-$kver" $st "$tmp/deb-root"
	done
fi
exit 0
