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
  - Once the kernel has taken them, the table as read back after the load
    is written to I(conf_dir)/scope.conf (a temporary file in that
    directory renamed over it), which ccaas-service loads at boot, reload
    and upgrade-core.
  - Reports C(changed) when the table or the file changed.
  - Whether a load is needed, and what it would add and remove, is the
    kernel's dry run of the load, C(ccactl scope load - dry_run). The
    entries are read by ccactl and checked by the kernel exactly as a load
    would, and nothing is committed. In check mode that is all it does.
  - The dry run needs a loaded ccaas_core that has it. On a host whose
    ccactl is newer than its loaded core (after an upgrade of the package,
    before C(ccaas-service upgrade-core)) the task fails telling to run
    C(ccaas-service upgrade-core) on that host first.
  - An entry ccactl or the kernel refuses fails the task with its message;
    the table in force and the file stay as they were.
version_added: "1.0.0"
author: ccaas maintainers (!UNKNOWN)
options:
  entries:
    description:
      - Lines of a scope file, C(PREFIX [locality] LOC [region N] [dc N]),
        with LOC one of rack, dc, region, xregion (ccactl(8), scope load).
    type: list
    elements: str
    required: true
extends_documentation_fragment:
  - ccaas.fleet.ccaas
  - ccaas.fleet.ccaas.conf
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

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ccaas.fleet.plugins.module_utils.ccaas import (
    argument_spec, conf_text, run_ccactl, write_conf)


def words(e):
    """An entry of ccactl's JSON as a line of a scope file."""
    return "%s locality %s region %d dc %d" % (e["prefix"], e["locality"],
                                               e["region"], e["dc"])


# ccactl's words when the loaded ccaas_core is older than ccactl
OLD_CORE = ("has no scope load dry run",
            "this host's ccaas_core predates its ccactl: run `ccaas-service upgrade-core` "
            "on it first (it reloads the core and reapplies /etc/ccaas), then run again")


def compare(module, text):
    """The kernel's dry run of loading TEXT (ccactl scope load - dry_run):
    ccactl reads the lines as a load would, the kernel checks the entries
    as a load would and commits nothing. Returns (have, added, removed),
    lists of scope-file lines: the table in force, and the entries the
    load would add and remove (a changed entry is in both)."""
    dry = run_ccactl(module, ["scope", "load", "-", "dry_run"], text, hints=[OLD_CORE])
    have = run_ccactl(module, ["scope", "show"])
    added = dry["added"] + dry["changed"]
    changed = set(e["prefix"] for e in dry["changed"])
    removed = dry["removed"] + [e for e in have if e["prefix"] in changed]
    return ([words(e) for e in have], [words(e) for e in added],
            [words(e) for e in removed])


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(
            conf=True,
            entries=dict(type="list", elements="str", required=True),
        ),
        supports_check_mode=True,
    )
    p = module.params
    lines = [line.strip() for line in p["entries"]
             if line.split("#", 1)[0].strip()]
    text = "".join(line + "\n" for line in lines)

    have, added, removed = compare(module, text)
    loaded = bool(added or removed)
    # the table as the load leaves it, in ccactl's words
    after = sorted(set(have) - set(removed) | set(added))
    if loaded and not module.check_mode:
        run_ccactl(module, ["scope", "load", "-"], text, json_out=False)
        # the table in force once loaded, which scope.conf is to hold (a
        # writer between the dry run and the load would have changed it)
        after = sorted(words(e) for e in run_ccactl(module, ["scope", "show"]))
    # only now, the kernel having taken the entries
    conf_changed = False
    if p["persist"]:
        conf_changed = write_conf(module, os.path.join(p["conf_dir"], "scope.conf"),
                                  conf_text("The scope table", after),
                                  changed=loaded, loaded=loaded)
    module.exit_json(changed=loaded or conf_changed, loaded=loaded,
                     conf_changed=conf_changed, added=added, removed=removed,
                     diff={"before": "".join(e + "\n" for e in sorted(have)),
                           "after": "".join(e + "\n" for e in after)})


if __name__ == "__main__":
    main()
