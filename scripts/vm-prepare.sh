#!/bin/bash
# Prepare everything a test VM needs for one kernel, in the cache
# ${CCAAS_CACHE:-/var/cache/ccaas}, keyed by content so reruns are instant:
#
#   debs/linux-image-<KVER>_<version>_amd64.deb   (apt-get download if missing;
#       for Debian's 7.x, a meta package: also its linux-binary-, -modules-
#       and -base- parts; a line with KSUITE_ in versions.conf comes from that
#       suite at its pinned version)
#   kernels/<deb name>/                           (dpkg-deb -x of the .deb(s))
#       boot/vmlinuz-<KVER>, vmlinux              (vmlinux: ELF for PVH boot)
#       lib/modules/<KVER>/ with modules.dep      (depmod -b)
#   initramfs/<KVER>-<hash of inputs>.cpio.gz     (busybox + virtio/9p modules)
#
# The image package is never installed: that would run initramfs-tools.
#
# Usage: scripts/vm-prepare.sh KVER       (KVER may be a short name: 6.1, 7.3)
# Prints shell-sourceable lines: KVER= VMLINUX= VMLINUZ= INITRD= MODULES=
# (MODULES is the directory to mount on the guest's /lib/modules).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$here/vm/common.sh"

[ $# = 1 ] || ccaas_die "usage: $0 KVER"
kver=$(ccaas_resolve_kver "$1")

log() { echo "vm-prepare: $*" >&2; }

mkdir -p "$CCAAS_CACHE/debs" "$CCAAS_CACHE/kernels" "$CCAAS_CACHE/initramfs"

# One preparation per kernel at a time; different kernels run in parallel.
exec 9>"$CCAAS_CACHE/.lock-$kver"
flock 9

# --- 1. the image .deb --------------------------------------------------------

# newest cached .deb of linux-image-$kver, if any
find_deb() {
	local f best=""
	for f in "$CCAAS_CACHE/debs/linux-image-${kver}_"*_amd64.deb; do
		[ -f "$f" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions \
			"$(dpkg-deb -f "$f" Version)" gt "$(dpkg-deb -f "$best" Version)"; then
			best=$f
		fi
	done
	echo "$best"
}

# --- 2. the extracted kernel ----------------------------------------------------

# extract_vmlinux BZIMAGE OUT: write the uncompressed ELF kernel inside a
# bzImage.  The boot header (boot protocol >= 2.08) says where the payload is:
# setup_sects at 0x1f1, payload_offset/payload_length at 0x248/0x24c, the
# payload starting after the real-mode setup code.  The payload's last 4 bytes
# are the uncompressed size (not part of the compressed stream).
extract_vmlinux() {
	local img=$1 out=$2 sects off len start magic size
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$img" | tr -d ' ')
	[ "$sects" != 0 ] || sects=4
	read -r off len < <(od -An -tu4 -j $((0x248)) -N8 "$img")
	start=$(((sects + 1) * 512 + off))
	magic=$(od -An -tx1 -j "$start" -N4 "$img" | tr -d ' ')
	case "$magic" in
	fd377a58) dec="xz -dc" ;;
	28b52ffd) dec="zstd -dc" ;;
	1f8b*) dec="gzip -dc" ;;
	*) ccaas_die "$img: unknown kernel compression (magic $magic)" ;;
	esac
	tail -c +$((start + 1)) "$img" | head -c $((len - 4)) | $dec >"$out"
	size=$(tail -c +$((start + 1)) "$img" | head -c "$len" | tail -c 4 | od -An -tu4 | tr -d ' ')
	[ "$(stat -c %s "$out")" = "$size" ] || ccaas_die "$img: vmlinux size mismatch"
	[ "$(head -c 4 "$out" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
		ccaas_die "$img: payload is not an ELF kernel"
}

