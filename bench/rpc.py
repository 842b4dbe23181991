#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables of the application parts xregion-rpc and dcndelay-region.

Usage: rpc.py DIR

DIR/<kernel>-wall-<part>/results/ holds bench.txt (one "BENCH <part> case=
cca= rep= ..." line of counters per run) and <part>/<case>-<cca>-<rep>.*
(bench/guest-rpc.sh: the RPCs, the bulk flows' objects and TCP_INFO
samples, the unloaded probe, the bottleneck's backlog samples). Prints,
per kernel, part and case, one row per CCA with each figure as the median
of the runs [lowest-highest], then the ratios of each peer to the ccaas
CCA computed per repetition (the CCAs ran interleaved, so repetition r of
each shared the host's load), with the same spread. Writes, per kernel,
part and case, DIR/rpc-<kernel>-<part>-<case>.dat: the CDF of the RPC
latencies of all runs of each CCA (one gnuplot block per CCA, "# cca"
first), which bench/plot_rpc.py draws.

A run that completed no RPC, or a part that left no run, makes the exit
status 1: the part measured nothing.
"""
import glob
import math
import os
import re
import statistics
import sys

PARTS = ("xregion-rpc", "dcndelay-region")
# the CCA whose figures are the denominators of the ratios, per part
OURS = {"xregion-rpc": "cca_xregion", "dcndelay-region": "cca_dcndelay"}
# each peer's name in the ratio rows
PEERS = {"xregion-rpc": ["cubic", "bbr"],
         "dcndelay-region": ["cubic", "dctcp", "cca_dctcp"]}


def pct(vals, p):
    """the p-th percentile (nearest rank) of vals"""
    s = sorted(vals)
    if not s:
        return float("nan")
    k = max(1, math.ceil(p / 100.0 * len(s)))
    return s[k - 1]


def spread(vals, nd=1):
    vals = [v for v in vals if not math.isnan(v)]
    if not vals:
        return "-"
    med = statistics.median(vals)
    f = "{:,.%df}" % nd
    if min(vals) == max(vals):
        return f.format(med)
    return (f + " [" + f + "-" + f + "]").format(med, min(vals), max(vals))


def parse_bench(path):
    """[{key: value}] of the runs in one bench.txt"""
    rows = []
    for line in open(path):
        w = line.split()
        if len(w) < 2 or w[0] != "BENCH" or w[1] not in PARTS:
            continue
        rows.append(dict(x.partition("=")[::2] for x in w[2:]))
    return rows


def read_rpc(path):
    """latencies (ms) of the RPCs of one run; an RPC unfinished at the end
    counts with the time it had waited (a lower bound), and the count of
    those"""
    lat, unfinished = [], 0
    for line in open(path):
        w = line.split()
        if len(w) == 3 and w[0] in "RU":
            lat.append(float(w[2]) / 1000.0)
            unfinished += w[0] == "U"
    return lat, unfinished


def read_bulk(paths, skip_ms=3000.0):
    """objects' times (s, censored ones as lower bounds), goodput (Mbit/s),
    the cwnd samples after the first skip_ms of each flow (the warm-up of
    bench/guest-rpc.sh), and the least min RTT (ms) of the flows"""
    objs, cwnd, rate, minrtt = [], [], 0.0, []
    for p in paths:
        for line in open(p):
            w = line.split()
            if w[0] in ("O", "C"):
                objs.append(float(w[2]) / 1e6)
            elif w[0] == "S" and float(w[1]) >= skip_ms:
                cwnd.append(int(w[2]))
            elif w[0] == "E":
                rate += int(w[1]) * 8 / float(w[2]) / 1e6
                if len(w) > 5 and int(w[5]) > 0:
                    minrtt.append(int(w[5]) / 1000.0)
    return objs, rate, cwnd, min(minrtt) if minrtt else float("nan")


def read_qlen(path):
    """backlog samples in packets"""
    out = []
    if os.path.isfile(path):
        for line in open(path):
            w = line.split()
            if len(w) == 3:
                out.append(int(w[2]))
    return out


def runs(top):
    """{(kernel, part, case): {cca: [run dict]}}, and the names of broken
    runs"""
    out, bad = {}, []
    for d in sorted(glob.glob(os.path.join(top, "*-wall-*"))):
        m = re.fullmatch(r"(.+)-wall-(%s)" % "|".join(PARTS),
                         os.path.basename(d))
        if not m:
            continue
        kernel, part = m.groups()
        res = os.path.join(d, "results")
        bench = os.path.join(res, "bench.txt")
        if not os.path.isfile(bench):
            bad.append("%s: no results" % os.path.basename(d))
            continue
        if not any(line.startswith("BENCH done") for line in open(bench)):
            bad.append("%s: did not finish" % os.path.basename(d))
        for kv in parse_bench(bench):
            base = os.path.join(res, part, "%s-%s-%s" % (
                kv["case"], kv["cca"], kv["rep"]))
            lat, unf = read_rpc(base + ".rpc")
            objs, rate, cwnd, minrtt = read_bulk(
                sorted(glob.glob(base + ".bulk*")))
            probe, _ = read_rpc(base + ".probe")
            q = read_qlen(base + ".qlen")
            if not lat or int(kv.get("done", 0)) == 0:
                bad.append("%s %s %s rep %s: no RPC completed" % (
                    part, kv["case"], kv["cca"], kv["rep"]))
            run = dict(kv)
            run.update(lat=lat, unf=unf, objs=objs, goodput=rate, cwnd=cwnd,
                       probe=probe, q=q, minrtt=minrtt)
            out.setdefault((kernel, part, kv["case"]), {}).setdefault(
                kv["cca"], []).append(run)
    return out, bad


def f(run, key):
    return float(run.get(key, "nan"))


# (column title, decimals, value of one run)
COLUMNS = [
    ("runs", 0, None),
    ("min RTT ms", 2, lambda r: r["minrtt"]),
    ("probe p50 ms", 2, lambda r: pct(r["probe"], 50)),
    ("RPC p50 ms", 1, lambda r: pct(r["lat"], 50)),
    ("RPC p99 ms", 1, lambda r: pct(r["lat"], 99)),
    ("RPC p99.9 ms", 1, lambda r: pct(r["lat"], 99.9)),
    ("RPCs", 0, lambda r: len(r["lat"])),
    ("bulk Mbit/s", 1, lambda r: r["goodput"]),
    ("object p50 s", 2, lambda r: pct(r["objs"], 50)),
    ("object p99 s", 2, lambda r: pct(r["objs"], 99)),
    ("retrans", 0, lambda r: f(r, "retrans")),
    ("retrans %", 2,
     lambda r: 100 * f(r, "retrans") / max(1, f(r, "sent_segs"))),
    ("retrans w/ start", 0, lambda r: f(r, "retrans_all")),
    ("drops", 0, lambda r: f(r, "drops")),
    ("CE marks", 0, lambda r: f(r, "marks")),
    ("bulk cwnd p50", 0, lambda r: pct(r["cwnd"], 50)),
    ("queue p50 pkt", 0, lambda r: pct(r["q"], 50)),
    ("queue p99 pkt", 0, lambda r: pct(r["q"], 99)),
    ("CPU busy %", 0, lambda r: f(r, "cpu_busy_pct")),
]

# the ratios peer / ours per repetition: (title, value of one run)
RATIOS = [
    ("RPC p99", lambda r: pct(r["lat"], 99)),
    ("RPC p99.9", lambda r: pct(r["lat"], 99.9)),
    ("object p99", lambda r: pct(r["objs"], 99)),
    ("retrans", lambda r: f(r, "retrans")),
    ("drops", lambda r: f(r, "drops")),
    ("bulk cwnd p50", lambda r: pct(r["cwnd"], 50)),
    ("queue p50", lambda r: pct(r["q"], 50)),
    ("CPU busy", lambda r: f(r, "cpu_busy_pct")),
]


def table(header, rows):
    w = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).rjust(n) for x, n in zip(r, w))
    return "\n".join([line(header), line(["-" * n for n in w])] +
                     [line(r) for r in rows])


def ratio(a, b):
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if b == 0:
        return float("inf") if a > 0 else 1.0
    return a / b


def write_cdf(path, per_cca):
    with open(path, "w") as out:
        for cca, rs in per_cca.items():
            lat = sorted(x for r in rs for x in r["lat"])
            out.write("# %s\n" % cca)
            n = len(lat)
            # at most ~2000 points a CCA, the tail kept whole
            step = max(1, n // 2000)
            for i, x in enumerate(lat):
                if i % step == 0 or i >= n - 50:
                    out.write("%.3f %.6f\n" % (x, (i + 1) / n))
            out.write("\n\n")


def main(top):
    data, bad = runs(top)
    for (kernel, part, case), per_cca in sorted(data.items()):
        print("== %s, %s, case %s: median of the runs [lowest-highest]" % (
            part, kernel, case))
        rows = []
        for cca, rs in per_cca.items():
            row = [cca, len(rs)]
            for _, nd, fn in COLUMNS[1:]:
                row.append(spread([fn(r) for r in rs], nd))
            rows.append(row)
        # two tables side by side would be too wide: split the columns
        half = 10
        print(table(["cca"] + [c[0] for c in COLUMNS[:half]],
                    [r[:half + 1] for r in rows]))
        print()
        print(table(["cca"] + [c[0] for c in COLUMNS[half:]],
                    [[r[0]] + r[half + 1:] for r in rows]))
        ours = per_cca.get(OURS[part])
        if ours:
            by_rep = {r["rep"]: r for r in ours}
            rrows = []
            for peer in PEERS[part]:
                if peer not in per_cca:
                    continue
                row = ["%s / %s" % (peer, OURS[part])]
                for _, fn in RATIOS:
                    vals = [ratio(fn(p), fn(by_rep[p["rep"]]))
                            for p in per_cca[peer] if p["rep"] in by_rep]
                    row.append(spread(vals, 2))
                rrows.append(row)
            print()
            print("ratios, per repetition, median [lowest-highest]:")
            print(table(["peer / ours"] + [t for t, _ in RATIOS], rrows))
        # goodput far below the bottleneck's rate: the guest's CPU (a host
        # crowded with other guests), not the path, set the pace
        starved = ["%s rep %s (%.1f of %s Mbit/s)" % (
            c, r["rep"], r["goodput"], r["rate_mbit"])
            for c, rs in per_cca.items() for r in rs
            if "rate_mbit" in r and r["goodput"] < 0.5 * f(r, "rate_mbit")]
        if starved:
            print("bulk goodput under half the bottleneck's rate (the "
                  "emulator, not the path, was the limit): " +
                  ", ".join(starved))
        unf = {c: sum(r["unf"] for r in rs) for c, rs in per_cca.items()}
        if any(unf.values()):
            print("RPCs unfinished at the end (counted with their wait): %s" %
                  ", ".join("%s %d" % kv for kv in unf.items() if kv[1]))
        dat = os.path.join(top, "rpc-%s-%s-%s.dat" % (kernel, part, case))
        write_cdf(dat, per_cca)
        print()
    for b in bad:
        print("rpc.py: %s" % b, file=sys.stderr)
    if not data:
        print("rpc.py: no runs of %s under %s" % (" or ".join(PARTS), top),
              file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
