#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables from the results of bench/run.sh.

Usage: report.py DIR

DIR holds one directory per VM run, <kernel>-<mode>-<part>, each with
results/bench.txt: lines "BENCH <part> key=value ...". Modes: icount
(figures are guest instructions: one guest ns is one instruction) and wall
(TCG-emulated nanoseconds: not the speed of real hardware).
"""
import os
import re
import statistics
import sys


def parse(path):
    """[(part, {key: value})] of one bench.txt"""
    rows = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if len(words) < 2 or words[0] != "BENCH":
                continue
            kv = {}
            for w in words[2:]:
                k, _, v = w.partition("=")
                kv[k] = v
            rows.append((words[1], kv))
    return rows


def runs(top):
    """{(kernel, mode, part): rows}, and the runs that are missing 'done'"""
    out, bad = {}, []
    for name in sorted(os.listdir(top)):
        m = re.fullmatch(r"(.+)-(icount|wall)-(lookup|selector|migrate|perack|ccalog|transient|scale)", name)
        path = os.path.join(top, name, "results", "bench.txt")
        if not m or not os.path.isfile(path):
            continue
        rows = parse(path)
        out[m.groups()] = rows
        if not any(p == "done" for p, _ in rows):
            bad.append(name)
    return out, bad


def unit(mode):
    return "instr" if mode == "icount" else "ns"


def fmt(x, nd=1):
    return "{:,.{}f}".format(x, nd)


def spread(vals, nd=1):
    """median [min-max] of vals"""
    med = statistics.median(vals)
    if min(vals) == max(vals):
        return fmt(med, nd)
    return "%s [%s-%s]" % (fmt(med, nd), fmt(min(vals), nd), fmt(max(vals), nd))


def table(header, rows):
    w = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w[i]) for i, c in enumerate(header)).rstrip()]
    lines.append("  ".join("-" * x for x in w))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip())
    return "\n".join(lines)


def lookup_table(data):
    header = ["kernel", "mode", "prefixes", "scope", "fib_table_lookup",
              "fib_lookup", "loop", "scope/fib_table", "scope/fib_lookup",
              "agree"]
    rows = []
    setup = []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "lookup":
            continue
        by = {}
        for _, kv in rs:
            size = kv.get("size")
            if "method" in kv:
                by.setdefault(size, {})[kv["method"]] = kv
            elif "check" in kv:
                by.setdefault(size, {})["check"] = kv
            elif kv.get("setup"):
                setup.append([k, mode, size, kv["scope_entries"],
                              kv["scope_load_ms"], kv["routes"],
                              kv["route_batch_ms"]])
        for size in sorted(by, key=int):
            m = by[size]
            if "scope" not in m:
                continue
            med = {x: float(m[x]["med"]) for x in
                   ("scope", "fib_table", "fib_lookup", "loop")}

            def cell(x):
                v = m[x]
                if mode == "icount":
                    return fmt(float(v["med"]))
                return "%s [%s-%s]" % (v["med"], v["min"], v["max"])
            c = m.get("check", {})
            rows.append([k, mode, size, cell("scope"), cell("fib_table"),
                         cell("fib_lookup"), fmt(med["loop"]),
                         "%.2f" % (med["scope"] / med["fib_table"]),
                         "%.2f" % (med["scope"] / med["fib_lookup"]),
                         "%s/%s" % (c.get("same", "?"), c.get("addrs", "?"))])
    out = ["== Scope lookup vs FIB lookup, IPv4, per lookup",
           "icount: guest instructions (exact; instructions are not cycles);",
           "wall: TCG-emulated ns, median [min-max] over blocks (not real hardware).",
           "Ratios from the medians; 'loop' is the loop's own share, included",
           "in every column. 'agree': addresses on which scope and FIB found",
           "the same prefix length (or both nothing).", "",
           table(header, rows)]
    if setup:
        out += ["", "setup (guest time; under icount includes idle warps):",
                table(["kernel", "mode", "prefixes", "scope entries",
                       "scope load ms", "routes", "ip -batch ms"], setup)]
    return "\n".join(out)


def selector_table(data):
    header = ["kernel", "mode", "config", "per connect", "vs none",
              "connects/s", "no idle", "runs"]
    rows = []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "selector":
            continue
        per = {}
        busy = {}
        order = []
        for p, kv in rs:
            if p != "selector" or "config" not in kv:
                continue
            c = kv["config"]
            if c not in per:
                order.append(c)
            per.setdefault(c, []).append(int(kv["ns"]) / int(kv["connects"]))
            # busy time covers the loop and its process start: not below
            # the loop's time unless the CPU idled during the loop
            busy.setdefault(c, []).append(
                int(kv.get("busy_ns", 0)) >= int(kv["ns"]))
        base = statistics.median(per.get("none", [0])) if "none" in per else None
        for c in order:
            v = per[c]
            med = statistics.median(v)
            delta = "" if base is None or c == "none" else \
                "%+.0f %s" % (med - base, unit(mode))
            cps = "" if mode == "icount" else fmt(1e9 / med, 0)
            rows.append([k, mode, c, "%s %s" % (spread(v, 0), unit(mode)),
                         delta, cps, "%d/%d" % (sum(busy[c]), len(v)),
                         len(v)])
    return "\n".join([
        "== Selector cost per connect",
        "One connect = connect() + accept() + the server's reset + close(),",
        "client and server on one vCPU, everything the guest ran meanwhile",
        "(CLOCK_MONOTONIC over the loop; under icount = instructions).",
        "none: ccaas_core not loaded; probe: loaded, no policy; rule_1: a",
        "matching rule (cubic), 1-prefix scope table; rule_100k: the same with",
        "100 000 prefixes; default_rule: no scope match, default rule.",
        "Configurations interleaved, one loop each per round; median [min-max]",
        "over the rounds. 'no idle': loops during which the CPU never idled",
        "(scheduler busy time >= loop time), i.e. icount time = instructions.", "",
        table(header, rows)])


def select_table(data):
    header = ["kernel", "mode", "config", "per call", "loop", "net per call",
              "probes", "socket's CCA", "runs"]
    rows = []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "selector":
            continue
        per, info, order = {}, {}, []
        for p, kv in rs:
            if p != "select":
                continue
            c = kv["config"]
            if "unit" in kv:
                info[c] = (kv["probes"], kv["ca"])
                continue
            if c not in per:
                order.append(c)
            per.setdefault(c, []).append((float(kv["med"]),
                                          float(kv["loop_med"])))
        for c in order:
            v = per[c]
            rows.append([k, mode, c,
                         "%s %s" % (spread([x for x, _ in v]), unit(mode)),
                         spread([y for _, y in v]),
                         "%s %s" % (spread([x - y for x, y in v]), unit(mode)),
                         info.get(c, ("?", "?"))[0], info.get(c, ("?", "?"))[1],
                         len(v)])
    if not rows:
        return ""
    return "\n".join([
        "== Selector at connect (CLOSE -> SYN_SENT), called directly",
        "The bench module hands a kernel socket of netns a (remote address the",
        "server's) to the probes on inet_sock_set_state, 1024 calls per block,",
        "socket owned, interrupts off: the selector's own work at connect",
        "(policy, scope lookup, match, switch of the ops), without the",
        "tracepoint's static-key branch. Other state changes are in the loop",
        "figures above.", "",
        table(header, rows)])


def migrate_table(data):
    header = ["kernel", "mode", "sockets", "pass", "migrated", "kernel time",
              "per socket", "sockets/s", "longest visit", "mean visit",
              "ccactl ms", "n"]
    rows = []
    setup = []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "migrate":
            continue
        per = {}
        for _, kv in rs:
            size = int(kv.get("size", 0))
            if kv.get("setup"):
                setup.append([k, mode, size, kv["connections"], kv["open_ms"]])
            if "pass" not in kv:
                continue
            per.setdefault((size, kv["pass"]), []).append(kv)
        for size, p in sorted(per, key=lambda x: (x[0], x[1] != "move")):
            kvs = per[(size, p)]
            # rounds 1 and 2: ccaas_migrate() alone; round 3 also times
            # each socket's visit, whose probe adds to the total
            plain = [x for x in kvs if x.get("round") != "3"] or kvs
            visits = [x for x in kvs if int(x.get("one_n", 0)) > 0]
            ns = [int(x["ns"]) for x in plain]
            ex = [int(x["examined"]) for x in plain]
            mig = sorted(set(x["migrated"] for x in kvs))
            each = [n / e for n, e in zip(ns, ex)]
            if mode == "icount":
                ktime = "%s M instr" % spread([n / 1e6 for n in ns], 2)
                rate = ""
            else:
                ktime = "%s ms" % spread([n / 1e6 for n in ns], 2)
                rate = spread([e / (n / 1e9) for n, e in zip(ns, ex)], 0)
            if visits:
                longest = "%s %s" % (spread([int(x["one_max_ns"]) for x in visits], 0), unit(mode))
                mean = "%s %s" % (spread([int(x["one_sum_ns"]) / int(x["one_n"])
                                          for x in visits], 0), unit(mode))
            else:
                longest = mean = ""
            rows.append([k, mode, size or "/".join(sorted(set(map(str, ex)))), p,
                         "/".join(mig), ktime,
                         "%s %s" % (spread(each, 0), unit(mode)), rate,
                         longest, mean,
                         spread([float(x["ccactl_ms"]) for x in kvs], 0),
                         len(kvs)])
    out = ["== Migration of established connections (ccactl migrate)",
           "kernel time: ccaas_migrate() entry to return (kretprobe, ktime):",
           "the ehash walk and, per socket of the netns, lock, re-check,",
           "scope lookup, policy match and switch. move: every socket changes",
           "CCA (cubic <-> cca_dctcp, alternating); again: the idempotent",
           "second pass (all unchanged). Kernel time and per socket: rounds 1",
           "and 2. Longest and mean visit: round 3, a second kretprobe on",
           "ccaas_migrate_one() (a socket's checks, lock_sock() to",
           "release_sock()): the longest any one socket's lock is held, at",
           "most. ccactl ms: the whole command (exec, netlink, reply), guest",
           "time; under icount that includes idle warps (9p reads) and means",
           "nothing. Median [min-max] of the passes.", "",
           table(header, rows)]
    if setup:
        out += ["", table(["kernel", "mode", "size", "established", "opened in ms"],
                          setup)]
    return "\n".join(out)


PERACK_PEERS = {"cca_dctcp": "dctcp", "cca_cubic": "cubic",
                "cca_dcndelay": "dctcp", "cca_xregion": "cubic", "cca_hpcc": "bbr"}


def perack_table(data):
    """instructions per emulated ACK, net of the empty loop"""
    header = ["kernel", "mode", "phase", "CCA", "per ACK", "x reno",
              "x peer", "loop", "cwnd end", "CWR", "blocks"]
    rows = []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "perack":
            continue
        net = {(kv["phase"], kv["ca"]): float(kv["net"])
               for _, kv in rs if "phase" in kv}
        for _, kv in rs:
            if "phase" not in kv:
                continue
            ph, ca = kv["phase"], kv["ca"]
            reno = net.get((ph, "reno"))
            peer = net.get((ph, PERACK_PEERS.get(ca, "")))
            name = ca if kv["ops"] == ca else "%s (%s)" % (ca, kv["ops"])
            rows.append([k, mode, ph, name, fmt(net[(ph, ca)], 2),
                         fmt(net[(ph, ca)] / reno, 2) if reno else "",
                         fmt(net[(ph, ca)] / peer, 3) if peer else "",
                         kv["loop_med"], kv["cwnd_end"], kv["cwr"],
                         kv["blocks"]])
    out = ["== Per-ACK cost of the CCAs (emulated ACKs on a copy of a real socket)",
           "per ACK: median block minus the empty loop's median block, per ACK",
           "(under icount: instructions, not cycles; wall: TCG ns, noise).",
           "ss: slow start from cwnd 10; ca: congestion avoidance at a paced",
           "bottleneck of 100 packets per RTT, after 2048 untimed ACKs; ca_ce: from",
           "cwnd 100 at that bottleneck, one ACK in 10 with ECE. Per ACK includes",
           "the stack's PRR and pacing-rate work for CCAs without cong_control.",
           "x peer: cca_dctcp/dctcp, cca_cubic/cubic, cca_dcndelay/dctcp,",
           "cca_xregion/cubic, cca_hpcc/bbr.",
           "", table(header, rows)]
    return "\n".join(out)


def ccalog_table(data):
    """ccalog's cost: each ccaas CCA with and without its calls, and logging"""
    header = ["kernel", "mode", "phase", "CCA", "no calls", "not selected",
              "overhead", "selected", "traced", "rounds", "per round sel.",
              "per round traced"]
    rows = []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "ccalog":
            continue
        by = {(kv.get("tag"), kv["ca"], kv["phase"]): kv
              for _, kv in rs if "phase" in kv}
        ccas = sorted({ca for (t, ca, _) in by if t == "off"})
        for ca in ccas:
            for ph in ("ss", "ca_ce"):
                got = [by.get((t, c, ph)) for t, c in
                       (("nocalls", ca + "0"), ("off", ca), ("selected", ca),
                        ("traced", ca))]
                if None in got:
                    continue
                nocalls, off, sel, traced = (float(g["net"]) for g in got)
                acks, rounds = int(got[2]["acks"]), int(got[2]["rounds"])
                rows.append([k, mode, ph, ca, fmt(nocalls, 2), fmt(off, 2),
                             "%+.2f %%" % (100 * (off - nocalls) / nocalls),
                             fmt(sel, 2), fmt(traced, 2), rounds,
                             fmt((sel - off) * acks / rounds, 1) if rounds else "",
                             fmt((traced - off) * acks / rounds, 1) if rounds else ""])
    out = ["== ccalog: per-ACK cost of the CCAs' ccalog calls",
           "no calls: the same source built with CCAAS_NO_CCALOG (cca_dctcp0, ...);",
           "not selected: the module as shipped, connection not logged;",
           "selected: logged, tracepoint off; traced: ccalog_rtt enabled (ring",
           "buffer). Per ACK as in the perack table; per round: (selected or",
           "traced - not selected) x ACKs / round trips in the block.",
           "", table(header, rows)]
    return "\n".join(out)


