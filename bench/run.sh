#!/bin/bash
# Benchmarks of ccaas: scope lookup vs FIB lookup, selector cost per connect,
# migration rate, per-ACK cost of the CCAs, ccalog's cost, the throughput
# dip of a flow at a migration. See bench/README.md.
#
# Usage: bench/run.sh [-k KVERS] [-M MODES] [-p PARTS] [-o DIR]
#   -k KVERS   kernels, comma separated, full or short (6.1,6.12);
#              default: all pinned in scripts/versions.conf
#   -M MODES   icount (qemu -icount shift=0,sleep=off: figures are guest
#              instructions), wall (plain TCG: emulated time); default both
#   -p PARTS   lookup, selector, migrate, perack, ccalog, transient, scale,
#              incast, xregion-rpc, dcndelay-region; default all. incast
#              runs tests/vm/72-incast.sh BENCH_INCAST_RUNS times (default
#              5) per kernel, in emulated time only, and prints its p99s
#              with their spread (bench/incast.py). xregion-rpc and
#              dcndelay-region (application load, bench/rpc.py's tables and
#              CDF plots) run in wall mode only: icount skips them
#   -o DIR     where the runs go (default: a new directory under
#              ${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts})
#
# Builds what it needs (core modules, ccactl, the bench module, conntool,
# the prefix tables), boots one VM per kernel, mode and part (each limited
# to 5 minutes), then prints the tables (bench/report.py) and keeps them in
# DIR/report.txt.
set -eu

bench=$(cd "$(dirname "$0")" && pwd -P)
root=$(dirname "$bench")
cd "$root"
# shellcheck source-path=SCRIPTDIR/..
# shellcheck source=scripts/vm/common.sh
. "$root/scripts/vm/common.sh"

usage() {
	sed -n '/^# Usage:/,/^#$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

kvers="" modes="icount wall" out=""
parts="lookup selector migrate perack ccalog transient scale incast xregion-rpc dcndelay-region"
while getopts "k:M:p:o:h" opt; do
	case "$opt" in
	k) kvers=${OPTARG//,/ } ;;
	M) modes=${OPTARG//,/ } ;;
	p) parts=${OPTARG//,/ } ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
[ -n "$kvers" ] || kvers=$(ccaas_all_kvers)
if [ -z "$out" ]; then
	out=${CCAAS_ARTIFACTS:-/tmp/ccaas-artifacts}/bench-$(date +%Y%m%d-%H%M%S)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd -P)

# ---- build -------------------------------------------------------------------

# Built files live under build/ in the work tree: the guest sees the host's
# root, and the work tree (even under /tmp) at the same path.
bdir=$root/build/bench
mkdir -p "$bdir"
make -s ccactl
gcc -O2 -Wall -Wextra -o "$bdir/conntool" "$bench/conntool.c"
gcc -O2 -Wall -Wextra -pthread -o "$bdir/transient" "$bench/transient.c"
gcc -O2 -Wall -Wextra -pthread -o "$bdir/rpc" "$bench/rpc.c" -lm
# the application parts' settings (bench/guest-rpc.sh) reach the guest
rpc_env=()
for v in $(compgen -e); do
	case $v in
	BENCH_RPC_REPS | BENCH_XR_* | BENCH_DR_*) rpc_env+=(-e "$v=${!v}") ;;
	esac
done
python3 "$bench/gen_data.py" "$bdir/data"
for k in $kvers; do
	k=$(ccaas_resolve_kver "$k")
	make -s "build/$k/.built"
	rm -rf "${bdir:?}/$k"	# no stale sources from before a rename
	mkdir -p "$bdir/$k"
	cp "$bench/bench_main.c" "$bench/perack.c" "$bench/bench.h" \
		"$bench"/nolog_*.c "$bench/Kbuild" "$bdir/$k/"
	# lines built in a Debian root (KROOT_ in versions.conf) build there
	kmake=(make)
	[ -z "$(ccaas_kline_var "$k" KROOT)" ] || kmake=("$root/scripts/buildroot.sh" "$k" -- make)
	"${kmake[@]}" -s -C "/usr/src/linux-headers-$k" M="$bdir/$k" \
		CCAAS_TREE="$root/build/$k" \
		KBUILD_EXTRA_SYMBOLS="$root/build/$k/Module.symvers" modules
	# the fixed cost of each CCA module (perack part's report)
	size "$root/build/$k"/tcp_cca_*.ko >"$out/$(ccaas_short_kver "$k")-modsize.txt"
done

# ---- icount ------------------------------------------------------------------