# download PKG...: apt-get download PKG... into $CCAAS_CACHE/debs; a line
# pinned to another suite (KSUITE_ in versions.conf) reads it through a
# private apt configuration, at its pinned version (KVERSION_)
download() {
	local tmp opts="" p pkgs=()
	if [ -n "$ksuite" ]; then
		opts=$(ccaas_apt_opts "$ksuite") || exit 1
		for p in "$@"; do pkgs+=("$p=$kversion"); done
	else
		pkgs=("$@")
	fi
	log "downloading ${pkgs[*]}"
	tmp=$(mktemp -d "$CCAAS_CACHE/debs/.dl.XXXXXX")
	# apt drops privileges to _apt for downloads; let it write here
	chmod 0777 "$tmp"
	# a fresh machine may have no package lists yet: update once and retry
	# shellcheck disable=SC2086 # the options are words
	(cd "$tmp" && apt-get $opts download -q "${pkgs[@]}") >&2 ||
		{ apt-get $opts update -q >&2 && (cd "$tmp" && apt-get $opts download -q "${pkgs[@]}") >&2; } ||
		ccaas_die "apt-get download ${pkgs[*]} failed"
	mv "$tmp"/*.deb "$CCAAS_CACHE/debs/"
	rmdir "$tmp"
}

# parts DEB: the packages that Debian's 7.x meta package linux-image-<kver>
# depends on for the kernel (linux-binary-), its modules (linux-modules-)
# and config (linux-base-); none for the 6.x packages, which carry all
parts() {
	dpkg-deb -f "$1" Depends | tr ',' '\n' | sed -nE \
		"s/^ *(linux-(binary|modules|base)-$(printf %s "$kver" | sed 's/[.+]/\\&/g')) .*/\1/p"
}

# deb_kernel: the Debian image .deb (and its parts), downloaded once and
# extracted once into one tree of the 6.x layout: boot/vmlinuz-<kver>,
# boot/config-<kver>, lib/modules/<kver>/; sets kdir
deb_kernel() {
	local deb p f version missing=()
	ksuite=$(ccaas_kline_var "$kver" KSUITE)
	kversion=$(ccaas_kline_var "$kver" KVERSION)
	deb=$(find_deb)
	if [ -n "$kversion" ] && [ -n "$deb" ] &&
		[ "$(dpkg-deb -f "$deb" Version)" != "$kversion" ]; then
		deb=""
	fi
	if [ -z "$deb" ]; then
		download "linux-image-$kver"
		deb=$(find_deb)
	fi
	version=$(dpkg-deb -f "$deb" Version)
	debs=("$deb")
	for p in $(parts "$deb"); do
		f="$CCAAS_CACHE/debs/${p}_${version}_amd64.deb"
		[ -f "$f" ] || missing+=("$p")
		debs+=("$f")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		kversion=$version
		download "${missing[@]}"
	fi
	kdir="$CCAAS_CACHE/kernels/$(basename "$deb" .deb)"
	if [ ! -e "$kdir/.ready" ]; then
		log "extracting ${debs[*]##*/}"
		rm -rf "$kdir.tmp"
		for f in "${debs[@]}"; do
			dpkg-deb -x "$f" "$kdir.tmp"
		done
		# 7.x: everything under usr/lib/modules/<kver>/
		if [ ! -d "$kdir.tmp/lib/modules/$kver" ] && [ -d "$kdir.tmp/usr/lib/modules/$kver" ]; then
			mkdir -p "$kdir.tmp/lib" "$kdir.tmp/boot"
			mv "$kdir.tmp/usr/lib/modules" "$kdir.tmp/lib/modules"
			mv "$kdir.tmp/lib/modules/$kver/vmlinuz" "$kdir.tmp/boot/vmlinuz-$kver"
			mv "$kdir.tmp/lib/modules/$kver/config" "$kdir.tmp/boot/config-$kver"
		fi
		[ -f "$kdir.tmp/boot/vmlinuz-$kver" ] || ccaas_die "no kernel in ${debs[*]##*/}"
		depmod -b "$kdir.tmp" "$kver"
		extract_vmlinux "$kdir.tmp/boot/vmlinuz-$kver" "$kdir.tmp/vmlinux"
		touch "$kdir.tmp/.ready"
		rm -rf "$kdir"
		mv "$kdir.tmp" "$kdir"
	fi
}

