#!/bin/bash
# PID 1 of a test VM that boots systemd (scripts/vm-run.sh -S), after
# switch_root into the host's root (read-only 9p).
#
# Builds a writable root for systemd: an overlay of a tmpfs over the host's
# root, with the guest kernel's module tree on /lib/modules and the
# results share at its path. ccaas is installed the way an operator
# installs it: its modules in /lib/modules/KVER/updates/ccaas with
# depmod's indexes ($CCAAS_BOOT_MODULES, made on the host, where depmod
# takes a second rather than a minute of emulated CPU, and laid over the
# kernel's tree), `make install-tools` and `systemctl enable ccaas`. The
# test's units come from $CCAAS_BOOT_UNITS, its /etc/ccaas from
# $CCAAS_BOOT_ETC; then systemd boots. The test's own unit runs the job's
# command (job.sh) and powers off.
#
# Any failure before systemd runs powers the VM off without an exit code.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
rundir=${1:-}
# shellcheck source=scripts/vm/guest-start.sh
. "$(dirname "$0")/guest-start.sh"
: "${CCAAS_BOOT_UNITS:?}" "${CCAAS_BOOT_ETC:?}" "${CCAAS_BOOT_MODULES:?}"

ov=/media
root=$ov/root
mount -t tmpfs -o mode=0755 tmpfs $ov || die "cannot mount tmpfs on $ov"
mkdir -p $ov/upper $ov/work $root
# overlayfs is a module on some lines; the tree is not in place yet
grep -qw overlay /proc/filesystems ||
	modprobe -d "${CCAAS_VM_MODULES%/lib/modules}" overlay || die "no overlayfs"
mount -t overlay overlay -o "lowerdir=/,upperdir=$ov/upper,workdir=$ov/work" $root ||
	die "cannot mount the overlay root"
# writable, for DKMS and depmod when a test installs the packages
mkdir -p $ov/mod-upper $ov/mod-work
mount -t overlay overlay \
	-o "lowerdir=$CCAAS_BOOT_MODULES:$CCAAS_VM_MODULES,upperdir=$ov/mod-upper,workdir=$ov/mod-work" \
	$root/lib/modules || die "cannot mount the module tree"
mkdir -p "$root$RESULTS" &&
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "$root$RESULTS" ||
	die "cannot mount the results share"

# ccaas, installed as an operator would; with CCAAS_BOOT_INSTALL=none,
# not at all: the test installs the Debian packages once booted
if [ "${CCAAS_BOOT_INSTALL:-tools}" = tools ]; then
	echo "ccaas-vm: installing ccaas into the overlay"
	make -s -C "$CCAAS_VM_CWD" install-tools DESTDIR=$root PREFIX=/usr >/dev/null ||
		die "make install-tools failed"
	systemctl --root=$root enable ccaas.service >/dev/null 2>&1 || die "cannot enable ccaas.service"
	cp -r "$CCAAS_BOOT_ETC"/. $root/etc/ccaas/ || die "cannot copy $CCAAS_BOOT_ETC"
fi
# Not needed by a boot that serves no user, and a minute under TCG: the
# tmpfiles of the host's every package, the daily timers.
for u in systemd-tmpfiles-setup.service apt-daily.timer apt-daily-upgrade.timer \
	dpkg-db-backup.timer e2scrub_all.timer man-db.timer fstrim.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done

# the test's units; its target is the one systemd boots
cp "$CCAAS_BOOT_UNITS"/* $root/etc/systemd/system/ || die "cannot copy the test's units"
ln -sf ccaas-boottest.target $root/etc/systemd/system/default.target
# the job, for the test's unit
cp "$rundir/job.sh" $root/etc/ccaas-boottest.job
hostname ccaas-vm

umount /proc /sys
echo "ccaas-vm: booting systemd"
exec switch_root $root /lib/systemd/systemd --log-target=kmsg