def modsize_table(top):
    """text+data+bss of each tcp_cca_*.ko, from run.sh's <kernel>-modsize.txt"""
    rows = []
    for name in sorted(os.listdir(top)):
        m = re.fullmatch(r"(.+)-modsize\.txt", name)
        if not m:
            continue
        with open(os.path.join(top, name)) as f:
            for line in f.readlines()[1:]:
                w = line.split()
                rows.append([m.group(1), os.path.basename(w[5]), w[0], w[1],
                             w[2], w[3]])
    if not rows:
        return ""
    return "\n".join(["== Fixed cost per CCA module (size(1) of the .ko)", "",
                      table(["kernel", "module", "text", "data", "bss",
                             "total"], rows)])


def transient_table(data):
    """the dip of a bulk flow at each migration, per pair of CCAs"""
    header = ["kernel", "mode", "pair", "RTT ms", "before Mbit/s",
              "min-window Mbit/s", "depth %", "duration ms", "deficit ms",
              "noise %", "cwnd before", "cwnd min", "reps"]
    rows, errors, info = [], [], []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "transient":
            continue
        by, order = {}, []
        for _, kv in rs:
            if "kind" not in kv:
                continue
            key = (kv["group"], kv["kind"], kv["from"], kv["to"])
            if "error" in kv:
                errors.append("%s %s %s %s -> %s: %s" % (k, mode, kv["group"],
                                                          kv["from"], kv["to"],
                                                          kv["error"]))
                continue
            if key not in by:
                order.append(key)
                info.append("%s %s %s: bottleneck %s Mbit/s, path RTT %s ms, "
                            "CE above %s ms, window %s ms, sampled every %s us"
                            % (k, mode, kv["group"], kv["rate_mbit"],
                               kv["path_rtt_ms"], kv["ce_ms"], kv["window_ms"],
                               kv["period_us"])
                            if kv["kind"] == "noop" else None)
            by.setdefault(key, []).append(kv)
        for key in order:
            kvs = by[key]
            group, kind, frm, to = key
            pair = "%s -> %s" % (frm, to) if kind == "move" else \
                "%s (no move)" % frm

            def col(name, nd=1):
                return spread([float(x[name]) for x in kvs], nd)
            rows.append([k, mode, pair, col("rtt_ms"), col("before_mbit"),
                         col("min_mbit"), col("depth_pct"), col("dur_ms"),
                         col("deficit_ms", 2), col("noise_pct"),
                         col("cwnd", 0), col("cwnd_min", 0), len(kvs)])
    if not rows and not errors:
        return ""
    out = ["== Migration transient: a bulk flow moved mid-transfer",
           "Sender's bytes acked every ~1 ms; throughput over a sliding window.",
           "before: the second before the move; depth: least window after it",
           "(within 1 s) / before - 1; duration: time that window spends below",
           "95 % of before; deficit: how far the flow fell behind the before",
           "rate, in ms of transmission; noise: the depth over the second",
           "before (no move in it). RTT: srtt at the move. Median [min-max].",
           "Goal: depth no deeper than -5 %, duration no longer than one RTT.",
           ""]
    out += [x for x in info if x]
    out += ["", table(header, rows)]
    if errors:
        out += ["", "events without a figure: " + "; ".join(errors)]
    return "\n".join(out)


