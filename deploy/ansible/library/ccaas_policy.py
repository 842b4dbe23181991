#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Ansible module: apply a host's whole ccaas policy through ccactl."""

DOCUMENTATION = r"""
module: ccaas_policy
short_description: Apply a host's ccaas policy, every rule at once
description:
  - Replaces the policy of the host's network namespace with I(rules) (or
    the policy file I(src) on the host) in one commit, with
    C(ccactl policy apply). Rules equal to those in force commit nothing
    and report C(changed=false).
  - In check mode the kernel checks the rules (CCAs, parameters, knobs)
    with C(ccactl policy apply dry_run); the differences are returned and
    nothing is committed.
  - A rule the kernel refuses fails the task with the kernel's reason; the
    policy in force stays as it was.
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
  ccactl:
    description: The ccactl program to run.
    type: str
    default: ccactl
"""

RETURN = r"""
generation:
  description:
    - The generation in force afterwards; in check mode, the one the apply
      would commit (the current one when nothing would change).
  type: int
changes:
  description: The differences, each with op (+ added, - removed, ~ changed) and rule.
  type: list
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.ccaas import run_ccactl


def main():
    module = AnsibleModule(
        argument_spec=dict(
            rules=dict(type="list", elements="str"),
            src=dict(type="path"),
            migrate=dict(type="bool", default=True),
            force=dict(type="bool", default=False),
            ccactl=dict(type="str", default="ccactl"),
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
        except OSError as e:
            module.fail_json(msg="cannot read %s: %s" % (p["src"], e))
    else:
        text = "".join(line + "\n" for line in p["rules"])

    # The dry run is the kernel's check and the diff, in check mode and out.
    dry = run_ccactl(module, ["policy", "apply", "-", "dry_run"], text)
    changes = dry.get("changes", [])
    # as the dry run prints it: + added, - removed, ~ changed (new form)
    diff = {"prepared": "".join("%s %s\n" % (c["op"], c["rule"]) for c in changes)}
    if module.check_mode or dry.get("unchanged"):
        module.exit_json(changed=not dry.get("unchanged"), generation=dry["generation"],
                         changes=changes, diff=diff)

    args = ["policy", "apply", "-"]
    if not p["migrate"]:
        args.append("no_migrate")
    if p["force"]:
        args.append("force")
    reply = run_ccactl(module, args, text)
    module.exit_json(changed=not reply.get("unchanged", False),
                     generation=reply["generation"], changes=changes, diff=diff)


if __name__ == "__main__":
    main()
