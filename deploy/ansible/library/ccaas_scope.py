#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ansible module: load a host's whole ccaas scope table through ccactl."""

DOCUMENTATION = r"""
module: ccaas_scope
short_description: Load a host's ccaas scope table, every prefix at once
description:
  - Replaces the scope table of the host's network namespace with
    I(entries) in one step (C(ccactl scope load)), unless the table holds
    exactly those entries already (C(changed=false)).
  - In check mode the entries the load would add and remove are returned
    and nothing is loaded.
  - An entry ccactl or the kernel refuses fails the task; the table in
    force stays as it was.
options:
  entries:
    description:
      - Lines of a scope file, C(PREFIX [locality] LOC [region N] [dc N]),
        with LOC one of rack, dc, region, xregion.
    type: list
    elements: str
    required: true
  ccactl:
    description: The ccactl program to run.
    type: str
    default: ccactl
"""

RETURN = r"""
added:
  description: Entries the load adds or changes, as "PREFIX locality LOC region N dc N".
  type: list
removed:
  description: Entries it removes or changes, in the same words.
  type: list
"""

import ipaddress

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.ccaas import run_ccactl

LOCALITIES = ("rack", "dc", "region", "xregion")


def parse(module, line):
    """One entry of a scope file as a tuple, None for a blank line."""
    w = line.split("#", 1)[0].split()
    if not w:
        return None
    try:
        prefix = str(ipaddress.ip_network(w[0]))
    except ValueError as e:
        module.fail_json(msg="scope entry %r: %s" % (line, e))
    loc, ids = None, {"region": 0, "dc": 0}
    i = 1
    while i < len(w):
        if w[i] in ids and i + 1 < len(w) and w[i + 1].isdigit():
            ids[w[i]] = int(w[i + 1])
            i += 2
        elif w[i] == "locality" and i + 1 < len(w) and loc is None:
            loc = w[i + 1]
            i += 2
        elif loc is None:
            loc = w[i]
            i += 1
        else:
            module.fail_json(msg="scope entry %r: cannot read %r" % (line, w[i]))
    if loc not in LOCALITIES:
        module.fail_json(msg="scope entry %r: locality must be one of %s"
                         % (line, ", ".join(LOCALITIES)))
    return (prefix, loc, ids["region"], ids["dc"])


def words(e):
    return "%s locality %s region %d dc %d" % e


def main():
    module = AnsibleModule(
        argument_spec=dict(
            entries=dict(type="list", elements="str", required=True),
            ccactl=dict(type="str", default="ccactl"),
        ),
        supports_check_mode=True,
    )
    want = [e for e in (parse(module, l) for l in module.params["entries"]) if e]
    if len(set(e[0] for e in want)) != len(want):
        module.fail_json(msg="a prefix is given twice")

    # in Python's words, as the wanted entries: ccactl prints an
    # IPv4-mapped prefix otherwise (::ffff:10.0.0.0/104)
    have = [(str(ipaddress.ip_network(e["prefix"])), e["locality"], e["region"], e["dc"])
            for e in run_ccactl(module, ["scope", "show"])]
    added = sorted(set(want) - set(have))
    removed = sorted(set(have) - set(want))
    changed = bool(added or removed)
    if changed and not module.check_mode:
        text = "".join(words(e) + "\n" for e in want)
        run_ccactl(module, ["scope", "load", "-"], text, json_out=False)
    module.exit_json(changed=changed, added=[words(e) for e in added],
                     removed=[words(e) for e in removed],
                     diff={"before": "".join(words(e) + "\n" for e in sorted(have)),
                           "after": "".join(words(e) + "\n" for e in sorted(want))})


if __name__ == "__main__":
    main()
