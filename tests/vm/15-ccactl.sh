# ccactl against the real ccaas family: text and JSON output, abbreviations,
# kernel refusals, batch mode.
# vm-lines: edges
# vm-timeout: 120

load_ccaas || return 1
rmmod tcp_cca_dctcp 2>/dev/null

# json_is EXPR: the JSON document on stdin satisfies the Python EXPR (on j)
json_is() {
	python3 -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1"
}

# With no CCA registered, a list is empty, not an error.
test_ccactl_empty_list() {
	[ -z "$("$CCACTL" cca list)" ] && [ "$("$CCACTL" -j cca list)" = "[]" ]
}

test_ccactl_list_text() {
	local want
	load_ccaas tcp_cca_dctcp || return 1
	want='NAME       VERSION  MODULE         FLAGS  FEATURES
cca_dctcp  1.0.0    tcp_cca_dctcp  0x2    needs_ecn,ecn_ok,nonecn_ok'
	[ "$("$CCACTL" cca list)" = "$want" ] ||
		fail ccactl_list_text "got: $("$CCACTL" cca list)"
}

# `ccactl cca` lists, and unique prefixes work as in iproute2.
test_ccactl_default_and_abbrev() {
	local full
	full=$("$CCACTL" cca list)
	[ "$("$CCACTL" cca)" = "$full" ] && [ "$("$CCACTL" c l)" = "$full" ]
}

test_ccactl_list_json() {
	"$CCACTL" -j cca list | json_is 'j == [{"name": "cca_dctcp", "version": "1.0.0",
		"features": ["needs_ecn", "ecn_ok", "nonecn_ok"], "module": "tcp_cca_dctcp", "flags": 2}]'
}

# -p pretty-prints the same document.
test_ccactl_list_json_pretty() {
	local pretty
	pretty=$("$CCACTL" -j -p cca list)
	[ "$(echo "$pretty" | wc -l)" -gt 5 ] &&
		[ "$(echo "$pretty" | python3 -c 'import json,sys; print(json.load(sys.stdin))')" = \
		  "$("$CCACTL" -j cca list | python3 -c 'import json,sys; print(json.load(sys.stdin))')" ]
}

test_ccactl_show_text() {
	local want
	want='name      cca_dctcp
version   1.0.0
features  needs_ecn,ecn_ok,nonecn_ok
module    tcp_cca_dctcp
flags     0x2 (needs_ecn)
ext_size  0 bytes per socket
fallback  cca_dctcp-reno
params    NAME MIN MAX DEFAULT UNIT
          shift_g 0 10 4 log2(1/g)
          alpha_on_init 0 1024 1024 1/1024
takeover  any'
	[ "$("$CCACTL" cca show cca_dctcp)" = "$want" ] ||
		fail ccactl_show_text "got: $("$CCACTL" cca show cca_dctcp)"
}

test_ccactl_show_json() {
	"$CCACTL" -j cca show cca_dctcp | json_is '(j["name"] == "cca_dctcp" and j["flags"] == 2
		and j["fallback"] == "cca_dctcp-reno" and j["takeover"] == []
		and j["params"][0] == {"name": "shift_g", "min": 0, "max": 10, "default": 4, "unit": "log2(1/g)"})'
}

# Kernel refusal: extack text on stderr, nothing on stdout, exit 2.
test_ccactl_refusal() {
	local out err rc
	out=$("$CCACTL" -j cca show nope 2>/tmp/ccactl_err)
	rc=$?
	err=$(cat /tmp/ccactl_err)
	[ $rc -eq 2 ] && [ -z "$out" ] && [ "$err" = "Error: CCA not registered with ccaas" ] ||
		fail ccactl_refusal "rc=$rc out=$out err=$err"
}

# Batch: runs lines in order, stops at the first failure with its line number
# and exit code.
test_ccactl_batch() {
	local out err rc
	printf '# listing\ncca list\ncca show cca_dctcp -j\ncca show nope\ncca list\n' > /tmp/ccactl_batch
	out=$("$CCACTL" -b /tmp/ccactl_batch 2>/tmp/ccactl_err)
	rc=$?
	err=$(cat /tmp/ccactl_err)
	[ $rc -eq 2 ] &&
		echo "$err" | grep -q 'Error: CCA not registered with ccaas' &&
		echo "$err" | grep -q '/tmp/ccactl_batch:4: command failed (exit 2)' &&
		[ "$(echo "$out" | grep -c '^cca_dctcp')" = 1 ] &&
		echo "$out" | grep -q '{"name":"cca_dctcp"' ||
		fail ccactl_batch "rc=$rc out=$out err=$err"
}
