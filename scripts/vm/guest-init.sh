#!/bin/bash
# PID 1 of the test VM after switch_root into the host's root (read-only 9p).
#
# Argument: the run directory made by scripts/vm-run.sh on the host.  It holds
# job.sh (variables and the command) and results/ (a writable 9p share, tag
# "results", mounted at the same path here).  Sets up a writable runtime
# (tmpfs on /tmp /run /var/tmp ...), debugfs/tracefs, the guest kernel's
# module tree on /lib/modules, runs the command with output to the console
# and results/output.log, writes results/exit-code and powers off.
#
# PID 1 must never exit: the kernel would panic.  Every path ends in poweroff.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
rundir=${1:-}
# shellcheck source=scripts/vm/guest-start.sh
. "$(dirname "$0")/guest-start.sh"

mkdir -p /dev/pts /dev/shm
# devtmpfs lacks these; bash's process substitution needs /dev/fd
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /run || die "cannot mount tmpfs on /run"
# The guest's /tmp is its own tmpfs; a work tree under the host's /tmp
# (a CI clone, say) stays visible at its path through a bind mount.
mkdir -p /run/host-tmp && mount --bind /tmp /run/host-tmp
for d in /tmp /var/tmp /dev/shm; do
	mount -t tmpfs -o mode=1777 tmpfs "$d" || die "cannot mount tmpfs on $d"
done
case "$CCAAS_VM_CWD" in
/tmp/?*)
	mkdir -p "$CCAAS_VM_CWD" &&
		mount --bind "/run/host-tmp/${CCAAS_VM_CWD#/tmp/}" "$CCAAS_VM_CWD" ||
		die "cannot make $CCAAS_VM_CWD visible"
	;;
esac
mkdir -p /run/netns /run/lock /tmp/home
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount --bind "$CCAAS_VM_MODULES" /lib/modules || die "cannot bind $CCAAS_VM_MODULES"

mkdir -p "$RESULTS" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "$RESULTS" ||
	die "cannot mount the results share on $RESULTS"

hostname ccaas-vm
ip link set lo up
export HOME=/tmp/home TMPDIR=/tmp KVER RESULTS

cd "$CCAAS_VM_CWD" 2>/dev/null || cd /
echo "ccaas-vm: running command (uptime $(cut -d' ' -f1 /proc/uptime) s)"
# Output goes to a file that tail copies to the console until the command
# exits; processes it leaves behind cannot hold the run open.
"$@" >"$RESULTS/output.log" 2>&1 &
pid=$!
tail -s 0.1 -n +1 -f --pid="$pid" "$RESULTS/output.log"
wait "$pid"
rc=$?
echo "$rc" >"$RESULTS/exit-code"
echo "ccaas-vm: command exited with status $rc"
umount "$RESULTS"
poweroff_now
