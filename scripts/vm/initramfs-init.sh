#!/bin/busybox sh
# shellcheck shell=dash
# /init of the test VM's initramfs (built by scripts/vm-prepare.sh).
#
# Loads the virtio/9p modules listed in /lib/modules/load-order, mounts the
# host's root file system (9p tag "hostroot") read-only on /newroot and
# switch_roots into it, running the program named by ccaas_vm_init= on the
# kernel command line with the argument ccaas_vm_run=.  On any error it
# powers the VM off, so the host sees a run without an exit code.

/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

die() {
	echo "ccaas-initramfs: $*"
	echo o >/proc/sysrq-trigger
	while :; do sleep 1; done
}

arg() {
	for w in $(cat /proc/cmdline); do
		case "$w" in "$1="*) echo "${w#*=}" ;; esac
	done
}

while read -r m; do
	insmod "/lib/modules/$m.ko" || die "insmod $m failed"
done </lib/modules/load-order

# 9p mount options: a large msize makes file reads much faster; the root is
# read-only, so caching its pages and metadata is safe during a run.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /newroot ||
	die "cannot mount the host root over 9p"

init=$(arg ccaas_vm_init)
run=$(arg ccaas_vm_run)
[ -x "/newroot$init" ] || die "no executable ccaas_vm_init ($init)"

umount /proc /sys
umount /dev
exec switch_root /newroot "$init" "$run"
