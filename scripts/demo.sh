#!/bin/bash
# make demo: ccaas's main job, shown in one qemu VM (no KVM needed).
#
# Builds what the demo needs (the modules for the pinned kernels, ccactl),
# boots one VM on a stock Debian kernel and runs demo/guest.sh in it: a host
# whose connections to peers at four distances get their CCAs from a scope
# table and a policy, follow a policy change live, and a rollback.
#
# Usage: scripts/demo.sh          (DEMO_KERNEL=6.1 for the 6.1 kernel;
#                                  default 6.12; a full release also works)
# Exit status: the demo's (non-zero if any step failed), 125 if the VM failed.
set -eu -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$root"
# shellcheck source-path=SCRIPTDIR
. scripts/vm/common.sh

kver=$(ccaas_resolve_kver "${DEMO_KERNEL:-6.12}")
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# quietly CMD...: run CMD with its output in $log; on failure show the end
quietly() {
	if ! "$@" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		ccaas_die "'$*' failed"
	fi
}

# DEMO_PREBUILT=1 (make check, which has installed and built all of it,
# with W=1: a build here without it would compile every line again)
if [ "${DEMO_PREBUILT:-0}" != 1 ]; then
	echo "==> Checking packages, building the modules and ccactl (make modules-all, make ccactl)"
	quietly scripts/deps.sh
	quietly make modules-all
	quietly make ccactl
fi
[ -f "build/$kver/ccaas_core.ko" ] || ccaas_die "no modules for $kver in build/$kver"

echo "==> Booting Linux $kver in qemu (TCG, one vCPU); the demo runs inside"
start=$(date +%s)
# The console carries kernel messages ([ seconds ] stamps) and the VM
# runner's own lines; a person wants the demo's output only.  vm-run.sh
# still checks the whole console for kernel errors.
rc=0
scripts/vm-run.sh -t 300 \
	-e "CCAAS_ROOT=$root" -e "CCAAS_KO_DIR=$root/build/$kver" \
	-e "CCACTL=$root/tools/ccactl/ccactl" \
	"$kver" -- "$root/demo/guest.sh" |
	grep -avE --line-buffered '^\[ *[0-9]+\.[0-9]+\]|^ccaas-(vm|initramfs)|guest-init\.sh: line' ||
	rc=${PIPESTATUS[0]}
echo "==> VM finished in $(($(date +%s) - start)) s (exit status $rc)"
exit "$rc"