def scale_tables(data):
    """the selector by policy size, and memory per prefix and generation"""
    out = []
    rows, mem, gens = [], [], []
    for (k, mode, part), rs in sorted(data.items()):
        if part != "scale":
            continue
        base = {}
        for p, kv in rs:
            if p == "select" and "med" in kv:
                m = re.fullmatch(r"rules_(\d+)_(first|last|local|onesvc|cgfirst|cglast|portlast)",
                                 kv["config"])
                if not m:
                    continue
                net = float(kv["med"]) - float(kv["loop_med"])
                n, where = int(m.group(1)), m.group(2)
                if n == 10:
                    base[where] = net
                b = base.get(where, 0)
                rows.append([k, mode, n, where, "%s %s" % (fmt(net, 0), unit(mode)),
                             "%.2f" % (net / b) if b > 0 else "?"])
            elif p == "memory" and kv.get("what") in ("scope", "fib"):
                n = int(kv["prefixes"])
                mem.append((k, n, kv["what"], int(kv["charged"]),
                            kv.get("table_bytes", "")))
            elif p == "memory" and kv.get("what") == "generation":
                n, g = int(kv["rules"]), int(kv["generations"])
                b = int(kv["charged"])
                gens.append([k, n, g, fmt(b / g, 0), fmt(b / g / n, 1),
                             kv.get("history", "?")])
    if rows:
        out += ["== Selector at connect by policy size (called directly, as above)",
                "first: N - 1 rules `locality dc region 1 dc D` and the default",
                "rule, the server's the first in precedence order; last: the same",
                "but no DC rule is the server's, the default rule matches; local:",
                "N - 1 rules for the server's DC, each with a local /32 the socket",
                "is not in, all tried before the default rule matches; onesvc:",
                "last with one rule a service rule the socket does not match;",
                "cgfirst: N - 1 rules `cgroup ccaas-bench-svc/cD`, the socket in",
                "the first's cgroup; cglast: the same, the socket in none of them;",
                "portlast: N - 1 rules `port P`, none the socket's.", "",
                table(["kernel", "mode", "rules", "match", "net per call",
                       "x 10 rules"], rows), ""]
    if mem:
        mrows = []
        by = {}
        for k, n, what, b, tb in mem:
            by.setdefault((k, n), {})[what] = (b, tb)
        for (k, n), v in sorted(by.items()):
            sc, fib = v.get("scope"), v.get("fib")
            if not sc or not fib:
                continue
            mrows.append([k, n, fmt(sc[0] / n, 1), sc[1] and fmt(int(sc[1]) / n, 1),
                          fmt(fib[0] / n, 1), "%.2f" % (sc[0] / fib[0])])
        out += ["== Memory per prefix: scope table against the FIB",
                "Kernel memory charged to the cgroup of `ccactl scope load` and of",
                "`ip -batch` adding the same prefixes as routes (memory.stat kernel),",
                "one fresh netns each; the scope table's own count from ccactl -s.", "",
                table(["kernel", "prefixes", "scope B/prefix (memcg)",
                       "scope B/prefix (table)", "FIB B/prefix (memcg)",
                       "scope/FIB"], mrows), ""]
    if gens:
        out += ["== Memory per policy generation",
                "Kernel memory charged over consecutive commits of an N-rule policy",
                "(each kept in the history).", "",
                table(["kernel", "rules", "commits", "B/generation", "B/rule",
                       "history"], gens), ""]
    return "\n".join(out)


def main(top):
    data, bad = runs(top)
    if not data:
        sys.exit("report.py: no results under %s" % top)
    parts = {p for (_, _, p) in data}
    if "lookup" in parts:
        print(lookup_table(data))
        print()
    if "selector" in parts:
        print(selector_table(data))
        print()
        sel = select_table(data)
        if sel:
            print(sel)
            print()
    if "migrate" in parts:
        print(migrate_table(data))
        print()
    if "perack" in parts:
        print(perack_table(data))
        print()
        sizes = modsize_table(top)
        if sizes:
            print(sizes)
    if "ccalog" in parts:
        print(ccalog_table(data))
        print()
    if "transient" in parts:
        print(transient_table(data))
        print()
    if "scale" in parts:
        print(scale_tables(data))
    if bad:
        print("\nincomplete runs (no 'done' line): " + ", ".join(bad))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
