# shellcheck shell=bash
# What both guest inits (guest-init.sh, guest-systemd.sh) do first, as PID 1
# after switch_root into the host's root. Sourced at their top level with
# no arguments and $rundir set, so that the job's `set -- COMMAND` becomes
# theirs: mounts /proc, /sys and /dev, sends all output to the console and
# reads the job $rundir/job.sh (scripts/vm-run.sh wrote it). die MESSAGE
# says it and powers the VM off: PID 1 must never exit.

poweroff_now() {
	sync
	echo o >/proc/sysrq-trigger
	while :; do sleep 1; done
}

die() {
	echo "ccaas-vm: $*"
	poweroff_now
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/null >/dev/console 2>&1

# Read the job before /tmp (where run directories usually are) is covered.
[ -r "$rundir/job.sh" ] || die "no job file in '$rundir'"
# shellcheck source=/dev/null
. "$rundir/job.sh" || die "cannot read $rundir/job.sh"
: "${RESULTS:?}" "${CCAAS_VM_MODULES:?}" "${CCAAS_VM_CWD:?}" "${KVER:?}"
