#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the sanitizer kernel the lifetime-sensitive VM tests run on:
# the pinned linux-source with x86_64_defconfig, kvm_guest.config and
# scripts/debug-kernel/ccaas-debug.config (KASAN, KFENCE, lockdep with
# PROVE_LOCKING/PROVE_RCU, DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, DEBUG_LIST,
# fault injection, KUnit, gcov; most hardware and file systems off), plus
# scripts/debug-kernel/kunit-exports.c, cached by the hash of everything
# that decides it.
#
#   $CCAAS_CACHE/debug/linux-<source version>/   the extracted source tree
#   $CCAAS_CACHE/debug/<key>/obj/                 the build (KDIR for M= builds)
#   $CCAAS_CACHE/debug/<key>/root/                vmlinux, boot/, lib/modules/
#   $CCAAS_CACHE/debug/current -> <key>           the newest complete build
#
# Usage: scripts/debug-kernel.sh [-n]    -n: print the key and exit
# Prints shell-sourceable lines: KVER= KDIR= ROOT= (and builds if needed).
# A cold build takes about 8 minutes on 2 cores (docs/testing.md); a
# cached one is instant.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.conf
. "$here/versions.conf"

cache=${CCAAS_CACHE:-/var/cache/ccaas}/debug
fragment=$here/debug-kernel/ccaas-debug.config
exports=$here/debug-kernel/kunit-exports.c
jobs=${CCAAS_DEBUG_JOBS:-$(nproc)}
log() { echo "debug-kernel: $*" >&2; }

key=$(
	{
		echo "$LINUX_SOURCE_VERSION" "$KVER_DEBUG"
		sha256sum "$0" "$fragment" "$exports" | cut -d' ' -f1
	} | sha256sum | cut -c1-16
)
if [ "${1:-}" = -n ]; then
	echo "$key"
	exit 0
fi

dir=$cache/$key
emit() {
	echo "KVER=$KVER_DEBUG"
	echo "KDIR=$dir/obj"
	echo "ROOT=$dir/root"
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -e "$dir/.ready" ]; then
	ln -sfn "$key" "$cache/current"
	emit
	exit 0
fi

# The source tree, extracted once per source version and never built in
# (the build goes to obj/ with O=, which needs a clean tree).
tag=$(printf '%s' "$LINUX_SOURCE_VERSION" | tr -c 'A-Za-z0-9.+-' '_')
tree=$cache/linux-$tag
if [ ! -e "$tree/.ccaas-extracted" ]; then
	tarball=/usr/src/$LINUX_SOURCE_PKG.tar.xz
	installed=$(dpkg-query -W -f='${Version}' "$LINUX_SOURCE_PKG" 2>/dev/null || true)
	if [ ! -r "$tarball" ] || [ "$installed" != "$LINUX_SOURCE_VERSION" ]; then
		log "installing $LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION"
		apt-get install -y -q --no-install-recommends \
			"$LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION" >&2
	fi
	log "extracting $tarball"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1
	touch "$tree.tmp/.ccaas-extracted"
	mv "$tree.tmp" "$tree"
fi

# The stack functions the KUnit mirror calls, exported by this kernel only
# (kunit-exports.c says why). The file is rewritten on every build, so the
# tree always holds the version the key was made from.
cp "$exports" "$tree/net/ipv4/ccaas_kunit_exports.c"
# shellcheck disable=SC2016 # a make variable, not a shell one
hook='obj-$(CONFIG_KUNIT) += ccaas_kunit_exports.o'
grep -qxF "$hook" "$tree/net/ipv4/Makefile" ||
	printf '\n# ccaas: scripts/debug-kernel/kunit-exports.c\n%s\n' "$hook" \
		>>"$tree/net/ipv4/Makefile"

rm -rf "$dir"
mkdir -p "$dir/obj" "$dir/root/boot"
blog=$dir/build.log
log "building $KVER_DEBUG (key $key, log $blog)"
t0=$(date +%s)
{
	make -C "$tree" O="$dir/obj" x86_64_defconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$dir/obj" "$dir/obj/.config" \
		"$tree/kernel/configs/kvm_guest.config" "$fragment"
	make -C "$tree" O="$dir/obj" olddefconfig
} >"$blog" 2>&1 || { tail -n 20 "$blog" >&2; exit 1; }

# Every option the fragment asks for must have survived olddefconfig
# (a dependency it lacks drops it silently).
missing=""
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$dir/obj/.config" || missing="$missing ${line%%=*}" ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		! grep -q "^$opt=[ym]" "$dir/obj/.config" || missing="$missing !$opt"
		;;
	esac
done <"$fragment"
[ -z "$missing" ] || { log "options not taken by the kernel:$missing"; exit 1; }

make -C "$tree" O="$dir/obj" -j"$jobs" bzImage modules >>"$blog" 2>&1 ||
	{ tail -n 30 "$blog" >&2; exit 1; }
release=$(cat "$dir/obj/include/config/kernel.release")
[ "$release" = "$KVER_DEBUG" ] ||
	{ log "kernel release is '$release', versions.conf says '$KVER_DEBUG'"; exit 1; }
make -C "$tree" O="$dir/obj" INSTALL_MOD_PATH="$dir/root" modules_install \
	>>"$blog" 2>&1 || { tail -n 20 "$blog" >&2; exit 1; }
cp "$dir/obj/vmlinux" "$dir/root/vmlinux"
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$release"
cp "$dir/obj/.config" "$dir/root/boot/config-$release"
touch "$dir/.ready"
ln -sfn "$key" "$cache/current"
log "built in $(($(date +%s) - t0)) s"

# Keep this build and the one before it.
for old in "$cache"/*/.ready; do
	old=$(dirname "$old")
	[ "$old" = "$dir" ] && continue
	[ -n "$(find "$old/.ready" -mmin +1440 2>/dev/null)" ] && rm -rf "$old"
done
emit
