#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of the race soak's end state (tests/vm/95-soak.sh).

  soak_check.py sockets NS MIGRATE SOCKS CCAS
      MIGRATE: `ccactl -j migrate` of a pass that should change nothing;
      SOCKS: `ccactl -j sock show` right after it; CCAS: a JSON array of
      `ccactl -j cca show NAME` for every registered CCA. Every connection
      must be on its rule's CCA (or that CCA's fallback ops), pinned, without
      a rule, held on the transitional CCA, or refused by the sticky-ECN
      rule; the pass migrated nothing, and its refused and pinned counts are
      the connections of those kinds.
  soak_check.py forced NS MIGRATE SOCKS CCAS
      The same after `migrate force` twice: nothing refused or migrated by
      the second pass, every unpinned connection with a rule on its CCA.
  soak_check.py plain NS SOCKS CCA MIN_RTO_US
      After a policy of one rule without knobs ("default cca CCA") and
      migrate force: every unpinned connection on CCA, with the kernel's
      minimum RTO (no knob of an earlier rule left behind).
  soak_check.py kmemleak BASE FILE...
      The kmemleak reports of FILEs (contents of /sys/kernel/debug/kmemleak
      after a scan) that BASE did not have: printed; exit status 1 if one
      names ccaas code (a module's frames have names only while it is
      loaded: scan before the unload too).
  soak_check.py summary DIR SEED SECONDS
      What the soak did, from the workers' counts in DIR: the JSON files of
      the clients and servers, the "key value" .stats files of the other
      workers, and their .refused lists.

Prints one line per namespace and, on failure, the connections concerned;
exit status 1 if a check fails.
"""
import json
import re
import sys

# In-tree CCAs that ask for ECN, and their fallback ops.
INTREE_ECN = {"dctcp": "dctcp-reno"}


def load(path):
    with open(path) as f:
        return json.load(f)


def cca_table(ccas):
    """name -> (features, fallback name or None) of the ccaas CCAs."""
    return {c["name"]: (set(c.get("features", [])),
                        None if c.get("fallback") in (None, "-") else c["fallback"])
            for c in ccas}


def transitional(table):
    """The transitional CCA (one that holds ECN and non-ECN sockets), or
    None. The first in the table: the core takes the first registered, and
    the soak has one only, cca_cubic, which it never unloads."""
    for name, (feats, _) in sorted(table.items()):
        if "transitional" in feats and "ecn_ok" in feats:
            return name
    return None


def features(name, table):
    if name in table:
        return table[name][0]
    if name in INTREE_ECN:
        return {"needs_ecn", "ecn_ok"}
    return {"nonecn_ok"}


def on_rule(s, table):
    want = s["policy_cca"]
    fallback = table[want][1] if want in table else INTREE_ECN.get(want)
    return s["cca"] in (want, fallback)


def ecn_refusal(s, table):
    """The sticky-ECN rule forbids moving s to its rule's CCA."""
    f = features(s["policy_cca"], table)
    return "ecn_ok" not in f if s["ecn"] else "nonecn_ok" not in f


def ecn_held(s, table):
    """s negotiated ECN, its rule's CCA cannot hold that, and it is on the
    transitional CCA, where the selector puts such a passive child: the
    core's migration counts it unchanged, not refused (kmod/core/migrate.c,
    ccaas_ecn_child_cca()), whichever side opened it."""
    return (s["ecn"] and ecn_refusal(s, table) and
            s["cca"] == transitional(table))


def describe(s):
    return ("%s:%d -> %s:%d cca=%s policy=%s ecn=%s pinned=%s" %
            (s["saddr"], s["sport"], s["daddr"], s["dport"], s["cca"],
             s.get("policy_cca", "-"), s["ecn"], s["pinned"]))


def classify(socks, table):
    kinds = {"pinned": [], "no_rule": [], "on_rule": [], "held": [],
             "refused": [], "wrong": []}
    for s in socks:
        if s["pinned"]:
            kinds["pinned"].append(s)
        elif "policy_cca" not in s:
            kinds["no_rule"].append(s)
        elif on_rule(s, table):
            kinds["on_rule"].append(s)
        elif ecn_held(s, table):
            kinds["held"].append(s)
        elif ecn_refusal(s, table):
            kinds["refused"].append(s)
        else:
            kinds["wrong"].append(s)
    return kinds


