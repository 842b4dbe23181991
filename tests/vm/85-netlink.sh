# The ccaas generic netlink family as a client that is not ccactl sees it:
# strict header checks, the kernel's own YNL CLI driven by the YAML spec,
# who may change what (init_net, a user namespace's own netns, no caps), the
# monitor group, and no module autoload from inside a request.
# vm-timeout: 300

load_ccaas tcp_cca_dctcp || return 1

GENL=$CCAAS_ROOT/tests/vm/lib/genl.py
SPEC=$CCAAS_ROOT/include/uapi/linux/ccaas.yaml

# Command and attribute numbers (include/uapi/linux/ccaas.h).
CMD_CCA_GET=1 CMD_SCOPE_ADD=2 CMD_SCOPE_GET=4 CMD_POLICY_SET=7
A_SCOPE_ADDR=1 A_SCOPE_PREFIXLEN=2 A_SCOPE_LOCALITY=3
A_POLICY_RULE=6 A_RULE_CCA=6

# raw NS ARGS...: genl.py's answer to a ccaas request (options, CMD, ATTRs)
raw() {
	local n=$1 opts=()
	shift
	while [ "${1:0:1}" = - ]; do
		if [ "$1" = -d ]; then
			opts+=(-d)
			shift
		else
			opts+=("$1" "$2")
			shift 2
		fi
	done
	ns "$n" python3 "$GENL" "${opts[@]}" ccaas "$@"
}

# answer_is WANT_ERRNO WANT_EXTACK ANSWER: genl.py's ANSWER has that errno
# and (unless WANT_EXTACK is empty) that extack message
answer_is() {
	echo "$3" | grep -qx "errno $1" || return 1
	[ -z "$2" ] || echo "$3" | grep -qxF "extack $2"
}

# A scope add of 10.9.0.0/16 (dc), as raw attributes.
SCOPE_ADD_ATTRS="$A_SCOPE_ADDR:hex:0a090000 $A_SCOPE_PREFIXLEN:u8:16 $A_SCOPE_LOCALITY:u8:2"

# A new family validates the genl header: a non-zero reserved field is
# refused, and changes nothing.
test_strict_reserved_header() {
	local r st=0 before
	netns_add nl_strict || return 1
	before=$("$CCACTL" -n nl_strict scope show)
	# shellcheck disable=SC2086 # one word per attribute
	r=$(raw nl_strict -r 1 $CMD_SCOPE_ADD $SCOPE_ADD_ATTRS)
	answer_is 22 'genlmsghdr.reserved field is not 0' "$r" ||
		{ echo "scope add with reserved=1: $r"; st=1; }
	r=$(raw nl_strict -r 0x100 -d $CMD_CCA_GET)
	answer_is 22 'genlmsghdr.reserved field is not 0' "$r" ||
		{ echo "cca dump with reserved=0x100: $r"; st=1; }
	[ "$("$CCACTL" -n nl_strict scope show)" = "$before" ] ||
		{ echo "table changed: $("$CCACTL" -n nl_strict scope show)"; st=1; }
	# the same request with the field zero is fine
	# shellcheck disable=SC2086
	r=$(raw nl_strict $CMD_SCOPE_ADD $SCOPE_ADD_ATTRS)
	answer_is 0 '' "$r" || { echo "well-formed scope add: $r"; st=1; }
	[ $st = 0 ] || fail strict_reserved_header "the family accepts reserved header bytes"
}

# Only the nlmsg_flags the genl core gives a meaning to are accepted.
test_strict_nlmsg_flags() {
	local r st=0 f before
	netns_add nl_flags || return 1
	before=$("$CCACTL" -n nl_flags scope show)
	# NLM_F_EXCL, NLM_F_CREATE, NLM_F_APPEND: meaningless for this family
	for f in 0x200 0x400 0x800; do
		# shellcheck disable=SC2086
		r=$(raw nl_flags -f $f $CMD_SCOPE_ADD $SCOPE_ADD_ATTRS)
		answer_is 22 'ambiguous or reserved bits set in nlmsg_flags' "$r" ||
			{ echo "scope add with flags $f: $r"; st=1; }
	done
	[ "$("$CCACTL" -n nl_flags scope show)" = "$before" ] ||
		{ echo "table changed: $("$CCACTL" -n nl_flags scope show)"; st=1; }
	# NLM_F_ECHO is one of them, and so are dumps with an ACK
	r=$(raw nl_flags -f 0x8 $CMD_SCOPE_GET $A_SCOPE_ADDR:hex:0a090001)
	answer_is 0 '' "$r" || { echo "scope get with NLM_F_ECHO: $r"; st=1; }
	r=$(raw nl_flags -f 0x4 -d $CMD_CCA_GET)
	answer_is 0 '' "$r" || { echo "cca dump with NLM_F_ACK: $r"; st=1; }
	[ $st = 0 ] || fail strict_nlmsg_flags "reserved nlmsg_flags bits accepted"
}
