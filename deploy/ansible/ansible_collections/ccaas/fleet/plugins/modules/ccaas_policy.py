#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-only
"""Ansible module: apply a host's whole ccaas policy through ccactl, and
keep it in ccaas-service's configuration."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: ccaas_policy
short_description: Apply a host's ccaas policy, every rule at once, and keep it
description:
  - Replaces the policy of the host's network namespace with I(rules) (or
    the policy file I(src) on the host) in one commit, with
    C(ccactl policy apply). Rules equal to those in force commit nothing.
  - Once the kernel has taken the rules, they are written to
    I(conf_dir)/policy.conf (a temporary file in that directory renamed
    over it), which ccaas-service applies at boot, C(systemctl reload ccaas)
    and C(ccaas-service upgrade-core); a rollout so survives them.
  - Reports C(changed) when a generation was committed or the file changed.
  - In check mode the kernel checks the rules (CCAs, parameters, knobs)
    with C(ccactl policy apply dry_run); the differences are returned and
    nothing is committed or written.
  - A rule the kernel refuses fails the task with the kernel's reason; the
    policy in force and the file stay as they were.
version_added: "1.0.0"
author: ccaas maintainers (!UNKNOWN)
options:
  rules:
    description: Policy lines, in the words of C(ccactl policy set).
    type: list
    elements: str
  src:
    description: A policy file on the host, instead of I(rules).
    type: path
  migrate:
    description: Move existing connections to the new rules' CCAs.
    type: bool
    default: true
  force:
    description: Move them even where the sticky-ECN rule refuses.
    type: bool
    default: false
extends_documentation_fragment:
  - ccaas.fleet.ccaas
  - ccaas.fleet.ccaas.conf
"""

EXAMPLES = r"""
- name: The fleet's base rules, kept across reboots
  ccaas.fleet.ccaas_policy:
    rules:
      - locality region cca cca_dcndelay
      - locality xregion cca cca_cubic

- name: A policy file already on the host, without moving open connections
  ccaas.fleet.ccaas_policy:
    src: /root/policy.new
    migrate: false
"""

RETURN = r"""
generation:
  description:
    - The generation in force afterwards; in check mode, the one the apply
      would commit (the current one when nothing would change).
  returned: success
  type: int
  sample: 4
changes:
  description: The differences, each with op (+ added, - removed, ~ changed) and rule.
  returned: success
  type: list
  elements: dict
  sample: [{"op": "+", "rule": "locality xregion region 2 cca cca_xregion"}]
committed:
  description: Whether a generation was committed (would be, in check mode).
  returned: success
  type: bool
conf_changed:
  description: Whether I(conf_dir)/policy.conf changed (would, in check mode).
  returned: success
  type: bool
previous:
  description:
    - The rules in force before, as C(ccactl policy show) prints them
      (comments left out); applied again, they undo this apply.
  returned: success
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ccaas.fleet.plugins.module_utils.ccaas import (
    argument_spec, conf_text, run_ccactl, write_conf)


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(
            conf=True,
            rules=dict(type="list", elements="str"),
            src=dict(type="path"),
            migrate=dict(type="bool", default=True),
            force=dict(type="bool", default=False),
        ),
        mutually_exclusive=[("rules", "src")],
        required_one_of=[("rules", "src")],
        supports_check_mode=True,
    )
    p = module.params
    if p["src"]:
        try:
            with open(p["src"]) as f:
                text = f.read()
        except (IOError, OSError) as e:
            module.fail_json(msg="cannot read %s: %s" % (p["src"], e))
        lines = text.splitlines()
    else:
        lines = p["rules"]
    text = "".join(line + "\n" for line in lines)

    # the rules in force, in the words that apply them: without the
    # comments policy show adds (a cgroup rule's "# cgroup id N", an id
    # that is not the next boot's)
    previous = [line.split("#", 1)[0].rstrip()
                for line in run_ccactl(module, ["policy", "show"], json_out=False).splitlines()]
    previous = [line for line in previous if line.strip()]
    # The dry run is the kernel's check and the diff, in check mode and out.
    dry = run_ccactl(module, ["policy", "apply", "-", "dry_run"], text)
    changes = dry.get("changes", [])
    # as the dry run prints it: + added, - removed, ~ changed (new form)
    diff = {"prepared": "".join("%s %s\n" % (c["op"], c["rule"]) for c in changes)}
    committed = not dry.get("unchanged")
    generation = dry["generation"]
    if committed and not module.check_mode:
        args = ["policy", "apply", "-"]
        if not p["migrate"]:
            args.append("no_migrate")
        if p["force"]:
            args.append("force")
        reply = run_ccactl(module, args, text)
        committed = not reply.get("unchanged", False)
        generation = reply["generation"]
    # only now, the kernel having taken the rules
    conf_changed = False
    if p["persist"]:
        # in any order: a canary put back writes the rules as policy
        # show orders them, the next run as the inventory does
        conf_changed = write_conf(module, os.path.join(p["conf_dir"], "policy.conf"),
                                  conf_text("The policy", lines), unordered=True,
                                  changed=committed, committed=committed,
                                  generation=generation)
    module.exit_json(changed=committed or conf_changed, committed=committed,
                     conf_changed=conf_changed, generation=generation, previous=previous,
                     changes=changes, diff=diff)


if __name__ == "__main__":
    main()
