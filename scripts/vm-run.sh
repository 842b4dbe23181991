#!/bin/bash
# Run one command inside a throwaway qemu VM booting a Debian kernel.
#
# The guest's root is the host's root (9p, read-only), so the command and its
# paths are host paths.  Writes go to tmpfs (/tmp, /run, ...) or to $RESULTS,
# a per-run directory shared read-write with the host.  TCG, one vCPU (with
# more, the guest Oopses while live-patching kernel text: DESIGN.md §6).
#
# Usage: scripts/vm-run.sh [options] KVER -- COMMAND [ARGS...]
#   KVER          full release or short name from versions.conf (6.1, 6.12)
#   -t SECONDS    wall-clock limit for the whole VM (default 600)
#   -m MIB        guest memory (default 512)
#   -e VAR=VALUE  export VAR to the command (repeatable)
#   -d DIR        run directory to create (default: a new one under
#                 ${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}/<timestamp>-<KVER>)
#   -q            do not copy the serial console to stdout
#   -W            do not panic on kernel WARNINGs (panic_on_warn=0)
#   -B            boot the compressed bzImage instead of vmlinux via PVH
#   -a ARGS       extra kernel command line
#   -N PORT       give the guest a NIC (user networking, nothing reachable
#                 from it) and forward the host's 127.0.0.1:PORT to the
#                 guest's 10.0.2.15:22: the Ansible controller's way in
#   -S UNITS:ETC  boot systemd over a writable overlay with ccaas installed
#                 (scripts/vm/guest-systemd.sh): UNITS, a directory of
#                 units with ccaas-boottest.target, the target booted, whose
#                 service runs the command; ETC, the /etc/ccaas to install
#
# Run directory: serial.log (console), qemu.log, job.sh, status (ok,
# kernel-error, timeout, no-exit-code, qemu-error), times (boot= total=
# seconds), results/ (= $RESULTS in the guest: output.log, exit-code, and
# whatever the command writes).
#
# Exit status: the command's, if the VM ran cleanly; else 125 with a message.
# Any kernel panic/Oops/BUG/WARNING/KASAN/GPF/call trace fails the run.
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source-path=SCRIPTDIR
. "$here/vm/common.sh"

usage() {
	sed -n '/^# Usage:/,/^# Run directory/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

timeout_s=600 mem=512 rundir="" quiet=0 panic_on_warn=1 bzimage=0 extra_args="" nic=()
guest_init=guest-init.sh
envs=()
while getopts "t:m:e:d:qWBa:N:S:h" opt; do
	case "$opt" in
	t) timeout_s=$OPTARG ;;
	m) mem=$OPTARG ;;
	e) envs+=("$OPTARG") ;;
	d) rundir=$OPTARG ;;
	q) quiet=1 ;;
	W) panic_on_warn=0 ;;
	B) bzimage=1 ;;
	a) extra_args=$OPTARG ;;
	N)
		nic=(-netdev "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$OPTARG-10.0.2.15:22"
		     -device virtio-net-pci,netdev=net0,romfile=)
		;;
	S)
		guest_init=guest-systemd.sh
		envs+=("CCAAS_BOOT_UNITS=$(realpath "${OPTARG%%:*}")"
		       "CCAAS_BOOT_ETC=$(realpath "${OPTARG#*:}")")
		;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 3 ] || [ "$2" != "--" ]; then
	usage
fi
kver=$(ccaas_resolve_kver "$1")
shift 2

# Kernel, initramfs and module tree (cached; instant when present).
prep=$("$here/vm-prepare.sh" "$kver") || ccaas_die "vm-prepare.sh $kver failed"
VMLINUX="" VMLINUZ="" INITRD="" MODULES=""
while IFS='=' read -r k v; do
	case "$k" in VMLINUX | VMLINUZ | INITRD | MODULES) printf -v "$k" '%s' "$v" ;; esac
done <<<"$prep"

# A fresh run directory; mkdir is atomic, so parallel runs never share one.
if [ -z "$rundir" ]; then
	base="${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}/$(date +%Y%m%d-%H%M%S)-$kver"
	mkdir -p "$(dirname "$base")"
	rundir=$base n=1
	until mkdir "$rundir" 2>/dev/null; do
		n=$((n + 1))
		rundir="$base-$n"
	done
else
	mkdir -p "$rundir"
	[ -z "$(ls -A "$rundir")" ] || ccaas_die "run directory $rundir is not empty"
fi
rundir=$(cd "$rundir" && pwd -P)
case "$rundir$here" in
*[[:space:]]*) ccaas_die "paths with white space cannot go on the kernel command line" ;;
esac
mkdir "$rundir/results"