# scripts/vm-run.sh passes no extra qemu arguments; for the icount runs a
# qemu-system-x86_64 first on PATH adds them.
qemu=$(command -v qemu-system-x86_64) || ccaas_die "qemu-system-x86_64 not found"
wrap=$out/icount-bin
mkdir -p "$wrap"
printf '#!/bin/sh\nexec %q -icount shift=0,sleep=off "$@"\n' "$qemu" \
	>"$wrap/qemu-system-x86_64"
chmod +x "$wrap/qemu-system-x86_64"

# ---- runs --------------------------------------------------------------------

failed=0
for k in $kvers; do
	k=$(ccaas_resolve_kver "$k")
	# incast: the test file's runs, whose artifacts incast.py reads; its
	# flows need real (emulated) time, so no icount
	case " $parts " in
	*" incast "*)
		for i in $(seq "${BENCH_INCAST_RUNS:-5}"); do
			run=$out/incast-$(ccaas_short_kver "$k")/run-$i
			echo "bench: $k incast run $i -> $run" >&2
			mkdir -p "$run"
			CCAAS_ARTIFACTS=$run "$root/tests/vm/run.sh" -k "$k" -t 72-incast \
				>"$run/run.log" 2>&1 ||
				{
					echo "bench: $k incast run $i had failures (see $run/run.log)" >&2
					failed=1
				}
		done
		;;
	esac
	for mode in $modes; do
		# icount figures repeat exactly: few blocks; TCG time is noisy:
		# many blocks, and shorter connect loops to stay within the limit
		case "$mode" in
		icount) path=$wrap:$PATH rounds=5 connects=3000 ;;
		wall) path=$PATH rounds=31 connects=1000 ;;
		*) ccaas_die "unknown mode '$mode' (icount, wall)" ;;
		esac
		for part in $parts; do
			[ "$part" != incast ] || continue
			# application load: its latencies need the guest's timers to
			# run in real (emulated) time; under icount with sleep=off
			# the clock jumps over idle time, so a wait for a packet
			# would measure instructions, not the path
			case "$mode:$part" in
			icount:xregion-rpc | icount:dcndelay-region)
				echo "bench: $k icount $part skipped (wall mode only)" >&2
				continue
				;;
			esac
			run=$out/$(ccaas_short_kver "$k")-$mode-$part
			echo "bench: $k $mode $part -> $run" >&2
			# transient: two flows of about 30 s of guest time each
			# migrate: up to 100 000 connections, both ends in the guest
			limit=300 mem=1024
			[ "$part" != transient ] || limit=900
			# application parts: about 6 and 13 minutes of guest time
			case "$part" in xregion-rpc | dcndelay-region) limit=900 ;; esac
			[ "$part" != migrate ] || limit=1200 mem=3072
			PATH=$path "$root/scripts/vm-run.sh" -q -t "$limit" -m "$mem" -d "$run" \
				-e "CCAAS_ROOT=$root" -e "CCAAS_KO_DIR=$root/build/$k" \
				-e "CCACTL=$root/tools/ccactl/ccactl" \
				-e "BENCH_KO=$bdir/$k/ccaas_bench.ko" \
				-e "BENCH_TOOL=$bdir/conntool" -e "BENCH_DATA=$bdir/data" \
				-e "BENCH_TRANSIENT=$bdir/transient" \
				-e "BENCH_RPC=$bdir/rpc" ${rpc_env[@]+"${rpc_env[@]}"} \
				-e "BENCH_ROUNDS=$rounds" -e "BENCH_CONNECTS=$connects" \
				-e "BENCH_MIG_SIZES=${BENCH_MIG_SIZES:-1000 10000 100000}" \
				"$k" -- "$bench/guest.sh" "$part" ||
				{
					echo "bench: $k $mode $part FAILED (see $run)" >&2
					failed=1
				}
		done
	done
done

python3 "$bench/report.py" "$out" | tee "$out/report.txt"
case " $parts " in
*" incast "*) python3 "$bench/incast.py" "$out" | tee -a "$out/report.txt" ;;
esac
# the application parts: tables into the report, CDF plots beside it
case " $parts " in
*" xregion-rpc "* | *" dcndelay-region "*)
	# (through a file: a pipe into tee would hide rpc.py's status)
	python3 "$bench/rpc.py" "$out" >"$out/rpc-report.txt" || failed=1
	tee -a "$out/report.txt" <"$out/rpc-report.txt"
	python3 "$bench/plot_rpc.py" "$out" || failed=1
	;;
esac
# the scaling curves (migrate, lookup, scale) as PNG files beside the report
python3 "$bench/plot.py" "$out" || failed=1
echo "bench: runs and report in $out" >&2
exit "$failed"
