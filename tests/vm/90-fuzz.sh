# The structure-aware netlink fuzzer (tests/vm/lib/fuzz.py), bounded:
# concurrent workers, each in a network namespace of its own with live
# connections: root ones, one an unprivileged user's namespace (its owner),
# one without any capability. Every rejected request must leave every dump
# as it was, every accepted one must show in the next dump (fuzz.py says
# what is allowed not to); afterwards the modules unload.
#
#   FUZZ_MESSAGES  messages in all (default 2000; `make fuzz`
#                  sends without bound for FUZZ_SECONDS), shared by the workers
#   FUZZ_SECONDS   stop each worker after this long (default 30)
#   FUZZ_SEED      base seed (default 1, so that make check is repeatable;
#                  make fuzz takes one from the clock; always printed)
# Worker i runs with seed FUZZ_SEED + i (root1, root2, owner, nobody); the
# same seed sends the same messages again.
# vm-debug: only
# vm-timeout: 900

FUZZ=$CCAAS_ROOT/tests/vm/lib/fuzz.py
SPEC=$CCAAS_ROOT/include/uapi/linux/ccaas.yaml
CCAS="tcp_cca_dctcp tcp_cca_cubic tcp_cca_dcndelay tcp_cca_xregion"
load_ccaas $CCAS || return 1
modprobe tcp_dctcp && modprobe tcp_bbr || return 1

FUZZ_MESSAGES=${FUZZ_MESSAGES:-2000}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_SEED=${FUZZ_SEED:-1}
WORKERS="root1 root2 owner nobody"
PER=$((FUZZ_MESSAGES / 4))
OUT=$RESULTS/fuzz
mkdir -p "$OUT"
# files and python code any user can read
cp "$FUZZ" "$SPEC" /tmp/ && chmod 0644 /tmp/fuzz.py /tmp/ccaas.yaml

# A listener and connections over IPv4 and IPv6 loopback in the caller's
# namespace, held open until killed; touches $1 when they are up.
CONNS='
import socket, sys, time
keep = []
for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    l = socket.socket(fam)
    l.bind((host, 0))
    l.listen(8)
    for _ in range(3):
        c = socket.socket(fam)
        c.connect(l.getsockname()[:2])
        keep += [c, l.accept()[0]]
    keep.append(l)
open(sys.argv[1], "w").close()
time.sleep(100000)
'

# worker_script NAME SEED [--unpriv]: the shell a worker runs in its namespace
worker_script() {
	# shellcheck disable=SC2016 # expanded by that shell
	printf '%s\n' 'ip link set lo up 2>/dev/null' \
		"python3 -c '$CONNS' /tmp/fuzz_up_$1 & c=\$!" \
		"while [ ! -e /tmp/fuzz_up_$1 ]; do sleep 0.1; done" \
		"python3 /tmp/fuzz.py -s $2 -n $PER -t $FUZZ_SECONDS $3 /tmp/ccaas.yaml; st=\$?" \
		'kill $c; exit $st'
}

test_fuzz() {
	local w i=0 pids=() st=0 seed
	echo "fuzz: base seed $FUZZ_SEED, $FUZZ_MESSAGES messages, at most $FUZZ_SECONDS s"
	[ ! -e /proc/sys/kernel/unprivileged_userns_clone ] ||
		echo 1 >/proc/sys/kernel/unprivileged_userns_clone
	for w in $WORKERS; do
		seed=$((FUZZ_SEED + i))
		i=$((i + 1))
		rm -f "/tmp/fuzz_up_$w"
		case $w in
		root*)
			netns_add "fz_$w" || return 1
			ip netns exec "fz_$w" sh -c "$(worker_script "$w" $seed)" ;;
		owner)
			setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
				unshare -U -r -n sh -c "$(worker_script "$w" $seed)" ;;
		nobody)
			# something there to fail to change
			netns_add "fz_$w" &&
				"$CCACTL" -n "fz_$w" policy set default cca cca_cubic >/dev/null &&
				"$CCACTL" -n "fz_$w" scope add 10.0.0.0/8 locality dc >/dev/null || return 1
			ip netns exec "fz_$w" setpriv --reuid=65534 --regid=65534 --clear-groups \
				--inh-caps=-all sh -c "$(worker_script "$w" $seed --unpriv)" ;;
		esac >"$OUT/$w.log" 2>&1 &
		pids+=($!)
	done
	i=0
	for w in $WORKERS; do
		wait "${pids[$i]}" || st=1
		i=$((i + 1))
		sed "s/^/  $w: /" "$OUT/$w.log" | grep -v '^  [a-z0-9]*: fuzz: seed [0-9]* (' 
	done
	awk '/^fuzz: seed [0-9]+: / { m += $4; a += $6; r += $8 }
		END { printf "fuzz: %d messages fuzzed, %d accepted, %d rejected\n", m, a, r }' \
		"$OUT"/*.log
	[ $st = 0 ] || fail fuzz "a worker found a violation (seeds from $FUZZ_SEED; logs in $OUT)"
}

# Nothing the fuzzer did holds a module: with the namespaces gone, every
# module's count drops to zero and they all unload.
test_fuzz_modules_unload() {
	local m i
	ip -all netns delete
	for m in $CCAS tcp_dctcp tcp_bbr; do
		for i in $(seq 300); do
			[ "$(cat /sys/module/$m/refcnt)" = 0 ] && break
			sleep 0.1
		done
	done
	for m in $CCAS tcp_dctcp tcp_bbr ccaas_core; do
		rmmod $m || fail fuzz_modules_unload "$m: refcnt $(cat /sys/module/$m/refcnt)" || return 1
	done
}
