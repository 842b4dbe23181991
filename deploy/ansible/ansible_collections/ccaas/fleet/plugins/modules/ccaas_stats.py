#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-only
"""Ansible module: a host's ccaas compliance figures, and a rollout gate."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: ccaas_stats
short_description: Read a host's ccaas statistics; judge a rollout gate
description:
  - Returns C(ccactl -j stats) of the host's network namespace and its TCP
    segment counters (C(/proc/net/snmp)), a snapshot. Never changes
    anything.
  - Given I(baseline), an earlier snapshot of the same host, it also
    judges the gate of a rollout over the time between the two snapshots,
    on the rules I(match) names, and returns C(gate). The refusal, reset
    and retransmission counts are the namespace's, not only those rules'.
  - The gate fails when those rules held fewer than I(min_sockets)
    connections; a rollout nothing ran over proves nothing.
version_added: "1.0.0"
author: ccaas maintainers (!UNKNOWN)
options:
  baseline:
    description: The snapshot (this module's result) taken before the rollout.
    type: dict
  match:
    description:
      - The rules the gate looks at, by their match as C(ccactl stats)
        prints it (for example C(locality xregion region 2)).
    type: list
    elements: str
  min_fraction:
    description:
      - Least share of those rules' connections on the CCA or on its
        fallback ops (the others are pinned by their application, refused
        by the sticky-ECN rule, on a BPF CCA or elsewhere).
    type: float
    default: 0.9
  min_sockets:
    description:
      - Fewest connections those rules must hold at the second snapshot
        for the gate to judge; fewer fail it.
    type: int
    default: 1
  max_refused:
    description: Most sticky-ECN refusals the kernel may count between the snapshots.
    type: int
    default: 0
  max_resets:
    description: Most resets of established connections (EstabResets) between the snapshots.
    type: int
    default: 0
  max_retrans_pct:
    description: Most TCP segments retransmitted, in percent of the segments sent between the snapshots.
    type: float
    default: 2.0
extends_documentation_fragment:
  - ccaas.fleet.ccaas
"""

EXAMPLES = r"""
- name: Figures before
  ccaas.fleet.ccaas_stats:
  register: before

- name: Gate the connections to region 2, at least 5 of them
  ccaas.fleet.ccaas_stats:
    baseline: "{{ before }}"
    match: ["locality xregion region 2"]
    min_sockets: 5
  register: gated
"""

RETURN = r"""
stats:
  description: What C(ccactl -j stats) printed.
  returned: success
  type: dict
tcp:
  description: OutSegs, RetransSegs and EstabResets of the namespace.
  returned: success
  type: dict
gate:
  description:
    - C(ok), C(reasons) (why not, one line each),
      C(sockets) and C(compliant) (of the rules I(match) names),
      C(fraction), C(refused), C(resets) and C(retrans_pct).
  returned: when I(baseline) is given
  type: dict
  sample: {"ok": false, "reasons": ["0 connections matched locality xregion region 4 (< 1): nothing to judge"]}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ccaas.fleet.plugins.module_utils.ccaas import (
    argument_spec, run_ccactl)


def tcp_counters():
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith("Tcp:")]
    values = dict(zip(rows[0][1:], rows[1][1:]))
    return {k: int(values[k]) for k in ("OutSegs", "RetransSegs", "EstabResets")}


def judge(p, now, tcp):
    before = p["baseline"]
    rules = [r for r in now["rules"] if r.get("match") in p["match"]]
    sockets = sum(r["sockets"] for r in rules)
    compliant = sum(r["on_cca"] + r["fallback"] for r in rules)
    fraction = compliant / sockets if sockets else 1.0
    refused = now["counters"]["refused"] - before["stats"]["counters"]["refused"]
    resets = tcp["EstabResets"] - before["tcp"]["EstabResets"]
    sent = tcp["OutSegs"] - before["tcp"]["OutSegs"]
    retrans = tcp["RetransSegs"] - before["tcp"]["RetransSegs"]
    retrans_pct = 100.0 * retrans / sent if sent else 0.0
    reasons = []
    missing = sorted(set(p["match"]) - set(r.get("match") for r in rules))
    if missing:
        reasons.append("no rule %s in force" % ", ".join(missing))
    ccas = ", ".join(sorted(set(r["cca"] for r in rules))) or "the rule's CCA"
    if sockets < p["min_sockets"]:
        reasons.append("%d connections matched %s (< %d): nothing to judge"
                       % (sockets, ", ".join(p["match"]), p["min_sockets"]))
    elif fraction < p["min_fraction"]:
        reasons.append("%d of %d connections on %s (%.2f < %.2f)"
                       % (compliant, sockets, ccas, fraction, p["min_fraction"]))
    if refused > p["max_refused"]:
        reasons.append("%d sticky-ECN refusals (> %d)" % (refused, p["max_refused"]))
    if resets > p["max_resets"]:
        reasons.append("%d established connections reset (> %d)" % (resets, p["max_resets"]))
    if retrans_pct > p["max_retrans_pct"]:
        reasons.append("%d of %d segments retransmitted (%.2f %% > %.2f %%)"
                       % (retrans, sent, retrans_pct, p["max_retrans_pct"]))
    return {"ok": not reasons, "reasons": reasons, "sockets": sockets,
            "compliant": compliant, "fraction": round(fraction, 4),
            "refused": refused, "resets": resets,
            "retrans_pct": round(retrans_pct, 3)}


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(
            baseline=dict(type="dict"),
            match=dict(type="list", elements="str"),
            min_fraction=dict(type="float", default=0.9),
            min_sockets=dict(type="int", default=1),
            max_refused=dict(type="int", default=0),
            max_resets=dict(type="int", default=0),
            max_retrans_pct=dict(type="float", default=2.0),
        ),
        required_by={"baseline": ("match",)},
        supports_check_mode=True,
    )
    p = module.params
    stats = run_ccactl(module, ["stats"])
    tcp = tcp_counters()
    result = {"changed": False, "stats": stats, "tcp": tcp}
    if p["baseline"]:
        result["gate"] = judge(p, stats, tcp)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