def report(ns, m, kinds, problems):
    print("%s: %d connections: %d on their rule's CCA, %d held on the "
          "transitional CCA (ECN), %d refused (ECN), %d pinned, %d without "
          "a rule; kernel: %s" %
          (ns, sum(len(v) for v in kinds.values()), len(kinds["on_rule"]),
           len(kinds["held"]), len(kinds["refused"]), len(kinds["pinned"]),
           len(kinds["no_rule"]),
           ", ".join("%s %s" % (k, m.get(k)) for k in
                     ("examined", "migrated", "unchanged", "refused",
                      "skipped_pinned", "no_rule"))))
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def check_sockets(ns, m, socks, table):
    kinds = classify(socks, table)
    problems = []
    if m["migrated"]:
        problems.append("a second migrate moved %d connections" % m["migrated"])
    for s in kinds["wrong"]:
        problems.append("not on its rule's CCA, yet allowed there: " + describe(s))
    n_refused = len(kinds["refused"]) + len(kinds["wrong"])
    if m["refused"] != n_refused:
        problems.append("the kernel counts %d refused, sock show has %d "
                        "connections off their rule's CCA (unpinned)" %
                        (m["refused"], n_refused))
        # which of them the kernel may be counting: those on their rule's
        # CCA's fallback ops are the usual suspects
        for s in kinds["on_rule"]:
            if s["cca"] != s["policy_cca"]:
                problems.append("  on its rule's fallback ops: " + describe(s))
    if m["skipped_pinned"] != len(kinds["pinned"]):
        problems.append("the kernel counts %d pinned, sock show has %d" %
                        (m["skipped_pinned"], len(kinds["pinned"])))
    if m["examined"] < len(socks):
        problems.append("the kernel examined %d connections, sock show lists %d"
                        % (m["examined"], len(socks)))
    return report(ns, m, kinds, problems)


def check_forced(ns, m, socks, table):
    kinds = classify(socks, table)
    problems = []
    if m["migrated"] or m["refused"]:
        problems.append("a second migrate force moved %d and refused %d "
                        "connections" % (m["migrated"], m["refused"]))
    for s in kinds["held"] + kinds["refused"] + kinds["wrong"]:
        problems.append("not on its rule's CCA after migrate force: " + describe(s))
    fallback = [s for s in kinds["on_rule"] if s["cca"] != s["policy_cca"]]
    if m["migrated"] and fallback:
        # e.g. in-tree dctcp-reno, not recognised as dctcp's (issue 9, defect 7)
        problems.append("on their rule's fallback ops, the likely ones moved again:")
        problems += ["  " + describe(s) for s in fallback]
    return report(ns, m, kinds, problems)


def check_plain(ns, socks, cca, min_rto):
    problems = []
    unpinned = [s for s in socks if not s["pinned"]]
    for s in unpinned:
        if s["cca"] != cca:
            problems.append("not on %s: %s" % (cca, describe(s)))
        elif s.get("min_rto_us") != min_rto:
            problems.append("min_rto %s us, not the kernel's %d: %s" %
                            (s.get("min_rto_us"), min_rto, describe(s)))
    print("%s: %d unpinned connections, %d on %s with the kernel's min_rto" %
          (ns, len(unpinned), len(unpinned) - len(problems), cca))
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def sums(paths, parse):
    """Every key of the files, summed; missing or half-written files skipped."""
    total = {}
    for path in paths:
        try:
            with open(path) as f:
                items = parse(f)
        except (OSError, ValueError):
            continue
        for k, v in items:
            total[k] = total.get(k, 0) + v
    return total


def json_items(f):
    return list(json.load(f).items())


def stats_items(f):
    return [(k, int(v)) for k, v in (line.split() for line in f if line.strip())]


