# Metrics: `ccactl stats` counts where a namespace's connections are
# against the rule that matches them (on its CCA, on the fallback ops,
# pinned, kept off by sticky ECN, elsewhere) and what the selector and
# migrations did; `ccactl stats prometheus` is served by Debian's
# prometheus-node-exporter (textfile collector) and passes `promtool check
# metrics`.
#
# Hosts a (clients) and b (servers); a's scope puts b in locality dc.
# Not on the sanitizer kernel (about four minutes there, the lane it would
# lengthen): its walk runs there in 81-ccalog-race.sh, against unloads.
# vm-oldest-skip: stats_prometheus_node_exporter
# vm-lines: edges
# vm-timeout: 240

CONNS=$CCAAS_ROOT/tests/vm/lib/conns.py
ST_PLAIN=5003	# b's listener on its default CCA: no ECN accepted
ST_ECN=5004	# b's listener on cca_dctcp (by --cc): ECN accepted

# cca_cubic, the transitional CCA, is where the selector puts an ECN child
# its rule cannot hold: loaded, so that "refused" covers sockets that have
# such a CCA but are not on it (migration leaves them too)
load_ccaas tcp_cca_dctcp tcp_cca_cubic

st_setup() {
	netns_cleanup
	netns_pair a b || return 1
	"$CCACTL" -n a scope add 10.0.0.2/32 locality dc >/dev/null || return 1
	ns b python3 "$CONNS" server :: $ST_PLAIN >/dev/null 2>&1 &
	ns b python3 "$CONNS" server :: $ST_ECN --cc cca_dctcp >/dev/null 2>&1 &
	wait_port b $ST_PLAIN && wait_port b $ST_ECN
}

# st_open PORT N [--cc NAME]: N held connections from a to b's PORT
st_open() {
	local port=$1 n=$2 ready
	shift 2
	ready=/tmp/st_ready_${port}_$RANDOM
	ns a python3 "$CONNS" client "$PAIR_B_IP" "$port" "$n" "$ready" "$@" \
		>/dev/null 2>&1 &
	for _ in $(seq $((300 * ${CCAAS_VM_TIME_SCALE:-1}))); do [ -e "$ready" ] && return 0; sleep 0.1; done
	return 1
}

# st_rule JSON FIELDS...: the fields of rule 0 of a `stats -j` reply
st_rule() {
	python3 -c '
import json, sys
r = json.loads(sys.argv[1])["rules"][0]
print(" ".join(str(r[f]) for f in sys.argv[2:]))' "$@"
}

# st_field JSON PATH...: one value, by keys (counters.migrated: counters migrated)
st_field() {
	python3 -c '
import json, sys
v = json.loads(sys.argv[1])
for k in sys.argv[2:]:
    v = v[k]
print(v)' "$@"
}

# st_on_cca NAME: how many of a's connections ss shows on CCA NAME
st_on_cca() {
	ns a ss -tinH state established | grep -c " $1 "
}

