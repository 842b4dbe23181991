#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-only
"""Ansible module: load a host's whole ccaas scope table through ccactl,
and keep it in ccaas-service's configuration."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: ccaas_scope
short_description: Load a host's ccaas scope table, every prefix at once, and keep it
description:
  - Replaces the scope table of the host's network namespace with
    I(entries) in one step (C(ccactl scope load)), unless the table holds
    exactly those entries already.
  - Once the kernel has taken them, the entries are written to
    I(conf_dir)/scope.conf (a temporary file in that directory renamed over
    it), which ccaas-service loads at boot, reload and upgrade-core.
  - Reports C(changed) when the table or the file changed.
  - In check mode the entries the load would add and remove are returned
    and nothing is loaded or written.
  - An entry ccactl or the kernel refuses fails the task; the table in
    force and the file stay as they were.
version_added: "1.0.0"
author: ccaas maintainers (!UNKNOWN)
options:
  entries:
    description:
      - Lines of a scope file, C(PREFIX [locality] LOC [region N] [dc N]),
        with LOC one of rack, dc, region, xregion.
    type: list
    elements: str
    required: true
  conf_dir:
    description:
      - The directory of ccaas-service's configuration (its
        C(CCAAS_CONF_DIR)); the entries go to its C(scope.conf).
    type: path
    default: /etc/ccaas
  persist:
    description: Write I(conf_dir)/scope.conf; without it a reboot or reload reverts the load.
    type: bool
    default: true
  ccactl:
    description: The ccactl program to run.
    type: str
    default: ccactl
"""

EXAMPLES = r"""
- name: Region 1's own prefixes, and region 2's
  ccaas.fleet.ccaas_scope:
    entries:
      - 10.1.0.0/16 locality region region 1
      - 10.2.0.0/16 locality xregion region 2
"""

RETURN = r"""
added:
  description: Entries the load adds or changes, as "PREFIX locality LOC region N dc N".
  returned: success
  type: list
  elements: str
  sample: ["10.2.0.0/16 locality xregion region 2 dc 0"]
removed:
  description: Entries it removes or changes, in the same words.
  returned: success
  type: list
  elements: str
loaded:
  description: Whether the table was loaded (would be, in check mode).
  returned: success
  type: bool
conf_changed:
  description: Whether I(conf_dir)/scope.conf changed (would, in check mode).
  returned: success
  type: bool
"""

import ipaddress
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ccaas.fleet.plugins.module_utils.ccaas import (
    conf_text, run_ccactl, write_conf)

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


def compare(module, want):
    """The table in force against WANT: (have, added, removed), each a
    sorted list of entries. The one place that judges whether a load is
    needed (a kernel dry run of the load may take its place)."""
    # in Python's words, as the wanted entries: ccactl prints an
    # IPv4-mapped prefix otherwise (::ffff:10.0.0.0/104)
    have = [(str(ipaddress.ip_network(e["prefix"])), e["locality"], e["region"], e["dc"])
            for e in run_ccactl(module, ["scope", "show"])]
    return sorted(have), sorted(set(want) - set(have)), sorted(set(have) - set(want))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            entries=dict(type="list", elements="str", required=True),
            conf_dir=dict(type="path", default="/etc/ccaas"),
            persist=dict(type="bool", default=True),
            ccactl=dict(type="str", default="ccactl"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    want = [e for e in (parse(module, line) for line in p["entries"]) if e]
    if len(set(e[0] for e in want)) != len(want):
        module.fail_json(msg="a prefix is given twice")

    have, added, removed = compare(module, want)
    loaded = bool(added or removed)
    text = "".join(words(e) + "\n" for e in want)
    if loaded and not module.check_mode:
        run_ccactl(module, ["scope", "load", "-"], text, json_out=False)
    # only now, the kernel having taken the entries
    conf_changed = False
    if p["persist"]:
        conf_changed = write_conf(module, os.path.join(p["conf_dir"], "scope.conf"),
                                  conf_text("The scope table", [words(e) for e in want]))
    module.exit_json(changed=loaded or conf_changed, loaded=loaded,
                     conf_changed=conf_changed,
                     added=[words(e) for e in added],
                     removed=[words(e) for e in removed],
                     diff={"before": "".join(words(e) + "\n" for e in have),
                           "after": "".join(words(e) + "\n" for e in sorted(want))})


if __name__ == "__main__":
    main()
