#!/bin/bash
# Host side of the fleet tests (tests/vm/75-fleet.sh): the Ansible
# controller, on the host, as a fleet's controller is not on its hosts.
# tests/vm/run.sh starts it beside a VM whose files say `# vm-ansible:
# yes`, with the host port that vm-run.sh -N forwards to the guest's sshd.
#
# Usage: ansible-controller.sh PORT RESULTS_DIR
#
# Through RESULTS_DIR/ansible/ (the guest's $RESULTS/ansible):
#   the controller writes id.pub, the key the guest's sshds take;
#   the guest writes inventory.yml (hosts by their fleet addresses) and,
#     for each run, NAME.req: the playbook (site, rollout: a playbook of
#     the collection ccaas.fleet, deploy/ansible/ansible_collections/),
#     then its arguments, one per line;
#   the controller runs it and writes NAME.out (what it printed),
#     NAME.time (milliseconds) and, last, NAME.rc (its exit status).
# Every host is reached through the guest's sshd on PORT (ssh -W): a real
# ssh connection to each host's own sshd, in its network namespace. The
# playbooks run as an operator runs them: ansible-playbook ccaas.fleet.NAME,
# from a directory of no account, the collection found through
# ANSIBLE_COLLECTIONS_PATH.
# Runs until killed; what it does goes to RESULTS_DIR/ansible/controller.log.
set -u

port=$1 dir=$2/ansible
root=$(cd "$(dirname "$0")/../../.." && pwd -P)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 0' TERM INT

while [ ! -d "$2" ]; do sleep 0.2; done
mkdir -p "$dir" "$tmp/home" "$tmp/cp"
exec >>"$dir/controller.log" 2>&1
command -v ansible-playbook || { echo "no ansible-playbook"; exit 1; }
ssh-keygen -q -t ed25519 -N '' -C ccaas-fleet-test -f "$tmp/id" || exit 1
cp "$tmp/id.pub" "$dir/id.pub.new" && mv "$dir/id.pub.new" "$dir/id.pub"

# nothing of the user's ssh set-up: no config file, no agent, this key only
unset SSH_AUTH_SOCK
nokeys="-F /dev/null -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
cat >"$tmp/ansible.cfg" <<EOC
[defaults]
forks = 8
# the ssh handshakes run on the guest's emulated CPU, two per host (the
# guest's sshd, then the host's), all at once at the first task: under
# host load they take longer than ssh's usual 10 s
timeout = 120
host_key_checking = False
private_key_file = $tmp/id
remote_user = root
local_tmp = $tmp/local
remote_tmp = /tmp/fleet/ansible-remote
interpreter_python = /usr/bin/python3
nocolor = True
retry_files_enabled = False
[ssh_connection]
pipelining = True
control_path_dir = $tmp/cp
ssh_args = -o ControlMaster=auto -o ControlPersist=900s $nokeys -o ProxyCommand="ssh -i $tmp/id $nokeys -p $port -W %h:%p root@127.0.0.1"
EOC

# check_request PLAYBOOK ARGS...: a playbook of the collection, and only
# the options a test needs (-e ccaas_NAME=PLAIN_VALUE, --check, --diff):
# nothing that would run something else on this host
check_request() {
	case "${1:-}" in
	"" | */* | .*) echo "not a playbook of ccaas.fleet: '${1:-}'"; return 1 ;;
	esac
	[ -f "$root/deploy/ansible/ansible_collections/ccaas/fleet/playbooks/$1.yml" ] ||
		{ echo "no playbook ccaas.fleet.$1"; return 1; }
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--check | --diff) shift ;;
		-e)
			[ $# -ge 2 ] || { echo "-e without a value"; return 1; }
			# a variable of the collection, a plain value: not an
			# ansible_* variable, JSON/YAML, @file or ssh options
			[[ $2 =~ ^ccaas_[a-z_]+=[A-Za-z0-9,._%/-]*$ ]] ||
				{ echo "-e value not allowed: $2"; return 1; }
			shift 2 ;;
		*) echo "option not allowed: $1"; return 1 ;;
		esac
	done
}

while :; do
	for req in "$dir"/*.req; do
		[ -e "$req" ] || continue
		name=${req%.req}
		[ -e "$name.rc" ] && continue
		mapfile -t args <"$req"
		if ! refusal=$(check_request "${args[@]}"); then
			echo "refused: $refusal" >"$name.out"
			echo 0 >"$name.time"
			echo 2 >"$name.rc"
			continue
		fi
		book=${args[0]}
		echo "run $(basename "$name"): ${args[*]}"
		t0=$(date +%s%N)
		(cd "$tmp/home" && HOME=$tmp/home ANSIBLE_CONFIG=$tmp/ansible.cfg \
			ANSIBLE_COLLECTIONS_PATH=$root/deploy/ansible \
			ansible-playbook "ccaas.fleet.$book" -i "$dir/inventory.yml" "${args[@]:1}" \
			>"$name.out" 2>&1 </dev/null)
		rc=$?
		echo $((($(date +%s%N) - t0) / 1000000)) >"$name.time"
		echo $rc >"$name.rc.new" && mv "$name.rc.new" "$name.rc"
	done
	sleep 0.3
done
