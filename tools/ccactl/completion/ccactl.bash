# bash completion for ccactl(8)                             -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-only
#
# Objects and their commands are read from ccactl's own help output, so a
# new object needs no change here; only completion of command arguments
# (e.g. CCA names for "cca show") is listed in _ccactl_args below.
# Works with or without the bash-completion package.

# Objects: from the line "where  OBJECT := { cca | help }".
_ccactl_objects()
{
	local out
	out=$("$1" help 2>/dev/null | sed -n 's/^where *OBJECT := { \(.*\) }$/\1/p')
	[ -n "$out" ] || out="cca | help"
	echo "${out//|/ }"
}

# Commands of object $2: the word after "ccactl OBJECT" in its help.
_ccactl_commands()
{
	"$1" "$2" help 2>/dev/null |
		awk -v obj="$2" '{ for (i = 1; i < NF; i++)
			if ($i == "ccactl" && index($(i + 1), obj) == 1) { print $(i + 2); break } }'
}

# Registered CCA names, from the JSON of "cca list" (no jq needed).
_ccactl_cca_names()
{
	local cmd=$1; shift
	"$cmd" "$@" -j cca list 2>/dev/null |
		grep -o '"name":"[^"]*"' | sed 's/^"name":"//; s/"$//'
}

# Congestion controls a policy rule may name: ccaas CCAs and the kernel's.
_ccactl_policy_ccas()
{
	_ccactl_cca_names "$@"
	cat /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null
}

# cgroup v2 paths below the mount (the first cgroup2 of mountinfo).
_ccactl_cgroups()
{
	local mnt
	mnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo 2>/dev/null)
	[ -n "$mnt" ] && (cd "$mnt" 2>/dev/null && compgen -d -- "$cur")
}

# Arguments of "policy COMMAND"; $1 ccactl, $2 command, $3 nth arg, then
# the -n option to pass on; $prev and $cur are _ccactl's.
_ccactl_policy_args()
{
	local cmd=$1 sub=$2 nth=$3 key=$prev; shift 3
	# after "locality", dc and region are values, not keywords
	[ "$nth" -gt 2 ] && [ "${COMP_WORDS[COMP_CWORD-2]}" = locality ] && key=LOC
	case "$sub/$key" in
	set/locality|del/locality)	echo rack dc region xregion; return ;;
	set/cca)	_ccactl_policy_ccas "$cmd" "$@"; return ;;
	set/cgroup|del/cgroup)	_ccactl_cgroups; return ;;
	*/region|*/dc|*/local|*/param|*/min_rto|*/init_cwnd|*/tso_segs|*/generation|\
	*/port|*/cgroup_id)
		return ;;
	esac
	case "$sub/$nth" in
	set/1|del/1)	echo default locality cgroup port ;;
	set/*)		echo locality port region dc local cca param min_rto init_cwnd tso_segs no_migrate force ;;
	del/*)		echo locality port region dc local no_migrate force ;;
	show/1)		echo generation ;;
	rollback/1)	"$cmd" "$@" -j policy history 2>/dev/null |
				grep -o '"generation":[0-9]*' | sed 's/.*://' ;;
	rollback/*)	echo no_migrate force ;;
	apply/1)	compgen -f -- "$cur"; echo - ;;
	apply/*)	echo dry_run no_migrate force ;;
	esac
}

# Arguments of OBJECT COMMAND; $1 ccactl, $2 object, $3 command, $4 nth arg,
# then the -n option to pass on.
_ccactl_args()
{
	local cmd=$1 obj=$2 sub=$3 nth=$4; shift 4
	case "$obj/$sub/$nth" in
	cca/show/1)	_ccactl_cca_names "$cmd" "$@" ;;
	policy/*)	_ccactl_policy_args "$cmd" "$sub" "$nth" "$@" ;;
	# $prev is the word before the one completed (from _ccactl).
	cca/drain/1)	_ccactl_cca_names "$cmd" "$@" ;;
	cca/drain/*)	if [ "$prev" = to ]; then _ccactl_cca_names "$cmd" "$@"
			else echo to force; fi ;;
	sock/show/*)	case "$prev" in
			cca)		_ccactl_cca_names "$cmd" "$@" ;;
			locality)	echo unknown rack dc region xregion ;;
			cgroup)		_ccactl_cgroups ;;
			dport|sport)	;;
			*)		echo cca locality dport sport cgroup ;;
			esac ;;
	# log add|del { cookie N... | all | FILTER }; log record [...]
	log/add/*|log/del/*)
			case "$prev" in
			cookie)		"$cmd" "$@" -j sock show 2>/dev/null |
						grep -o '"cookie":[0-9]*' | sed 's/.*://' ;;
			cca)		_ccactl_cca_names "$cmd" "$@" ;;
			locality)	echo unknown rack dc region xregion ;;
			src|dst|sport|dport)	;;
			*)		echo cookie all src dst sport dport cca locality ;;
			esac ;;
	log/record/*)	case "$prev" in
			file)		compgen -f -- "$cur" ;;
			duration|filter)	;;
			*)		echo duration file filter ;;
			esac ;;
	# scope add PREFIX locality LOC [region N] [dc N]; scope load FILE|- [dry_run]
	scope/add/1)	;;
	scope/add/*)	case "$prev/${COMP_WORDS[COMP_CWORD-2]}" in
			locality/*)	echo rack dc region xregion ;;
			*/locality)	echo region dc ;;	# prev is the LOC
			region/*|dc/*)	;;
			*)		echo locality region dc ;;
			esac ;;
	scope/load/1)	compgen -f -- "$cur"; echo - ;;
	scope/load/2)	echo dry_run ;;
	esac
}

_ccactl()
{
	local cmd=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local opts="-j -p -s -n -b -V -h --json --pretty --stats --netns --batch --version --help"
	local i w obj="" sub="" nargs=0 netns=()

	COMPREPLY=()

	case "$prev" in
	-n|-netns|--netns)
		COMPREPLY=($(compgen -W "$(ls /var/run/netns 2>/dev/null)" -- "$cur"))
		return ;;
	-b|-batch|--batch)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac

	# Find the object, the command and how many arguments precede $cur.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case "$w" in
		-n|-netns|--netns)
			[ -z "$obj" ] && netns=(-n "${COMP_WORDS[i+1]}")
			((i++)); continue ;;
		-b|-batch|--batch)
			((i++)); continue ;;
		-*)
			continue ;;
		esac
		if [ -z "$obj" ]; then
			obj=$w
		elif [ -z "$sub" ]; then
			sub=$w
		else
			((nargs++))
		fi
	done

	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [ -z "$obj" ]; then
		COMPREPLY=($(compgen -W "$(_ccactl_objects "$cmd")" -- "$cur"))
	elif [ "$obj" = help ]; then
		[ -z "$sub" ] &&
			COMPREPLY=($(compgen -W "$(_ccactl_objects "$cmd")" -- "$cur"))
	elif [ "$obj" = migrate ]; then	# no command word: "migrate [force]"
		[ -z "$sub" ] && COMPREPLY=($(compgen -W "force help" -- "$cur"))
	elif [ "$obj" = monitor ]; then	# no command word, no arguments
		[ -z "$sub" ] && COMPREPLY=($(compgen -W "help" -- "$cur"))
	elif [ -z "$sub" ]; then
		COMPREPLY=($(compgen -W "$(_ccactl_commands "$cmd" "$obj")" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$(_ccactl_args "$cmd" "$obj" "$sub" \
			$((nargs + 1)) "${netns[@]}")" -- "$cur"))
	fi
}

complete -F _ccactl ccactl
