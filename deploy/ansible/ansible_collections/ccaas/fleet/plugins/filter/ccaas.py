# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-only
"""Jinja filters of the ccaas playbooks: a host's scope and policy, derived
from the fleet's description in the inventory (see docs/operations.md)."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


def _pair(text):
    """A region pair as written in the inventory or on the command line, "1,2"."""
    try:
        a, b = (int(w) for w in str(text).split(","))
    except ValueError:
        raise ValueError("a region pair is two region numbers, \"A,B\": %r" % text)
    if a == b or a < 1 or b < 1:
        raise ValueError("a region pair is two different regions from 1: %r" % text)
    return a, b


def ccaas_pair(text):
    """[A, B] of a pair "A,B"."""
    return list(_pair(text))


def ccaas_pair_matches(pair, region):
    """The match of the rule a rollout of PAIR gives a host of REGION, as
    ccactl stats prints it: ["locality xregion region PEER"]."""
    a, b = _pair(pair)
    peer = {a: b, b: a}.get(int(region))
    if peer is None:
        raise ValueError("region %s is not in pair %s" % (region, pair))
    return ["locality xregion region %d" % peer]


def ccaas_scope_entries(regions, region):
    """The scope table of a host in REGION: its own region's prefixes are
    locality region, every other region's xregion, each with its id.
    REGIONS maps a region number to a list of prefixes."""
    out = []
    for r in sorted(regions, key=int):
        loc = "region" if int(r) == int(region) else "xregion"
        for prefix in regions[r]:
            out.append("%s locality %s region %d" % (prefix, loc, int(r)))
    return out


def ccaas_policy_rules(base, region, pairs, cca, without=None):
    """The policy of a host in REGION: the fleet's BASE rules, and for every
    region pair in PAIRS that holds REGION (less the pair WITHOUT), a rule
    giving the connections to the other region of the pair CCA."""
    if isinstance(base, str) or isinstance(pairs, str):
        raise ValueError("the base rules and the pairs are lists, not strings")
    region = int(region)
    drop = _pair(without) if without else None
    peers = set()
    for p in pairs:
        a, b = _pair(p)
        if drop and {a, b} == set(drop):
            continue
        if region == a:
            peers.add(b)
        elif region == b:
            peers.add(a)
    return list(base) + ["locality xregion region %d cca %s" % (peer, cca)
                         for peer in sorted(peers)]


def ccaas_pairs_add(pairs, pair):
    """PAIRS with PAIR, unless it holds it already (in either order)."""
    if isinstance(pairs, str):
        raise ValueError("the pairs are a list, not a string")
    new = set(_pair(pair))
    if any(set(_pair(p)) == new for p in pairs):
        return list(pairs)
    return list(pairs) + ["%d,%d" % _pair(pair)]


def ccaas_pairs_remove(pairs, pair):
    """PAIRS without PAIR (in either order)."""
    if isinstance(pairs, str):
        raise ValueError("the pairs are a list, not a string")
    drop = set(_pair(pair))
    return [p for p in pairs if set(_pair(p)) != drop]


def ccaas_rule_matches(changes):
    """The matches, as ccactl stats prints them, of the rules a policy
    apply added or changed (its changes: op + or ~, and the rule)."""
    out = []
    for c in changes:
        if c.get("op") in ("+", "~"):
            words = c["rule"].split()
            if "cca" in words:
                words = words[:words.index("cca")]
            out.append(" ".join(words))
    return out


class FilterModule(object):
    def filters(self):
        return {
            "ccaas_pair": ccaas_pair,
            "ccaas_pair_matches": ccaas_pair_matches,
            "ccaas_scope_entries": ccaas_scope_entries,
            "ccaas_policy_rules": ccaas_policy_rules,
            "ccaas_pairs_add": ccaas_pairs_add,
            "ccaas_pairs_remove": ccaas_pairs_remove,
            "ccaas_rule_matches": ccaas_rule_matches,
        }
