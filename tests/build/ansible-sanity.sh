#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The collection ccaas.fleet (deploy/ansible/ansible_collections/ccaas/fleet):
# ansible-doc renders each module and the role, the playbooks parse, and
# Debian's ansible-test sanity passes, offline.
#
# ansible-test runs most of its checkers in a virtual environment of its
# own (~/.ansible/test/venv), into which it installs pinned versions with
# pip from PyPI. Offline, those environments are made here instead: empty,
# on Debian's python3, seeing its packages (python3-voluptuous,
# python3-pycodestyle, yamllint, python3-jinja2, python3-yaml: scripts/deps.sh)
# as ansible-test's own requirements files list them. Left out: import (it
# needs pip in an environment of its own), pylint and pslint (not
# installed), and the tests of the ansible-core repository itself.
#
# Usage: tests/build/ansible-sanity.sh   (from the top of the tree)
set -eu
top=$(pwd -P)
coll=$top/deploy/ansible/ansible_collections/ccaas/fleet
tmp=$(mktemp -d)
# ansible-test's results go to tests/output in the collection: not left
out=""
[ -e "$coll/tests/output" ] || out=$coll/tests/output
trap 'rm -rf "$tmp" ${out:+"$out"}' EXIT
# Debian's python first: ansible-test picks python3.11 from PATH
export PATH=/usr/bin:$PATH ANSIBLE_COLLECTIONS_PATH=$top/deploy/ansible
# its environments and caches in a home of this run's, none left behind
mkdir "$tmp/home"
export HOME=$tmp/home

for m in ccaas_policy ccaas_scope ccaas_stats; do
	ansible-doc "ccaas.fleet.$m" >"$tmp/doc" 2>&1 || { cat "$tmp/doc"; exit 1; }
	for s in OPTIONS EXAMPLES RETURN; do
		grep -q "^$s" "$tmp/doc" || { echo "ansible-doc ccaas.fleet.$m: no $s"; cat "$tmp/doc"; exit 1; }
	done
done
ansible-doc -t role ccaas.fleet.host >"$tmp/doc" 2>&1 || { cat "$tmp/doc"; exit 1; }
printf 'all:\n  hosts:\n    h1: {}\n' >"$tmp/inv.yml"
for p in site rollout install; do
	ansible-playbook "ccaas.fleet.$p" -i "$tmp/inv.yml" --syntax-check -e ccaas_pair=1,2 \
		>"$tmp/syntax" 2>&1 || { cat "$tmp/syntax"; exit 1; }
done

tests="action-plugin-docs ansible-doc changelog compile empty-init
future-import-boilerplate ignores line-endings metaclass-boilerplate no-assert
no-basestring no-dict-iteritems no-dict-iterkeys no-dict-itervalues
no-get-exception no-illegal-filenames no-main-display no-smart-quotes
no-unicode-literals pep8 replace-urlopen runtime-metadata shebang shellcheck
symlinks use-argspec-type-path use-compat-six validate-modules yamllint"
args=(--python 3.11 --color no)
for t in $tests; do args+=(--test "$t"); done

# sanity: ansible-test sanity, in the collection (it finds it by its path)
sanity() { (cd "$coll" && ansible-test sanity "${args[@]}") >"$tmp/sanity" 2>&1; }

# seed: the environments ansible-test asked pip for, made without it
seed() {
	local v n=0
	while read -r v; do
		case "$v" in "$HOME"/.ansible/test/venv/sanity*) ;; *) continue ;; esac
		rm -rf "$v"
		/usr/bin/python3 -m venv --system-site-packages --without-pip "$v" || return 1
		echo true >"$v/meta.yaml.json"
		echo '[]' >"$v/meta.install.json"
		touch "$v/marker.txt"
		n=$((n + 1))
	done < <(sed -n 's/.* at "\(.*\)\/bin\/python" does not have pip available.*/\1/p' "$tmp/sanity")
	[ "$n" -gt 0 ]
}

for _ in 1 2 3 4 5 6; do
	sanity && { grep -v locale "$tmp/sanity" | grep -c '^Running sanity test' | sed 's/$/ sanity tests passed/'; exit 0; }
	seed || break
done
cat "$tmp/sanity"
exit 1