# The job: what guest-init.sh sources before running the command.
{
	printf 'export KVER=%q RESULTS=%q\n' "$kver" "$rundir/results"
	printf 'CCAAS_VM_MODULES=%q CCAAS_VM_CWD=%q\n' "$MODULES" "$PWD"
	for e in ${envs[@]+"${envs[@]}"}; do
		case "$e" in
		[A-Za-z_]*=*) printf 'export %s=%q\n' "${e%%=*}" "${e#*=}" ;;
		*) ccaas_die "-e wants VAR=VALUE, not '$e'" ;;
		esac
	done
	printf 'set --'
	printf ' %q' "$@"
	printf '\n'
} >"$rundir/job.sh"

kernel=$VMLINUX
[ "$bzimage" = 0 ] || kernel=$VMLINUZ
cmdline="console=ttyS0 loglevel=5 printk.time=1 panic=-1 oops=panic"
# An emulated CPU on a busy host can miss the IO-APIC timer check at boot
# ("IO-APIC + timer doesn't work!" panic): skip it, as under other hypervisors.
# It can also go unscheduled for tens of seconds, which the stall and
# lockup detectors would report as the guest kernel's fault: give them
# bounds no real bug stays under (RCU's is at most 300 s).
cmdline="$cmdline no_timer_check rcupdate.rcu_cpu_stall_timeout=300"
cmdline="$cmdline watchdog_thresh=60 sysctl.kernel.hung_task_timeout_secs=600"
cmdline="$cmdline panic_on_warn=$panic_on_warn mitigations=off"
cmdline="$cmdline rdinit=/init ccaas_vm_init=$here/vm/$guest_init ccaas_vm_run=$rundir"
[ -z "$extra_args" ] || cmdline="$cmdline $extra_args"

serial="$rundir/serial.log"
: >"$serial"
start=$(date +%s%N)
elapsed() { echo "$(($(date +%s%N) - start))" | sed 's/\(.\{9\}\)$/.\1/; s/^\./0./; s/\(\.[0-9]\).*/\1/'; }

timeout -k 5 "$timeout_s" qemu-system-x86_64 \
	-accel tcg -smp 1 -m "$mem" \
	-nodefaults -no-user-config -display none -monitor none \
	-serial "file:$serial" -no-reboot \
	-kernel "$kernel" -initrd "$INITRD" -append "$cmdline" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$rundir/results,mount_tag=results,security_model=none,multidevs=remap" \
	${nic[@]+"${nic[@]}"} \
	</dev/null >"$rundir/qemu.log" 2>&1 &
qpid=$!
# interrupted (^C, a CI limit): take the VM down with us
trap 'kill "$qpid" 2>/dev/null; exit 130' INT TERM

tail_pid=""
if [ "$quiet" = 0 ]; then
	tail -n +1 -F --pid="$qpid" "$serial" 2>/dev/null | tr -d '\r' &
	tail_pid=$!
fi

# Boot time: until guest-init.sh announces the command.
boot=""
while kill -0 "$qpid" 2>/dev/null; do
	if grep -q 'ccaas-vm: running command' "$serial"; then
		boot=$(elapsed)
		break
	fi
	sleep 0.2
done
qrc=0
wait "$qpid" || qrc=$?
total=$(elapsed)
[ -z "$tail_pid" ] || wait "$tail_pid" || true
echo "boot=${boot:-none} total=$total" >"$rundir/times"

# Verdict.  Kernel messages carry a [seconds.micros] stamp; only those count.
kpat='\[ *[0-9]+\.[0-9]+\] .*(Kernel panic|Oops|BUG:|WARNING:|general protection fault|KASAN|Call Trace)'
kerr=$(tr -d '\r' <"$serial" | grep -a -m1 -E "$kpat" || true)
rc_file="$rundir/results/exit-code"
if [ -n "$kerr" ]; then
	status=kernel-error why="kernel error: $kerr"
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	status=timeout why="timed out after $timeout_s s"
elif [ "$qrc" != 0 ]; then
	status=qemu-error why="qemu failed (status $qrc): $(tail -n 3 "$rundir/qemu.log")"
elif [ ! -s "$rc_file" ]; then
	status=no-exit-code why="the guest powered off without an exit code: $(tr -d '\r' <"$serial" | grep -a 'ccaas-' | tail -n 1)"
else
	status=ok why=""
fi
echo "$status" >"$rundir/status"

echo "vm-run: $kver: boot ${boot:-n/a} s, total $total s" >&2
if [ "$status" != ok ]; then
	echo "vm-run: FAILED: $why" >&2
	echo "vm-run: artifacts: $rundir" >&2
	exit 125
fi
rc=$(cat "$rc_file")
[ "$rc" = 0 ] || echo "vm-run: command exited with status $rc; artifacts: $rundir" >&2
exit "$rc"