def summary(d, seed, seconds):
    import glob
    import collections

    def js(pattern):
        return collections.defaultdict(int, sums(sorted(glob.glob(d + "/" + pattern)), json_items))

    def st(pattern):
        return collections.defaultdict(int, sums(sorted(glob.glob(d + "/" + pattern)), stats_items))

    c = js("*client-*.json")
    s = js("*server-*.json")
    held = js("client-s[ab].json")["held"]
    pol, scope, log, cca, q, ns, every = (st("policy-*.stats"), st("scope-*.stats"),
                                          st("log.stats"), st("cca.stats"), st("queue.stats"),
                                          st("netns.stats"), st("*.stats"))
    reader = st("reader.stats")
    a4, a6 = c["short_v4"] + c["long_v4"], c["short_v6"] + c["long_v6"]
    p4, p6 = s["accepted_v4"], s["accepted_v6"]
    out = [
        "soak summary (seed %s):" % seed,
        "  seconds: %s" % seconds,
        "  connections churned: %d active (IPv4 %d, IPv6 %d), %d passive (IPv4 %d, IPv6 %d);"
        " pinned %d, aborted %d, refused %d, failed %d, held at the end %d" %
        (a4 + a6, a4, a6, p4 + p6, p4, p6, c["pinned"], c["aborted"], c["refused"],
         c["failed"], held),
        "  listeners: %d closed and reopened, %d closed after not accepting for a while,"
        " %d periods not accepting" % (s["listener_cycles"], s["closed_lazy"], s["lazy_periods"]),
        "  policy commits: %d (rollbacks %d), migrate runs %d" %
        (pol["commits"], pol["rollbacks"], pol["migrates"]),
        "  scope loads: %d" % scope["scope_loads"],
        "  log add all/filter: %d, log del all: %d" % (log["log_add"], log["log_del"]),
        "  drains: %d; rmmod: %d done, %d refused as in use; loads: %d by modprobe/insmod,"
        " %d found loaded by the kernel meanwhile" %
        (cca["drains"], cca["rmmod_ok"], cca["rmmod_busy"], cca["loads"], cca["autoloaded"]),
        "  accept queues: %d listeners killed while migrate/drain/log ran, %d of them with"
        " a filled queue" % (q["rounds"], q["filled"]),
        "  namespaces: %d created, %d deleted" % (ns["netns_created"], ns["netns_deleted"]),
        "  ccactl calls: %d, refused by the kernel %d, namespace gone %d, unexpected %d;"
        " ss dumps %d" % (every["ops"], every["refused"], every["ns_gone"], every["bad"],
                          reader["ss"]),
        "  refusals by reason:",
    ]
    reasons = collections.Counter()
    for path in glob.glob(d + "/*.refused"):
        with open(path) as f:
            reasons.update(line.strip() for line in f if line.strip())
    out += ["    %5d %s" % (n, r) for r, n in reasons.most_common(12)]
    print("\n".join(out))
    return 0


def leak_blocks(path):
    """address -> text of each kmemleak report in path."""
    blocks, cur = {}, None
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("unreferenced object"):
                    cur = line.split()[2]
                    blocks[cur] = line
                elif cur:
                    blocks[cur] += line
    except OSError:
        pass
    return blocks


def kmemleak(base, paths):
    old = leak_blocks(base)
    new = {}
    for p in paths:
        new.update({a: b for a, b in leak_blocks(p).items() if a not in old})
    ours = [b for b in new.values() if re.search(r"ccaas|tcp_cca|cca_", b)]
    print("kmemleak: %d new reports since the soak began, %d naming ccaas" %
          (len(new), len(ours)))
    for b in ours[:4]:
        print(b.rstrip())
    return 1 if ours else 0


def main(argv):
    if argv[1] == "kmemleak":
        return kmemleak(argv[2], argv[3:])
    if argv[1] == "summary":
        return summary(argv[2], argv[3], argv[4])
    if argv[1] == "plain":
        return check_plain(argv[2], load(argv[3]), argv[4], int(argv[5]))
    ns, m, socks, table = argv[2], load(argv[3]), load(argv[4]), cca_table(load(argv[5]))
    if argv[1] == "sockets":
        return check_sockets(ns, m, socks, table)
    return check_forced(ns, m, socks, table)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
