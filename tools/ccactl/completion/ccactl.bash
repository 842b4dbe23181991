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

# Arguments of OBJECT COMMAND; $1 ccactl, $2 object, $3 command, $4 nth arg,
# then the -n option to pass on.
_ccactl_args()
{
	local cmd=$1 obj=$2 sub=$3 nth=$4; shift 4
	case "$obj/$sub/$nth" in
	cca/show/1)	_ccactl_cca_names "$cmd" "$@" ;;
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
	elif [ -z "$sub" ]; then
		COMPREPLY=($(compgen -W "$(_ccactl_commands "$cmd" "$obj")" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$(_ccactl_args "$cmd" "$obj" "$sub" \
			$((nargs + 1)) "${netns[@]}")" -- "$cur"))
	fi
}

complete -F _ccactl ccactl