if [ "$kver" = "$KVER_DEBUG" ]; then
	# The sanitizer kernel is built here, not downloaded (debug-kernel.sh).
	kdir=$("$here/debug-kernel.sh" | sed -n 's/^ROOT=//p')
	[ -n "$kdir" ] || ccaas_die "debug-kernel.sh failed"
else
	deb_kernel
fi
moddir="$kdir/lib/modules/$kver"
config="$kdir/boot/config-$kver"

# --- 3. the initramfs -------------------------------------------------------------

# Modules needed to mount the host root: virtio PCI transport, 9p over virtio.
# Each is skipped when this kernel has it built in (=y).
declare -A want_cfg=([CONFIG_VIRTIO_PCI]=virtio_pci [CONFIG_NET_9P_VIRTIO]=9pnet_virtio [CONFIG_9P_FS]=9p)

# module name -> path relative to $moddir, and -> its dependencies
declare -A mod_path mod_deps
while IFS= read -r line; do
	path=${line%%:*}
	name=${path##*/}
	name=${name%%.ko*}
	name=${name//-/_}
	mod_path[$name]=$path
	mod_deps[$name]=${line#*:}
done <"$moddir/modules.dep"

# add_with_deps NAME: append NAME to load_order after its dependencies
load_order=()
declare -A seen
add_with_deps() {
	local name=$1 dep d
	[ -z "${seen[$name]:-}" ] || return 0
	seen[$name]=1
	[ -n "${mod_path[$name]:-}" ] || ccaas_die "module $name not in $moddir/modules.dep"
	for dep in ${mod_deps[$name]}; do
		d=${dep##*/}
		d=${d%%.ko*}
		add_with_deps "${d//-/_}"
	done
	load_order+=("$name")
}

for cfg in CONFIG_VIRTIO_PCI CONFIG_NET_9P_VIRTIO CONFIG_9P_FS; do
	case "$(sed -n "s/^$cfg=//p" "$config")" in
	y) ;;
	m) add_with_deps "${want_cfg[$cfg]}" ;;
	*) ccaas_die "$kver: $cfg is not enabled; cannot mount the host root" ;;
	esac
done

busybox=$(command -v busybox) || ccaas_die "busybox not found (scripts/deps.sh)"
init_src="$here/vm/initramfs-init.sh"

# The key covers every input: this script, /init, busybox, kernel and modules.
key=$(
	{
		sha256sum "$0" "$init_src" "$busybox" | cut -d' ' -f1
		echo "$kdir" "${load_order[@]}"
	} | sha256sum | cut -c1-16
)
initrd="$CCAAS_CACHE/initramfs/$kver-$key.cpio.gz"

if [ ! -e "$initrd" ]; then
	log "building $(basename "$initrd") (modules: ${load_order[*]:-none})"
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage"/{bin,dev,proc,sys,newroot,lib/modules}
	cp "$busybox" "$stage/bin/busybox"
	cp "$init_src" "$stage/init"
	chmod 0755 "$stage/init" "$stage/bin/busybox"
	for name in "${load_order[@]}"; do
		src="$moddir/${mod_path[$name]}"
		case "$src" in
		*.ko.xz) xz -dc "$src" ;;
		*.ko.zst) zstd -dc "$src" ;;
		*.ko.gz) gzip -dc "$src" ;;
		*) cat "$src" ;;
		esac >"$stage/lib/modules/$name.ko"
		echo "$name" >>"$stage/lib/modules/load-order"
	done
	touch "$stage/lib/modules/load-order"
	(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --reproducible --quiet | gzip -6) >"$initrd.tmp.$$"
	mv "$initrd.tmp.$$" "$initrd"
	# keep the three newest initramfs images of this kernel
	# shellcheck disable=SC2012 # the names are ours, without white space
	ls -t "$CCAAS_CACHE/initramfs/$kver-"*.cpio.gz | tail -n +4 | xargs -r rm -f
fi

echo "KVER=$kver"
echo "VMLINUX=$kdir/vmlinux"
echo "VMLINUZ=$kdir/boot/vmlinuz-$kver"
echo "INITRD=$initrd"
echo "MODULES=$kdir/lib/modules"