# Each class of rule 0 in turn, checked against ss, and the counters
# against what was done: 10 connections the policy's cca_dctcp took
# without ECN (its Reno fallback), 4 pinned by the application, 6 with
# ECN; then the rule moves to in-tree cubic, which cannot hold ECN.
test_stats_rule_classes() {
	local t=stats_rule_classes out want
	st_setup || return 1
	"$CCACTL" -n a policy set locality dc cca cca_dctcp >/dev/null || return 1
	st_open $ST_PLAIN 10 && st_open $ST_PLAIN 4 --cc reno && st_open $ST_ECN 6 ||
		fail $t "connections did not open" || return 1

	out=$("$CCACTL" -n a -j stats) || return 1
	echo "stats: $out"
	want="locality dc cca_dctcp 20 6 10 4 0 0"
	[ "$(st_rule "$out" match cca sockets on_cca fallback pinned refused other)" = "$want" ] ||
		fail $t "on cca_dctcp: want $want: $out" || return 1
	[ "$(st_on_cca cca_dctcp)" = 6 ] && [ "$(st_on_cca cca_dctcp-reno)" = 10 ] ||
		fail $t "ss disagrees: $(ns a ss -tinH state established | grep -o 'cca_dctcp[^ ]*' | sort | uniq -c)" ||
		return 1
	[ "$(st_field "$out" sockets) $(st_field "$out" no_rule)" = "20 0" ] &&
		[ "$(st_field "$out" counters selected)" = 16 ] ||
		fail $t "want 20 sockets, 16 selected (the pinned 4 are not): $out" || return 1

	# The rule now names cubic and nothing moves yet: the 10 are
	# elsewhere, the 6 with ECN are refused (cubic cannot hold ECN, and
	# a migration leaves them on cca_dctcp).
	"$CCACTL" -n a policy set locality dc cca cubic no_migrate >/dev/null || return 1
	out=$("$CCACTL" -n a -j stats) || return 1
	want="cubic 0 0 4 6 10"
	[ "$(st_rule "$out" cca on_cca fallback pinned refused other)" = "$want" ] ||
		fail $t "before the migration: want $want: $out" || return 1

	"$CCACTL" -n a migrate >/dev/null || return 1
	out=$("$CCACTL" -n a -j stats) || return 1
	want="cubic 10 0 4 6 0"
	[ "$(st_rule "$out" cca on_cca fallback pinned refused other)" = "$want" ] &&
		[ "$(st_on_cca cubic)" = 10 ] ||
		fail $t "after the migration: want $want, 10 on cubic in ss: $out" || return 1
	# two passes: the first policy set's (no sockets yet) and this one
	want="10 6 2 0 0"
	[ "$(for k in migrated refused migrations drains errors; do st_field "$out" counters $k; done | tr '\n' ' ' | sed 's/ $//')" = "$want" ] ||
		fail $t "counters: want migrated, refused, migrations, drains, errors $want: $out" || return 1
	# per CCA, as ss counts them
	[ "$(python3 -c '
import json, sys
print(" ".join("%s=%d" % (c["cca"], c["sockets"]) for c in sorted(json.loads(sys.argv[1])["ccas"], key=lambda c: c["cca"])))' "$out")" = "cca_dctcp=6 cubic=10 reno=4" ] ||
		fail $t "per CCA: $out" || return 1

	# the text table: compliance of the rule, 10 of 20
	"$CCACTL" -n a stats | tee /tmp/st_text
	grep -qE '^0 +locality dc +cubic +20 +10 +0 +0 +4 +6 +0 +50\.0%' /tmp/st_text ||
		fail $t "text table"
}

# A drain counts as a drain, and a namespace without rules has only
# unmatched sockets.
test_stats_drain_counted() {
	local t=stats_drain_counted out
	st_setup || return 1
	"$CCACTL" -n a policy set locality dc cca cca_dctcp >/dev/null || return 1
	st_open $ST_PLAIN 5 || return 1
	"$CCACTL" -n a policy del locality dc >/dev/null || return 1
	"$CCACTL" -n a cca drain cca_dctcp to reno >/dev/null || return 1
	out=$("$CCACTL" -n a -j stats) || return 1
	[ "$(st_field "$out" counters drained) $(st_field "$out" counters drains) $(st_field "$out" counters migrated)" = "5 1 0" ] &&
		[ "$(st_field "$out" no_rule)" = 5 ] &&
		[ "$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["rules"]))' "$out")" = 0 ] ||
		fail $t "want 5 drained in 1 drain, 5 unmatched, no rules: $out"
}

test_stats_bad_input() {
	local t=stats_bad_input err rc
	err=$("$CCACTL" stats show extra 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 1 ] && echo "$err" | grep -q 'unexpected argument "extra"' ||
		fail $t "stats show extra: exit $rc, $err" || return 1
	err=$("$CCACTL" stats bogus 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 1 ] || fail $t "stats bogus: exit $rc, $err"
}

# The Prometheus text passes promtool, and node_exporter's textfile
# collector serves it without a scrape error.
test_stats_prometheus_node_exporter() {
	local t=stats_prometheus_node_exporter dir=/tmp/st_textfile exp metrics i
	st_setup || return 1
	"$CCACTL" -n a policy set locality dc cca cca_dctcp >/dev/null || return 1
	st_open $ST_ECN 3 || return 1
	mkdir -p $dir
	# as a timer would: write aside, then rename, so a scrape never
	# sees half a file
	"$CCACTL" -n a stats prometheus > $dir/ccaas.prom.tmp &&
		mv $dir/ccaas.prom.tmp $dir/ccaas.prom || return 1
	cat $dir/ccaas.prom
	promtool check metrics < $dir/ccaas.prom ||
		fail $t "promtool check metrics refused the output" || return 1
	# a rule is its match: no label with its position
	! grep -q 'rule="' $dir/ccaas.prom ||
		fail $t "a positional rule label: $(grep 'rule="' $dir/ccaas.prom | head -1)" || return 1

	prometheus-node-exporter --web.listen-address=127.0.0.1:19100 \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory=$dir >/tmp/st_exporter.log 2>&1 &
	exp=$!
	for i in $(seq $((150 * ${CCAAS_VM_TIME_SCALE:-1}))); do
		metrics=$(curl -sf http://127.0.0.1:19100/metrics) && break
		sleep 0.2
	done
	kill $exp 2>/dev/null
	wait $exp 2>/dev/null
	[ -n "$metrics" ] || fail $t "node_exporter did not answer: $(tail -5 /tmp/st_exporter.log)" ||
		return 1
	echo "$metrics" | grep -q '^node_textfile_scrape_error 0' ||
		fail $t "textfile scrape error: $(echo "$metrics" | grep textfile); $(tail -5 /tmp/st_exporter.log)" ||
		return 1
	echo "$metrics" | grep -qxF 'ccaas_rule_sockets{cca="cca_dctcp",match="locality dc",netns="a",state="on_cca"} 3' &&
		echo "$metrics" | grep -qxF 'ccaas_selected_total{netns="a"} 3' ||
		fail $t "served metrics: $(echo "$metrics" | grep '^ccaas_')"
}
